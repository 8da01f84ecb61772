import Foundation
import OneTap
@testable import OneTapPostgres
import OneTapPostgresTestSupport
import OneTapTesting
import Testing

@Suite(.connectionBudget) struct PostgresAppSessionStoreTests {
    let now = Date(timeIntervalSinceReferenceDate: 786_000_000.25)
    let rules = AppSessionRules(policy: .standard, keys: try! ServerKeyRing([(try KeyID("pg"), try ServerKey(bytes: Array(repeating: 9, count: 32)))]))

    func opened(at instant: Date? = nil) -> AppSessionRecord {
        rules.open(id: .random(), guest: .random(), secret: systemRandomBytes(32), at: instant ?? now).record
    }

    func table(_ stores: PostgresStores) -> String { "\"\(stores.configuration.schema)\".app_sessions" }

    // MARK: The contract

    @Test func conformsToTheStoreContract() async throws {
        try await checkConformance(try await TestDatabase.url(), { $0.appSessionStore() }) { make in
            try await StoreConformance.check { try await make() }
        }
    }

    /// The columns beside the JSON are the record's: the account (null for a guest), the revocation and
    /// the expiry in milliseconds; the JSON is the record's own.
    @Test func theColumnsCopyTheRecord() async throws {
        try await TestDatabase.withStores { stores in
            let store = stores.appSessionStore()
            let guest = opened()
            try await store.create(guest)
            func row() async throws -> [PostgresValue]? {
                try await stores.pool.execute(
                    "SELECT version, account, revoked_at_ms, expires_at_ms, json_typeof(record::json) FROM \(table(stores)) WHERE id = $1",
                    [.text(guest.id.text)]
                ).first
            }
            #expect(try await row() == [.int64(1), .null, .null, .int64(guest.expiresAt.millisecondsSince1970), .text("object")])
            let login = rules.login(guest, account: "账户 7", hint: LastLoginHint(flow: .sms, number: try PhoneNumber("13900139000"), at: now), secret: systemRandomBytes(32), at: now.addingTimeInterval(10)).record
            try await store.replace(login, expecting: 1)
            #expect(try await row() == [.int64(2), .text("账户 7"), .null, .int64(login.expiresAt.millisecondsSince1970), .text("object")])
            #expect(try await store.sessions(of: "账户 7") == [guest.id])
            let revoked = rules.revoke(login, .logoutEverywhere, at: now.addingTimeInterval(20.0004))
            try await store.replace(revoked, expecting: 2)
            // Revoked: kept until the access tokens issued before are out (2 h).
            #expect(try await row() == [.int64(3), .text("账户 7"), .int64(now.addingTimeInterval(20).millisecondsSince1970), .int64(now.addingTimeInterval(7_220).millisecondsSince1970), .text("object")])
            #expect(try await store.sessions(of: "账户 7").isEmpty)
            #expect(try await store.load(guest.id) == revoked)
        }
    }

