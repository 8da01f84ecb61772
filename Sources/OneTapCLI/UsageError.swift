/// A mistake on the command line: an unknown command or option, a missing or malformed value.
package struct UsageError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong.
    package let message: String
    /// The command whose help explains the right usage (`"carrier"`), or nil for the top level.
    package let command: String?

    /// Creates a usage error.
    /// - Parameters:
    ///   - message: What is wrong.
    ///   - command: The command whose help applies.
    package init(_ message: String, command: String? = nil) {
        self.message = message
        self.command = command
    }

    /// `unknown option '--jsn' (see 'onetap carrier --help')`.
    package var description: String {
        "\(message) (see 'onetap\(command.map { " " + $0 } ?? "") --help')"
    }
}
