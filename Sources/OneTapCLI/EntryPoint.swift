import OneTap

/// The `onetap` command line: a pure ``parse(_:)`` from arguments to an ``Invocation``, and a ``run(_:io:)``
/// that returns the exit code. `main.swift` only calls `exit(await OneTapCommandLine.main())`.
package enum OneTapCommandLine {
    /// Sorts the command line into what it asks for. Pure: reads no files and no tables.
    /// - Parameter arguments: The arguments after the program name.
    /// - Returns: The invocation.
    /// - Throws: ``UsageError`` for an unknown command or option, a missing value, an invalid choice.
    package static func parse(_ arguments: [String]) throws(UsageError) -> Invocation {
        guard let commandIndex = commandPosition(arguments) else {
            // Only options: --help, --version, or nothing.
            if arguments.contains("--version") { return .version }
            if arguments.isEmpty || arguments.contains("--help") || arguments.contains("-h") { return .help(command: nil) }
            throw UsageError("no command given; the commands are \(Help.commands.map(\.name).joined(separator: ", "))")
        }
        let command = arguments[commandIndex]
        var rest = arguments
        rest.remove(at: commandIndex)
        if command == "help" {
            guard let topic = rest.first else { return .help(command: nil) }
            guard Help.text(for: topic) != nil else { throw UsageError("no help for unknown command \(quoted(topic))") }
            return .help(command: topic)
        }
        if rest.contains("--version") { return .version }
        switch command {
        case "carrier", "number":
            let parsed = try ParsedArguments.parse(rest[...], options: [.flag("json")] + TableOptions.specs, command: command)
            if parsed.help { return .help(command: command) }
            let options = try lookupOptions(parsed, command: command)
            return command == "carrier" ? .carrier(options) : .number(options)
        case "route":
            let parsed = try ParsedArguments.parse(rest[...], options: [.flag("json")] + SnapshotArguments.specs + TableOptions.specs, command: command)
            if parsed.help { return .help(command: command) }
            let snapshot = try SnapshotArguments(parsed, command: command)
            let stdin = parsed.operands == ["-"]
            if !parsed.operands.isEmpty && !stdin {
                throw UsageError("route takes options, or - to read NDJSON snapshots; unexpected \(quoted(parsed.operands[0]))", command: command)
            }
            if stdin && !snapshot.isEmpty {
                throw UsageError("route - reads snapshots from standard input; snapshot options cannot be combined with it", command: command)
            }
            return .route(RouteOptions(snapshot: snapshot, readsStandardInput: stdin, json: parsed.has("json"), tables: TableOptions(parsed)))
        case "outcome":
            let parsed = try ParsedArguments.parse(rest[...], options: [.flag("json")] + TableOptions.specs, command: command)
            if parsed.help { return .help(command: command) }
            guard parsed.operands.count == 2 else {
                throw UsageError("outcome takes a flow and a code, e.g. onetap outcome tianyi -8994014", command: command)
            }
            guard let flow = LoginFlow(rawValue: parsed.operands[0]) else {
                throw UsageError(
                    "unknown flow \(quoted(parsed.operands[0])); the flows are \(LoginFlow.allCases.map(\.rawValue).joined(separator: ", "))",
                    command: command)
            }
            return .outcome(OutcomeOptions(flow: flow, code: parsed.operands[1], json: parsed.has("json"), tables: TableOptions(parsed)))
        case "check":
            let parsed = try ParsedArguments.parse(rest[...], options: [.flag("json")] + TableOptions.specs, command: command)
            if parsed.help { return .help(command: command) }
            guard !parsed.operands.isEmpty else { throw UsageError("check needs at least one decision-table file", command: command) }
            if parsed.operands.contains("-") { throw UsageError("check reads files, not standard input", command: command) }
            return .check(CheckOptions(files: parsed.operands, json: parsed.has("json"), tables: TableOptions(parsed)))
        case "simulate":
            let parsed = try ParsedArguments.parse(rest[...], options: SimulateOptions.specs + TableOptions.specs, command: command)
            if parsed.help { return .help(command: command) }
            return .simulate(try SimulateOptions(parsed))
        case "session":
            let parsed = try ParsedArguments.parse(rest[...], options: SessionOptions.specs, command: command)
            if parsed.help { return .help(command: command) }
            return .session(try SessionOptions(parsed))
        case "gate":
            let parsed = try ParsedArguments.parse(rest[...], options: GateOptions.specs, command: command)
            if parsed.help { return .help(command: command) }
            return .gate(try GateOptions(parsed))
        case "merge":
            let parsed = try ParsedArguments.parse(rest[...], options: MergeOptions.specs, command: command)
            if parsed.help { return .help(command: command) }
            return .merge(try MergeOptions(parsed))
        case "sms":
            let parsed = try ParsedArguments.parse(rest[...], options: SMSOptions.specs, command: command)
            if parsed.help { return .help(command: command) }
            return .sms(try SMSOptions(parsed))
        case "token":
            let parsed = try ParsedArguments.parse(rest[...], options: TokenOptions.specs, command: command)
            if parsed.help { return .help(command: command) }
            return .token(try TokenOptions(parsed))
        case "db":
            let parsed = try ParsedArguments.parse(rest[...], options: DBOptions.specs, command: command)
            if parsed.help { return .help(command: command) }
            return .db(try DBOptions(parsed))
        case "stats":
            let parsed = try ParsedArguments.parse(rest[...], options: StatsOptions.specs, command: command)
            if parsed.help { return .help(command: command) }
            return .stats(try StatsOptions(parsed))
        case "replay":
            let parsed = try ParsedArguments.parse(rest[...], options: ReplayOptions.specs, command: command)
            if parsed.help { return .help(command: command) }
            return .replay(try ReplayOptions(parsed))
        default:
            throw UsageError("unknown command \(quoted(command)); the commands are \(Help.commands.map(\.name).joined(separator: ", "))")
        }
    }

    /// Where the command name stands: the first argument that is not an option or an option's value
    /// (options may come before the command: `onetap --json carrier 46000`).
    private static func commandPosition(_ arguments: [String]) -> Int? {
        let valued = Set((TableOptions.specs + SimulateOptions.specs + TokenOptions.specs + SMSOptions.specs + GateOptions.specs + MergeOptions.specs + DBOptions.specs + StatsOptions.specs + ReplayOptions.specs)
            .filter(\.takesValue).map { "--" + $0.name })
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" { return index + 1 < arguments.count ? index + 1 : nil }
            if argument == "-" || !argument.hasPrefix("-") { return index }
            index += valued.contains(argument) ? 2 : 1
        }
        return nil
    }

    private static func lookupOptions(_ parsed: ParsedArguments, command: String) throws(UsageError) -> LookupOptions {
        let stdin = parsed.operands.contains("-")
        if stdin && parsed.operands.count > 1 {
            throw UsageError("- reads standard input and must be the only operand", command: command)
        }
        if parsed.operands.isEmpty {
            throw UsageError("\(command) needs at least one value, or - to read standard input", command: command)
        }
        return LookupOptions(
            inputs: stdin ? [] : parsed.operands, readsStandardInput: stdin, json: parsed.has("json"), tables: TableOptions(parsed))
    }

    /// Runs a command line.
    /// - Parameters:
    ///   - arguments: The arguments after the program name.
    ///   - io: The standard streams.
    /// - Returns: The exit code. Nothing escapes: every error becomes an `onetap: error:` line on
    ///   standard error and its exit code.
    package static func run(_ arguments: [String], io: any CommandIO) async -> ExitCode {
        let invocation: Invocation
        do {
            invocation = try parse(arguments)
        } catch {
            // A usage error may quote an argument, and an argument may be a URL with a password in it.
            io.writeError("onetap: error: \(ConnectionPasswords.redacting(in: error.description, foundIn: arguments))")
            return .usage
        }
        return await run(invocation, io: io)
    }

    /// Runs a parsed invocation.
    /// - Parameters:
    ///   - invocation: What to do.
    ///   - io: The standard streams.
    /// - Returns: The exit code.
    package static func run(_ invocation: Invocation, io: any CommandIO) async -> ExitCode {
        let output = OutputBuffer(io: io)
        var code: ExitCode
        do throws(CommandFailure) {
            switch invocation {
            case .help(let command):
                output.line(command.flatMap(Help.text(for:)) ?? Help.overview)
                code = .success
            case .version:
                output.line(Help.version)
                code = .success
            case .carrier(let options):
                code = try LookupCommand.carrier(options, output: output, io: io)
            case .number(let options):
                code = try LookupCommand.number(options, output: output, io: io)
            case .route(let options):
                code = try RouteCommand.run(options, output: output, io: io)
            case .outcome(let options):
                code = try OutcomeCommand.run(options, output: output)
            case .check(let options):
                code = try CheckCommand.run(options, output: output)
            case .token(let options):
                code = try TokenCommand.run(options, output: output)
            case .simulate(let options):
                code = try SimulateCommand.run(options, output: output)
            case .session(let options):
                code = try SessionCommand.run(options, output: output, io: io)
            case .sms(let options):
                code = try SMSCommand.run(options, output: output, io: io)
            case .gate(let options):
                code = try GateCommand.run(options, output: output)
            case .merge(let options):
                code = try MergeCommand.run(options, output: output)
            case .db(let options):
                code = try await DBCommand.run(options, output: output, io: io)
            case .stats(let options):
                code = try StatsCommand.run(options, output: output, io: io)
            case .replay(let options):
                code = try ReplayCommand.run(options, output: output, io: io)
            }
        } catch {
            output.flush()
            io.writeError("onetap: error: \(error.message)")
            code = error.code
        }
        output.flush()
        if output.failed {
            io.writeError("onetap: error: cannot write to standard output")
            return .ioError
        }
        return code
    }

    /// Runs the process's own command line on its standard streams.
    /// - Returns: The exit status for `exit`.
    package static func main() async -> Int32 {
        await run(Array(CommandLine.arguments.dropFirst()), io: ProcessIO()).rawValue
    }
}
