import OneTap
@testable import OneTapPostgres
import Testing

/// What a connection sends for a statement, as a value (no server needed).
@Suite struct PostgresStatementCacheTests {
    let select = "SELECT value FROM t WHERE key = $1"

    @Test func aStatementIsPreparedOnItsSecondRunAndRunByNameAfter() {
        var cache = PostgresStatementCache(prefix: "p_")
        #expect(cache.plan(select, types: [25]) == .unprepared)
        #expect(cache.plan(select, types: [25]) == .prepare("p_1"))
        cache.prepared(select, types: [25], name: "p_1")
        #expect(cache.plan(select, types: [25]) == .prepared("p_1"))
        #expect(cache.plan(select, types: [25]) == .prepared("p_1"))
        #expect(cache.count == 1)
    }

    @Test func aPrepareTheServerRefusedIsAskedForAgainUnderANewName() {
        var cache = PostgresStatementCache(prefix: "p_")
        _ = cache.plan(select, types: [25])
        #expect(cache.plan(select, types: [25]) == .prepare("p_1"))
        // not reported as prepared: the server refused it
        #expect(cache.plan(select, types: [25]) == .prepare("p_2"))
        #expect(cache.count == 0)
    }

    @Test func theSameTextWithOtherParameterTypesIsAnotherStatement() {
        var cache = PostgresStatementCache(prefix: "p_")
        for _ in 0..<2 { _ = cache.plan(select, types: [25]) }
        cache.prepared(select, types: [25], name: "p_1")
        // A NULL travels untyped (0): the server would infer a type the prepared one need not share.
        #expect(cache.plan(select, types: [0]) == .unprepared)
        #expect(cache.plan(select, types: [0]) == .prepare("p_2"))
        #expect(cache.plan(select, types: [20]) == .unprepared)
        #expect(cache.plan(select, types: [25]) == .prepared("p_1"))
    }

