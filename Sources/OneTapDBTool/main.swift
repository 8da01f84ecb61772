// onetap-db: what `onetap db` runs. The one part of the command-line tool that links libpq (and the TLS,
// Kerberos and LDAP libraries libpq brings), kept out of `onetap` so that every other command starts
// without loading them. `onetap db migrate …` checks its arguments, then runs this tool beside itself
// with them in one form:
//
//   onetap-db migrate --url - [--schema NAME] [--json]
//
// with the URL as one line on standard input (`--url -`), so that its password is on no command line.
// It prints what `onetap db migrate` prints and exits as it does: 0 migrated or current; 1 the server
// refused; 64 an argument it cannot use (an invalid URL or schema); 69 the server cannot be reached. The
// URL's password is never printed.

import Foundation
import OneTap
import OneTapPostgres

/// The longest one migration statement may run (it may wait for another instance's migration).
let statementTimeout = Duration.seconds(60)

func fail(_ message: String, _ url: String?, _ status: Int32) -> Never {
    let text = PostgresConfiguration.redactingPasswords(in: "onetap: error: \(message)\n", foundIn: url.map { [$0] } ?? [])
    FileHandle.standardError.write(Data(text.utf8))
    exit(status)
}

/// The arguments, in the one form `onetap db` passes them.
func parse(_ arguments: ArraySlice<String>) -> (url: String, schema: String, json: Bool) {
    var rest = arguments
    guard rest.popFirst() == "migrate" else {
        fail("onetap-db is run by 'onetap db': use onetap db migrate --url URL [--schema NAME] [--json] (see 'onetap db --help')", nil, 64)
    }
    var url: String?
    var schema = "onetap"
    var json = false
    while let argument = rest.popFirst() {
        switch argument {
        case "--url" where !rest.isEmpty: url = rest.popFirst()
        case "--schema" where !rest.isEmpty: schema = rest.popFirst() ?? schema
        case "--json": json = true
        default: fail("onetap-db takes migrate --url URL [--schema NAME] [--json] (see 'onetap db --help')", Array(arguments).joined(separator: " "), 64)
        }
    }
    guard var url else { fail("db migrate needs --url, the PostgreSQL server (postgresql://user@host/db) (see 'onetap db --help')", nil, 64) }
    if url == "-" {
        guard let line = readLine() else {
            fail("--url - reads the URL from standard input, which held none (see 'onetap db --help')", nil, 64)
        }
        url = line  // checked as a --url value is
    }
    return (url, schema, json)
}

let (url, schema, json) = parse(CommandLine.arguments.dropFirst())
let configuration: PostgresConfiguration
do {
    configuration = try PostgresConfiguration(url: url, schema: schema, poolSize: 1, statementTimeout: statementTimeout)
} catch {
    fail("\(error.message) (see 'onetap db --help')", url, 64)
}
let stores = PostgresStores(configuration: configuration)
let report: PostgresMigrationReport
do {
    report = try await stores.migrate()
} catch let error as PostgresError {
    await stores.close()
    switch error.kind {
    case .connectionFailed, .connectionLost, .closed: fail("cannot reach PostgreSQL: \(error)", url, 69)
    case .timeout where error.sqlState == nil: fail("cannot reach PostgreSQL: \(error)", url, 69)
    default: fail("the migration failed: \(error)", url, 1)
    }
} catch {
    await stores.close()
    fail("cannot migrate: \(error)", url, 1)
}
await stores.close()
let applied = report.applied.map(String.init)
let line: String
if json {
    // The schema is a validated identifier (lowercase letters, digits, _): nothing in it needs escaping.
    line = #"{"schema":"\#(report.schema)","version":\#(report.version),"applied":[\#(applied.joined(separator: ","))]}"#
} else if applied.isEmpty {
    line = "schema \(report.schema) is at version \(report.version) (nothing to apply)"
} else {
    line = "migrated schema \(report.schema) to version \(report.version) (applied: \(applied.joined(separator: ", ")))"
}
FileHandle.standardOutput.write(Data((line + "\n").utf8))
exit(0)
