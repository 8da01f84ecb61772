#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
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
    public struct GatewayError: Error, CustomStringConvertible {
        /// What the gateway said.
        public let message: String
        /// Creates the error.
        /// - Parameter message: What the gateway said.
        public init(_ message: String) { self.message = message }
        /// The message.
        public var description: String { message }
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
    public func then(_ behaviours: Behaviour...) {
        state.withLock { $0.script.append(contentsOf: behaviours) }
    }

    /// Every message accepted, in order.
    public var delivered: [SMSMessage] { state.withLock { $0.delivered } }

    /// How many sends were attempted (failed ones included).
    public var attempts: Int { state.withLock { $0.attempts } }

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
    public var checks: Int { calls.withLock { $0 } }

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

/// An ``SMSStore`` wrapper that fails on demand: the next updates throw `io` before anything is read,
/// or after the change was computed but before it is written (a database that drops the connection at
/// commit), so tests can check that nothing is sent or counted then.
public final class FaultySMSStore: SMSStore {
    /// Where an update fails.
    public enum Point: Hashable, Sendable {
        /// Before reading.
        case beforeRead
        /// After the change was computed, before it is written: the change is lost.
        case beforeWrite
    }

    private let base: any SMSStore
    private let failures = LockedValue<[Point]>([])

    /// Wraps a store.
    /// - Parameter base: The store that does the real work.
    public init(_ base: any SMSStore) { self.base = base }

    /// Makes the next updates fail.
    /// - Parameters:
    ///   - point: Where.
    ///   - count: How many updates in a row.
    public func fail(_ point: Point, times count: Int = 1) {
        failures.withLock { $0.append(contentsOf: repeatElement(point, count: count)) }
    }

    /// Updates through the base store, or fails as scripted.
    /// - Parameters:
    ///   - counters: The counters.
    ///   - number: The number.
    ///   - now: The time.
    ///   - body: The change.
    /// - Returns: What `body` returned.
    /// - Throws: ``SMSStoreError`` of kind `io` when scripted to fail.
    public func update<Result: Sendable>(
        counters: [SMSPolicy.Counter], code number: PhoneNumber, at now: Date, _ body: @Sendable (inout SMSState) -> Result
    ) async throws -> Result {
        let point = failures.withLock { $0.isEmpty ? nil : $0.removeFirst() }
        switch point {
        case .beforeRead?:
            throw SMSStoreError(.io, message: "the store is down (scripted)")
        case .beforeWrite?:
            // Compute the change on a copy of the state and drop it, as a failed commit would.
            _ = try await base.update(counters: counters, code: number, at: now) { state -> Result in
                var copy = state
                return body(&copy)
            }
            throw SMSStoreError(.io, message: "the connection dropped at commit (scripted)")
        case nil:
            return try await base.update(counters: counters, code: number, at: now, body)
        }
    }

    /// Removes expired entries through the base store.
    /// - Parameters:
    ///   - instant: The instant.
    ///   - limit: The most to remove.
    /// - Returns: How many were removed.
    public func removeExpired(before instant: Date, limit: Int) async throws -> Int {
        try await base.removeExpired(before: instant, limit: limit)
    }
}
