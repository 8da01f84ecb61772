import OneTap
import OneTapTesting

/// A number-verification provider for the service's tests: each call takes the next scripted step (an answer, an
/// error, a hang until cancelled, or a wait for ``release()``); past the script it answers `000 pass`. Counts calls
/// per token.
final class ScriptedNumberVerifier: NumberVerificationProvider {
    enum Step: Sendable {
        case answer(NumberVerificationResponse)
        case error(any Error)
        /// Never answers until cancelled.
        case hang
        /// Answers `000 pass` once ``release()`` is called.
        case held
    }

    private struct State {
        var steps: [Step]
        var sent: [String: Int] = [:]
        var release: CheckedContinuation<Void, Never>?
        var released = false
        var held = false
        var heldWaiter: CheckedContinuation<Void, Never>?
    }

    private let state: LockedValue<State>

    init(_ steps: [Step] = []) {
        state = LockedValue(State(steps: steps))
    }

    /// How many times each token reached the provider.
    var tokensSent: [String: Int] { state.withLock { $0.sent } }

    /// Returns once a `held` call has the token.
    func waitUntilHeld() async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state -> Bool in
                if state.held { return true }
                state.heldWaiter = continuation
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Lets a `held` call answer.
    func release() {
        let waiting = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.released = true
            defer { state.release = nil }
            return state.release
        }
        waiting?.resume()
    }

    func verify(_ credential: CarrierCredential, number: PhoneNumber) async throws -> NumberVerificationResponse {
        let step = state.withLock { state -> Step? in
            state.sent[credential.token.reveal(), default: 0] += 1
            return state.steps.isEmpty ? nil : state.steps.removeFirst()
        }
        switch step {
        case .answer(let response)?:
            return response
        case .error(let error)?:
            throw error
        case .hang?:
            while true { try await Task.sleep(for: .seconds(3600)) }
        case .held?:
            await withCheckedContinuation { continuation in
                let (now, waiter) = state.withLock { state -> (Bool, CheckedContinuation<Void, Never>?) in
                    state.held = true
                    defer { state.heldWaiter = nil }
                    if state.released { return (true, state.heldWaiter) }
                    state.release = continuation
                    return (false, state.heldWaiter)
                }
                waiter?.resume()
                if now { continuation.resume() }
            }
            return NumberVerificationResponse(code: "000", verdict: .pass)
        case nil:
            return NumberVerificationResponse(code: "000", verdict: .pass)
        }
    }
}

/// The same, under a gateway's configuration name, so the billing table's gateway rows apply.
final class NamedScriptedVerifier: NumberVerificationProvider, NamedGateway {
    static let name = "test-gateway"
    let base: ScriptedNumberVerifier

    init(_ steps: [ScriptedNumberVerifier.Step]) {
        base = ScriptedNumberVerifier(steps)
    }

    func verify(_ credential: CarrierCredential, number: PhoneNumber) async throws -> NumberVerificationResponse {
        try await base.verify(credential, number: number)
    }
}
