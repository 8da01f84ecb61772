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
        var held = false
        /// Held calls, by their call number.
        var gateWaiters: [Int: CheckedContinuation<Bool, Never>] = [:]
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
    package func hold() { state.withLock { $0.held = true } }

    /// Lets held calls (and later ones) through.
    package func release() {
        let waiters = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            state.held = false
            defer { state.gateWaiters = [:] }
            return Array(state.gateWaiters.values)
        }
        for waiter in waiters { waiter.resume(returning: true) }
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
        let (number, step, held, watchers) = state.withLock { state -> (Int, Reply?, Bool, [CheckedContinuation<Bool, Never>]) in
            let ready = state.calls.increment()
            state.seen.append(token)
            let step = state.script.isEmpty ? nil : state.script.removeFirst()
            return (state.calls.count, step, state.held, ready)
        }
        for watcher in watchers { watcher.resume(returning: true) }
        if held {
            // Held until released, or until the call is cancelled before the release (then it throws, as a carrier
            // call would): a test that stops early never leaves a call parked.
            let released = await state.park { state, continuation in
                guard state.held else { return nil }
                state.gateWaiters[number] = continuation
                return []
            } unpark: { state in
                state.gateWaiters.removeValue(forKey: number)
            }
            guard released else { throw CancellationError() }
        }
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
