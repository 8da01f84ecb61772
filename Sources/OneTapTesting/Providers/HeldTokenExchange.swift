import OneTap

/// A carrier whose calls wait until the test releases them, counting calls: for tests that hold an exchange
/// under way while something else happens. A call whose task is cancelled before the release throws
/// `CancellationError`, as a carrier call does, so a test that stops early never leaves a call parked. Waiting
/// for calls parks the test until they came (no polling, no real-time bound: a suite's time limit bounds it).
package final class HeldTokenExchange: TokenExchangeProvider {
    private struct State {
        var calls = CountWatch()
        var response: ExchangeResponse?
    }

    private let state = LockedValue(State())
    private let gate = Gate()

    /// A carrier holding every call until ``release(_:)``.
    package init() {}

    /// How many calls came in, ever.
    package var calls: Int { state.withLock { $0.calls.count } }

    /// Counts the call, then waits for the release (``TokenExchangeProvider/exchange(_:)``).
    /// - Parameter credential: The credential (not read).
    /// - Returns: The released response.
    /// - Throws: `CancellationError` when the call's task is cancelled before the release.
    package func exchange(_ credential: CarrierCredential) async throws -> ExchangeResponse {
        let reached = state.withLock { $0.calls.increment() }
        for waiter in reached { waiter.resume(returning: true) }
        guard await gate.passes(), let response = state.withLock({ $0.response }) else { throw CancellationError() }
        return response
    }

    /// Lets every call, waiting or later, answer `response`.
    /// - Parameter response: The answer.
    package func release(_ response: ExchangeResponse) {
        state.withLock { $0.response = response }
        gate.open()
    }

    /// Waits until at least `count` calls came in (or the task is cancelled).
    /// - Parameter count: How many calls to wait for.
    package func waitForCalls(_ count: Int) async {
        await state.wait(until: count, on: \.calls)
    }
}
