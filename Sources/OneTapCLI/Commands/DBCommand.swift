import Dispatch
import Foundation
import OneTap

/// `onetap db …` runs in `onetap-db`, the tool built beside `onetap`: it links libpq, with the TLS,
/// Kerberos and LDAP libraries libpq brings, which would otherwise load at every start of `onetap`
/// (about 7 ms on the project's machines, more than the rest of a cold start). This side checks the
/// arguments (so a usage error reads as every other command's), runs the tool with them in one form,
/// and passes on its output, errors and exit status.
enum DBCommand: CommandDescription {
    static let name = "db"
    static let summary = "bring a PostgreSQL schema for OneTap's stores up to date"
    static let help = """
        USAGE: onetap db migrate --url URL [--schema NAME] [--json]

        Applies the migrations a PostgreSQL schema for OneTap's stores is missing (what
        PostgresStores.open does when a server starts), so an operator can migrate before a deploy.
        It runs onetap-db, built beside onetap (the one tool that links libpq).
        Safe to run at any time and from several places at once: the migrations run in one
        transaction under an advisory lock, a schema that is current is left alone, and a failed
        step changes nothing. The schema and its tables are created when missing (the role needs
        CREATE on the database then).

        URL is a libpq URI or connection string: postgresql://user@db.internal:5432/onetap,
        postgresql:///onetap?host=/var/run/postgresql, "host=/tmp dbname=onetap". Its password is
        never printed; it can also come from PGPASSWORD or ~/.pgpass, which keeps it off the command
        line. --schema names the schema (default onetap: lowercase letters, digits and _).

        Prints "migrated schema onetap to version 6 (applied: 3, 4, 5, 6)" or "schema onetap is at
        version 6 (nothing to apply)". JSON fields: schema, version, applied.

        EXIT STATUS: 0 migrated or already current; 1 the server refused (a schema a newer OneTap
        migrated, a missing privilege, a failed step: nothing was changed); 64 usage error (an
        invalid URL or schema name); 69 the server cannot be reached.

        EXAMPLE: onetap db migrate --url postgresql://onetap@db.internal/onetap --schema onetap
        """
    static let options: [OptionSpec] = [.value("url"), .value("schema"), .flag("json")]

    static func parse(_ arguments: ParsedArguments) throws(UsageError) -> DBOptions {
        guard let action = arguments.operands.first else {
            throw UsageError("db needs an action: onetap db migrate --url URL", command: name)
        }
        guard let action = DBOptions.Action(rawValue: action) else {
            throw UsageError(
                "unknown db action \(quoted(action)); the actions are \(DBOptions.Action.allCases.map(\.rawValue).joined(separator: ", "))",
                command: name)
        }
        if let extra = arguments.operands.dropFirst().first {
            throw UsageError("db \(action.rawValue) takes options only; unexpected \(quoted(extra))", command: name)
        }
        guard let url = arguments.value("url") else {
            throw UsageError("db \(action.rawValue) needs --url, the PostgreSQL server (postgresql://user@host/db)", command: name)
        }
        return DBOptions(action: action, url: url, schema: arguments.value("schema"), json: arguments.has("json"))
    }

    /// The tool's file name, beside the running executable.
    static let toolName = "onetap-db"

    /// Runs `onetap-db` with the options and passes on its output, errors and exit status.
    /// - Returns: The tool's exit status.
    /// - Throws: ``CommandFailure``: 69 when the tool is missing or cannot start, 1 when a signal stopped it.
    static func run(_ options: DBOptions, output: OutputBuffer, io: any CommandIO) async throws(CommandFailure) -> ExitCode {
        guard let tool = location() else {
            throw CommandFailure(
                message: "onetap db runs \(toolName), which is not beside this onetap; build both with 'swift build' "
                    + "(or 'swift build --product \(toolName)')",
                code: .unavailable)
        }
        var arguments = [options.action.rawValue, "--url", options.url]
        if let schema = options.schema { arguments += ["--schema", schema] }
        if options.json { arguments.append("--json") }
        let finished: Finished
        do {
            finished = try await launch(tool, arguments)
        } catch {
            throw CommandFailure(message: "cannot run \(tool.path): \(error.localizedDescription)", code: .unavailable)
        }
        let text = String(decoding: finished.output, as: UTF8.self)
        if !text.isEmpty {
            for line in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast(text.hasSuffix("\n") ? 1 : 0) {
                output.line(String(line))
            }
        }
        output.flush()
        let errors = String(decoding: finished.errors, as: UTF8.self)
        for line in errors.split(separator: "\n") {
            io.writeError(ConnectionPasswords.redacting(in: String(line), foundIn: [options.url]))
        }
        guard !finished.signalled else {
            throw CommandFailure(message: "\(toolName) was stopped by signal \(finished.status)", code: .failed)
        }
        return ExitCode(rawValue: finished.status)
    }

    /// The tool beside the running executable (the test runner's folder in tests, which holds it too).
    private static func location() -> URL? {
        guard let directory = Bundle.main.executableURL?.resolvingSymlinksInPath().deletingLastPathComponent() else { return nil }
        let tool = directory.appendingPathComponent(toolName)
        return FileManager.default.isExecutableFile(atPath: tool.path) ? tool : nil
    }

    private struct Finished: Sendable {
        let output: Data
        let errors: Data
        let status: Int32
        let signalled: Bool
    }

    /// Runs the tool to its end on a thread of its own (its pipes are read with blocking calls, off the
    /// cooperative pool).
    private static func launch(_ tool: URL, _ arguments: [String]) async throws -> Finished {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue(label: "onetap.db-tool").async {
                let process = Process()
                process.executableURL = tool
                process.arguments = arguments
                let output = Pipe()
                let errors = Pipe()
                process.standardOutput = output
                process.standardError = errors
                process.standardInput = FileHandle.nullDevice
                do {
                    try process.run()
                } catch {
                    continuation.resume(throwing: error)
                    return
                }
                let errorText = LockedValue(Data())
                let group = DispatchGroup()
                DispatchQueue(label: "onetap.db-tool.stderr").async(group: group) {
                    let data = errors.fileHandleForReading.readDataToEndOfFile()
                    errorText.withLock { $0 = data }
                }
                let data = output.fileHandleForReading.readDataToEndOfFile()
                group.wait()
                process.waitUntilExit()
                continuation.resume(returning: Finished(output: data, errors: errorText.withLock { $0 }, status: process.terminationStatus,
                    signalled: process.terminationReason == .uncaughtSignal))
            }
        }
    }
}
