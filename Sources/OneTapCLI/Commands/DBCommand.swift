import Foundation
import OneTap

/// `onetap db …` runs in `onetap-db`, the tool built beside `onetap`: it links libpq, with the TLS,
/// Kerberos and LDAP libraries libpq brings, which would otherwise load at every start of `onetap`
/// (about 7 ms on the project's machines, more than the rest of a cold start). This side checks the
/// arguments (so a usage error reads as every other command's), runs the tool with them in one form,
/// and passes on its output, errors and exit status.
enum DBCommand: CommandDescription {
    static let name = "db"
    static let summary = "bring a PostgreSQL schema up to date, or list the exchanges to reconcile"
    static let help = """
        USAGE: onetap db migrate [--url URL | --url -] [--schema NAME] [--json]
               onetap db reconcile [--url URL | --url -] [--schema NAME] [--older-than 10m] [--json]

        migrate applies the migrations a PostgreSQL schema for OneTap's stores is missing (what
        PostgresStores.open does when a server starts), so an operator can migrate before a deploy.
        Safe to run at any time and from several places at once: the migrations run in one
        transaction under an advisory lock, a schema that is current is left alone, and a failed
        step changes nothing. The schema and its tables are created when missing (the role needs
        CREATE on the database then).

        reconcile lists the paid exchanges to reconcile with the carrier's bill: the exchange
        ledger's unknown ones (timed out, or their caller went away: they may have been billed) and
        its pending ones claimed at least --older-than ago (default 1m; their server died, or could
        not record the end: give a bound past your ExchangeGuard's time-out, 5 s by default). It
        changes nothing; a schema older than this OneTap is refused (migrate first). The ledger
        forgets a token a day after its claim: reconcile within that day.

        Both run onetap-db, built beside onetap (the one tool that links libpq).

        URL is a libpq URI or connection string: postgresql://user@db.internal:5432/onetap,
        postgresql:///onetap?host=/var/run/postgresql, "host=/tmp dbname=onetap". A password stays
        off the command line (every user of the machine can read a command line), so --url refuses a
        URL that carries one: put it in PGPASSWORD or ~/.pgpass, or give the whole URL in
        ONETAP_POSTGRES_URL (used when --url is absent) or on standard input with --url -. onetap passes the URL to onetap-db on its standard
        input, never on its command line, and never prints the password. --schema names the schema
        (default onetap: lowercase letters, digits and _). --older-than takes 30s, 10m, 2h or 1d, at most ten years.

        migrate prints "migrated schema onetap to version 14 (applied: 13, 14)" or "schema onetap
        is at version 14 (nothing to apply)"; JSON fields: schema, version, applied. reconcile prints
        a header and one line per exchange: token-sha256 (the token's SHA-256, never the token),
        state (unknown or pending), claimed-at (ISO 8601, UTC), session (the login session that
        claimed it), sends (2 after a resend); or "no exchanges to reconcile in schema onetap …".
        With --json, one line per exchange (NDJSON; none when there is none), fields: schema,
        olderThanSeconds, token, state, claimedAt, settledAt, session, sends.

        EXIT STATUS: 0 migrated, already current, or listed; 1 the server refused (a schema a newer
        OneTap migrated, a missing privilege, a failed step: nothing was changed; for reconcile, a
        schema not migrated to this OneTap's version); 64 usage error (an invalid URL, schema name
        or duration); 69 the server cannot be reached; 70 onetap-db crashed (another signal);
        74 the output cannot be written (onetap-db is stopped then); 129, 130, 143 onetap-db stopped
        by SIGHUP, SIGINT or SIGTERM (sent to onetap, they are passed on to onetap-db, and onetap
        then ends by the same signal).

        EXAMPLE: ONETAP_POSTGRES_URL=postgresql://onetap@db.internal/onetap onetap db migrate --schema onetap
        EXAMPLE: PGPASSWORD=… onetap db reconcile --url postgresql://onetap@db.internal/onetap --older-than 10m --json
        """
    static let options: [OptionSpec] = [.value("url"), .value("schema"), .flag("json"), .value("older-than")]

