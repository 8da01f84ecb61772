/// A sent SMS code as a store keeps it: never the code, only HMAC-SHA-256(server key, number ‖ code ‖
/// code id), with its lifetime and how many wrong codes it has taken. One per number and login session
/// (``SMSCodeKey``): a new send in the same session replaces it, one in another session does not. Stores write it as JSON (``json()``; instants as whole milliseconds since 1970).
public struct SMSCodeRecord: Hashable, Sendable, CustomStringConvertible, CustomReflectable {
    /// The code's id: 64 random bits as 16 hex digits, bound into the digest.
    package let id: String
    /// The number it was sent to.
    package let number: PhoneNumber
    /// HMAC-SHA-256(server key, number ‖ code ‖ id).
    package let digest: SHA256Digest
    /// The login session it was sent for.
    package let session: LoginSessionID?
    /// When it was issued (to the millisecond, as stored).
    package let issuedAt: Date
    /// The first instant it no longer verifies: issued + 5 minutes (to the millisecond).
    package let expiresAt: Date
    /// How many wrong codes it took; at ``SMSCodeRules/maximumWrongAttempts`` it is dead.
    package internal(set) var wrongAttempts: Int

    init(id: String, number: PhoneNumber, digest: SHA256Digest, session: LoginSessionID?, issuedAt: Date, expiresAt: Date, wrongAttempts: Int = 0) {
        self.id = id
        self.number = number
        self.digest = digest
        self.session = session
        self.issuedAt = issuedAt.roundedToMilliseconds
        self.expiresAt = expiresAt.roundedToMilliseconds
        self.wrongAttempts = wrongAttempts
    }

    /// `SMSCodeRecord(138****8000, issued …, expires …, 1 wrong)`: no digest, no id.
    public var description: String {
        "SMSCodeRecord(\(number.masked), issued \(issuedAt.iso8601), expires \(expiresAt.iso8601), \(wrongAttempts) wrong)"
    }

    /// What `dump` and debuggers show: the times and the wrong tries, never the digest or the id (the digest is a keyed
    /// hash of six digits; with the key, a million tries find the code).
    public var customMirror: Mirror {
        Mirror(self, children: ["number": number, "issuedAt": issuedAt, "expiresAt": expiresAt, "wrongAttempts": wrongAttempts], displayStyle: .struct)
    }
}

/// What a store holds for one send or verify: the events of the counters it touches, the code record of
/// the update's ``SMSCodeKey`` (the number and login session), and how long the store must keep what it
/// writes back.
public struct SMSState: Hashable, Sendable {
    /// Every counter the operation asked for (a counter with no events holds an empty list).
    public var events: [SMSPolicy.Counter: [Date]]
    /// The code record of the update's number and session, if one is stored.
    public var code: SMSCodeRecord?
    /// Until when the store must keep the counters and the record written back (later it may delete
    /// them). Read as the latest keep-until of what was read; the rules only ever move it later.
    public var keepUntil: Date

    /// Creates a state, as a store read it.
    /// - Parameters:
    ///   - events: The counters' events; missing counters are filled in as empty.
    ///   - counters: The counters the operation asked for.
    ///   - code: The code record of the update's number and session.
    ///   - keepUntil: Until when the store keeps what it writes (the rules set it).
    public init(events: [SMSPolicy.Counter: [Date]], counters: [SMSPolicy.Counter], code: SMSCodeRecord?, keepUntil: Date) {
        var filled = events
        for counter in counters where filled[counter] == nil { filled[counter] = [] }
        self.events = filled
        self.code = code
        self.keepUntil = keepUntil
    }
}
