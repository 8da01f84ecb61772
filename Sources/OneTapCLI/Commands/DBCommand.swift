import OneTap
import OneTapPostgres

/// `onetap db migrate --url URL [--schema NAME] [--json]`: brings a PostgreSQL schema up to date, with
/// the library's own migrator (`PostgresStores.migrate()`). Its descriptions and mirror show the URL
/// with its password redacted.
package struct DBOptions: Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// What to do with the database.
    package enum Action: String, Hashable, Sendable, CaseIterable {
        /// Apply the schema's missing migrations.
        case migrate
    }

    /// What to do.
    package var action: Action
    /// `--url`, as given (it may hold a password; never printed).
    package var url: String
    /// `--schema`, as given; `onetap` when absent.
    package var schema: String?
    /// Whether to print JSON.
    package var json: Bool

    static let specs: [OptionSpec] = [.value("url"), .value("schema"), .flag("json")]

    init(_ parsed: ParsedArguments) throws(UsageError) {
        guard let name = parsed.operands.first else {
            throw UsageError("db needs an action: onetap db migrate --url URL", command: "db")
        }
        guard let action = Action(rawValue: name) else {
            throw UsageError(
                "unknown db action \(quoted(name)); the actions are \(Action.allCases.map(\.rawValue).joined(separator: ", "))", command: "db")
        }
        if let extra = parsed.operands.dropFirst().first {
            throw UsageError("db \(action.rawValue) takes options only; unexpected \(quoted(extra))", command: "db")
        }
        guard let url = parsed.value("url") else {
            throw UsageError("db \(action.rawValue) needs --url, the PostgreSQL server (postgresql://user@host/db)", command: "db")
        }
        self.action = action
        self.url = url
        schema = parsed.value("schema")
        json = parsed.has("json")
    }

    /// The URL with whatever looks like a password in it redacted.
    package var redactedURL: String { PostgresConfiguration.redactingPasswords(in: url, foundIn: [url]) }

    /// `DBOptions(migrate, url postgresql://api:<redacted>@db/onetap, schema onetap, json false)`.
    package var description: String {
        "DBOptions(\(action.rawValue), url \(redactedURL), schema \(schema ?? "onetap"), json \(json))"
    }

    /// The same as ``description``.
    package var debugDescription: String { description }

    /// A mirror without the password, so `dump` (and a failed expectation) shows the redacted URL only.
    package var customMirror: Mirror {
        Mirror(self, children: ["action": action, "url": redactedURL, "schema": schema as Any, "json": json], displayStyle: .struct)
    }

    /// Creates options.
    /// - Parameters:
    ///   - action: What to do.
    ///   - url: The server.
    ///   - schema: The schema; `onetap` when nil.
    ///   - json: Whether to print JSON.
    package init(action: Action, url: String, schema: String? = nil, json: Bool = false) {
        self.action = action
        self.url = url
        self.schema = schema
        self.json = json
    }
}

enum DBCommand {
    /// The longest one migration statement may run (it may wait for another instance's migration).
    static let statementTimeout = Duration.seconds(60)

    static func run(_ options: DBOptions, output: OutputBuffer) async throws(CommandFailure) -> ExitCode {
        let configuration: PostgresConfiguration
        do {
            configuration = try PostgresConfiguration(
                url: options.url, schema: options.schema ?? "onetap", poolSize: 1, statementTimeout: statementTimeout)
        } catch {
            throw CommandFailure(message: scrub("\(error.message) (see 'onetap db --help')", options), code: .usage)
        }
        let stores = PostgresStores(configuration: configuration)
        let report: PostgresMigrationReport
        do {
            report = try await stores.migrate()
        } catch {
            await stores.close()
            throw failure(error, options)
        }
        await stores.close()
        if options.json {
            var object = JSONObject()
            object.add("schema", report.schema)
            object.add("version", Int64(report.version))
            object.add("applied", json: "[" + report.applied.map(String.init).joined(separator: ",") + "]")
            output.line(object.json)
        } else if report.applied.isEmpty {
            output.line("schema \(report.schema) is at version \(report.version) (nothing to apply)")
        } else {
            output.line("migrated schema \(report.schema) to version \(report.version) (applied: \(report.applied.map(String.init).joined(separator: ", ")))")
        }
        return .success
    }

    /// The exit code and message for a failed migration: 69 when the server cannot be reached (or went
    /// away, or never answered), 1 when it answered with a refusal (nothing was changed).
    private static func failure(_ error: any Error, _ options: DBOptions) -> CommandFailure {
        guard let error = error as? PostgresError else {
            return CommandFailure(message: scrub("cannot migrate: \(error)", options), code: .failed)
        }
        switch error.kind {
        case .connectionFailed, .connectionLost, .closed:
            return CommandFailure(message: scrub("cannot reach PostgreSQL: \(error)", options), code: .unavailable)
        case .timeout where error.sqlState == nil:
            return CommandFailure(message: scrub("cannot reach PostgreSQL: \(error)", options), code: .unavailable)
        default:
            return CommandFailure(message: scrub("the migration failed: \(error)", options), code: .failed)
        }
    }

    /// A message without the URL's password, should anything have quoted it.
    private static func scrub(_ message: String, _ options: DBOptions) -> String {
        PostgresConfiguration.redactingPasswords(in: message, foundIn: [options.url])
    }
}