    static func parse(_ arguments: ParsedArguments) throws(UsageError) -> DBOptions {
        guard let action = arguments.operands.first else {
            throw UsageError("db needs an action: onetap db migrate --url URL, or onetap db reconcile --url URL", command: name)
        }
        guard let action = DBOptions.Action(rawValue: action) else {
            throw UsageError(
                "unknown db action (not repeated: it may be a password typed apart from its URL); the actions are \(DBOptions.Action.allCases.map(\.rawValue).joined(separator: ", "))",
                command: name)
        }
        // Never repeated: a database password typed apart from its URL stands here, and the redaction of messages
        // finds passwords only in URLs and `password=` pairs.
        if arguments.operands.count > 1 {
            throw UsageError("db \(action.rawValue) takes options only; one operand too many (not repeated: it may be a secret)", command: name)
        }
        var olderThan: Int64? = nil
        if let text = arguments.value("older-than") {
            guard action == .reconcile else {
                throw UsageError("--older-than is an option of db reconcile, not db \(action.rawValue)", command: name)
            }
            do {
                olderThan = try DurationText.seconds(text, in: 0...ExpiresIn.maximum, bounds: "--older-than is at most ten years")
            } catch {
                // The usage line says both what the value must look like and its bound (the parser's reason says one).
                throw UsageError("--older-than takes a duration such as 30s, 10m, 2h or 1d, at most ten years; got \(quoted(text))", command: name)
            }
        }
        return DBOptions(action: action, url: arguments.value("url"), schema: arguments.value("schema"), json: arguments.has("json"), olderThan: olderThan)
    }

    /// The tool `onetap db` runs.
    static let tool = SiblingTool(name: "onetap-db", command: name)

    /// Runs `onetap-db` with the options and passes on its output, errors and exit status.
    /// - Returns: The tool's exit status.
    /// - Throws: ``CommandFailure``: 64 without a usable URL; as ``SiblingTool/run(_:input:output:io:redactingOutput:redacting:)``
    ///   otherwise (69 missing, 70 crashed, 129, 130 or 143 stopped by a signal).
    static func run(_ options: DBOptions, output: OutputBuffer, io: any CommandIO) async throws(CommandFailure) -> ExitCode {
        let url = try resolvedURL(options, io: io)
        // The URL goes to the tool on its standard input, never on its command line (which every user of the
        // machine can read in /proc).
        var arguments = [options.action.rawValue, "--url", "-"]
        if let schema = options.schema { arguments += ["--schema", schema] }
        if options.json { arguments.append("--json") }
        if let olderThan = options.olderThan { arguments += ["--older-than", String(olderThan)] }
        return try await tool.run(arguments, input: Data((url + "\n").utf8), output: output, io: io, redacting: { ConnectionPasswords.redacting(in: $0, foundIn: [url]) })
    }

    /// The URL: as given, one line of standard input for `--url -`, or `ONETAP_POSTGRES_URL`.
    /// - Throws: ``CommandFailure`` with exit 64 when there is none.
    private static func resolvedURL(_ options: DBOptions, io: any CommandIO) throws(CommandFailure) -> String {
        let url: String
        switch options.url {
        case "-"?:
            guard let line = try SiblingTool.readLine(io) else {
                throw CommandFailure(message: "--url - reads the URL from standard input, which held none (see 'onetap db --help')", code: .usage)
            }
            url = line
        case let given?:
            guard ConnectionPasswords.found(in: given).isEmpty else {
                throw CommandFailure(
                    message: "--url carries a password, which every user of this machine can read on a command line; "
                        + "give the URL on standard input (--url -) or in ONETAP_POSTGRES_URL, or the password in PGPASSWORD or ~/.pgpass "
                        + "(see 'onetap db --help')",
                    code: .usage)
            }
            url = given
        case nil:
            guard let variable = io.environment("ONETAP_POSTGRES_URL"), !variable.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw CommandFailure(
                    message: "db \(options.action.rawValue) needs the PostgreSQL server: --url URL, --url - (the URL on standard input) "
                        + "or ONETAP_POSTGRES_URL (see 'onetap db --help')",
                    code: .usage)
            }
            url = variable
        }
        // The tool reads one line: a connection string spread over lines would lose its later pairs.
        // Read as bytes: CR LF is one Character in Swift, equal to neither.
        guard !url.utf8.contains(where: { $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r") }) else {
            throw CommandFailure(message: "the PostgreSQL URL holds a line break; write it on one line (see 'onetap db --help')", code: .usage)
        }
        return url
    }
}
