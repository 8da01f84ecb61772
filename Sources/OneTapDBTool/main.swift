// onetap-db: what `onetap db` runs. The one part of the command-line tool that links libpq (and the TLS,
// Kerberos and LDAP libraries libpq brings), kept out of `onetap` so that every other command starts
// without loading them. `onetap db migrate …` and `onetap db reconcile …` check their arguments, then run
// this tool beside itself with them in one form:
//
//   onetap-db migrate --url - [--schema NAME] [--json]
//   onetap-db reconcile --url - [--schema NAME] [--older-than SECONDS] [--json]
//
// with the URL as one line on standard input (`--url -`), so that its password is on no command line.
// It prints what `onetap db` prints and exits as it does: 0 migrated, current or listed; 1 the server
// refused (or the schema is older than this OneTap: migrate first); 64 an argument it cannot use (an
// invalid URL or schema); 69 the server cannot be reached. The URL's password is never printed.

import Foundation
import OneTap
import OneTapPostgres
import OneTapSupport

/// The longest one statement may run (a migration may wait for another instance's migration).
let statementTimeout = Duration.seconds(60)

func fail(_ message: String, _ url: String?, _ status: Int32) -> Never {
    let text = PostgresConfiguration.redactingPasswords(in: "onetap: error: \(message)\n", foundIn: url.map { [$0] } ?? [])
    StandardStream.writeError(text)
    exit(status)
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

let usage = "onetap-db takes migrate --url URL [--schema NAME] [--json] or reconcile --url URL [--schema NAME] [--older-than SECONDS] [--json] "
    + "(see 'onetap db --help')"

/// The arguments, in the one form `onetap db` passes them.
func parse(_ arguments: ArraySlice<String>) -> Request {
    var rest = arguments
    guard let action = rest.popFirst(), action == "migrate" || action == "reconcile" else {
        fail("onetap-db is run by 'onetap db': \(usage)", nil, 64)
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
                fail("--older-than takes whole seconds, 0 or more (see 'onetap db --help')", nil, 64)
            }
            request.olderThan = seconds
        case "--json": request.json = true
        default: fail(usage, Array(arguments).joined(separator: " "), 64)
        }
    }
    guard url != nil else { fail("db \(action) needs --url, the PostgreSQL server (postgresql://user@host/db) (see 'onetap db --help')", nil, 64) }
    guard let line = readLine() else {
        fail("--url - reads the URL from standard input, which held none (see 'onetap db --help')", nil, 64)
    }
    request.url = line  // checked as a --url value is
    return request
}

/// Fails with the exit status a database error calls for: 69 when the server cannot be reached, else 1.
func fail(_ error: any Error, doing: String, _ url: String) -> Never {
    switch (error as? PostgresError)?.kind {
    case .connectionFailed?, .connectionLost?, .closed?: fail("cannot reach PostgreSQL: \(error)", url, 69)
    case .timeout? where (error as? PostgresError)?.passedAwaitingAnAnswer == true:
        fail("\(doing) failed: \(error); whether the statement ran is unknown: run the command again (each step is one transaction)", url, 1)
    case .timeout? where (error as? PostgresError)?.sqlState == nil: fail("cannot reach PostgreSQL: \(error)", url, 69)
    case .some: fail("\(doing) failed: \(error)", url, 1)
    case nil:
        if let store = error as? StoreError, store.kind == .io, store.message.contains("connection-failed") {
            fail("cannot reach PostgreSQL: \(error)", url, 69)
        }
        fail("\(doing) failed: \(error)", url, 1)
    }
}

StandardStream.ignoreBrokenPipes()
let request = parse(CommandLine.arguments.dropFirst())
let configuration: PostgresConfiguration
do {
    configuration = try PostgresConfiguration(url: request.url, schema: request.schema, poolSize: 1, statementTimeout: statementTimeout)
} catch {
    fail("\(error.message) (see 'onetap db --help')", request.url, 64)
}
let stores = PostgresStores(configuration: configuration)
let lines: [String]
if request.action == "reconcile" {
    do {
        lines = try await Reconciliation.lines(stores, olderThan: request.olderThan, json: request.json, now: SystemClock().now())
    } catch {
        await stores.close()
        fail(error, doing: "listing the exchanges to reconcile", request.url)
    }
} else {
    let report: PostgresMigrationReport
    do {
        // The migrator itself rather than `stores.migrate()`: its PostgreSQL error (not the store error the
        // public call makes of it) tells an unreachable server (exit 69) from a refusal (exit 1).
        report = try await PostgresMigrator(schema: configuration.schema).migrate(stores.pool)
    } catch {
        await stores.close()
        fail(error, doing: "the migration", request.url)
    }
    let applied = report.applied.map(String.init)
    if request.json {
        var writer = JSONWriter(capacity: 128)
        writer.object { writer in
            writer.member("schema", report.schema)
            writer.member("version", report.version)
            writer.key("applied")
            writer.array { writer in for version in report.applied { writer.int(version) } }
        }
        lines = [writer.text]
    } else if applied.isEmpty {
        lines = ["schema \(report.schema) is at version \(report.version) (nothing to apply)"]
    } else {
        lines = ["migrated schema \(report.schema) to version \(report.version) (applied: \(applied.joined(separator: ", ")))"]
    }
}
await stores.close()
var output = lines.map { $0 + "\n" }.joined()
_ = output.withUTF8 { StandardStream.writeAll(1, UnsafeRawBufferPointer($0)) }
exit(0)
