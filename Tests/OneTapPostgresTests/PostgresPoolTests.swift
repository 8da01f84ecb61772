import Foundation
import OneTap
@testable import OneTapPostgres
import OneTapPostgresTestSupport
import OneTapTesting
import Testing

@Suite(.connectionBudget) struct PostgresPoolTests {
    func pool(poolSize: Int, connectTimeout: Duration = .seconds(10), clock: any WallClock = SystemClock(), url: String? = nil) async throws -> PostgresPool {
        var address = url
        if address == nil { address = try await TestDatabase.url() }
        let configuration = try TestDatabase.configuration(address!, poolSize: poolSize, connectTimeout: connectTimeout)
        return PostgresPool(configuration: configuration, clock: clock)
    }

    @Test func neverOpensMoreThanItsSize() async throws {
        let pool = try await pool(poolSize: 3)
        let answers = try await withThrowingTaskGroup(of: Int64?.self) { group in
            for index in 0..<20 {
                group.addTask { try await pool.execute("SELECT $1::bigint FROM pg_sleep(0.02)", [.int64(Int64(index))]).first?.first?.int64 }
            }
            var answers: [Int64] = []
            for try await answer in group { answers.append(answer ?? -1) }
            return answers
        }
        #expect(answers.sorted() == (0..<20).map(Int64.init))
        let statistics = await pool.statistics
        #expect(statistics.peak == 3)
        #expect(statistics.opened == 3)
        #expect(statistics.open == 3 && statistics.idle == 3 && statistics.waiting == 0)
        await pool.close()
        #expect(await pool.statistics.open == 0)
    }

