import Foundation
import OneTap
import OneTapPostgres

// The README's PostgreSQL block, compiled (ReadmeTests in OneTapTests checks the README against it).
struct MyTianyiRefresher: TokenRefresher {
    func refresh(_ token: AccessToken) async throws -> RefreshResponse {
        RefreshResponse(accessToken: Secret("new"), refreshToken: nil, expiresIn: nil)
    }
}

struct MyCarrierExchange: TokenExchangeProvider {
    func exchange(_ credential: CarrierCredential) async throws -> ExchangeResponse {
        ExchangeResponse(code: "0", phoneNumber: try PhoneNumber("13800138000"))
    }
}

struct MyCaptcha: CaptchaVerifier {
    func verify(_ token: Secret, context: SMSContext) async throws -> Bool { token.reveal() == "solved" }
}

struct AliyunSMS: SMSSender {
    func send(_ message: SMSMessage) async throws {}
}

func postgresReadmeSnippet() async throws {
    // README: postgres
    let stores = try await PostgresStores.open(
        try PostgresConfiguration(url: "postgres://onetap:secret@db.internal:5432/onetap", poolSize: 8))
    let keys = try ServerKeyRing(parsing: Secret(ProcessInfo.processInfo.environment["ONETAP_SERVER_KEYS"] ?? ""))
    let vault = TokenVault(store: stores.tokenStore(), refresher: MyTianyiRefresher())
    let logins = LoginServer(
        store: stores.loginSessionStore(),
        exchange: ExchangeGuard(provider: MyCarrierExchange(), ledger: stores.exchangeLedger()),
        sms: SMSCodeService(keys: keys, sender: AliyunSMS(), captcha: MyCaptcha(), store: stores.smsStore()),
        quotas: LoginQuotas(store: stores.loginQuotaStore()))
    let sessions = AppSessions(keys: keys, store: stores.appSessionStore())
    let merger = GuestMerger(store: stores.guestDataStore())
    // run() it beside vault.run() in your server's task group: every minute, what expired goes
    let sweeper = ExpiredRecordSweeper(stores: stores.sweptStores())
    // at shutdown:
    await stores.close()
    // README: end
    _ = (vault, logins, sessions, merger, sweeper)
}
