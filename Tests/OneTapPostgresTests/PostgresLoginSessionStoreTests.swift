import Foundation
import OneTap
@testable import OneTapPostgres
import OneTapPostgresTestSupport
import OneTapTesting
import Testing

@Suite(.connectionBudget) struct PostgresLoginSessionStoreTests {
    let now = Date(timeIntervalSinceReferenceDate: 786_000_000.25)
    let machine = LoginSessionMachine()

    func started(_ plmn: String = "46000") throws -> LoginSession {
        machine.start(DeviceSnapshot(sim: .present, plmn: try PLMN(plmn)), at: now, id: .random()).session
    }

    func advanced(_ session: LoginSession, _ report: LoginReport = .result(.mobile, code: "200023")) throws -> LoginSession {
        try machine.advance(session, report, version: session.version, at: now.addingTimeInterval(1)).session
    }

    func table(_ stores: PostgresStores) -> String { "\"\(stores.configuration.schema)\".login_sessions" }

    // MARK: The contract

    @Test func conformsToTheStoreContract() async throws {
        try await checkConformance(try await TestDatabase.url(), { $0.loginSessionStore() }) { make in
            try await StoreConformance.check { try await make() }
        }
    }

    /// Two instances (two pools) share the sessions, and of their racing replaces exactly one wins.
    @Test func twoInstancesShareSessionsAndOneReplaceWins() async throws {
        try await TestDatabase.withStores { one in
            let other = PostgresStores(configuration: one.configuration)
            let stores = [one.loginSessionStore(), other.loginSessionStore()]
            let first = try started()
            try await stores[0].create(first)
            #expect(try await stores[1].load(first.id) == first)
            let candidates = try (0..<40).map { try advanced(first, .fault(.mobile, "writer \($0)")) }
            let winners = try await withThrowingTaskGroup(of: Int?.self) { group in
                for (index, candidate) in candidates.enumerated() {
                    group.addTask {
                        do {
                            try await stores[index % 2].replace(candidate, expecting: 1)
                            return index
                        } catch let error as StoreError where error.kind == .conflict {
                            return nil
                        }
                    }
                }
                var winners: [Int] = []
                for try await winner in group { if let winner { winners.append(winner) } }
                return winners
            }
            #expect(winners.count == 1)
            #expect(try await stores[0].load(first.id) == winners.first.map { candidates[$0] })
            await other.close()
        }
    }

    /// What a report carries (a fault's text from the app) is a bound value: quotes, SQL, NUL and
    /// right-to-left marks round-trip, and none of it is ever part of a statement.
    @Test(arguments: ["'; DROP TABLE login_sessions; --", "NUL \u{0} inside", "\u{202E}evil", "用户 🙂", "\\\"", String(repeating: "长", count: 2000)])
    func reportTextRoundTripsAsABoundValue(text: String) async throws {
        let log = StatementLog()
        try await TestDatabase.withStores(observer: log.observer) { stores in
            let store = stores.loginSessionStore()
            let first = try started()
            try await store.create(first)
            let next = try advanced(first, .fault(.mobile, text))
            try await store.replace(next, expecting: 1)
            #expect(try await store.load(first.id) == next)
            // The column is JSON (a NUL travels escaped, as \u0000) with the row's version beside it.
            let stored = try await stores.pool.execute(
                "SELECT json_typeof(session::json), version FROM \(table(stores)) WHERE id = $1", [.text(first.id.text)])
            #expect(stored.first == [.text("object"), .int64(Int64(next.version))])
        }
        #expect(log.statements.allSatisfy { !$0.contains("DROP TABLE login_sessions") && !$0.contains("用户") && !$0.contains("evil") })
    }

