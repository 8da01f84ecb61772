import OneTap
import OneTapChildProcess

/// The `onetap` command line: a pure ``parse(_:)`` from arguments to an ``Invocation``, and a ``run(_:io:)``
/// that returns the exit code. `main.swift` only calls `exit(await OneTapCommandLine.main())`. The
/// commands themselves are the descriptions in ``CommandRegistry``.
package enum OneTapCommandLine {
    /// Sorts the command line into what it asks for. Pure: reads no files and no tables.
    /// - Parameter arguments: The arguments after the program name.
    /// - Returns: The invocation.
    /// - Throws: ``UsageError`` for an unknown command or option, a missing value, an invalid choice.
    package static func parse(_ arguments: [String]) throws(UsageError) -> Invocation {
        guard let commandIndex = CommandRegistry.commandPosition(arguments) else {
            // Only options: --help, --version, or nothing; an option no command takes is a mistake all the same.
            let parsed = try ParsedArguments.parse(arguments[...], options: Self.topLevelOptions, command: nil)
            if parsed.has("version") { return .version }
            if arguments.isEmpty || parsed.help { return .help(command: nil) }
            throw UsageError("no command given; the commands are \(CommandRegistry.names)")
        }
        let name = arguments[commandIndex]
        var rest = arguments
        rest.remove(at: commandIndex)
        if name == "help" {
            // The topic is the first operand after `help`, found as the command is: options around it and their
            // values (`onetap --data DIR help carrier`) are not one. They are the topic's, checked as it checks
            // them (with no topic, any command's), and one topic only. `--version` may stand anywhere, as with any
            // command; the help wins.
            let after = Array(arguments[(commandIndex + 1)...])
            guard let position = CommandRegistry.commandPosition(after) else {
                let parsed = try ParsedArguments.parse(rest[...], options: Self.topLevelOptions, command: nil)
                if let operand = parsed.operands.first { throw UsageError("no help for unknown command \(quotedAction(operand))") }
                return .help(command: nil)
            }
            let topic = after[position]
            guard let command = CommandRegistry.command(named: topic) else { throw UsageError("no help for unknown command \(quotedAction(topic))") }
            rest.remove(at: commandIndex + position)
            let parsed = try ParsedArguments.parse(Self.withoutVersion(rest)[...], options: command.options, command: topic)
            if let another = parsed.operands.first {
                throw UsageError("help takes one command's name, not \(quotedAction(another)) too", command: topic)
            }
            return .help(command: topic)
        }
        // `--` ends the options: a `--version` after it is an operand (`onetap carrier -- --version`).
        if rest.prefix(while: { $0 != "--" }).contains("--version") { return .version }
        guard let command = CommandRegistry.command(named: name) else {
            // Not repeated unless it looks like a command's name: a token typed alone (`onetap "$TOKEN"`) would be.
            throw UsageError("unknown command \(quotedAction(name)); the commands are \(CommandRegistry.names)")
        }
        return try command.invocation(rest[...])
    }

    /// What may stand on a command line with no command (or with `help` and no topic): any command's options, and
    /// `--version`.
    static let topLevelOptions = CommandRegistry.everyOption + [.flag("version")]

    /// The arguments without `--version` before the end of the options (`--`): what `help` checks as its topic's.
    /// - Parameter arguments: The arguments.
    /// - Returns: The rest, in order.
    static func withoutVersion(_ arguments: [String]) -> [String] {
        let end = arguments.firstIndex(of: "--") ?? arguments.endIndex
        return arguments[..<end].filter { $0 != "--version" } + arguments[end...]
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
        return await run(invocation, io: io, redacting: arguments)
    }

    /// Runs a parsed invocation.
    /// - Parameters:
    ///   - invocation: What to do.
    ///   - io: The standard streams.
    ///   - arguments: The command line, whose connection URLs' passwords the error line never shows (a file that
    ///     cannot be read is named in it, and a URL given where a file belongs is one).
    /// - Returns: The exit code.
    package static func run(_ invocation: Invocation, io: any CommandIO, redacting arguments: [String] = []) async -> ExitCode {
        let output = OutputBuffer(io: io)
        var code: ExitCode
        do throws(CommandFailure) {
            switch invocation {
            case .help(let command):
                output.line(command.flatMap(CommandRegistry.command(named:))?.help ?? Help.overview)
                code = .success
            case .version:
                output.line(Help.version)
                code = .success
            case .command(let command):
                code = try await command.run(output: output, io: io)
            }
        } catch {
            output.flush()
            io.writeError("onetap: error: \(ConnectionPasswords.redacting(in: error.message, foundIn: arguments))")
            code = error.code
        }
        output.flush()
        if output.failed {
            io.writeError("onetap: error: cannot write to standard output")
            return .ioError
        }
        return code
    }

    /// Runs the process's own command line on its standard streams. When a signal `onetap` passed on to the tool it ran
    /// (`SIGTERM`, `SIGINT`, `SIGHUP`) ended that tool, `onetap` ends by the same signal once it has said so, as the
    /// tool did: a shell stops a script whose command `SIGINT` ended, and goes on past one that exited 130.
    /// - Returns: The exit status for `exit`.
    package static func main() async -> Int32 {
        let code = await run(Array(CommandLine.arguments.dropFirst()), io: ProcessIO())
        ChildProcess.endBySignalPassedOn(ifStatusIs: code.rawValue)
        return code.rawValue
    }
}
