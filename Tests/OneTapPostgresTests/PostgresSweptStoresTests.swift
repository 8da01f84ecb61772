import Foundation
import OneTap
@testable import OneTapPostgres
import OneTapPostgresTestSupport
import OneTapTesting
import Testing

/// Issue 21: PostgreSQL's expired rows went only when someone ran `removeExpiredRows(before:)` (`onetap db
/// cleanup`); `PostgresStores.sweptStores()` hands every table to an ``ExpiredRecordSweeper``, which removes
/// them on a schedule, in batches, leaving live rows.
@Suite(.connectionBudget) struct PostgresSweptStoresTests {
    let clock = FakeClock()
    static let mobileSIM = DeviceSnapshot(sim: .present, plmn: try! PLMN("46000"))

    @Test func theSweeperRemovesExpiredRowsAndKeepsLiveOnes() async throws {
        try await TestDatabase.withStores { stores in
            #expect(stores.sweptStores().map(\.name) == ["refresh-leases", "login-sessions", "sms", "login-quotas", "exchange-ledger", "merge-journals", "app-sessions"])
            let sessions = stores.loginSessionStore()
            let ledger = PostgresExchangeLedger(pool: stores.pool, retention: .seconds(60))   // under the public door's hour
            let flood = try LoginFlood(now: clock.now())
            let server = LoginServer(
                store: sessions, exchange: ExchangeGuard(provider: FloodCarrier(), ledger: ledger, clock: clock), clock: clock, events: DiscardingEventSink())
            // Three logins that end in the exchange (a session row and a ledger row each) now.
            for user in 1...3 {
                let (done, problem) = await flood.honestLogin(server, user: user)
                #expect(done != nil && problem == nil, "\(problem ?? "")")
            }
            // Eleven minutes and a second later the three sessions expired and the minute they are kept past
            // their end passed (their exchanges' answers are no longer taken), and their tokens were
            // forgotten; one more login now stays.
            clock.advance(by: .seconds(661))
            let (live, problem) = await flood.honestLogin(server, user: 4)
            #expect(live != nil && problem == nil, "\(problem ?? "")")

            let events = RecordingEventSink()
            let sweeper = ExpiredRecordSweeper(stores: stores.sweptStores(), interval: .seconds(60), batchSize: 2, clock: clock, events: events)
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await sweeper.run() }
                await clock.waitForSleepers(7)
                group.cancelAll()
            }
            let swept = events.recorded.compactMap { event -> String? in
                guard case .store(.swept(let store, let removed)) = event.payload else { return nil }
                return "\(store) \(removed)"
            }.sorted()
            #expect(swept == ["exchange-ledger 3", "login-sessions 3"])
            #expect(!events.recorded.contains { $0.name == "sweep-failed" })
            let schema = "\"\(stores.configuration.schema)\""
            #expect(try await stores.pool.execute("SELECT count(*)::bigint FROM \(schema).login_sessions").first == [.int64(1)])
            #expect(try await stores.pool.execute("SELECT count(*)::bigint FROM \(schema).exchange_ledger").first == [.int64(1)])
            #expect(try await sessions.load(try #require(live).session.id) == live?.session)
        }
    }

    /// A sweeper on an instance whose clock runs two hours ahead deletes only what the database's clock
    /// calls expired: a login another instance started a minute ago stays; one that expired an hour ago goes.
    @Test func aSweeperWhoseClockIsAheadKeepsWhatTheDatabasesClockCallsLive() async throws {
        try await TestDatabase.withStores { stores in
            let databaseNow = try #require(try await stores.pool.execute("SELECT \(PostgresMigrations.databaseNow)").first?.first?.int64)
            let now = Date(timeIntervalSince1970: Double(databaseNow) / 1000)
            let sessions = stores.loginSessionStore()
            func login(at instant: Date) async throws -> LoginSessionID {
                let session = LoginSessionMachine().start(Self.mobileSIM, at: instant, id: .random()).session
                try await sessions.create(session)
                return session.id
            }
            let live = try await login(at: now.addingTimeInterval(-60))
            let expired = try await login(at: now.addingTimeInterval(-3600))
            let ahead = FakeClock(now: now.addingTimeInterval(7200))
            let removed = try await sessions.removeExpired(before: ahead.now(), limit: 10)
            #expect(removed == 1)
            #expect(try await sessions.load(live) != nil)
            #expect(try await sessions.load(expired) == nil)
        }
    }

    /// An attacker's read: three of the seven swept tables (refresh leases, the exchange ledger, merge journals) failed
    /// with the adapter's own error type, not ``StoreError`` as every store's failures are, so an integrator's sweeper
    /// catching `StoreError` missed them, and `sweep-failed` said less of what failed.
    @Test func everySweptTableFailsWithAStoreError() async throws {
        try await TestDatabase.withStores { stores in
            // Stores of their own over the same schema, closed: the test's own stay open to drop the schema after.
            let closed = PostgresStores(configuration: stores.configuration)
            let swept = closed.sweptStores()
            await closed.close()
            for store in swept {
                do {
                    _ = try await store.removeExpired(Date(), 10)
                    Issue.record("\(store.name): removed rows through a closed pool")
                } catch let error as StoreError {
                    #expect(error.kind == .io, "\(store.name): \(error)")
                } catch {
                    Issue.record("\(store.name) failed with \(type(of: error)), not StoreError: \(error)")
                }
            }
        }
    }

    /// Each sweep statement finds its rows through the table's expiry index, bounded by it: the database's
    /// clock is read once per statement (a sub-select), not per row, which would make the bound a filter and
    /// every sweep's last batch a read of every live row.
    @Test func sweepStatementsUseTheExpiryIndex() async throws {
        try await TestDatabase.withStores { stores in
            let schema = PostgresIdentifier.quoted(stores.configuration.schema)
            let statements = [
                ("login_sessions_expiry", "expires_at_ms", PostgresExpiredRows.delete(from: "\(schema).login_sessions", key: "id", before: "expires_at_ms")),
                ("app_sessions_expiry", "expires_at_ms", PostgresExpiredRows.delete(from: "\(schema).app_sessions", key: "id", before: "expires_at_ms")),
                ("sms_counters_keep_until", "keep_until_ms", PostgresExpiredRows.delete(from: "\(schema).sms_counters", key: "counter", before: "keep_until_ms")),
            ]
            try await stores.pool.withConnection { connection in
                try await connection.execute("SET enable_seqscan = off")
                for (index, column, statement) in statements {
                    let plan = try await connection.execute("EXPLAIN " + statement.replacingOccurrences(of: "$1", with: "0").replacingOccurrences(of: "$2", with: "10"))
                    let text = plan.rows.compactMap { $0.first?.text }.joined(separator: "\n")
                    // The bound is the index's condition (the scan stops at the first live row), not a filter on every row it reads.
                    #expect(text.contains("Index Scan using \(index)") && text.contains("Index Cond: (\(column) <"), "\(index):\n\(text)")
                    #expect(!text.contains("Filter: (\(column) <"), "\(index):\n\(text)")
                }
                try await connection.execute("RESET enable_seqscan")
            }
        }
    }

    /// The review of the paged reconciliation: a page was ordered by an expression no index holds, so each page read
    /// every exchange to reconcile again (quadratic in a ledger strangers left full of unknown exchanges). Each state's
    /// part of a page is an index scan along its partial index from the cursor on.
    @Test func aReconciliationPageReadsAlongTheLedgersIndexes() async throws {
        try await TestDatabase.withStores { stores in
            let schema = PostgresIdentifier.quoted(stores.configuration.schema)
            let statement = PostgresExchangeLedger.Statements(schema).unknown
                .replacingOccurrences(of: "$1", with: "0").replacingOccurrences(of: "$2", with: "10")
                .replacingOccurrences(of: "$3", with: "5").replacingOccurrences(of: "$4", with: "'\\x'::bytea").replacingOccurrences(of: "$5", with: "1000")
            try await stores.pool.withConnection { connection in
                try await connection.execute("SET enable_seqscan = off")
                let plan = try await connection.execute("EXPLAIN " + statement)
                let text = plan.rows.compactMap { $0.first?.text }.joined(separator: "\n")
                for (index, column) in [("exchange_ledger_unknown", "settled_at_ms"), ("exchange_ledger_pending", "claimed_at_ms")] {
                    #expect(text.contains("Index Scan using \(index)") && text.contains("Index Cond: ((\(column)"), "\(index):\n\(text)")
                }
                try await connection.execute("RESET enable_seqscan")
            }
        }
    }
}
