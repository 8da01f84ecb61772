#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import OneTap

/// The default ``HTTPTransport``: the toolchain's `URLSession` (FoundationNetworking on Linux).
///
/// One transport holds one session, so its connections (and their TLS sessions) are reused from call to call:
/// make one at start-up and hand it to every gateway. URLSession works on threads of its own and calls back on a
/// delegate queue of this transport's; a call suspends its task until the answer, a time-out or a cancellation,
/// and never blocks a thread of Swift's cooperative pool. OneTap never retries a request; no cookie is kept, no
/// answer is cached, and a redirect is not followed (a gateway that redirects is misconfigured). One case is
/// libcurl's own, under FoundationNetworking on Linux, and no option turns it off: when a reused connection closes
/// before any byte of the answer, libcurl sends the request again on a new connection (a vendor that drops an idle
/// connection just as a call goes out may then see it twice; China Mobile answers the repeat `103107` and Aliyun
/// `SignatureNonceUsed`, which their gateways report as ``GatewayError/Kind/sentTwice``: outcome unknown). A second:
/// FoundationNetworking gathers the body of a 301–308 answer itself, out of this transport's sight, so
/// ``HTTPRequest/maximumResponseBytes`` cannot cut it short: such an answer is bounded by the call's time-out alone.
/// Every request asks for the answer uncompressed (`Accept-Encoding: identity`), since FoundationNetworking decodes
/// what comes: a server that compresses anyway makes the bytes counted fewer than the bytes held.
public final class URLSessionTransport: HTTPTransport {
    private let session: URLSession
    private let calls: TransportCalls

    /// Creates a transport with a session of its own.
    /// - Parameter maximumConnectionsPerHost: How many connections to one gateway's host may be open at once
    ///   (calls beyond wait for one, within their time-out).
    public init(maximumConnectionsPerHost: Int = 16) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = max(1, maximumConnectionsPerHost)
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        calls = TransportCalls()
        let queue = OperationQueue()
        queue.name = "OneTapGateways.URLSessionTransport"
        queue.maxConcurrentOperationCount = 1
        session = URLSession(configuration: configuration, delegate: calls, delegateQueue: queue)
    }

    deinit {
        // The session keeps its delegate until it is invalidated.
        session.invalidateAndCancel()
    }

    /// Sends a request once and returns its answer, whatever its status.
    /// - Parameter request: The request.
    /// - Returns: The answer.
    /// - Throws: ``GatewayError`` naming the request's gateway: `misconfigured`, with nothing sent, for a URL
    ///   ``EndpointRule`` refuses (plain `http` to a host that is not loopback, a user or password in it);
    ///   `timedOut` past the request's time-out, `bodyTooLarge` for an answer over its bound, `malformedBody` for
    ///   one cut short, `unreachable` otherwise; `CancellationError` when the calling task is cancelled (the call is
    ///   abandoned at once).
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try Task.checkCancellation()
        if let refusal = EndpointRule.refusal(of: request.url) {
            throw GatewayError(gateway: request.gateway, .misconfigured("the URL \(refusal); nothing was sent"))
        }
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        for header in request.headers { urlRequest.addValue(header.value, forHTTPHeaderField: header.name) }
        // The answer as it is: FoundationNetworking asks for gzip and decodes what comes, so a compressed answer grew far
        // past the bytes its limit counts (a server that compresses anyway is bound by the call's time limit alone).
        urlRequest.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
        urlRequest.httpBody = request.body.isEmpty ? nil : Data(request.body)
        // FoundationNetworking times a request out at its whole seconds (`Int(timeoutInterval)`: 0 for half a second):
        // its timer stays a second past the request's, whose time-out is the task group's below, fractions kept.
        urlRequest.timeoutInterval = request.timeout.seconds.rounded(.up) + 1
        let task = session.dataTask(with: urlRequest)
        let calls = self.calls
        let gateway = request.gateway
        return try await withThrowingTaskGroup(of: HTTPResponse.self) { group in
            group.addTask {
                try await calls.perform(task, gateway: gateway, limit: request.maximumResponseBytes, carriesBody: !request.body.isEmpty)
            }
            group.addTask {
                try await Task.sleep(for: request.timeout)
                throw GatewayError(gateway: gateway, .timedOut)
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { throw CancellationError() }
            return first
        }
    }
}

extension Duration {
    /// The duration in seconds, fractions kept.
    fileprivate var seconds: Double {
        let (whole, attoseconds) = components
        return Double(whole) + Double(attoseconds) / 1e18
    }
}