    @Test(arguments: [
        ("session = '{\"format\":\"onetap-session/9\"}'", "does not read as a session at format"),
        ("session = 'not json at all'", "does not read as a session"),
        ("version = version + 7", "its JSON is at version 1, its row at version 8"),
    ])
    func aRowOneTapDidNotWriteIsReportedCorruptAndLeftAlone(change: String, reason: String) async throws {
        try await TestDatabase.withStores { stores in
            let store = stores.loginSessionStore()
            let session = try started()
            try await store.create(session)
            try await stores.pool.execute("UPDATE \(table(stores)) SET \(change) WHERE id = $1", [.text(session.id.text)])
            await #expect {
                _ = try await store.load(session.id)
            } throws: { error in
                let error = error as! StoreError
                return error.kind == .corrupt && error.entry == .session(session.id) && error.message.contains(reason) && error.message.contains("left as it is")
            }
            let rows = try await stores.pool.execute("SELECT count(*) FROM \(table(stores))")
            #expect(rows.first == [.int64(1)])
        }
    }

    // MARK: Faults

    /// The server stops while a replace waits on a row another transaction holds: the caller gets a clear
    /// `io` error, the stored session is the previous one, and once the server is back replaces work.
    @Test func theServerStoppingMidReplaceFailsTheCallerAndLosesNothing() async throws {
        let server = try await TestDatabase.privateServer()
        defer { server.remove() }
        let configuration = try TestDatabase.configuration(server.url(), connectTimeout: .seconds(30))
        let stores = try await PostgresStores.open(configuration)
        let store = stores.loginSessionStore()
        let first = try started()
        try await store.create(first)
        let next = try advanced(first)
        let holder = try await HeldTransaction.begin(configuration, [("SELECT id FROM \(table(stores)) WHERE id = $1 FOR UPDATE", [.text(first.id.text)])])
        let replacing = Task { try await store.replace(next, expecting: 1) }
        try await waitForLockWaiters(stores, running: "login_sessions SET version")
        try await server.stop()
        await #expect {
            try await replacing.value
        } throws: { error in
            let error = error as! StoreError
            return error.kind == .io && error.entry == .session(first.id) && error.message.contains("PostgreSQL: cannot replace the session")
                && error.message.contains("connection")
        }
        await holder.release()
        try await server.start()
        #expect(try await store.load(first.id) == first)
        try await store.replace(next, expecting: 1)
        #expect(try await store.load(first.id) == next)
        await stores.close()
    }

    /// A replace held on a row lock past the statement timeout fails with `io` naming the time-out, and
    /// writes nothing.
    @Test func aReplaceHeldPastTheStatementTimeoutFailsAndWritesNothing() async throws {
        let (stores, usual) = try await TestDatabase.timingOutStores(statementTimeout: .seconds(1))
        let store = stores.loginSessionStore()
        let first = try started()
        try await usual.loginSessionStore().create(first)
        let holder = try await HeldTransaction.begin(usual.configuration, [("SELECT id FROM \(table(stores)) WHERE id = $1 FOR UPDATE", [.text(first.id.text)])])
        let started = ContinuousClock.now
        await #expect {
            try await store.replace(try advanced(first), expecting: 1)
        } throws: { error in
            let error = error as! StoreError
            return error.kind == .io && error.message.contains("statement timeout") && error.message.contains("nothing was written")
        }
        #expect(ContinuousClock.now - started < .seconds(30))
        await holder.release()
        #expect(try await usual.loginSessionStore().load(first.id) == first)
        try await usual.loginSessionStore().replace(try advanced(first), expecting: 1)
        await stores.close()
        await TestDatabase.dispose(usual)
    }

    @Test func everyCallFailsWithIOWhileTheDatabaseIsUnreachable() async throws {
        let nowhere = try PostgresConfiguration(url: "postgresql://api:hunter2-pw@/onetap?host=/tmp/onetap-nowhere-\(UInt32.random(in: 0...UInt32.max))")
        let store = PostgresStores(configuration: nowhere).loginSessionStore()
        let session = try started()
        let calls: [@Sendable () async throws -> Void] = [
            { try await store.create(session) }, { _ = try await store.load(session.id) },
            { try await store.replace(try advanced(session), expecting: 1) }, { _ = try await store.removeExpired(before: now, limit: 10) },
        ]
        for call in calls {
            await #expect {
                try await call()
            } throws: { error in
                let error = error as! StoreError
                return error.kind == .io && error.message.contains("connection-failed") && !error.description.contains("hunter2-pw")
            }
        }
    }

    // MARK: Across processes

    /// A login started by one process is advanced by another (the auth server's instances), and of four
    /// processes racing one report exactly one is accepted.
    @Test(.connections(16)) func processesShareSessionsAndOneOfFourRacingReportsIsAccepted() async throws {
        let url = try await TestDatabase.url()
        try await TestDatabase.withStores { stores in
            let schema = stores.configuration.schema
            let starter = try HelperProcess("postgres-session-start", url: url, [schema])
            let startedLine = try #require(await starter.line())
            #expect(await starter.finish() == 0)
            let parts = startedLine.split(separator: " ").map(String.init)
            #expect(parts.count == 2 && parts[1] == "1", "\(startedLine)")
            let id = try LoginSessionID(parts[0])
            let store = stores.loginSessionStore()
            #expect(try await store.load(id)?.version == 1)

            // China Mobile 200023 (retry): another process advances the session to version 2.
            let advancer = try HelperProcess("postgres-session-report", url: url, [schema, id.text, "1", "mobile", "200023"])
            #expect(await advancer.line() == "ready")
            advancer.send("go")
            let advanced = await advancer.line()
            #expect(await advancer.finish() == 0)
            #expect(advanced?.hasPrefix("accepted 2 ") == true, "\(advanced ?? "nothing")")
            #expect(try await store.load(id)?.version == 2)

            // Four processes report for version 2 at once.
            let racers = try (0..<4).map { _ in try HelperProcess("postgres-session-report", url: url, [schema, id.text, "2", "mobile", "200023"]) }
            for racer in racers { #expect(await racer.line() == "ready") }
            for racer in racers { racer.send("go") }
            var answers: [String] = []
            for racer in racers { answers.append(await racer.line() ?? "nothing") }
            for racer in racers { #expect(await racer.finish() == 0) }
            #expect(answers.filter { $0.hasPrefix("accepted 3 ") }.count == 1, "\(answers)")
            #expect(answers.filter { $0 == "rejected stale-version" }.count == 3, "\(answers)")
            #expect(try await store.load(id)?.version == 3)
        }
    }
}