    /// Migration 8's table: an account's live sessions, the expired ones and (migration 15) the pending merges are
    /// found through their indexes (the planner told not to scan the table).
    @Test func theQueriesUseTheirIndexes() async throws {
        try await TestDatabase.withStores { stores in
            let indexes = try await stores.pool.execute(
                "SELECT indexname, indexdef FROM pg_catalog.pg_indexes WHERE schemaname = $1 AND tablename = 'app_sessions' ORDER BY indexname",
                [.text(stores.configuration.schema)]
            ).rows
            #expect(indexes.map { $0.first?.text } == ["app_sessions_account", "app_sessions_expiry", "app_sessions_pending_merge", "app_sessions_pkey"])
            #expect(indexes.first?.last?.text?.hasSuffix("USING btree (account) WHERE ((account IS NOT NULL) AND (revoked_at_ms IS NULL))") == true)
            let held = try await HeldTransaction.begin(stores.configuration, [("SET LOCAL enable_seqscan = off", [])])
            func plan(_ query: String) async throws -> String {
                try await held.execute("EXPLAIN " + query).rows.compactMap { $0.first?.text }.joined(separator: "\n")
            }
            #expect(try await plan("SELECT id FROM \(table(stores)) WHERE account = '42' AND revoked_at_ms IS NULL").contains("app_sessions_account"))
            #expect(try await plan("SELECT id FROM \(table(stores)) WHERE expires_at_ms < 5 ORDER BY expires_at_ms LIMIT 10").contains("app_sessions_expiry"))
            #expect(try await plan(
                "SELECT id FROM \(table(stores)) WHERE \(PostgresMigrations.pendingMerge) AND id > '' AND id ~ '^[A-Za-z0-9_-]{22}$' ORDER BY id LIMIT 100"
            ).contains("app_sessions_pending_merge"))
            await held.release()
        }
    }

    @Test(arguments: [
        (#"record = '{"format":"onetap-app-session/9"}'"#, "does not read as an app session at format"),
        ("record = 'not json at all'", "does not read as an app session"),
        (#"record = replace(record, '"current":', '"kurrent":')"#, "does not read as an app session at current"),
        (#"record = replace(record, '"ancestors":[]', '"ancestors":[{"kid":"pg"}]')"#, "does not read as an app session at ancestors.[0].digest"),
        ("version = version + 7", "its JSON is at version 1, its row at version 8"),
    ])
    func aRowOneTapDidNotWriteIsReportedCorruptAndLeftAlone(change: String, reason: String) async throws {
        try await TestDatabase.withStores { stores in
            let store = stores.appSessionStore()
            let record = opened()
            try await store.create(record)
            try await stores.pool.execute("UPDATE \(table(stores)) SET \(change) WHERE id = $1", [.text(record.id.text)])
            await #expect {
                _ = try await store.load(record.id)
            } throws: { error in
                guard let error = error as? StoreError else { return false }
                return error.kind == .corrupt && error.entry == .appSession(record.id) && error.message.contains(reason) && error.message.contains("left as it is")
            }
            let rows = try await stores.pool.execute("SELECT count(*) FROM \(table(stores))")
            #expect(rows.first == [.int64(1)])
        }
    }

    /// A row whose refresh-token digest was garbled is `corrupt`, and its error names the member at fault
    /// (its key path) but quotes no byte of the digest: an error message never carries a row's value.
    @Test func aCorruptRowsErrorNamesTheMemberAndQuotesNoDigest() async throws {
        try await TestDatabase.withStores { stores in
            let store = stores.appSessionStore()
            let record = opened()
            try await store.create(record)
            let digest = record.current.digest.hex
            let garbled = String(digest.dropLast()) + "Z"
            try await stores.pool.execute(
                "UPDATE \(table(stores)) SET record = replace(record, $2, $3) WHERE id = $1", [.text(record.id.text), .text(digest), .text(garbled)]
            )
            await #expect {
                _ = try await store.load(record.id)
            } throws: { error in
                guard let error = error as? StoreError else { return false }
                let text = "\(error) \(error.message)"
                return error.kind == .corrupt && error.message.contains("does not read as an app session at current.digest")
                    && !text.contains(String(digest.prefix(12))) && !text.contains(String(garbled.suffix(12)))
            }
        }
    }

    /// The cleanup every instance runs removes app sessions whose refresh token expired before the cut-off
    /// (revoked ones too), to the millisecond, and reports them.
    @Test func cleanupRemovesExpiredAppSessions() async throws {
        try await TestDatabase.withStores { stores in
            let store = stores.appSessionStore()
            let cutoff = Date(timeIntervalSince1970: 1_796_083_200.250)
            let lifetime = rules.policy.refreshLifetime.seconds
            let expired = opened(at: cutoff.addingTimeInterval(-0.001 - lifetime))
            let revoked = opened(at: cutoff.addingTimeInterval(-60 - lifetime))
            let kept = opened(at: cutoff.addingTimeInterval(-lifetime))
            for record in [expired, revoked, kept] { try await store.create(record) }
            try await store.replace(rules.revoke(revoked, .reuse, at: cutoff.addingTimeInterval(-30)), expecting: 1)
            let report = try await stores.removeExpiredRows(before: cutoff)
            #expect(report.appSessions == 2)
            #expect(report.description.hasSuffix(", 2 app sessions"))
            #expect(try await store.load(expired.id) == nil)
            #expect(try await store.load(revoked.id) == nil)
            #expect(try await store.load(kept.id) == kept, "a session expiring at the cut-off is kept")
            #expect(try await stores.removeExpiredRows(before: cutoff).appSessions == 0)
            #expect(try await stores.removeExpiredRows(before: cutoff.addingTimeInterval(0.001)).appSessions == 1)
        }
    }

    // MARK: Faults

    /// A refresh whose compare-and-swap is held on a row lock past the statement timeout fails with `io`
    /// naming the time-out, and writes nothing: the token still rotates afterwards.
    @Test func aRefreshHeldPastTheStatementTimeoutFailsAndWritesNothing() async throws {
        let (stores, usual) = try await TestDatabase.timingOutStores(statementTimeout: .seconds(1))
        let keys = rules.keys
        let clock = FakeClock(now: now)
        let grant = try await AppSessions(keys: keys, store: usual.appSessionStore(), clock: clock, events: DiscardingEventSink()).open()
        let opened = try #require(try await usual.appSessionStore().load(grant.session))
        let holder = try await HeldTransaction.begin(usual.configuration, [("SELECT id FROM \(table(usual)) WHERE id = $1 FOR UPDATE", [.text(grant.session.text)])])
        let sessions = AppSessions(keys: keys, store: stores.appSessionStore(), clock: clock, events: DiscardingEventSink())
        await #expect {
            _ = try await sessions.refresh(grant.refreshToken)
        } throws: { error in
            guard let error = error as? StoreError else { return false }
            return error.kind == .io && error.entry == .appSession(grant.session) && error.message.contains("statement timeout")
                && error.message.contains("nothing was written") && !error.description.contains(grant.refreshToken.reveal())
        }
        await holder.release()
        #expect(try await usual.appSessionStore().load(grant.session) == opened)
        let next = try await AppSessions(keys: keys, store: usual.appSessionStore(), clock: clock, events: DiscardingEventSink()).refresh(grant.refreshToken)
        #expect(next.refreshToken != grant.refreshToken)
        await stores.close()
        await TestDatabase.dispose(usual)
    }

    @Test func everyCallFailsWithIOWhileTheDatabaseIsUnreachable() async throws {
        let nowhere = try PostgresConfiguration(url: "postgresql://api:hunter2-pw@/onetap?host=/tmp/onetap-nowhere-\(UInt32.random(in: 0...UInt32.max))")
        let store = PostgresStores(configuration: nowhere).appSessionStore()
        let record = opened()
        let revoked = rules.revoke(record, .logout, at: now)
        let now = self.now
        let calls: [@Sendable () async throws -> Void] = [
            { try await store.create(record) }, { _ = try await store.load(record.id) },
            { try await store.replace(revoked, expecting: 1) },
            { _ = try await store.sessions(of: "42") }, { _ = try await store.removeExpired(before: now, limit: 10) },
        ]
        for call in calls {
            await #expect {
                try await call()
            } throws: { error in
                guard let error = error as? StoreError else { return false }
                return error.kind == .io && error.message.contains("connection-failed") && !error.description.contains("hunter2-pw")
            }
        }
    }
}
