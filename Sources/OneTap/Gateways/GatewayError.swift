/// What went wrong talking to a vendor's gateway, naming the gateway and what was wrong: never a token, a key, a
/// signature, a number or the body that came back.
public struct GatewayError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: Hashable, Sendable {
        /// No answer: the connection failed once the request may have been sent (the transport's reason, which
        /// names no secret). The vendor may have received the request, and billed it.
        case unreachable(String)
        /// The request never left: the host name did not resolve, the connection was refused before any connection
        /// took the request, or the TLS handshake failed (the transport's reason). Nothing was received or billed.
        case notSent(String)
        /// No whole answer within the request's time-out. The vendor may have received the request, and billed it.
        case timedOut
        /// The vendor answered that it had seen the request before (China Mobile's `103107`, Aliyun's
        /// `SignatureNonceUsed`: its message id or nonce used twice). OneTap draws a new one for every request, so the
        /// request reached the vendor twice: libcurl sends a request again when the reused connection it went out on
        /// closes before the answer (``URLSessionTransport``). The first copy's answer was lost; the vendor may have
        /// received the request, and billed it.
        case sentTwice
        /// An HTTP status outside 200–299.
        case httpStatus(Int)
        /// The answer's body was longer than the request's bound.
        case bodyTooLarge(limit: Int)
        /// The answer's content type was not the one the gateway's document gives (nil: none sent).
        case wrongContentType(String?)
        /// The body was not what the document describes: not JSON, cut short, a member missing or of the wrong
        /// type (which, never its value).
        case malformedBody(String)
        /// The gateway's configuration or keys cannot make the call (which field, and the fix).
        case misconfigured(String)
        /// The credential the client supplied cannot go into the vendor's request (its token holds what the
        /// request's format cannot carry, or lacks a part it must have; which, never the token). Nothing was sent,
        /// and it is the client's doing: it says nothing of the gateway or the channel.
        case refusedCredential(String)
    }

    /// The gateway's name: `cmcc`.
    public let gateway: String
    /// What went wrong.
    public let kind: Kind

    /// Creates an error.
    /// - Parameters:
    ///   - gateway: The gateway's name.
    ///   - kind: What went wrong; its words must hold no secret.
    public init(gateway: String, _ kind: Kind) {
        self.gateway = gateway
        self.kind = kind
    }

    /// Whether the vendor may have received the request (and billed it): every failure once a request may have
    /// left, unlike ``Kind/misconfigured(_:)``, ``Kind/notSent(_:)`` and ``Kind/refusedCredential(_:)``, which fail
    /// before sending.
    package var mayHaveReachedVendor: Bool {
        switch kind {
        case .misconfigured, .notSent, .refusedCredential: false
        default: true
        }
    }

    /// `cmcc: the answer is not JSON (unexpected end at byte 12)`.
    public var description: String {
        switch kind {
        case .unreachable(let reason): "\(gateway): unreachable (\(reason))"
        case .notSent(let reason): "\(gateway): not sent (\(reason))"
        case .timedOut: "\(gateway): no whole answer within the time-out (the request may have been received and billed)"
        case .sentTwice: "\(gateway): the request reached the gateway twice and the first copy's answer was lost (it may have been received and billed)"
        case .httpStatus(let status): "\(gateway): HTTP status \(status)"
        case .bodyTooLarge(let limit): "\(gateway): the answer's body is longer than \(limit) bytes"
        case .wrongContentType(let type): "\(gateway): the answer's content type is \(type.map { "'\($0)'" } ?? "missing"), not JSON"
        case .malformedBody(let reason): "\(gateway): malformed answer: \(reason)"
        case .misconfigured(let reason): "\(gateway): misconfigured: \(reason)"
        case .refusedCredential(let reason): "\(gateway): the credential cannot be sent: \(reason)"
        }
    }
}
