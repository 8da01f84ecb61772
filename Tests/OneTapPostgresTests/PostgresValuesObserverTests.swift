import Foundation
import OneTap
import OneTapPostgres
import Testing

/// The pool's values observer (what the benchmarks replay a login's statements from): it sees each statement
/// with its values as sent, except `bytea`, which it sees zero-filled: so no token, sealed, hashed or plain,
/// ever reaches it.
@Suite(.connectionBudget) struct PostgresValuesObserverTests {
    /// Statements and values seen.
    final class Seen: Sendable {
        let entries = LockedValue<[(sql: String, values: [PostgresValue])]>([])
        var observer: @Sendable (String, [PostgresValue]) -> Void { { [entries] sql, values in entries.withLock { $0.append((sql, values)) } } }
    }

    @Test func theObserverSeesTheValuesButEveryByteaZeroFilled() async throws {
        let seen = Seen()
        let url = try await TestDatabase.url()
        let stores = PostgresStores(configuration: try TestDatabase.configuration(url), valuesObserver: seen.observer)
        let account: AccountID = "observer-account"
        let access = "observer-access-token-0123456789"
        let refresh = "observer-refresh-token-9876543210"
        do {
            try await stores.migrate()
            _ = try await stores.tokenStore().save(Tokens.make(account, access, refresh: refresh), replacing: nil, dueAt: Tokens.now)
            // A ledger claim: the token's digest travels as bytea.
            let digest = SHA256Digest(bytes: [UInt8](repeating: 7, count: 32))
            _ = try await stores.exchangeLedger().claim(digest, for: LoginSessionID.random(), at: Tokens.now)
        } catch {
            await TestDatabase.dispose(stores)
            throw error
        }
        await TestDatabase.dispose(stores)

        let entries = seen.entries.withLock { $0 }
        // The token's save: the account as text, the instants as sent (1_796_083_200 s in milliseconds).
        let save = try #require(entries.first { $0.sql.contains(".tokens") && $0.values.contains(.text("observer-account")) })
        #expect(save.values.contains(.int64(1_796_083_200_000)))
        // Its tokens were bytea: seen as zeros of their length (32 and 33 bytes), never their bytes.
        let byteas = save.values.compactMap(\.bytes)
        #expect(byteas.map(\.count).sorted() == [32, 33])
        #expect(byteas.allSatisfy { $0.allSatisfy { $0 == 0 } })
        // The ledger's claim: its digest, 32 zero bytes.
        let claim = try #require(entries.first { $0.sql.contains("exchange_ledger") && !$0.values.isEmpty })
        #expect(claim.values.first == .bytes([UInt8](repeating: 0, count: 32)))
        // No value of any statement holds a token's text or bytes.
        for entry in entries {
            for value in entry.values {
                let text = value.text ?? value.bytes.map { String(decoding: $0, as: UTF8.self) } ?? ""
                #expect(!text.contains("observer-access") && !text.contains("observer-refresh"), "a token reached the observer: \(entry.sql)")
            }
        }
    }
}
