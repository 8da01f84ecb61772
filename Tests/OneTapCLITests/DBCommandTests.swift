import Foundation
@testable import OneTapCLI
import OneTapChildProcess
import OneTapPostgres
import OneTapPostgresTestSupport
import Testing

/// `onetap db` on the command line: what it parses to and how it refuses, without a server.
@Suite struct DBCommandArgumentsTests {
    @Test(arguments: [
        (["db", "migrate", "--url", "postgresql:///onetap"], DBOptions(action: .migrate, url: "postgresql:///onetap")),
        (["db", "migrate", "--url=host=/tmp dbname=x", "--schema", "tenant_a", "--json"],
         DBOptions(action: .migrate, url: "host=/tmp dbname=x", schema: "tenant_a", json: true)),
        (["--url", "postgresql://u@h/db", "db", "--json", "migrate"], DBOptions(action: .migrate, url: "postgresql://u@h/db", json: true)),
    ])
    func parses(arguments: [String], expected: DBOptions) throws {
        #expect(try OneTapCommandLine.parse(arguments) == .command(DBCommand.self, expected))
    }

    /// What the command line parsed to shows the URL's password in no textual form.
    @Test func optionsNeverShowThePassword() throws {
        let invocation = try OneTapCommandLine.parse(["db", "migrate", "--url", "postgresql://api:hunter2-pw@db/onetap?sslpassword=k3y-pw"])
        guard let options = invocation.options(of: DBCommand.self) else {
            Issue.record("parsed to \(invocation)")
            return
        }
        #expect(options.url?.contains("hunter2-pw") == true)  // kept for connecting
        for value in [invocation as Any, options] {
            var dumped = ""
            dump(value, to: &dumped)
            for form in ["\(value)", String(reflecting: value), dumped] {
                #expect(!form.contains("hunter2-pw") && !form.contains("k3y-pw"), "\(form)")
            }
        }
        #expect(options.description == "DBOptions(migrate, url postgresql://api:<redacted>@db/onetap?sslpassword=<redacted>, schema onetap, json false)")
    }

    @Test func helpIsTheCommandsHelp() throws {
        #expect(try OneTapCommandLine.parse(["db", "--help"]) == .help(command: "db"))
        #expect(try OneTapCommandLine.parse(["help", "db"]) == .help(command: "db"))
    }

    @Test(arguments: [
        (["db"], "onetap: error: db needs an action: onetap db migrate --url URL, or onetap db reconcile --url URL (see 'onetap db --help')"),
        (["db", "drop", "--url", "postgresql:///x"],
         "onetap: error: unknown db action (not repeated: it may be a password typed apart from its URL); the actions are migrate, reconcile (see 'onetap db --help')"),
        (["db", "migrate"], "onetap: error: db migrate needs the PostgreSQL server: --url URL, --url - (the URL on standard input) or ONETAP_POSTGRES_URL (see 'onetap db --help')"),
        (["db", "migrate", "--url", "-"], "onetap: error: --url - reads the URL from standard input, which held none (see 'onetap db --help')"),
        (["db", "migrate", "--url", "postgresql:///x", "--schema"], "onetap: error: option --schema needs a value (see 'onetap db --help')"),
        (["db", "migrate", "--url", "postgresql:///x", "--data", "d"], "onetap: error: unknown option '--data'; this command takes --url, --schema, --json, --older-than"),
        // A password on the command line never comes back in a usage error, wherever it stood.
        (["db", "migrate", "--url", "postgresql://api:hunter2-pw@h/db", "postgresql://api:hunter2-pw@h/db"],
         "onetap: error: db migrate takes options only; one operand too many (not repeated: it may be a secret)"),
        // An attacker's read of the CLI: a password typed apart from its URL was repeated whole, as an unexpected
        // operand or an unknown action (the redaction finds passwords in URLs and `password=` pairs only).
        (["db", "migrate", "--url", "postgresql://app@db/onetap", "hunter2-pw"],
         "onetap: error: db migrate takes options only; one operand too many (not repeated: it may be a secret)"),
        (["db", "hunter2-pw"], "onetap: error: unknown db action (not repeated: it may be a password typed apart from its URL); the actions are"),
        // An attacker's read of the fix: a password of lower-case letters looked like an action's name and was repeated.
        (["db", "--url", "postgresql://app@db/onetap", "hunter-pw"], "onetap: error: unknown db action (not repeated"),
        (["postgresql://api:hunter2-pw@h/db"], "onetap: error: unknown command (an argument of 32 characters, not repeated: it may be a secret)"),
        (["db", "migrate", "--url", "host=h password=hunter2-pw", "--url", "x"], "onetap: error: option --url is given twice"),
        (["db", "migrate", "--url", "x", "--schema=x", "password=hunter2-pw"], "onetap: error: db migrate takes options only; one operand too many (not repeated: it may be a secret)"),
    ])
    func usageErrorsAreExit64AndNeverShowAPassword(arguments: [String], prefix: String) async {
        let (code, io) = await runInProcess(arguments)
        #expect(code == .usage)
        #expect(io.output.isEmpty)
        #expect(io.errors.count == 1 && io.errors[0].hasPrefix(prefix), "\(io.errors)")
        #expect(io.errors.allSatisfy { !$0.contains("hunter2-pw") && !$0.contains("hunter-pw") })
    }

