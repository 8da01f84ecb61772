/// Proof that a number passed SMS verification: the only way a login session's SMS step succeeds.
///
/// Only OneTap makes one (the SMS code service's `verify`, when the right code came in time), so a
/// session never takes "the SMS was verified" on the client's word.
public struct SMSVerdict: Hashable, Sendable, CustomStringConvertible {
    /// The verified number.
    public let phoneNumber: PhoneNumber
    /// The login session the code was sent for, if it was sent for one.
    public let session: LoginSessionID?
    /// When the code was verified.
    public let verifiedAt: Date

    /// Creates a verdict: the SMS code service's, and the package's own drivers'.
    package init(phoneNumber: PhoneNumber, session: LoginSessionID?, verifiedAt: Date) {
        self.phoneNumber = phoneNumber
        self.session = session
        self.verifiedAt = verifiedAt
    }

    /// `SMSVerdict(138****8000)`.
    public var description: String { "SMSVerdict(\(phoneNumber.masked))" }
}
