/// Which code record an SMS store reads and writes: one per number and login session, so a stranger's
/// send (in the stranger's own session) neither replaces nor spends the owner's code. A send without a
/// session has its own slot per number.
public struct SMSCodeKey: Hashable, Sendable, CustomStringConvertible {
    /// The number the code was sent to.
    public let number: PhoneNumber
    /// The login session it was sent for, or nil for a send without one.
    public let session: LoginSessionID?

    /// Creates a key.
    /// - Parameters:
    ///   - number: The number.
    ///   - session: The login session, or nil.
    package init(number: PhoneNumber, session: LoginSessionID?) {
        self.number = number
        self.session = session
    }

    /// The key as stores index it: the number's digits (no session), or the digits, `/` and the
    /// session id (`13800138000/AAAAAAAAAAAAAAAAAAAAAA`). Unique per key: neither part holds a `/`.
    public var id: String { session.map { number.digits + "/" + $0.text } ?? number.digits }

    /// `138****8000 in session …` or `138****8000 without a session`: the number masked.
    public var description: String { session.map { "\(number.masked) in session \($0)" } ?? "\(number.masked) without a session" }
}
