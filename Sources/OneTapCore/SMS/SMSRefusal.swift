/// Why a number is refused an SMS code before any limit is counted: what stops SMS pumping (sends to
/// foreign or premium numbers that earn per message) and sends that cannot arrive.
public struct SMSRefusal: Error, Hashable, Sendable, CustomStringConvertible {
    /// Why.
    package typealias Kind = ErrorKind<SMSRefusal>

    /// Why.
    public let kind: ErrorKind<SMSRefusal>
    /// An explanation naming the input (never a code).
    public let message: String
    /// The explanation events carry: ``message``, or for a text that is no number, the parser's reason
    /// without the text (what a client typed may be any number, or anything else, and stays out of logs).
    package let eventMessage: String

    /// Creates a refusal.
    /// - Parameters:
    ///   - kind: Why.
    ///   - message: An explanation naming the input (never a code).
    ///   - eventMessage: The explanation for events, when it must leave out some of `message`.
    package init(kind: ErrorKind<SMSRefusal>, message: String, eventMessage: String? = nil) {
        self.kind = kind
        self.message = message
        self.eventMessage = eventMessage ?? message
    }

    /// `not-mainland-mobile: …`.
    public var description: String { "\(kind): \(message)" }
}

extension ErrorKind where Failure == SMSRefusal {
    /// Not an 11-digit +86 mainland mobile number of an allocated segment (a foreign number, a
    /// landline, a service number, an unallocated segment).
    public static let notMainlandMobile = Self("not-mainland-mobile")
    /// A segment whose numbers take no ordinary SMS (IoT-only, 物联网业务专用号段).
    public static let cannotTakeSMS = Self("cannot-take-sms")
    /// The SMS gateway would not send to the number (invalid, blacklisted, unsubscribed): nothing was sent, and
    /// asking again does not help.
    public static let gatewayRejected = Self("gateway-rejected")
}
