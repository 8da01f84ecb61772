import Foundation
import OneTap
@testable import OneTapCLI
import OneTapChildProcess
import OneTapPostgres
import OneTapPostgresTestSupport
import Testing

/// `onetap db reconcile` on the command line, without a server: what it parses to and how it refuses.
@Suite struct DBReconcileArgumentsTests {
    @Test(arguments: [
        (["db", "reconcile", "--url", "postgresql:///onetap"], DBOptions(action: .reconcile, url: "postgresql:///onetap")),
        (["db", "reconcile", "--older-than", "10m", "--json"], DBOptions(action: .reconcile, url: nil, json: true, olderThan: 600)),
        (["db", "reconcile", "--url", "-", "--older-than=30s", "--schema", "tenant_a"], DBOptions(action: .reconcile, url: "-", schema: "tenant_a", olderThan: 30)),
        (["db", "reconcile", "--older-than", "2h"], DBOptions(action: .reconcile, url: nil, olderThan: 7200)),
        (["db", "reconcile", "--older-than", "1d"], DBOptions(action: .reconcile, url: nil, olderThan: 86_400)),
        (["db", "reconcile", "--older-than", "0s"], DBOptions(action: .reconcile, url: nil, olderThan: 0)),
        (["db", "reconcile", "--older-than", "3660d"], DBOptions(action: .reconcile, url: nil, olderThan: 316_224_000)),
        (["db", "reconcile", "--older-than", " 10m\t"], DBOptions(action: .reconcile, url: nil, olderThan: 600)),   // as token --lifetime reads it
    ])
    func parses(arguments: [String], expected: DBOptions) throws {
        #expect(try OneTapCommandLine.parse(arguments) == .command(DBCommand.self, expected))
    }

    @Test(arguments: [
        (["db", "reconcile", "--older-than", "10"], "onetap: error: --older-than takes a duration such as 30s, 10m, 2h or 1d, at most ten years; got '10'"),
        (["db", "reconcile", "--older-than", "-5m"], "onetap: error: --older-than takes a duration such as 30s, 10m, 2h or 1d, at most ten years; got '-5m'"),
        (["db", "reconcile", "--older-than", "10 m"], "onetap: error: --older-than takes a duration such as 30s, 10m, 2h or 1d, at most ten years; got '10 m'"),
        (["db", "reconcile", "--older-than", "1w"], "onetap: error: --older-than takes a duration such as 30s, 10m, 2h or 1d, at most ten years; got '1w'"),
        // A sign, which Int64's reading took (`+5m` was 300 s), and past ten years (a 9-digit count of days was taken).
        (["db", "reconcile", "--older-than", "+5m"], "onetap: error: --older-than takes a duration such as 30s, 10m, 2h or 1d, at most ten years; got '+5m'"),
        (["db", "reconcile", "--older-than", "3661d"], "onetap: error: --older-than takes a duration such as 30s, 10m, 2h or 1d, at most ten years; got '3661d'"),
        (["db", "reconcile", "--older-than", "999999999d"], "onetap: error: --older-than takes a duration such as 30s, 10m, 2h or 1d, at most ten years; got '999999999d'"),
        (["db", "migrate", "--url", "x", "--older-than", "10m"], "onetap: error: --older-than is an option of db reconcile, not db migrate"),
        (["db", "reconcile"], "onetap: error: db reconcile needs the PostgreSQL server: --url URL, --url - (the URL on standard input) or ONETAP_POSTGRES_URL"),
        (["db", "reconcile", "--url", "postgresql://api:hunter2-pw@h/db", "x"], "onetap: error: db reconcile takes options only; one operand too many (not repeated: it may be a secret)"),
    ])
    func usageErrorsAreExit64(arguments: [String], prefix: String) async {
        let (code, io) = await runInProcess(arguments, environment: [:])
        #expect(code == .usage)
        #expect(io.output.isEmpty)
        #expect(io.errors.count == 1 && io.errors[0].hasPrefix(prefix), "\(io.errors)")
        #expect(io.errors.allSatisfy { !$0.contains("hunter2-pw") })
    }

