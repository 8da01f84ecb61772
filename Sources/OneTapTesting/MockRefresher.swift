import OneTap

/// A scriptable ``TokenRefresher``: each call takes the next step of its script; when the script runs
/// out, calls succeed with new tokens `refreshed-1`, `refreshed-2`, …. It counts calls and can hold them
/// at a gate, to line up concurrent callers.
public final class MockRefresher: TokenRefresher {
    /// What one call does.
    public enum Reply: Sendable {
        /// Answer with this response.
        case success(RefreshResponse)
        /// Throw this error.
        case failure(any Error)
        /// Never answer (until cancelled).
        case hang
    }

    private struct State {
        var script: [Reply]
        var calls = CountWatch()
        var seen: [AccessToken] = []
        /// Where calls wait while held (``hold()``), nil while they go through.
        var gate: Gate?
    }

    private let state: LockedValue<State>
    private let expiresIn: ExpiresIn?
    private let rotates: Bool

    /// Creates a mock.
    /// - Parameters:
    ///   - script: The steps, one per call, in order.
    ///   - expiresIn: The lifetime the default answers give; nil for the policy default.
    ///   - rotates: Whether default answers carry a new refresh token (`refresh-N`).
    public init(_ script: [Reply] = [], expiresIn: ExpiresIn? = nil, rotates: Bool = true) {
        state = LockedValue(State(script: script))
        self.expiresIn = expiresIn
        self.rotates = rotates
    }

    /// How many calls were made.
    public var calls: Int { state.withLock { $0.calls.count } }

    /// The tokens the calls were made with, in order.
    public var tokensSeen: [AccessToken] { state.withLock { $0.seen } }

    /// Holds every call at a gate until ``release()`` (a held call cancelled before the release throws `CancellationError`).
    package func hold() {
        state.withLock { state in
            if state.gate == nil { state.gate = Gate() }
        }
    }

    /// Lets held calls (and later ones) through.
    package func release() {
        state.withLock { state -> Gate? in
            defer { state.gate = nil }
            return state.gate
        }?.open()
    }

    /// Waits until at least `count` calls have started (or the task is cancelled).
    package func waitForCalls(_ count: Int) async {
        await state.wait(until: count, on: \.calls)
    }

    /// Answers with the next step of the script (``TokenRefresher/refresh(_:)``).
    /// - Parameter token: The token to refresh.
    /// - Returns: The scripted response.
    /// - Throws: The scripted error.
    public func refresh(_ token: AccessToken) async throws -> RefreshResponse {
        let (number, step, gate, watchers) = state.withLock { state -> (Int, Reply?, Gate?, [CheckedContinuation<Bool, Never>]) in
            let ready = state.calls.increment()
            state.seen.append(token)
            let step = state.script.isEmpty ? nil : state.script.removeFirst()
            return (state.calls.count, step, state.gate, ready)
        }
        for watcher in watchers { watcher.resume(returning: true) }
        // Held until released, or until the call is cancelled before the release (then it throws, as a carrier call
        // would): a test that stops early never leaves a call parked.
        if let gate, await !gate.passes() { throw CancellationError() }
        switch step {
        case .success(let response)?:
            return response
        case .failure(let error)?:
            throw error
        case .hang?:
            try await Hang.forever()
        case nil:
            return RefreshResponse(
                accessToken: Secret("refreshed-\(number)"), refreshToken: rotates ? Secret("refresh-\(number)") : nil, expiresIn: expiresIn)
        }
    }
}

/// Suspends until the task is cancelled: a carrier call that never answers.
package enum Hang {
    /// Waits until cancelled.
    /// - Throws: `CancellationError` when the task is cancelled.
    package static func forever() async throws -> Never {
        while true {
            try await Task.sleep(for: .seconds(3600))
        }
    }
}
