import OneTap

/// An SMS gateway for tests: records every message it was handed (the code included, so a test can
/// type it back), and does what its script says: deliver, fail, or deliver after a delay.
public final class ScriptedSMSSender: SMSSender {
    /// What one send does.
    public enum Behaviour: Sendable {
        /// Accept the message.
        case deliver
        /// Throw this error (nothing was sent).
        case fail(any Error)
        /// Accept it after a delay on the clock.
        case delay(Duration)
    }

    /// The error a scripted failure throws by default.
    package struct GatewayError: Error, CustomStringConvertible {
        /// What the gateway said.
        package let message: String
        /// Creates the error.
        /// - Parameter message: What the gateway said.
        package init(_ message: String) { self.message = message }
        /// The message.
        package var description: String { message }
    }

    private struct State {
        var script: [Behaviour]
        var delivered: [SMSMessage] = []
        var attempts = 0
    }

    private let state: LockedValue<State>
    private let clock: any WallClock

    /// Creates a sender.
    /// - Parameters:
    ///   - script: One behaviour per send; when it runs out, sends are delivered.
    ///   - clock: The clock delays run on.
    public init(_ script: [Behaviour] = [], clock: any WallClock = SystemClock()) {
        state = LockedValue(State(script: script))
        self.clock = clock
    }

    /// Adds behaviours for the next sends.
    /// - Parameter behaviours: In order.
    package func then(_ behaviours: Behaviour...) {
        state.withLock { $0.script.append(contentsOf: behaviours) }
    }

    /// Every message accepted, in order.
    public var delivered: [SMSMessage] { state.withLock { $0.delivered } }

    /// How many sends were attempted (failed ones included).
    package var attempts: Int { state.withLock { $0.attempts } }

    /// The code most recently delivered to a number.
    /// - Parameter number: The number.
    /// - Returns: The code, or nil when none was delivered.
    public func lastCode(to number: PhoneNumber) -> Secret? {
        state.withLock { $0.delivered.last { $0.number == number }?.code }
    }

    /// Follows the script (``SMSSender/send(_:)``).
    /// - Parameter message: The message.
    /// - Throws: The scripted error.
    public func send(_ message: SMSMessage) async throws {
        let behaviour = state.withLock { state -> Behaviour in
            state.attempts += 1
            return state.script.isEmpty ? .deliver : state.script.removeFirst()
        }
        switch behaviour {
        case .deliver: break
        case .fail(let error): throw error
        case .delay(let duration): try await clock.sleep(for: duration)
        }
        state.withLock { $0.delivered.append(message) }
    }
}

/// A captcha verifier for tests: accepts the tokens it was given, or throws when told to.
public final class ScriptedCaptchaVerifier: CaptchaVerifier {
    private let accepted: Set<String>
    private let failure: (any Error)?
    private let calls = LockedValue(0)

    /// Creates a verifier.
    /// - Parameters:
    ///   - accepted: The tokens that count as solved.
    ///   - failure: When set, every check throws it (the captcha provider is down).
    public init(accepting accepted: Set<String>, failing failure: (any Error)? = nil) {
        self.accepted = accepted
        self.failure = failure
    }

    /// How many tokens were checked.
    package var checks: Int { calls.withLock { $0 } }

    /// Checks a token (``CaptchaVerifier/verify(_:context:)``).
    /// - Parameters:
    ///   - token: The token.
    ///   - context: The send's context.
    /// - Returns: Whether the token is one of the accepted.
    /// - Throws: The configured failure.
    public func verify(_ token: Secret, context: SMSContext) async throws -> Bool {
        calls.withLock { $0 += 1 }
        if let failure { throw failure }
        return accepted.contains(token.reveal())
    }
}
