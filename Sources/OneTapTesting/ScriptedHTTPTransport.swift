import OneTap

/// An HTTP transport for tests: records every request it was handed and answers each with the next step of its
/// script, keeping the transport's contract (the request's time-out on the transport's clock, its body bound,
/// cancellation at once), so a gateway can be tested without a network or a C library.
public final class ScriptedHTTPTransport: HTTPTransport {
    /// What one request gets.
    public enum Step: Sendable {
        /// This answer at once.
        case answer(HTTPResponse)
        /// This answer after a delay on the clock; past the request's time-out, ``GatewayError/Kind/timedOut``
        /// once the time-out has passed.
        case delay(Duration, HTTPResponse)
        /// This error at once (``GatewayError/Kind/unreachable(_:)``, say).
        case fail(any Error)
        /// No answer until the call is cancelled.
        case hang
    }

    private struct State {
        var script: [Step]
        var requests: [HTTPRequest] = []
    }

    private let state: LockedValue<State>
    private let otherwise: HTTPResponse
    private let clock: any WallClock

    /// Creates a transport.
    /// - Parameters:
    ///   - script: One step per request, in order.
    ///   - otherwise: The answer once the script has run out (HTTP 599 with no body unless given, so a test that
    ///     sends more than it scripted sees it).
    ///   - clock: The clock delays and time-outs run on.
    public init(_ script: [Step] = [], otherwise: HTTPResponse = HTTPResponse(status: 599), clock: any WallClock = SystemClock()) {
        state = LockedValue(State(script: script))
        self.otherwise = otherwise
        self.clock = clock
    }

    /// Every request sent so far, in order.
    public var requests: [HTTPRequest] { state.withLock { $0.requests } }

    /// Appends steps to the script.
    /// - Parameter steps: The steps.
    package func then(_ steps: Step...) { state.withLock { $0.script += steps } }

    /// Records the request and plays the script's next step.
    /// - Parameter request: The request.
    /// - Returns: The scripted answer.
    /// - Throws: The scripted error; ``GatewayError/Kind/timedOut`` for a delay past the time-out;
    ///   ``GatewayError/Kind/bodyTooLarge(limit:)`` for a body over the request's bound; `CancellationError`.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let step = state.withLock { state -> Step? in
            state.requests.append(request)
            return state.script.isEmpty ? nil : state.script.removeFirst()
        }
        try Task.checkCancellation()
        let response: HTTPResponse
        switch step {
        case .answer(let answer)?:
            response = answer
        case .delay(let delay, let answer)?:
            if delay > request.timeout {
                try await clock.sleep(for: request.timeout)
                throw GatewayError(gateway: request.gateway, .timedOut)
            }
            try await clock.sleep(for: delay)
            response = answer
        case .fail(let error)?:
            throw error
        case .hang?:
            try await Hang.forever()
        case nil:
            response = otherwise
        }
        guard response.body.count <= request.maximumResponseBytes else {
            throw GatewayError(gateway: request.gateway, .bodyTooLarge(limit: request.maximumResponseBytes))
        }
        return response
    }
}
