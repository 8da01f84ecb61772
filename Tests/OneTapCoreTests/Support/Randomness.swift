import Foundation
@testable import OneTapCore

// The core draws nothing itself; its tests draw what `OneTap` draws in production (its
// `SystemRandomness.swift`), from the same system generator, with the same names.

extension LoginSessionID {
    /// A new id from the system's generator.
    static func random() -> LoginSessionID {
        var generator = SystemRandomNumberGenerator()
        return random(using: &generator)
    }
}

extension ServerKey {
    /// A new 32-byte key from the system's generator.
    static func random() -> ServerKey {
        ServerKey(unchecked: (0..<32).map { _ in UInt8.random(in: 0...255) })
    }
}

extension PendingAction {
    /// An action with a key from the system's generator.
    init(action: String, payload: JSONValue?, at now: Date) throws(ParseError) {
        var generator = SystemRandomNumberGenerator()
        try self.init(action: action, payload: payload, at: now, using: &generator)
    }
}

extension SMSCodeRules {
    /// A code drawn from the system's generator.
    func issue(to number: PhoneNumber, session: LoginSessionID?, key: ServerKey, at now: Date) -> (code: Secret, record: SMSCodeRecord) {
        var generator = SystemRandomNumberGenerator()
        return issue(to: number, session: session, key: key, at: now, using: &generator)
    }
}