    @Test func callersWaitInLineFirstComeFirstServed() async throws {
        let pool = try await pool(poolSize: 1)
        let gate = Gate()
        let order = LockedValue<[Int]>([])
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await pool.withConnection { _ in await gate.wait() } }
            try await waitUntil { await pool.statistics.open == 1 }
            for index in 1...3 {
                group.addTask { try await pool.withConnection { _ in order.withLock { $0.append(index) } } }
                try await waitUntil { await pool.statistics.waiting == index }
            }
            gate.open()
            try await group.waitForAll()
        }
        #expect(order.withLock { $0 } == [1, 2, 3])
        await pool.close()
    }

    /// The wait for a free connection is bounded by the connect timeout, on the injected clock.
    @Test func aCallerWaitsAtMostTheConnectTimeout() async throws {
        let clock = FakeClock()
        let pool = try await pool(poolSize: 1, connectTimeout: .seconds(2), clock: clock)
        let gate = Gate()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await pool.withConnection { _ in await gate.wait() } }
            try await waitUntil { await pool.statistics.open == 1 }
            group.addTask {
                await #expect {
                    try await pool.execute("SELECT 1")
                } throws: { error in
                    let error = error as! PostgresError
                    return error.kind == .timeout && error.message.contains("no connection came free within the connect timeout of 2.0 s")
                }
            }
            await clock.waitForSleepers(1)
            clock.advance(by: .seconds(2))
            try await waitUntil { await pool.statistics.waiting == 0 }
            gate.open()
            try await group.waitForAll()
        }
        #expect(try await pool.execute("SELECT 2").first == [.int64(2)])
        await pool.close()
    }

    /// A cancelled caller leaves the line, and the connection goes to the next. An attacker's read of the PostgreSQL
    /// layer: a caller leaving the line scanned it whole under the pool's one lock, and every hand-off shifted it:
    /// quadratic in a flood of callers on a saturated pool. Leaving is O(1) now, the line compacted once more than
    /// half of it left: 500 callers that left leave at most 64 entries behind.
    @Test(arguments: [1, 500])
    func cancelledCallersLeaveTheLineCompact(callers: Int) async throws {
        let pool = try await pool(poolSize: 1)
        let gate = Gate()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await pool.withConnection { _ in await gate.wait() } }
            try await waitUntil { await pool.statistics.open == 1 }
            try await withThrowingTaskGroup(of: Void.self) { waiting in
                for _ in 0..<callers {
                    waiting.addTask { await #expect(throws: CancellationError.self) { try await pool.execute("SELECT 1") } }
                }
                try await waitUntil { await pool.statistics.waiting == callers }
                waiting.cancelAll()
                try await waiting.waitForAll()
            }
            try await waitUntil { await pool.statistics.waiting == 0 }
            #expect(await pool.statistics.lineEntries <= 64)
            gate.open()
            try await group.waitForAll()
        }
        #expect(try await pool.execute("SELECT 3").first == [.int64(3)])
        #expect(await pool.statistics.opened == 1)
        await pool.close()
    }

    @Test func aClosedPoolRefusesCalls() async throws {
        let pool = try await pool(poolSize: 2)
        try await pool.execute("SELECT 1")
        await pool.close()
        await #expect {
            try await pool.execute("SELECT 1")
        } throws: { error in
            (error as! PostgresError).kind == .closed
        }
    }

    /// The server restarts under idle connections: the first call after the stop fails clearly, and
    /// once the server is back the pool replaces its dead connections by itself.
    @Test func reconnectsAfterTheServerRestarts() async throws {
        let server = try await TestDatabase.privateServer()
        defer { server.remove() }
        // Two statements of half a second each, at once, so the pool opens two connections however late a loaded
        // machine starts the second; a refused connection to the stopped server still fails at once.
        let pool = try await pool(poolSize: 2, connectTimeout: .seconds(30), url: server.url())
        async let one = pool.execute("SELECT 1 FROM pg_sleep(0.5)")
        async let two = pool.execute("SELECT 2 FROM pg_sleep(0.5)")
        _ = try await (one, two)
        #expect(await pool.statistics.opened == 2)
        try await server.stop()
        await #expect {
            try await pool.execute("SELECT 1")
        } throws: { error in
            let error = error as! PostgresError
            return error.kind == .connectionFailed && error.message.contains(server.directory)
        }
        try await server.start()
        #expect(try await pool.execute("SELECT 4").first == [.int64(4)])
        #expect(try await pool.execute("SELECT 5").first == [.int64(5)])
        let statistics = await pool.statistics
        #expect(statistics.opened == 3 && statistics.open == 1)
        await pool.close()
    }

    /// The server stops while a statement runs: that call fails with `connection-lost`; after the
    /// restart the next call works.
    @Test func aStatementCutOffByTheServerStoppingFailsAndTheNextWorks() async throws {
        let server = try await TestDatabase.privateServer()
        defer { server.remove() }
        let pool = try await pool(poolSize: 2, url: server.url())
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                await #expect {
                    try await pool.execute("SELECT pg_sleep(30)")
                } throws: { error in
                    let error = error as! PostgresError
                    return error.kind == .connectionLost
                }
            }
            try await waitUntil {
                let running = try await pool.execute("SELECT count(*) FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(30)'")
                return running.first == [.int64(1)]
            }
            try await server.stop()
            try await group.waitForAll()
        }
        try await server.start()
        #expect(try await pool.execute("SELECT 6").first == [.int64(6)])
        await pool.close()
    }

    /// A transaction the server refused because a prepared statement in it no longer fits (a table changed
    /// under its plan: 0A000) runs again, once the statement is forgotten; with one attempt the refusal is
    /// the caller's, and says a retry would do.
    @Test func aTransactionRefusedForAStalePreparedStatementRunsAgain() async throws {
        let pool = try await pool(poolSize: 1)
        let table = "pg_temp.changing"  // the pool's one connection's own
        try await pool.execute("CREATE TEMPORARY TABLE changing (a bigint)")
        let everything = "SELECT * FROM \(table)"
        let runs = LockedValue(0)
        func read(attempts: Int) async throws -> [String] {
            try await pool.transaction(attempts: attempts) { connection in
                runs.withLock { $0 += 1 }
                return try await connection.execute(everything).columns
            }
        }
        for _ in 0..<3 { #expect(try await read(attempts: 2) == ["a"]) }  // prepared from its second run
        try await pool.execute("ALTER TABLE \(table) ADD COLUMN b bigint")
        runs.withLock { $0 = 0 }
        #expect(try await read(attempts: 2) == ["a", "b"])
        #expect(runs.withLock { $0 } == 2, "refused inside the first transaction, run again in a second")
        for _ in 0..<2 { _ = try await read(attempts: 1) }  // prepared again, then run by name
        try await pool.execute("ALTER TABLE \(table) ADD COLUMN c bigint")
        await #expect {
            _ = try await read(attempts: 1)
        } throws: { error in
            let error = error as! PostgresError
            return error.sqlState == "0A000" && error.asksForARetry
        }
        #expect(try await read(attempts: 1) == ["a", "b", "c"])
        await pool.close()
    }
}
