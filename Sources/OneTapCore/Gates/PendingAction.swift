/// The action a login interrupted, kept so the app continues it after the login ("comment sent"),
/// instead of forgetting it (seed 000's complaint: the favourite was lost after logging in).
///
/// It travels with the login session (``LoginSessionMachine/start(_:at:id:pending:)``). After a
/// successful login it is handed back in the success transition, and again with every telling of that
/// success while it is live (a retried report whose answer was lost, the account step told again), with its
/// idempotency ``key`` so a continued action that is retried is done once; on cancel, failure or after its
/// 10 minutes it is dropped.
public struct PendingAction: Hashable, Sendable, CustomStringConvertible, CustomReflectable {
    /// How long a pending action waits for its login: 10 minutes.
    package static let lifetime: Duration = .seconds(600)
    /// The largest payload, as JSON: 4 KiB.
    package static let maximumPayloadBytes = 4096
    /// The deepest a payload nests (arrays and objects within each other): 500 levels, so a session
    /// that keeps it stays within what a JSON reader takes (512).
    package static let maximumPayloadDepth = 500

    /// The idempotency key: 128 random bits, URL-safe base64 (22 characters).
    public let key: String
    /// The action id (as the login gate knows it).
    public let action: String
    /// The app's own data for continuing it (the item to favourite, the comment's text), opaque to OneTap.
    public let payload: JSONValue?
    /// When the action was asked for.
    public let createdAt: Date
    /// When it is dropped, or, after a success, no longer handed back: created + 10 minutes.
    public let expiresAt: Date

    /// Keeps an action for after the login, its key drawn from a generator (`OneTap`'s
    /// `PendingAction(action:payload:at:)` draws it from the system's CSPRNG).
    /// - Parameters:
    ///   - action: The action id (lowercase letters, digits and hyphens).
    ///   - payload: The app's data for it, at most 4 KiB as JSON (`nil` or JSON `null` for none).
    ///   - now: When it was asked for.
    ///   - generator: Where the key's 128 bits come from.
    /// - Throws: ``ParseError`` with subject `action`: `invalid-character` or `wrong-length` for a bad
    ///   action id, `out-of-range` for a payload over 4 KiB or nested over 500 levels deep.
    package init(action: String, payload: JSONValue?, at now: Date, using generator: inout some RandomNumberGenerator) throws(ParseError) {
        if let problem = LoginGate.problem(action) {
            throw ParseError(.action, action.isEmpty ? .empty : .invalidCharacter, input: action, reason: problem)
        }
        if let problem = Self.payloadProblem(payload) {
            throw ParseError(.action, .outOfRange, input: action, reason: problem)
        }
        key = LoginSessionID.random(using: &generator).text
        self.action = action
        self.payload = payload == .null ? nil : payload
        createdAt = LoginSession.stored(now)
        expiresAt = LoginSession.stored(now.addingTimeInterval(Self.lifetime.seconds))
    }

    /// An action as its JSON holds it, already checked.
    init(key: String, action: String, payload: JSONValue?, createdAt: Date, expiresAt: Date) {
        self.key = key
        self.action = action
        self.payload = payload
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }

    /// Why a payload is too big to keep, or nil: the rule every way in checks (``init(action:payload:at:using:)``
    /// and the session's JSON reader).
    static func payloadProblem(_ payload: JSONValue?) -> String? {
        guard let payload else { return nil }
        // Measured without writing a payload past the limit whole (an attacker's read: a start's multi-MB payload was
        // written out on every start before it was refused); within the limit it nests at most half as deep as it is
        // long, so the depth's walk below is bounded too.
        if payload.isLonger(than: maximumPayloadBytes) {
            return "its payload is more than \(maximumPayloadBytes) bytes of JSON; a pending action's payload has at most \(maximumPayloadBytes)"
        }
        if payload.depth > maximumPayloadDepth {
            return "its payload nests \(payload.depth) levels deep; a pending action's payload nests at most \(maximumPayloadDepth)"
        }
        return nil
    }

    /// Whether it still waits at an instant (`now < expiresAt`).
    /// - Parameter now: The instant.
    /// - Returns: True until its 10 minutes are over.
    package func isLive(at now: Date) -> Bool { now < expiresAt }

    /// A mirror without the payload, so `dump` prints nothing of the app's data.
    public var customMirror: Mirror {
        Mirror(self, children: ["key": key, "action": action, "expiresAt": expiresAt], displayStyle: .struct)
    }

    /// `PendingAction(favourite, 52 bytes, until …)`: the payload is the app's and is not printed.
    public var description: String {
        "PendingAction(\(action), \(payload.map { "\($0.json.utf8.count) bytes" } ?? "no payload"), until \(expiresAt.iso8601))"
    }
}