    /// The URL reaches the tool on its standard input with reconcile's own arguments, never on argv.
    @Test func theToolIsHandedTheSecondsNeverTheURL() async throws {
        try await withOnetapBeside(tools: ["onetap-db": recordingTool]) { onetap, directory in
            let url = "postgresql://api:hunter2-pw@db.internal/onetap"
            let environment = childEnvironment(adding: ["ONETAP_POSTGRES_URL": url])
            let run = try await ChildProcess.run(onetap.path, ["db", "reconcile", "--older-than", "10m", "--json"], environment: environment, errors: .inherit)
            let stdout = String(decoding: run.output, as: UTF8.self)
            let argv = try String(contentsOf: directory.appendingPathComponent("argv"), encoding: .utf8)
            let received = try String(contentsOf: directory.appendingPathComponent("stdin"), encoding: .utf8)
            #expect(run.termination.succeeded && stdout == "recorded\n")
            #expect(argv == "reconcile --url - --json --older-than 600 ")
            #expect(received == url + "\n")
        }
    }
}

/// `onetap db reconcile` end to end: the built binary against the tests' PostgreSQL server (skipped with
/// the reason when there is none, failing instead under `ONETAP_REQUIRE_POSTGRES=1`).
@Suite struct PostgresReconcileCommandTests {
    let migrate = PostgresMigrateCommandTests()
    /// SHA-256 of the test tokens, computed with Python's hashlib.
    static let unknown = "fafef972ce37f928646d169250961cc73efe5406925df7ddfff4a184b7fe141a"  // reconcile-unknown
    static let oldPending = "5ad6f927af94bd430ff8341e1177d81b8463435d1d450a7eb108803710256c3f"  // reconcile-old-pending
    static let newPending = "77beeead395606679f52b12ddefffcabd2b34999633eab3992a6f761213bef0f"  // reconcile-new-pending
    static let answered = "75fb74c23ececd2435c8047ae67bbcb90487cda573d23b3c0c19438f14e3df67"  // reconcile-answered

    /// An instant as the tool prints it, formatted by Foundation (not by OneTap's own formatter, which it checks).
    static func iso(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }
    static let first = try! LoginSessionID("reconcile-session-0001")
    static let second = try! LoginSessionID("reconcile-session-0002")

