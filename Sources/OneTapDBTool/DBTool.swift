import Foundation
import OneTap
import OneTapPostgres
import OneTapSupport

/// The tool's run, from its arguments to its exit status: what `main.swift` exits with.
enum DBTool {
    /// The longest one statement may run (a migration may wait for another instance's migration).
    static let statementTimeout = Duration.seconds(60)

    static let usage = "onetap-db takes migrate --url - [--schema NAME] [--json] or reconcile --url - [--schema NAME] [--older-than SECONDS] [--json], "
        + "the URL on standard input "
        + "(see 'onetap db --help')"

    /// Runs one request: reads the URL from standard input, then migrates or lists the exchanges to reconcile,
    /// printing what it prints.
    /// - Parameter arguments: The arguments, without the tool's name.
    /// - Returns: The exit status: 0 migrated, current or listed; 1 the server refused; 64 an argument it cannot use;
    ///   69 the server cannot be reached; the message of any but 0 on standard error, the URL's password redacted.
    static func run(_ arguments: [String]) async -> Int32 {
        do {
            try await perform(arguments) { text in
                var text = text
                _ = text.withUTF8 { StandardStream.writeAll(1, UnsafeRawBufferPointer($0)) }
            }
            return 0
        } catch {
            StandardStream.writeError(PostgresConfiguration.redactingPasswords(in: "onetap: error: \(error.message)\n", foundIn: error.url.map { [$0] } ?? []))
            return error.status
        }
    }

    /// What the tool was asked.
    struct Request {
        var action: String
        var url: String
        var schema = "onetap"
        var json = false
        /// `reconcile`: list the pending exchanges claimed at least this many seconds ago.
        var olderThan: Int64 = 60
    }

    /// Why the tool stops short: its message, the URL whose password the message must not show, and the exit status.
    struct Failure: Error {
        let message: String
        let url: String?
        let status: Int32

        init(_ message: String, _ url: String?, _ status: Int32) {
            self.message = message
            self.url = url
            self.status = status
        }

        /// The failure a database error calls for: 69 when the server cannot be reached, else 1.
        init(_ error: any Error, doing: String, _ url: String) {
            switch (error as? PostgresError)?.kind {
            case .connectionFailed?, .connectionLost?, .closed?: self.init("cannot reach PostgreSQL: \(error)", url, 69)
            case .timeout? where (error as? PostgresError)?.passedAwaitingAnAnswer == true:
                self.init("\(doing) failed: \(error); whether the statement ran is unknown: run the command again (each step is one transaction)", url, 1)
            case .timeout? where (error as? PostgresError)?.sqlState == nil: self.init("cannot reach PostgreSQL: \(error)", url, 69)
            case .some: self.init("\(doing) failed: \(error)", url, 1)
            case nil:
                if let store = error as? StoreError, store.kind == .io, store.message.contains("connection-failed") {
                    self.init("cannot reach PostgreSQL: \(error)", url, 69)
                } else {
                    self.init("\(doing) failed: \(error)", url, 1)
                }
            }
        }
    }

    /// The arguments, in the one form `onetap db` passes them, and the URL from standard input.
    static func parse(_ arguments: [String]) throws(Failure) -> Request {
        var rest = arguments[...]
        guard let action = rest.popFirst(), action == "migrate" || action == "reconcile" else {
            throw Failure("onetap-db is run by 'onetap db': \(usage)", nil, 64)
        }
        var url: String?
        var request = Request(action: action, url: "")
        while let argument = rest.popFirst() {
            switch argument {
            // Only from standard input: a URL on a command line, which any user of the machine may read, could hold a password.
            case "--url" where rest.first == "-": url = rest.popFirst()
            case "--schema" where !rest.isEmpty: request.schema = rest.popFirst() ?? request.schema
            case "--older-than" where action == "reconcile" && !rest.isEmpty:
                guard let text = rest.popFirst(), let seconds = Int64(text), seconds >= 0 else {
                    throw Failure("--older-than takes whole seconds, 0 or more (see 'onetap db --help')", nil, 64)
                }
                request.olderThan = seconds
            case "--json": request.json = true
            default: throw Failure(usage, arguments.joined(separator: " "), 64)
            }
        }
        guard url != nil else { throw Failure("db \(action) needs --url, the PostgreSQL server (postgresql://user@host/db) (see 'onetap db --help')", nil, 64) }
        guard let line = readLine() else {
            throw Failure("--url - reads the URL from standard input, which held none (see 'onetap db --help')", nil, 64)
        }
        request.url = line  // checked as a --url value is
        return request
    }

    /// Runs one request, writing what it prints as it goes.
    private static func perform(_ arguments: [String], write: (String) -> Void) async throws(Failure) {
        let request = try parse(arguments)
        let configuration: PostgresConfiguration
        do {
            configuration = try PostgresConfiguration(url: request.url, schema: request.schema, poolSize: 1, statementTimeout: statementTimeout)
        } catch {
            throw Failure("\(error.message) (see 'onetap db --help')", request.url, 64)
        }
        let stores = PostgresStores(configuration: configuration)
        if request.action == "reconcile" {
            do {
                try await Reconciliation.write(stores, olderThan: request.olderThan, json: request.json, now: SystemClock().now(), to: write)
            } catch {
                await stores.close()
                throw Failure(error, doing: "listing the exchanges to reconcile", request.url)
            }
        } else {
            let report: PostgresMigrationReport
            do {
                // The migrator itself rather than `stores.migrate()`: its PostgreSQL error (not the store error the
                // public call makes of it) tells an unreachable server (exit 69) from a refusal (exit 1).
                report = try await PostgresMigrator(schema: configuration.schema).migrate(stores.pool)
            } catch {
                await stores.close()
                throw Failure(error, doing: "the migration", request.url)
            }
            write(migrated(report, json: request.json) + "\n")
        }
        await stores.close()
    }

    /// `migrate`'s line: the schema's version and the migrations applied, or its JSON object.
    private static func migrated(_ report: PostgresMigrationReport, json: Bool) -> String {
        let applied = report.applied.map(String.init)
        if json {
            var writer = JSONWriter(capacity: 128)
            writer.object { writer in
                writer.member("schema", report.schema)
                writer.member("version", report.version)
                writer.key("applied")
                writer.array { writer in for version in report.applied { writer.int(version) } }
            }
            return writer.text
        }
        if applied.isEmpty { return "schema \(report.schema) is at version \(report.version) (nothing to apply)" }
        return "migrated schema \(report.schema) to version \(report.version) (applied: \(applied.joined(separator: ", ")))"
    }
}
