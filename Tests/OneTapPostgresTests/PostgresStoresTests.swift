import Foundation
import OneTap
@testable import OneTapPostgres
import OneTapTesting
import Testing

@Suite(.connectionBudget) struct PostgresStoresTests {
    /// Only leases expired both before the instant and on the database's clock go.
    @Test func removeExpiredRowsRemovesOnlyLeasesWhoseTimePassed() async throws {
        try await TestDatabase.withStores { stores in
            let leases = "\"\(stores.configuration.schema)\".refresh_leases"
            for (account, offset) in [("gone-1", "-2 hours"), ("gone-2", "-1 minute"), ("live", "+1 hour"), ("later", "+2 days")] {
                try await stores.pool.execute(
                    "INSERT INTO \(leases) (account, holder, expires_at_ms) VALUES ($1, 'crashed', (extract(epoch FROM now() + $2::interval) * 1000)::bigint)",
                    [.text(account), .text(offset)])
            }
            let report = try await stores.removeExpiredRows(before: Date().addingTimeInterval(86_400))
            #expect(report == PostgresCleanupReport(refreshLeases: 2))
            #expect(report.description == "removed 2 expired refresh leases, 0 login sessions, 0 SMS counters, 0 SMS code records, 0 login quota counters, 0 exchange-ledger rows, 0 merge journals, 0 app sessions")
            let left = try await stores.pool.execute("SELECT account FROM \(leases) ORDER BY account")
            #expect(left.rows.compactMap { $0.first?.text } == ["later", "live"])
            let early = try await stores.removeExpiredRows(before: Date(timeIntervalSince1970: 0))
            #expect(early.refreshLeases == 0 && early.description.hasPrefix("removed 0 expired refresh leases, "))
        }
    }

