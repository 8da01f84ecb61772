/// One `onetap` command, described once: its name, one-line summary, help text and options, a pure
/// ``parse(_:)`` from its sorted arguments to its ``Options``, and ``run(_:output:io:)``.
///
/// A command is a type (a caseless enum in `Commands/`) listed in ``CommandRegistry/all``; from that list
/// come the help overview, `onetap help <command>`, `onetap <command> --help`, dispatch, the "unknown
/// command" message and the options the command line may hold before the command's name. Adding a
/// command is writing its description and adding it to the list.
///
/// Internal, not `package`: ``run(_:output:io:)`` writes through the CLI's own output types.
protocol CommandDescription: Sendable {
    /// What ``parse(_:)`` makes of the arguments and ``run(_:output:io:)`` takes.
    associatedtype Options: Hashable & Sendable

    /// The name on the command line: `carrier`.
    static var name: String { get }
    /// What the command does, in a line of the help overview.
    static var summary: String { get }
    /// What `onetap <name> --help` prints: usage, what it does, its output, exit status, an example.
    static var help: String { get }
    /// The options the command accepts, in the order a usage error lists them.
    static var options: [OptionSpec] { get }

    /// Reads the command's options and operands. Pure: reads no files and no tables.
    /// - Parameter arguments: The arguments after the command's name, sorted into options and operands.
    /// - Returns: The options.
    /// - Throws: ``UsageError`` for a missing, extra, contradictory or malformed option or operand.
    static func parse(_ arguments: ParsedArguments) throws(UsageError) -> Options

    /// Runs the command.
    /// - Parameters:
    ///   - options: What ``parse(_:)`` made of the arguments.
    ///   - output: Standard output, buffered.
    ///   - io: The standard streams (standard input, standard error).
    /// - Returns: The exit code.
    /// - Throws: ``CommandFailure`` for a failure that ends the command (its message and exit code).
    static func run(_ options: Options, output: OutputBuffer, io: any CommandIO) async throws(CommandFailure) -> ExitCode
}

extension CommandDescription {
    /// Reads the arguments after the command's name: `--help` anywhere among them asks for the command's
    /// help; otherwise ``parse(_:)`` reads them.
    /// - Parameter arguments: The arguments after the command's name.
    /// - Returns: The invocation.
    /// - Throws: ``UsageError`` for an unknown option, a missing value, or what ``parse(_:)`` refuses.
    static func invocation(_ arguments: ArraySlice<String>) throws(UsageError) -> Invocation {
        let parsed = try ParsedArguments.parse(arguments, options: options, command: name)
        if parsed.help { return .help(command: name) }
        return .command(Self.self, try parse(parsed))
    }
}
