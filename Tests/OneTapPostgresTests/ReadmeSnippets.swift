import Foundation
import OneTap
import OneTapPostgres

// The README's PostgreSQL block, compiled (ReadmeTests in OneTapTests checks the README against it).
struct MyTianyiRefresher: TokenRefresher {
    func refresh(_ token: AccessToken) async throws -> RefreshResponse {
        RefreshResponse(accessToken: Secret("new"), refreshToken: nil, expiresIn: nil)
    }
}

func postgresReadmeSnippet() async throws {
    // README: postgres
    let stores = try await PostgresStores.open(
        try PostgresConfiguration(url: "postgres://onetap:secret@db.internal:5432/onetap", poolSize: 8))
    let vault = TokenVault(store: stores.tokenStore(), refresher: MyTianyiRefresher())
    // hourly, from any instance:
    _ = try await stores.removeExpiredRows(before: Date())
    // at shutdown:
    await stores.close()
    // README: end
    _ = vault
}