    /// `--url -` on a standard input that cannot be read (closed) is "cannot read standard input", exit 66, as for
    /// every command that reads it; it was "held none", a usage error (64).
    @Test func aClosedStandardInputIsNoInput() async throws {
        let outcome = try await ChildProcess.run("/bin/sh", ["-c", "exec \"$0\" db migrate --url - <&-", BuildProducts.path("onetap")])
        let errors = String(decoding: outcome.errors, as: UTF8.self)
        #expect(outcome.termination.status == 66, "\(errors)")
        #expect(errors.contains("cannot read standard input"), "\(errors)")
    }
}

/// `onetap db migrate` end to end: the built binary against the tests' PostgreSQL server (skipped with
/// the reason when there is none, failing instead under `ONETAP_REQUIRE_POSTGRES=1`).
@Suite struct PostgresMigrateCommandTests {
    /// A missing server under `ONETAP_REQUIRE_POSTGRES=1`.
    struct Required: Error, CustomStringConvertible {
        let reason: String
        var description: String { "ONETAP_REQUIRE_POSTGRES=1 but no PostgreSQL server: \(reason)" }
    }

    /// The schema versions this OneTap knows, in order.
    static let known = PostgresMigrations.all.map(\.version)
    /// The newest schema version this OneTap knows.
    static let newest = known.last ?? 0

    func url() async throws -> String {
        do {
            return try await PostgresSharedServer.shared.url()
        } catch {
            if PostgresSharedServer.isRequired { throw Required(reason: error.reason) }
            try Test.cancel("skipped: no PostgreSQL server (\(error.reason))")
        }
    }

    static func schemaName() -> String { "cli_" + String(UInt64.random(in: 0...UInt64.max), radix: 16) }

    /// Runs `body` with a fresh schema name, then drops that schema.
    func withSchema(_ url: String, _ body: (String) async throws -> Void) async throws {
        let schema = Self.schemaName()
        let stores = PostgresStores(configuration: try PostgresConfiguration(url: url, schema: schema, poolSize: 1))
        let result: Result<Void, any Error>
        do {
            try await body(schema)
            result = .success(())
        } catch {
            result = .failure(error)
        }
        try await stores.pool.execute("DROP SCHEMA IF EXISTS \"\(schema)\" CASCADE")
        await stores.close()
        try result.get()
    }

    func versions(_ url: String, _ schema: String) async throws -> [Int64] {
        let stores = PostgresStores(configuration: try PostgresConfiguration(url: url, schema: schema, poolSize: 1))
        let rows = try await stores.pool.execute("SELECT version FROM \"\(schema)\".schema_migrations ORDER BY version")
        await stores.close()
        return rows.rows.compactMap { $0.first?.int64 }
    }