    /// Every store's rows go once their time has passed (on the caller's clock), and no others: login
    /// sessions by their expiry, SMS counters and records by their keep-until, ledger rows past the
    /// retention, journals of finished merges 30 days after they finished; more rows than one batch are all
    /// removed.
    @Test func removeExpiredRowsCleansEveryStoresTable() async throws {
        try await TestDatabase.withStores { stores in
            let now = Date(timeIntervalSince1970: 1_796_083_200)
            let machine = LoginSessionMachine()
            let sessions = stores.loginSessionStore()
            let lifetime = machine.sessionLifetime.seconds
            for offset in [-7200.0, -1, 1, 7200] {
                try await sessions.create(machine.start(DeviceSnapshot(sim: .absent), at: now.addingTimeInterval(offset - lifetime), id: .random()).session)
            }
            let sms = stores.smsStore()
            let service = SMSServiceAt(key: ServerKey.random(), sender: ScriptedSMSSender(), store: sms)
            // Three old sends, each from its own address (issue 21: requests without one share one bucket,
            // which would hold back the second): seven counters of their own each (number, the number's lane,
            // number and session, address, /56, /48, and the device "(not given)" at the address), and the global
            // counter, which the send below keeps.
            for index in 0..<3 {
                _ = try await service.send(
                    to: try PhoneNumber(value: 13_800_000_000 + UInt64(index)), context: SMSContext(ip: try IPAddress("203.0.113.\(index + 1)"), session: .testSession),
                    at: now.addingTimeInterval(-3 * 86_400))
            }
            _ = try await service.send(to: try PhoneNumber("13900139000"), context: SMSContext(session: .testSession), at: now)
            let ledger = stores.exchangeLedger(retention: .seconds(3600))
            _ = try await ledger.claim(SHA256.hash(Array("old".utf8)), at: now.addingTimeInterval(-3601))
            _ = try await ledger.claim(SHA256.hash(Array("new".utf8)), at: now.addingTimeInterval(-3599))
            // More expired sessions than one batch holds.
            let table = "\"\(stores.configuration.schema)\".login_sessions"
            try await stores.pool.execute(
                "INSERT INTO \(table) SELECT 'bulk-' || n, 1, $1, '{}' FROM generate_series(1, $2) AS n",
                [.instant(now.addingTimeInterval(-60)), .int64(Int64(PostgresStores.cleanupBatch + 5))])

            // Merge journals around the 30 days a finished merge's journal is kept (``MergeJournalRetentionCase``):
            // one goes, three stay.
            let guests = stores.guestDataStore()
            let journals = try await MergeJournalRetentionCase.write(to: guests, now: now, prefix: "cleanup-guest-")

            let report = try await stores.removeExpiredRows(before: now)
            #expect(report == PostgresCleanupReport(
                refreshLeases: 0, loginSessions: 2 + PostgresStores.cleanupBatch + 5, smsCounters: 21, smsCodes: 3, exchangeLedgerRows: 1, mergeJournals: 1))
            #expect(try await journals.problems(afterASweepOf: guests) == [])
            let kept = try await stores.pool.execute("SELECT count(*) FROM \(table)")
            #expect(kept.first == [.int64(2)])
            #expect(try await ledger.claim(SHA256.hash(Array("new".utf8)), at: now) == .pending)
            #expect(try await ledger.claim(SHA256.hash(Array("old".utf8)), at: now) == nil)
            let again = try await stores.removeExpiredRows(before: now)
            #expect(again == PostgresCleanupReport(refreshLeases: 0))
        }
    }

    /// A compare-and-swap that waited for another writer's lock on its row re-checks the row as READ COMMITTED does,
    /// whatever the role's default: at `serializable` it failed with SQLSTATE 40001, taken as `io`, when the other
    /// writer changed nothing it compares (a review of the PostgreSQL stores).
    @Test func aRacedCompareAndSwapIsDecidedOnTheRowWhateverTheRolesDefault() async throws {
        let url = try await TestDatabase.url()
        let usual = try await PostgresStores.open(try TestDatabase.configuration(url))
        let strictURL = url + (url.contains("?") ? "&" : "?") + "options=-c%20default_transaction_isolation%3Dserializable"
        let strict = PostgresStores(configuration: try TestDatabase.configuration(strictURL, schema: usual.configuration.schema))
        let store = strict.tokenStore()
        let account = AccountID("race")
        let first = try await store.save(Tokens.make(account), replacing: nil, dueAt: Tokens.now)
        let held = try await HeldTransaction.begin(
            try TestDatabase.configuration(url, schema: usual.configuration.schema),
            [("UPDATE \"\(usual.configuration.schema)\".tokens SET due_at_ms = 0 WHERE account = $1", [.text("race")])])
        async let saved = store.save(Tokens.make(account, "A1"), replacing: first, dueAt: Tokens.now)
        try await waitForLockWaiters(usual, running: "tokens SET version")
        try await held.execute("COMMIT")
        await held.release()
        do {
            _ = try await saved
        } catch {
            Issue.record("the save failed: \(error)")
        }
        await strict.close()
        await TestDatabase.dispose(usual)
    }

    @Test func descriptionsNameTheServerWithoutThePassword() async throws {
        let configuration = try PostgresConfiguration(url: "postgres://api:hunter2@db.example/tokens", schema: "tenant_a")
        let stores = PostgresStores(configuration: configuration)
        let store = try concrete(stores.tokenStore(leaseDuration: .seconds(45), lockTimeout: .seconds(10)), as: PostgresTokenStore.self)
        let sessions = try concrete(stores.loginSessionStore(), as: PostgresLoginSessionStore.self)
        let sms = try concrete(stores.smsStore(attempts: 0), as: PostgresSMSStore.self)
        let ledger = try concrete(stores.exchangeLedger(retention: .seconds(3600)), as: PostgresExchangeLedger.self)
        let data = try concrete(stores.guestDataStore(), as: PostgresGuestDataStore.self)
        for text in [
            stores.description, store.description, stores.pool.description, sessions.description, sms.description, ledger.description, data.description,
        ] {
            #expect(text.contains("host=db.example") && text.contains("password=<redacted>") && !text.contains("hunter2"), "\(text)")
        }
        #expect(store.description.hasPrefix("PostgresTokenStore(schema tenant_a, lease 45.0 s, lock timeout 10.0 s, unsealed, PostgresPool("))
        #expect(store.schema == "tenant_a" && sessions.schema == "tenant_a" && sms.schema == "tenant_a" && ledger.schema == "tenant_a")
        #expect(sessions.description.hasPrefix("PostgresLoginSessionStore(schema tenant_a, PostgresPool("))
        #expect(data.description.hasPrefix("PostgresGuestDataStore(schema tenant_a, PostgresPool(") && data.schema == "tenant_a")
        #expect(sms.description.hasPrefix("PostgresSMSStore(schema tenant_a, 1 attempts, PostgresPool(") && sms.attempts == 1)
        #expect(ledger.description.hasPrefix("PostgresExchangeLedger(schema tenant_a, retention 3600.0 s, PostgresPool(") && ledger.retention == .seconds(3600))
        #expect(try concrete(stores.tokenStore(leaseDuration: .milliseconds(1)), as: PostgresTokenStore.self).leaseDuration == .milliseconds(100))
        await stores.close()
    }
}
