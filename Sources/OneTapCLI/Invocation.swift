/// What the command line asks for: help, the version, or one command with its options.
package enum Invocation: Hashable, Sendable {
    /// Print help: for a command, or the overview.
    case help(command: String?)
    /// Print the version.
    case version
    /// Run a command.
    case command(CommandInvocation)

    /// A command with its options.
    /// - Parameters:
    ///   - command: The command's description.
    ///   - options: What its ``CommandDescription/parse(_:)`` made of its arguments.
    /// - Returns: The invocation.
    static func command<Command: CommandDescription>(_ command: Command.Type, _ options: Command.Options) -> Invocation {
        .command(CommandInvocation(command, options))
    }

    /// The options of a command, when the invocation runs that command.
    /// - Parameter command: The command's description.
    /// - Returns: Its options, or nil for help, the version or another command.
    func options<Command: CommandDescription>(of command: Command.Type) -> Command.Options? {
        guard case .command(let invocation) = self, invocation.command == Command.name else { return nil }
        return invocation.options as? Command.Options
    }
}

/// One command and the options its parse made, ready to run. Two are equal when they name the same
/// command with equal options. Its descriptions and mirror are the options' own (``DBOptions`` redacts
/// the password of its URL in them).
package struct CommandInvocation: Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The command's name: `carrier`, `route`.
    package let command: String
    /// The command's options (the command's own `Options` type).
    package let options: any Hashable & Sendable
    /// Runs the command with the options.
    private let body: @Sendable (OutputBuffer, any CommandIO) async throws(CommandFailure) -> ExitCode

    /// Binds options to the command that parsed them.
    /// - Parameters:
    ///   - command: The command's description.
    ///   - options: Its options.
    init<Command: CommandDescription>(_ command: Command.Type, _ options: Command.Options) {
        self.command = Command.name
        self.options = options
        body = { (output: OutputBuffer, io: any CommandIO) async throws(CommandFailure) -> ExitCode in
            try await Command.run(options, output: output, io: io)
        }
    }

    /// Runs the command.
    /// - Parameters:
    ///   - output: Standard output, buffered.
    ///   - io: The standard streams.
    /// - Returns: The exit code.
    /// - Throws: ``CommandFailure`` for a failure that ends the command.
    func run(output: OutputBuffer, io: any CommandIO) async throws(CommandFailure) -> ExitCode {
        try await body(output, io)
    }

    /// Whether two invocations name the same command with equal options.
    /// - Parameters:
    ///   - lhs: An invocation.
    ///   - rhs: Another.
    /// - Returns: True when they run the same.
    package static func == (lhs: CommandInvocation, rhs: CommandInvocation) -> Bool {
        lhs.command == rhs.command && AnyHashable(lhs.options) == AnyHashable(rhs.options)
    }

    /// Hashes the command's name and options.
    /// - Parameter hasher: The hasher.
    package func hash(into hasher: inout Hasher) {
        hasher.combine(command)
        hasher.combine(AnyHashable(options))
    }

    /// `carrier LookupOptions(…)`.
    package var description: String { "\(command) \(options)" }

    /// The same as ``description``.
    package var debugDescription: String { description }

    /// The command's name and its options' own mirror.
    package var customMirror: Mirror {
        Mirror(self, children: ["command": command, "options": options], displayStyle: .struct)
    }
}