    /// A ledger holding an unknown exchange (claimed 10 min ago, given up on 9 min 55 s ago), a pending one
    /// claimed 2 min ago, a pending one claimed 5 s ago and an answered one; `now` in whole milliseconds.
    func fill(_ url: String, _ schema: String) async throws -> Date {
        let now = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 * 1000).rounded(.down) / 1000)
        let stores = PostgresStores(configuration: try PostgresConfiguration(url: url, schema: schema, poolSize: 1))
        let ledger = stores.exchangeLedger()
        func digest(_ text: String) -> SHA256Digest { SHA256.hash(Array(text.utf8)) }
        _ = try await ledger.claim(digest("reconcile-unknown"), for: Self.first, at: now.addingTimeInterval(-600))
        try await ledger.settle(digest("reconcile-unknown"), .unknown, at: now.addingTimeInterval(-595))
        _ = try await ledger.claim(digest("reconcile-old-pending"), for: Self.second, at: now.addingTimeInterval(-120))
        _ = try await ledger.claim(digest("reconcile-new-pending"), for: Self.second, at: now.addingTimeInterval(-5))
        _ = try await ledger.claim(digest("reconcile-answered"), for: Self.first, at: now.addingTimeInterval(-300))
        try await ledger.settle(digest("reconcile-answered"), .answered(ExchangeResponse(code: "103000", phoneNumber: try PhoneNumber("13800138000"))),
                                at: now.addingTimeInterval(-299))
        await stores.close()
        return now
    }

    @Test func listsTheUnknownAndTheOldPendingExchangesOldestFirst() async throws {
        let url = try await migrate.url()
        try await migrate.withSchema(url) { schema in
            #expect(try await Binary.run(["db", "migrate", "--url", "-", "--schema", schema], stdin: Array((url + "\n").utf8)).status == 0)
            let now = try await fill(url, schema)
            let run = try await Binary.run(["db", "reconcile", "--url", "-", "--schema", schema], stdin: Array((url + "\n").utf8))
            #expect(run.status == 0 && run.stderr.isEmpty, "\(run.stderr)")
            #expect(run.lines == [
                "token-sha256                                                      state    claimed-at                session                 sends",
                "\(Self.unknown)  unknown  \(Self.iso(now.addingTimeInterval(-600)))  reconcile-session-0001  1",
                "\(Self.oldPending)  pending  \(Self.iso(now.addingTimeInterval(-120)))  reconcile-session-0002  1",
            ], "\(run.stdout)")
            #expect(!run.stdout.contains("13800138000") && !run.stdout.contains(Self.answered) && !run.stdout.contains(Self.newPending))
            // A bound past the old pending claim lists the unknown one alone; 0 s lists the new pending one too.
            let longer = try await Binary.run(["db", "reconcile", "--url", "-", "--schema", schema, "--older-than", "3m"], stdin: Array((url + "\n").utf8))
            #expect(longer.lines.dropFirst().map { String($0.prefix(64)) } == [Self.unknown])
            let all = try await Binary.run(["db", "reconcile", "--url", "-", "--schema", schema, "--older-than", "0s"], stdin: Array((url + "\n").utf8))
            #expect(all.lines.dropFirst().map { String($0.prefix(64)) } == [Self.unknown, Self.oldPending, Self.newPending])
        }
    }

    @Test func writesJSONFromTheEnvironmentsURL() async throws {
        let url = try await migrate.url()
        try await migrate.withSchema(url) { schema in
            #expect(try await Binary.run(["db", "migrate", "--url", "-", "--schema", schema], stdin: Array((url + "\n").utf8)).status == 0)
            let now = try await fill(url, schema)
            let environment = ProcessInfo.processInfo.environment.merging(["ONETAP_POSTGRES_URL": url]) { $1 }
            let run = try await Binary.run(["db", "reconcile", "--schema", schema, "--json", "--older-than", "1m"], environment: environment)
            #expect(run.status == 0 && run.stderr.isEmpty, "\(run.stderr)")
            // NDJSON, an exchange a line: a single document was one line as long as the ledger, which `onetap` held whole.
            let head = #"{"schema":"\#(schema)","olderThanSeconds":60,"#
            #expect(run.lines == [
                head + #""token":"\#(Self.unknown)","state":"unknown","claimedAt":"\#(Self.iso(now.addingTimeInterval(-600)))","#
                    + #""settledAt":"\#(Self.iso(now.addingTimeInterval(-595)))","session":"reconcile-session-0001","sends":1}"#,
                head + #""token":"\#(Self.oldPending)","state":"pending","claimedAt":"\#(Self.iso(now.addingTimeInterval(-120)))","#
                    + #""settledAt":"\#(Self.iso(now.addingTimeInterval(-120)))","session":"reconcile-session-0002","sends":1}"#,
            ], "\(run.stdout)")
            #expect(run.stdout.hasSuffix("}\n"))
        }
    }

    /// More exchanges than a page (1,000), some given up on at one instant across a page's end: listed a page at a time
    /// (the ledger was read whole into memory before), each once, in the order PostgreSQL itself sorts them.
    @Test func aLedgerOfManyPagesIsListedWholeInOrder() async throws {
        let url = try await migrate.url()
        try await migrate.withSchema(url) { schema in
            #expect(try await Binary.run(["db", "migrate", "--url", "-", "--schema", schema], stdin: Array((url + "\n").utf8)).status == 0)
            let stores = PostgresStores(configuration: try PostgresConfiguration(url: url, schema: schema, poolSize: 1))
            let table = "\"\(schema)\".exchange_ledger"
            // 2,345 unknown exchanges given up on three at a time (i / 3 ms apart), a day ago.
            let base = Int64((Date().timeIntervalSince1970 - 86_000) * 1000)
            try await stores.pool.execute("""
                INSERT INTO \(table) (token, state, claimed_at_ms, settled_at_ms, forget_at_ms, session, sends) \
                SELECT sha256(convert_to('page-' || i, 'UTF8')), 'unknown', \(base), \(base) + i / 3, \(base) + 172800000, 'reconcile-session-0001', 1 \
                FROM generate_series(0, 2344) AS i
                """)
            let expected = try await stores.pool.execute("SELECT encode(token, 'hex') FROM \(table) ORDER BY settled_at_ms, token").rows.compactMap { $0.first?.text }
            await stores.close()
            #expect(expected.count == 2_345)
            let run = try await Binary.run(["db", "reconcile", "--url", "-", "--schema", schema], stdin: Array((url + "\n").utf8))
            #expect(run.status == 0 && run.stderr.isEmpty, "\(run.stderr)")
            #expect(run.lines.first?.hasPrefix("token-sha256") == true)
            #expect(run.lines.dropFirst().map { String($0.prefix(64)) } == expected)
            let json = try await Binary.run(["db", "reconcile", "--url", "-", "--schema", schema, "--json"], stdin: Array((url + "\n").utf8))
            // A CLI attacker's read: `--json` wrote the listing as one document on one line, which `onetap` (passing its
            // tool's output on a line at a time) held whole: a bad day's ledger, gigabytes. A line per exchange now.
            #expect(json.status == 0 && json.lines.count == expected.count && json.lines.allSatisfy { $0.utf8.count < 512 })
            let tokens = try json.lines.map { line in
                let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
                return try #require(object["token"] as? String, "\(line)")
            }
            #expect(tokens == expected)
        }
    }

    @Test func anEmptyLedgerSaysSo() async throws {
        let url = try await migrate.url()
        try await migrate.withSchema(url) { schema in
            #expect(try await Binary.run(["db", "migrate", "--url", "-", "--schema", schema], stdin: Array((url + "\n").utf8)).status == 0)
            let run = try await Binary.run(["db", "reconcile", "--url", "-", "--schema", schema], stdin: Array((url + "\n").utf8))
            #expect(run.status == 0 && run.stdout == "no exchanges to reconcile in schema \(schema) (unknown, or pending for 60 s or more)\n")
            let json = try await Binary.run(["db", "reconcile", "--url", "-", "--schema", schema, "--json"], stdin: Array((url + "\n").utf8))
            #expect(json.status == 0 && json.stdout.isEmpty && json.stderr.isEmpty, "\(json.stdout)\(json.stderr)")
        }
    }

    /// A schema not migrated to this OneTap's version is refused (exit 1) and left as it was; a schema that
    /// does not exist too.
    @Test func aSchemaNotMigratedIsRefusedWithExit1() async throws {
        let url = try await migrate.url()
        try await migrate.withSchema(url) { schema in
            let missing = try await Binary.run(["db", "reconcile", "--url", "-", "--schema", schema], stdin: Array((url + "\n").utf8))
            #expect(missing.status == 1 && missing.stdout.isEmpty)
            #expect(missing.stderr.hasPrefix("onetap: error: listing the exchanges to reconcile failed: "), "\(missing.stderr)")
            #expect(try await Binary.run(["db", "migrate", "--url", "-", "--schema", schema], stdin: Array((url + "\n").utf8)).status == 0)
            let newest = PostgresMigrations.all.count
            // The schema's versions changed by hand, then what reconcile says of them (exit 1, nothing listed).
            func reconcile(after change: String, says fix: String, at version: Int) async throws {
                let stores = PostgresStores(configuration: try PostgresConfiguration(url: url, schema: schema, poolSize: 1))
                try await stores.pool.execute(change)
                await stores.close()
                let run = try await Binary.run(["db", "reconcile", "--url", "-", "--schema", schema], stdin: Array((url + "\n").utf8))
                #expect(run.status == 1 && run.stdout.isEmpty)
                #expect(run.stderr == "onetap: error: listing the exchanges to reconcile failed: schema \(schema) is at version \(version), "
                    + "this OneTap's is \(newest): \(fix)\n", "\(run.stderr)")
            }
            let versions = "\"\(schema)\".schema_migrations"
            try await reconcile(after: "DELETE FROM \(versions) WHERE version = \(newest)", says: "run 'onetap db migrate' first", at: newest - 1)
            // A schema a newer OneTap migrated: migrating cannot help (it refuses), upgrading does.
            try await reconcile(
                after: "INSERT INTO \(versions) (version, name) VALUES (\(newest), 'back'), (\(newest + 1), 'newer')",
                says: "upgrade onetap to the version that migrated it", at: newest + 1)
        }
    }

    @Test func anUnreachableServerIsExit69AndThePasswordIsNeverPrinted() async throws {
        let nowhere = "postgresql://api:hunter2-pw@/onetap?host=/tmp/onetap-nowhere-\(UInt32.random(in: 0...UInt32.max))"
        let run = try await Binary.run(["db", "reconcile", "--url", "-"], stdin: Array((nowhere + "\n").utf8))
        #expect(run.status == 69 && run.stdout.isEmpty)
        #expect(run.stderr.hasPrefix("onetap: error: cannot reach PostgreSQL: "), "\(run.stderr)")
        #expect(!run.stderr.contains("hunter2-pw"))
    }
}