    @Test func forgottenStatementsCountAgainstTheBoundForTheServerStillHoldsThem() {
        var cache = PostgresStatementCache(prefix: "p_")
        let capacity = PostgresStatementCache.capacity
        for round in 0..<capacity {
            _ = cache.plan(select, types: [])
            guard case .prepare(let name) = cache.plan(select, types: []) else {
                Issue.record("round \(round): not prepared")
                return
            }
            #expect(name == "p_\(round + 1)")
            cache.prepared(select, types: [], name: name)
            cache.forget(select, types: [])  // a table changed under it, say
        }
        #expect(cache.count == 0)
        // 256 names were accepted by the server and none closed: no more on this connection.
        for _ in 0..<3 { #expect(cache.plan(select, types: []) == .unprepared) }
    }

    /// 128 random bits (an attacker's read of the stores: 32 bits, behind a pooler that lends one server connection to
    /// many clients in turn, let two clients' names meet, one running the other's statement of the same types). A name
    /// with its counter stays within PostgreSQL's 63 bytes.
    @Test func everyConnectionDrawsItsOwnPrefix() {
        let prefixes = (0..<8).map { _ in PostgresStatementCache.randomPrefix() }
        for prefix in prefixes {
            #expect(prefix.count == 40 && prefix.hasPrefix("onetap_") && prefix.hasSuffix("_"), "\(prefix)")
            #expect(prefix.count + String(Int.max).count <= 63)
            #expect(prefix.dropFirst(7).dropLast().allSatisfy { "0123456789abcdef".contains($0) }, "\(prefix)")
        }
        #expect(Set(prefixes).count > 1)
    }

    @Test func aForgottenStatementRunsUnpreparedThenTakesANewName() {
        var cache = PostgresStatementCache(prefix: "p_")
        for _ in 0..<2 { _ = cache.plan(select, types: []) }
        cache.prepared(select, types: [], name: "p_1")
        cache.forget(select, types: [])
        #expect(cache.count == 0)
        #expect(cache.plan(select, types: []) == .unprepared)
        #expect(cache.plan(select, types: []) == .prepare("p_2"))
    }

    @Test func forgettingAllRunsEachUnpreparedOnceThenUnderANewNameAndCountsThemAgainstTheBound() {
        var cache = PostgresStatementCache(prefix: "p_")
        for sql in ["SELECT 1", "SELECT 2"] {
            for _ in 0..<2 { _ = cache.plan(sql, types: []) }
            cache.prepared(sql, types: [], name: sql == "SELECT 1" ? "p_1" : "p_2")
        }
        cache.forgetAll()  // a 26000: `DISCARD ALL` dropped them together
        #expect(cache.count == 0)
        #expect(cache.plan("SELECT 1", types: []) == .unprepared)
        #expect(cache.plan("SELECT 2", types: []) == .unprepared)
        #expect(cache.plan("SELECT 1", types: []) == .prepare("p_3"))
        // Forgotten names still count: a full cache forgotten whole prepares nothing more.
        var full = PostgresStatementCache(prefix: "q_")
        for index in 1...PostgresStatementCache.capacity {
            for _ in 0..<2 { _ = full.plan("SELECT \(index)", types: []) }
            full.prepared("SELECT \(index)", types: [], name: "q_\(index)")
        }
        full.forgetAll()
        for _ in 0..<3 { #expect(full.plan("SELECT 1", types: []) == .unprepared) }
    }

    @Test func theCacheIsBounded() {
        var cache = PostgresStatementCache(prefix: "p_")
        let capacity = PostgresStatementCache.capacity
        for index in 0..<capacity {
            _ = cache.plan("SELECT \(index)", types: [])
            guard case .prepare(let name) = cache.plan("SELECT \(index)", types: []) else {
                Issue.record("statement \(index) was not prepared on its second run")
                return
            }
            cache.prepared("SELECT \(index)", types: [], name: name)
        }
        #expect(cache.count == capacity)
        // Full: a new statement stays unprepared, however often it runs; the prepared ones stay.
        for _ in 0..<3 { #expect(cache.plan("SELECT 'new'", types: []) == .unprepared) }
        #expect(cache.plan("SELECT 0", types: []) == .prepared("p_1"))
        // Texts seen once are bounded too: when full they start afresh, so a later text can still be prepared.
        var fresh = PostgresStatementCache(prefix: "p_")
        for index in 0..<(capacity + 10) { _ = fresh.plan("SELECT \(index)", types: []) }
        #expect(fresh.plan("SELECT 0", types: []) == .unprepared)  // dropped when the set started afresh
        #expect(fresh.plan("SELECT \(capacity + 5)", types: []) == .prepare("p_1"))
    }
}

/// Prepared statements on a real server: what the server holds, and what happens when it drops a
/// statement or a table changes under one.
@Suite(.connectionBudget) struct PostgresPreparedStatementTests {
    func withConnection(prepareStatements: Bool = true, _ body: (PostgresConnection) async throws -> Void) async throws {
        try await TestDatabase.withConnection(prepareStatements: prepareStatements, body)
    }

    /// The statements the server holds prepared for this connection, but for this very query (which is
    /// prepared itself from its second run).
    func prepared(_ connection: PostgresConnection) async throws -> [PostgresValue] {
        try await connection.execute(
            "SELECT statement FROM pg_prepared_statements WHERE statement NOT LIKE '%pg_prepared_statements%' ORDER BY statement"
        ).rows.map { $0[0] }
    }

    @Test func aStatementRunTwiceIsPreparedOnTheServerAndAnswersTheSame() async throws {
        try await withConnection { connection async throws in
            let sum = "SELECT $1::bigint + 1 AS next"
            for number in Int64(1)...4 {
                #expect(try await connection.execute(sum, [.int64(number)]).first == [.int64(number + 1)])
            }
            // `pg_prepared_statements` lists protocol-level prepared statements with their text.
            #expect(try await prepared(connection) == [.text(sum)])
            #expect(!connection.isBroken)
        }
    }

    @Test func twoConnectionsNameTheirStatementsApart() async throws {
        var names: [String] = []
        for _ in 0..<2 {
            try await withConnection { connection async throws in
                for _ in 0..<2 { _ = try await connection.execute("SELECT $1::bigint", [.int64(1)]) }
                let rows = try await connection.execute("SELECT name FROM pg_prepared_statements WHERE statement = 'SELECT $1::bigint'")
                guard case .text(let name)? = rows.first?.first else {
                    Issue.record("no prepared statement: \(rows.rows)")
                    return
                }
                names.append(name)
            }
        }
        #expect(names.count == 2 && names[0] != names[1] && names.allSatisfy { $0.hasPrefix("onetap_") && $0.hasSuffix("_1") }, "\(names)")
    }

    @Test func anotherUnsupportedFeatureIsNotTakenForAStaleStatement() async throws {
        try await withConnection { connection async throws in
            // A 0A000 raised while the statement runs (not by the plan check) is the caller's error, not
            // run again: its statement may have done something already.
            try await connection.execute("CREATE TEMPORARY SEQUENCE counted")
            try await connection.execute(
                "CREATE FUNCTION pg_temp.unsupported(bigint) RETURNS bigint LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'not here' USING ERRCODE = 'feature_not_supported'; END $$"
            )
            let failing = "SELECT nextval('counted'), pg_temp.unsupported($1::bigint)"
            for round in 0..<3 {
                await #expect("round \(round)") { try await connection.execute(failing, [.int64(1)]) } throws: { error in
                    (error as? PostgresError)?.sqlState == "0A000"
                }
            }
            // Three runs, each one nextval: none ran twice.
            #expect(try await connection.execute("SELECT last_value FROM counted").first == [.int64(3)])
        }
    }

    @Test func turnedOffNothingIsPrepared() async throws {
        try await withConnection(prepareStatements: false) { connection async throws in
            for number in Int64(1)...4 {
                #expect(try await connection.execute("SELECT $1::bigint + 1", [.int64(number)]).first == [.int64(number + 1)])
            }
            for _ in 0..<3 { #expect(try await prepared(connection) == []) }
        }
    }

    @Test func aStatementTheServerDroppedRunsAgain() async throws {
        try await withConnection { connection async throws in
            let sum = "SELECT $1::bigint * 2"
            for number in Int64(1)...3 { _ = try await connection.execute(sum, [.int64(number)]) }
            #expect(try await prepared(connection) == [.text(sum)])
            try await connection.execute("DEALLOCATE ALL")  // what a pooler's `DISCARD ALL` does too
            #expect(try await connection.execute(sum, [.int64(21)]).first == [.int64(42)])
            #expect(try await connection.execute(sum, [.int64(5)]).first == [.int64(10)])
            #expect(try await connection.execute(sum, [.int64(6)]).first == [.int64(12)])
            #expect(try await prepared(connection) == [.text(sum)])
        }
    }

    @Test func aTableThatChangedUnderAPreparedStatementIsReadAgainOutsideATransaction() async throws {
        try await withConnection { connection async throws in
            try await connection.execute("CREATE TEMPORARY TABLE changing (a bigint)")
            try await connection.execute("INSERT INTO changing VALUES (7)")
            let everything = "SELECT * FROM changing WHERE a = $1"
            for _ in 0..<3 { #expect(try await connection.execute(everything, [.int64(7)]).columns == ["a"]) }
            try await connection.execute("ALTER TABLE changing ADD COLUMN b bigint DEFAULT 8")
            // The server refuses the prepared plan (0A000: it would change the result type); outside a
            // transaction the statement runs again unprepared and answers from the new table.
            let rows = try await connection.execute(everything, [.int64(7)])
            #expect(rows.columns == ["a", "b"])
            #expect(rows.first == [.int64(7), .int64(8)])
            #expect(!connection.isBroken)
        }
    }

    @Test func insideATransactionTheChangeIsTheCallersErrorAndTheNextRunWorks() async throws {
        try await withConnection { connection async throws in
            try await connection.execute("CREATE TEMPORARY TABLE changing (a bigint)")
            let everything = "SELECT * FROM changing"
            for _ in 0..<3 { _ = try await connection.execute(everything) }
            try await connection.execute("ALTER TABLE changing ADD COLUMN b bigint")
            await #expect {
                try await connection.transaction { connection in try await connection.execute(everything) }
            } throws: { error in
                let error = error as! PostgresError
                // Refused before it ran: the transaction may run again, as the counter stores and guest merges do.
                return error.kind == .server && error.sqlState == "0A000" && error.asksForARetry
            }
            #expect(!connection.isBroken)
            #expect(try await connection.execute(everything).columns == ["a", "b"])
        }
    }

    @Test func insideATransactionDroppedStatementsAreAllForgottenSoOneRetryRunsThem() async throws {
        try await withConnection { connection async throws in
            let statements = ["SELECT $1::bigint + 1", "SELECT $1::bigint + 2", "SELECT $1::bigint + 3"]
            // Each `BEGIN` another text, so it is never prepared and the first prepared statement stands
            // inside the transaction.
            var runs = 0
            func transaction() async throws -> [PostgresValue] {
                runs += 1
                return try await connection.transaction("BEGIN /* run \(runs) */") { connection in
                    var answers: [PostgresValue] = []
                    for sql in statements { answers += try await connection.execute(sql, [.int64(10)]).rows.map { $0[0] } }
                    return answers
                }
            }
            for _ in 0..<3 { #expect(try await transaction() == [.int64(11), .int64(12), .int64(13)]) }
            #expect(try await prepared(connection).count == statements.count + 1)  // and COMMIT
            try await connection.execute("DEALLOCATE ALL")  // what a pooler's `DISCARD ALL` does too
            await #expect {
                _ = try await transaction()
            } throws: { error in
                let error = error as! PostgresError
                return error.sqlState == "26000" && error.asksForARetry
            }
            // The server holds none of them any more, so none is run by name again: the retry runs whole.
            #expect(try await transaction() == [.int64(11), .int64(12), .int64(13)])
            #expect(!connection.isBroken)
        }
    }

    @Test func aTransactionWhosePreparedBeginTheServerDroppedRunsWhole() async throws {
        try await withConnection { connection async throws in
            let statements = ["SELECT $1::bigint + 1", "SELECT $1::bigint + 2"]
            func transaction() async throws -> [PostgresValue] {
                try await connection.transaction { connection in
                    var answers: [PostgresValue] = []
                    for sql in statements { answers += try await connection.execute(sql, [.int64(10)]).rows.map { $0[0] } }
                    return answers
                }
            }
            for _ in 0..<3 { _ = try await transaction() }
            try await connection.execute("DEALLOCATE ALL")
            // The prepared `BEGIN` is refused while the connection is idle: every statement is forgotten and
            // it runs unprepared, and so does each statement after it.
            #expect(try await transaction() == [.int64(11), .int64(12)])
            #expect(try await transaction() == [.int64(11), .int64(12)])
            #expect(!connection.isBroken)
        }
    }
}