    @Test func migratesAFreshSchemaThenFindsNothingToApply() async throws {
        let url = try await url()
        try await withSchema(url) { schema in
            let all = Self.known.map(String.init)
            let first = try await Binary.run(["db", "migrate", "--url", "-", "--schema", schema], stdin: Array((url + "\n").utf8))
            #expect(first.status == 0 && first.stderr.isEmpty, "\(first.stderr)")
            #expect(first.stdout == "migrated schema \(schema) to version \(Self.newest) (applied: \(all.joined(separator: ", ")))\n")
            #expect(try await versions(url, schema) == Self.known.map(Int64.init))
            let second = try await Binary.run(["db", "migrate", "--url", "-", "--schema", schema], stdin: Array((url + "\n").utf8))
            #expect(second.status == 0 && second.stdout == "schema \(schema) is at version \(Self.newest) (nothing to apply)\n")
            let json = try await Binary.run(["db", "migrate", "--json", "--url", "-", "--schema", schema], stdin: Array((url + "\n").utf8))
            #expect(json.status == 0 && json.stdout == "{\"schema\":\"\(schema)\",\"version\":\(Self.newest),\"applied\":[]}\n")
        }
    }

    @Test func reportsWhatItAppliedAsJSON() async throws {
        let url = try await url()
        try await withSchema(url) { schema in
            let run = try await Binary.run(["db", "migrate", "--url", "-", "--schema", schema, "--json"], stdin: Array((url + "\n").utf8))
            #expect(run.status == 0)
            #expect(run.stdout == "{\"schema\":\"\(schema)\",\"version\":\(Self.newest),\"applied\":[\(Self.known.map(String.init).joined(separator: ","))]}\n")
        }
    }

    /// The schema defaults to `onetap`, in the database the URL names (a database of the test's own here).
    @Test func theSchemaDefaultsToOnetap() async throws {
        let url = try await url()
        let database = "cli_db_" + String(UInt32.random(in: 0...UInt32.max), radix: 16)
        let admin = PostgresStores(configuration: try PostgresConfiguration(url: url, poolSize: 1))
        try await admin.pool.execute("CREATE DATABASE \(database)")
        let result: Result<Void, any Error>
        do {
            // The private server's URL names its socket after a `?`; another server's URL is left alone.
            guard url.hasPrefix("postgresql:///"), let server = url.firstRange(of: "?")?.lowerBound else {
                try await admin.pool.execute("DROP DATABASE \(database)")
                await admin.close()
                try Test.cancel("skipped: ONETAP_POSTGRES_URL is not of the form postgresql:///db?host=…")
            }
            let own = "postgresql:///\(database)" + url[server...]
            let run = try await Binary.run(["db", "migrate", "--url", own])
            #expect(run.status == 0)
            #expect(run.stdout.hasPrefix("migrated schema onetap to version \(Self.newest) (applied: 1, "), "\(run.stdout)\(run.stderr)")
            result = .success(())
        } catch {
            result = .failure(error)
        }
        try await admin.pool.execute("DROP DATABASE \(database) WITH (FORCE)")
        await admin.close()
        try result.get()
    }

    /// A password in the URL given on standard input (the test server trusts the socket, so it is not
    /// checked) is used and never printed.
    @Test func aPasswordInTheURLIsNeverPrinted() async throws {
        let url = try await url()
        try await withSchema(url) { schema in
            let secret = url + (url.contains("?") ? "&" : "?") + "password=hunter2-pw"
            let run = try await Binary.run(["db", "migrate", "--url", "-", "--schema", schema], stdin: Array((secret + "\n").utf8))
            #expect(run.status == 0, "\(run.stderr)")
            #expect(!run.stdout.contains("hunter2-pw") && !run.stderr.contains("hunter2-pw"))
        }
    }

