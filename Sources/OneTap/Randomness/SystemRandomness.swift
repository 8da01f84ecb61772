// What OneTap draws from the system's cryptographically secure generator (`SystemRandomNumberGenerator`:
// getrandom(2) on Linux), in one place above the pure core: session ids, idempotency keys, SMS codes and
// random server keys. The core's rules take the generator as a value and never name this one.

extension LoginSessionID {
    /// A new id: 128 bits from the system's cryptographically secure generator. What ``LoginServer`` gives
    /// each login, and what an SMS code sent outside one is bound to (``SMSContext/session``): hand it to the
    /// client with the send, and take it back with the code.
    /// - Returns: The id.
    public static func random() -> LoginSessionID {
        var generator = SystemRandom()
        return random(using: &generator)
    }
}

extension AppSessionID {
    /// A new id: 128 bits from the system's cryptographically secure generator.
    /// - Returns: The id.
    package static func random() -> AppSessionID {
        var generator = SystemRandom()
        return random(using: &generator)
    }
}

extension GuestID {
    /// A new guest id: 128 bits from the system's cryptographically secure generator.
    /// - Returns: The id.
    package static func random() -> GuestID {
        var generator = SystemRandom()
        return random(using: &generator)
    }
}

/// Bytes from the system's cryptographically secure generator: refresh-token secrets and nonces.
/// - Parameter count: How many.
/// - Returns: The bytes.
package func systemRandomBytes(_ count: Int) -> [UInt8] {
    var generator = SystemRandom()
    var bytes: [UInt8] = []
    bytes.reserveCapacity(count + 7)
    while bytes.count < count {
        let word = generator.next()
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift))) }
    }
    return Array(bytes.prefix(count))
}

extension ServerKey {
    /// A new key from the system's secure generator, for tests and single-instance tools. A server with
    /// several instances loads one shared key instead.
    /// - Returns: A 32-byte key.
    package static func random() -> ServerKey {
        ServerKey(unchecked: systemRandomBytes(minimumBytes))
    }
}

extension PendingAction {
    /// Keeps an action for after the login, with an idempotency key of 128 bits from the system's
    /// cryptographically secure generator.
    /// - Parameters:
    ///   - action: The action id (lowercase letters, digits and hyphens).
    ///   - payload: The app's data for it, at most 4 KiB as JSON (`nil` or JSON `null` for none).
    ///   - now: When it was asked for.
    /// - Throws: ``ParseError`` with subject `action`: `invalid-character` or `wrong-length` for a bad
    ///   action id, `out-of-range` for a payload over 4 KiB or nested over 500 levels deep.
    public init(action: String, payload: JSONValue?, at now: Date) throws(ParseError) {
        var generator = SystemRandom()
        try self.init(action: action, payload: payload, at: now, using: &generator)
    }
}

extension SMSCodeRules {
    /// A new code for a number, drawn from the system's cryptographically secure generator: the code (to
    /// send) and its record (to store).
    package func issue(to number: PhoneNumber, session: LoginSessionID?, key: ServerKey, at now: Date) -> (code: Secret, record: SMSCodeRecord) {
        var generator = SystemRandom()
        return issue(to: number, session: session, key: key, at: now, using: &generator)
    }
}

/// The system's cryptographically secure generator, with a byte of state of its own. The generators
/// above are handed to the core's rules `inout`, and a zero-sized value such as
/// `SystemRandomNumberGenerator` has no address of its own: every `inout` access to one lands on one
/// shared placeholder, which ThreadSanitizer reports as a race between concurrent draws.
private struct SystemRandom: RandomNumberGenerator {
    private var system = SystemRandomNumberGenerator()
    private var unused: UInt8 = 0

    mutating func next() -> UInt64 { system.next() }
}
