#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Why a login session refused a report. Nothing changed: the session and its version are as they were.
///
/// For an HTTP answer: `stale-version`, `unknown-version`, `wrong-flow`, `unexpected`, `ended` and
/// `already-exchanged` are 409 Conflict (the client is out of step: fetch the session's state); `expired`
/// is 410 Gone (start a new login); `unknown-session` is 404 Not Found; `unverified-sms` is 403 Forbidden;
/// `over-quota` is 429 Too Many Requests, with a `Retry-After` of ``retryAt``; `captcha-required` is 428.
public struct LoginRejection: Error, Hashable, Sendable, CustomStringConvertible {
    /// Why.
    package typealias Kind = ErrorKind<LoginRejection>

    /// Why.
    public let kind: ErrorKind<LoginRejection>
    /// The session (the caller named it: the rejection's ``description`` is what an answer or a log needs).
    package let session: LoginSessionID
    /// A human-readable explanation.
    public let message: String
    /// When a refusal by the login quotas (`over-quota`) ends, for an HTTP `Retry-After`; nil for every other kind.
    public let retryAt: Date?

    package init(_ kind: Kind, session: LoginSessionID, _ message: String, retryAt: Date? = nil) {
        self.kind = kind
        self.session = session
        self.message = message
        self.retryAt = retryAt
    }

    /// `stale-version: the report is for version 2; the session is at version 3`.
    public var description: String { "\(kind): \(message)" }
}

extension ErrorKind where Failure == LoginRejection {
    /// The report carries an older version: a replay or a double submit.
    public static let staleVersion = Self("stale-version")
    /// The report carries a version the session never had.
    public static let unknownVersion = Self("unknown-version")
    /// The report is about another flow than the one the session expects.
    public static let wrongFlow = Self("wrong-flow")
    /// The session expects no report of this kind now (an exchange answer while no exchange runs, a
    /// flow result while the server exchanges the token).
    public static let unexpected = Self("unexpected")
    /// The login is over.
    public static let ended = Self("ended")
    /// The session's time ran out (10 minutes by default): start a new login.
    public static let expired = Self("expired")
    /// The report's token was exchanged already in this login.
    public static let alreadyExchanged = Self("already-exchanged")
    /// The SMS step's success comes only with the SMS code service's verdict, never as a code.
    public static let unverifiedSMS = Self("unverified-sms")
    /// No session has the id (it never existed, or expired and was removed).
    public static let unknownSession = Self("unknown-session")
}