    /// A password on the command line is readable by every user of the machine (`/proc/PID/cmdline`)
    /// for as long as the command runs: `--url` refuses a URL that carries one (exit 64, before any
    /// connection), naming where to put it instead, and never repeating it. Before, it was used.
    @Test(arguments: [
        "postgresql://api:hunter2-pw@db.internal/onetap",
        "postgresql://api@db.internal/onetap?password=hunter2-pw",
        "host=db.internal dbname=onetap user=api password=hunter2-pw",
        // Forms libpq reads as a password too: a percent-encoded keyword, white space other than a space.
        "postgresql://api@db.internal/onetap?pass%77ord=hunter2-pw",
        "host=db.internal dbname=onetap user=api password\t=\thunter2-pw",
        // A password holding an unencoded `/`, which libpq does not read as one (its pieces reach its messages).
        "postgresql://api:hunter2/pw@db.internal/onetap",
    ])
    func aPasswordOnTheCommandLineIsRefused(url: String) async throws {
        for action in ["migrate", "reconcile"] {
            let run = try await Binary.run(["db", action, "--url", url])   // on the command line, as a user might
            #expect(run.status == 64, "\(run.stderr)")
            #expect(run.stdout.isEmpty)
            #expect(run.stderr == "onetap: error: --url carries a password, which every user of this machine can read on a command line; "
                + "give the URL on standard input (--url -) or in ONETAP_POSTGRES_URL, or the password in PGPASSWORD or ~/.pgpass "
                + "(see 'onetap db --help')\n", "\(run.stderr)")
        }
    }

    /// A server that cannot be reached is exit 69 (EX_UNAVAILABLE), its message naming the failure
    /// without the password.
    @Test(arguments: [
        "postgresql://api:hunter2-pw@/onetap?host=/tmp/onetap-nowhere-",
        "host=/tmp/onetap-nowhere- dbname=onetap user=api password=hunter2-pw",
    ])
    func anUnreachableServerIsExit69(url: String) async throws {
        let nowhere = url.replacing("onetap-nowhere-", with: "onetap-nowhere-\(UInt32.random(in: 0...UInt32.max))")
        let run = try await Binary.run(["db", "migrate", "--url", "-"], stdin: Array((nowhere + "\n").utf8))
        #expect(run.status == 69)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.hasPrefix("onetap: error: cannot reach PostgreSQL: connection-failed: cannot connect to PostgreSQL:"), "\(run.stderr)")
        #expect(!run.stderr.contains("hunter2-pw"))
        #expect(run.stderr.filter { $0 == "\n" }.count == 1)
    }

    @Test(arguments: [
        (["--url", "mysql://api@db/onetap"], "onetap: error: the PostgreSQL URL"),
        (["--url", "postgresql:///onetap", "--schema", "Tenant-A"], "onetap: error: schema name \"Tenant-A\""),
        (["--url", "   "], "onetap: error: the PostgreSQL URL is empty"),
    ])
    func anInvalidURLOrSchemaIsExit64(options: [String], prefix: String) async throws {
        let run = try await Binary.run(["db", "migrate"] + options)
        #expect(run.status == 64)
        #expect(run.stderr.hasPrefix(prefix) && run.stderr.hasSuffix("(see 'onetap db --help')\n"), "\(run.stderr)")
        #expect(!run.stderr.contains("hunter2-pw"))
    }

    /// `onetap` runs `onetap-db` beside itself: without it, `db` says what is missing (exit 69) and the
    /// other commands work as ever (the tool links no libpq of its own).
    @Test func withoutTheDBToolBesideItDBSaysSoAndNothingElseChanges() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("onetap-alone-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { removeTemporary(directory) }
        let alone = directory.appendingPathComponent("onetap")
        try FileManager.default.copyItem(at: Binary.directory.appendingPathComponent("onetap"), to: alone)
        func run(_ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
            let ran = try await ChildProcess.run(alone.path, arguments)
            return (ran.termination.status, String(decoding: ran.output, as: UTF8.self), String(decoding: ran.errors, as: UTF8.self))
        }
        let db = try await run(["db", "migrate", "--url", "postgresql://api@/onetap?host=/tmp/x"])
        #expect(db.status == 69 && db.stdout.isEmpty)
        #expect(db.stderr == "onetap: error: onetap db runs onetap-db, which is not beside this onetap; build both with 'swift build' (or 'swift build --product onetap-db')\n")
        let carrier = try await run(["carrier", "46000"])
        #expect(carrier.status == 0 && carrier.stdout.contains("China Mobile"))
    }

    /// The URL reaches `onetap-db` on its standard input, never on its command line (which any user of the
    /// machine reads in /proc), from `--url`, from `--url -` (standard input) or from `ONETAP_POSTGRES_URL`.
    /// A recording `onetap-db` beside a copy of `onetap` shows what the tool was handed.
    @Test func theURLReachesTheToolOnItsStandardInputNeverItsCommandLine() async throws {
        try await withOnetapBeside(tools: ["onetap-db": recordingTool]) { onetap, directory in
            func run(_ arguments: [String], stdin: String = "", environment: [String: String] = [:]) async throws -> (status: Int32, argv: String, stdin: String) {
                let ran = try await ChildProcess.run(
                    onetap.path, arguments, input: Data(stdin.utf8),
                    environment: childEnvironment(adding: environment), errors: .inherit)
                let argv = try String(contentsOf: directory.appendingPathComponent("argv"), encoding: .utf8)
                let received = try String(contentsOf: directory.appendingPathComponent("stdin"), encoding: .utf8)
                return (ran.termination.status, argv, received)
            }
            let url = "postgresql://api:hunter2-pw@db.internal/onetap"
            do {
                let bare = "postgresql://api@db.internal/onetap"   // --url takes no password (it would be on this command line)
                let given = try await run(["db", "migrate", "--url", bare, "--schema", "tenant_a"])
                #expect(given.status == 0 && given.argv == "migrate --url - --schema tenant_a " && given.stdin == bare + "\n")
                let piped = try await run(["db", "migrate", "--url", "-", "--json"], stdin: url + "\n")
                #expect(piped.status == 0 && piped.argv == "migrate --url - --json " && piped.stdin == url + "\n")
                let fromEnvironment = try await run(["db", "migrate"], environment: ["ONETAP_POSTGRES_URL": url])
                #expect(fromEnvironment.status == 0 && fromEnvironment.argv == "migrate --url - " && fromEnvironment.stdin == url + "\n")
                // A connection string over two lines is refused (the tool reads one line), never cut short.
                let twoLines = try await Binary.run(["db", "migrate", "--url", "host=/tmp\ndbname=onetap"])
                #expect(twoLines.status == 64 && twoLines.stderr.hasPrefix("onetap: error: the PostgreSQL URL holds a line break"))
                // CR LF too: one Character in Swift, neither "\n" nor "\r", and the tool's line read stops at it.
                let crlf = try await Binary.run(["db", "migrate", "--url", "host=/tmp dbname=prod\r\ndbname=test"])
                #expect(crlf.status == 64 && crlf.stderr.hasPrefix("onetap: error: the PostgreSQL URL holds a line break"), "\(crlf.stderr)")
            }
        }
    }

    /// A secret read from standard input that is not UTF-8 is refused (exit 64), never repaired (an attacker's read of the
    /// CLI: each bad byte became U+FFFD, and the tool then logged in with another password than the one given, or sent
    /// another token, with no useful error). The same read serves `--url -`, `--token -`, `--param -` and `--field NAME=-`.
    @Test func aSecretOnStandardInputThatIsNotUTF8IsRefused() async throws {
        for arguments in [["db", "migrate", "--url", "-"], ["gateway", "exchange", "cmcc", "--config", "/nonexistent.json", "--token", "-"]] {
            let run = try await Binary.run(arguments, stdin: Array("postgresql://api:p".utf8) + [0xFF] + Array("w@db/x\n".utf8))
            #expect(run.status == 64, "\(arguments): \(run.status) \(run.stderr)")
            #expect(run.stderr.hasPrefix("onetap: error: a line of standard input holds bytes that are not UTF-8"), "\(run.stderr)")
            #expect(run.stdout.isEmpty)
        }
    }

    /// What `onetap-gateway` prints on its standard output is redacted as its errors are (an attacker's read of the CLI:
    /// only standard error was, so a vendor that echoed the token in its answer printed it). `onetap db`'s output is
    /// left exact (its tool never prints the URL; a short password must not hide a schema's name in it).
    @Test func theGatewayToolsOutputIsRedactedAsItsErrorsAre() async throws {
        let scripts = [
            "onetap-gateway": "#!/bin/sh\nread line\necho \"out $line schema onetap\"\necho \"err token%3D$line\" >&2\n",
            "onetap-db": "#!/bin/sh\nread line\necho \"schema onetap is at version 11\"\necho \"err $line\" >&2\n",
        ]
        try await withOnetapBeside(tools: scripts) { onetap, directory in
            let token = "STsid-echoed-token-1234"
            let gateway = try await ChildProcess.run(
                onetap.path, ["gateway", "exchange", "cmcc", "--config", directory.path + "/gateways.json", "--token", "-"], input: Data((token + "\n").utf8))
            let gatewayOut = String(decoding: gateway.output, as: UTF8.self)
            #expect(gateway.termination.succeeded && gatewayOut == "out <redacted> schema onetap\n", "\(gatewayOut)")
            #expect(String(decoding: gateway.errors, as: UTF8.self) == "err token%3D<redacted>\n", "a token inside another word hides too")
            // `db`, with the password `onetap`: its output exact, its errors redacted.
            let url = "postgresql://api:onetap@db.internal/onetap"
            let environment = childEnvironment(adding: ["ONETAP_POSTGRES_URL": url])
            let db = try await ChildProcess.run(onetap.path, ["db", "migrate"], environment: environment)
            #expect(db.termination.succeeded)
            #expect(String(decoding: db.output, as: UTF8.self) == "schema onetap is at version 11\n")
            #expect(!String(decoding: db.errors, as: UTF8.self).contains(":onetap@"))
        }
    }

    /// The tool takes only the form `onetap db` passes it; anything else is a usage error naming `onetap db`.
    /// A URL on its command line (where any user of the machine may read a password) is refused: before (an attacker's
    /// read), `onetap-db migrate --url postgresql://api:pw@h/db` ran with the password in its argv.
    @Test(arguments: [
        [], ["drop"], ["migrate"], ["migrate", "--url"], ["migrate", "--url", "postgresql://api:hunter2-pw@h/db", "--data", "d"],
        ["migrate", "--url", "postgresql://api:hunter2-pw@h/db"], ["reconcile", "--url", "host=h password=hunter2-pw"],
    ])
    func theDBToolRefusesOtherArguments(arguments: [String]) async throws {
        let run = try await Binary.run(arguments, executable: "onetap-db")
        #expect(run.status == 64 && run.stdout.isEmpty)
        #expect(run.stderr.hasPrefix("onetap: error: ") && run.stderr.contains("onetap db"), "\(run.stderr)")
        #expect(!run.stderr.contains("hunter2-pw"))
    }

    /// A schema a newer OneTap migrated is refused (exit 1) and left as it was.
    @Test func aSchemaFromANewerOneTapIsRefusedWithExit1() async throws {
        let url = try await url()
        try await withSchema(url) { schema in
            #expect(try await Binary.run(["db", "migrate", "--url", "-", "--schema", schema], stdin: Array((url + "\n").utf8)).status == 0)
            let stores = PostgresStores(configuration: try PostgresConfiguration(url: url, schema: schema, poolSize: 1))
            try await stores.pool.execute("INSERT INTO \"\(schema)\".schema_migrations (version, name) VALUES (99, 'from the future')")
            await stores.close()
            let run = try await Binary.run(["db", "migrate", "--url", "-", "--schema", schema], stdin: Array((url + "\n").utf8))
            #expect(run.status == 1)
            #expect(run.stderr.hasPrefix("onetap: error: the migration failed: incompatible-schema: schema \(schema) is at version 99"), "\(run.stderr)")
            #expect(try await versions(url, schema) == Self.known.map(Int64.init) + [99])
        }
    }

    @Test func helpDescribesTheCommand() async throws {
        let help = try await Binary.run(["db", "--help"])
        #expect(help.status == 0 && help.stdout.hasPrefix("USAGE: onetap db migrate [--url URL | --url -] [--schema NAME] [--json]"))
        #expect(help.stdout.contains("69 the server cannot be reached"))
        let overview = try await Binary.run(["--help"])
        #expect(overview.stdout.contains("  db       bring a PostgreSQL schema"))
    }
}
