/// SMS verification-code login, behind a protocol: the app's SMS page and the server's SMS gateway.
public protocol SMSLoginProvider: Sendable {
    /// Asks the user for their number (shows the SMS page) when the coordinator has none.
    /// - Returns: The number, or nil when the user backed out.
    /// - Throws: `CancellationError` when the user left the page (the login ends cancelled); anything else ends the
    ///   SMS flow as failed.
    func requestPhoneNumber() async throws -> PhoneNumber?

    /// Sends a verification code.
    /// - Parameter number: The number.
    /// - Returns: The gateway's result code: 0 when sent.
    /// - Throws: `CancellationError` when the user left the page (the login ends cancelled); anything else ends the
    ///   SMS flow as failed.
    func sendCode(to number: PhoneNumber) async throws -> ResultCode

    /// Waits for the user to enter the code and verifies it.
    /// - Parameter number: The number the code was sent to.
    /// - Returns: The verification's result.
    /// - Throws: `CancellationError` when the user left the page instead of entering the code (the login ends
    ///   cancelled); anything else ends the SMS flow as failed.
    func verifyCode(for number: PhoneNumber) async throws -> SMSVerification
}

/// The result of verifying an SMS code: code 0 with a session credential, or an error code.
public struct SMSVerification: Sendable, CustomStringConvertible {
    /// The result code (0 is verified).
    public let resultCode: ResultCode
    /// The session or login credential the server issued (on success).
    public let session: Secret?

    /// Creates a verification result.
    /// - Parameters:
    ///   - resultCode: The result code.
    ///   - session: The credential, on success.
    public init(resultCode: ResultCode, session: Secret? = nil) {
        self.resultCode = resultCode
        self.session = session
    }

    /// `SMSVerification(0, session <redacted>)`.
    public var description: String { "SMSVerification(\(resultCode), session \(session == nil ? "none" : "<redacted>"))" }
}
