/// The server side of a one-tap login: exchanges the carrier token for the verified phone number (China
/// Mobile's `loginTokenValidate`, the Tianyi and Unicom number APIs). The integrator's adapter over the
/// carrier's HTTP API; the library ships no network code. Call it through an ``ExchangeGuard``, which
/// keeps stale and replayed tokens away from the paid API.
public protocol TokenExchangeProvider: Sendable {
    /// Exchanges a carrier credential.
    /// - Parameter credential: What the one-tap flow produced.
    /// - Returns: The carrier's answer: its result code exactly as it came (`"103000"`), with the number
    ///   on success.
    /// - Throws: ``ExchangeNotSentError`` when the request never reached the carrier (recorded as
    ///   `failed`); anything else when no usable answer came (a malformed body, a reset after sending):
    ///   the login falls back, and the exchange is recorded as `unknown` (it may have been billed) for
    ///   reconciliation. Honour task cancellation, as every HTTP client does.
    func exchange(_ credential: CarrierCredential) async throws -> ExchangeResponse
}

/// The carrier's answer to an exchange.
public struct ExchangeResponse: Hashable, Sendable, CustomStringConvertible {
    /// The exchange's result code, exactly as the carrier gave it.
    public let code: ResultCode
    /// The verified number (on success).
    public let phoneNumber: PhoneNumber?
    /// The app's account for the number, if the adapter looked it up.
    public let account: AccountID?
    /// A number verification's verdict, when the answer is a verification's (``NumberVerificationService`` keeps its
    /// answers in the exchange's ledger, so a retry of the same token and number gets it back); nil for an exchange.
    /// A ledger adapter stores and reads it back like the code.
    public let verdict: NumberVerdict?

    /// Creates an answer.
    /// - Parameters:
    ///   - code: The carrier's code.
    ///   - phoneNumber: The number, on success.
    ///   - account: The app's account, if known.
    ///   - verdict: A number verification's verdict; nil for an exchange.
    public init(code: ResultCode, phoneNumber: PhoneNumber? = nil, account: AccountID? = nil, verdict: NumberVerdict? = nil) {
        self.code = code
        self.phoneNumber = phoneNumber
        self.account = account
        self.verdict = verdict
    }

    /// `103000 138****8000`, a verification's `000 pass`.
    public var description: String { "\(code)\(phoneNumber.map { " \($0.masked)" } ?? "")\(verdict.map { " \($0.rawValue)" } ?? "")" }
}
