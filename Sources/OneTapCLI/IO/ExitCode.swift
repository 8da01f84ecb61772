import OneTap

/// The exit codes of `onetap` (the BSD `sysexits` values where one fits).
package struct ExitCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The process exit status.
    package let rawValue: Int32

    /// Creates an exit code.
    /// - Parameter rawValue: The process exit status.
    package init(rawValue: Int32) { self.rawValue = rawValue }

    /// Everything worked.
    package static let success = ExitCode(rawValue: 0)
    /// A check ran and failed (`onetap check` found failing cases).
    package static let checkFailed = ExitCode(rawValue: 1)
    /// A command ran and the service it works on refused it (`onetap db migrate`: the server answered
    /// with an error; nothing was changed).
    package static let failed = ExitCode(rawValue: 1)
    /// The command line is wrong (`EX_USAGE`).
    package static let usage = ExitCode(rawValue: 64)
    /// Input data is malformed (`EX_DATAERR`).
    package static let dataError = ExitCode(rawValue: 65)
    /// An input file cannot be opened or read (`EX_NOINPUT`).
    package static let noInput = ExitCode(rawValue: 66)
    /// A service the command needs cannot be reached (`EX_UNAVAILABLE`): `onetap db` and a database that
    /// is down.
    package static let unavailable = ExitCode(rawValue: 69)
    /// A tool the command runs crashed (`EX_SOFTWARE`): `onetap-db` or `onetap-gateway` stopped by a signal other than
    /// `SIGTERM`, `SIGINT` and `SIGHUP` (those answer 128 plus the signal), which a script must not read as the
    /// service's refusal (1).
    package static let software = ExitCode(rawValue: 70)
    /// Writing the output failed (`EX_IOERR`).
    package static let ioError = ExitCode(rawValue: 74)

    /// A readable form, for messages and logs.
    package var description: String { String(rawValue) }
}

/// Why a command stopped: the `onetap: error:` line to print and the exit code. Commands throw it; the
/// entry point prints it, once, after the output written so far.
struct CommandFailure: Error {
    /// The message, without the `onetap: error:` prefix.
    let message: String
    /// The exit code.
    let code: ExitCode

    init(message: String, code: ExitCode) {
        self.message = message
        self.code = code
    }

    /// Bad input data (exit 65).
    init(_ error: ParseError) {
        self.init(message: error.description, code: .dataError)
    }

    /// A table that could not be read (66) or is malformed (65).
    init(_ error: TableError) {
        self.init(message: error.description, code: error.kind == .unreadable ? .noInput : .dataError)
    }
}
