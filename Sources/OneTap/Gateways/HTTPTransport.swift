/// Sends one HTTP request to a vendor's gateway and returns its answer: the one seam between OneTap's gateways and
/// the network, so a test answers with a script (`ScriptedHTTPTransport` in OneTapTesting) and a server may bring
/// its own client.
///
/// A transport sends each request once and never retries it: a token exchange or an SMS is paid, and whether to
/// try again is the caller's decision (the exchange guard's), never the transport's.
public protocol HTTPTransport: Sendable {
    /// Sends a request once.
    /// - Parameter request: The request; its ``HTTPRequest/timeout`` bounds the whole call and its
    ///   ``HTTPRequest/maximumResponseBytes`` the answer's body.
    /// - Returns: The answer, whatever its status (a 5xx is an answer; the gateway judges it).
    /// - Throws: ``GatewayError`` naming the request's gateway (``GatewayError/Kind/unreachable(_:)``,
    ///   ``GatewayError/Kind/timedOut``, ``GatewayError/Kind/bodyTooLarge(limit:)``), or `CancellationError`
    ///   when the calling task was cancelled: the call is abandoned at once, not awaited to its end.
    func send(_ request: HTTPRequest) async throws -> HTTPResponse
}
