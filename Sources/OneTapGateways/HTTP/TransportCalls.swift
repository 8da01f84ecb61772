#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import OneTap

/// The calls a ``URLSessionTransport`` has under way, and the session's delegate that finishes them: the answer's
/// bytes are gathered as they come and the call is cut off once they pass the request's bound.
final class TransportCalls: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private enum Call {
        case running(Running)
        /// Cancelled before it started: its start finds this and ends at once.
        case cancelledEarly
    }

    private struct Running {
        let continuation: CheckedContinuation<HTTPResponse, any Error>
        let gateway: String
        let limit: Int
        /// Whether the request has a body (whose hand-over ``handedOver`` tells).
        let carriesBody: Bool
        /// Whether a connection took the request's body (URLSession's `didSendBodyData`): it may have reached the
        /// vendor, whatever error follows.
        var handedOver = false
        var response: HTTPURLResponse?
        var body = Data()
    }

    private let calls = LockedValue<[Int: Call]>([:])

    /// Runs a data task to its end.
    /// - Parameters:
    ///   - task: The task, not yet resumed.
    ///   - gateway: The gateway's name, for errors.
    ///   - limit: The longest body accepted.
    ///   - carriesBody: Whether the request has a body.
    /// - Returns: The answer.
    /// - Throws: ``GatewayError`` or `CancellationError`.
    func perform(_ task: URLSessionDataTask, gateway: String, limit: Int, carriesBody: Bool) async throws -> HTTPResponse {
        let id = task.taskIdentifier
        // A cancellation that came after the call had ended marks an id no call will use again: drop it.
        defer {
            calls.withLock { calls in
                if case .cancelledEarly? = calls[id] { calls[id] = nil }
            }
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HTTPResponse, any Error>) in
                let start = calls.withLock { calls -> Bool in
                    if case .cancelledEarly? = calls[id] {
                        calls[id] = nil
                        return false
                    }
                    calls[id] = .running(Running(continuation: continuation, gateway: gateway, limit: limit, carriesBody: carriesBody))
                    return true
                }
                if start { task.resume() } else { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            finish(id, .failure(CancellationError()), orMarkCancelled: true)
            task.cancel()
        }
    }

    /// Ends a call once: later callbacks for it find nothing.
    private func finish(_ id: Int, _ result: Result<HTTPResponse, any Error>, orMarkCancelled: Bool = false) {
        let running = calls.withLock { calls -> Running? in
            switch calls[id] {
            case .running(let running)?:
                calls[id] = nil
                return running
            case .cancelledEarly?:
                return nil
            case nil:
                if orMarkCancelled { calls[id] = .cancelledEarly }
                return nil
            }
        }
        running?.continuation.resume(with: result)
    }

    private func gateway(of id: Int) -> (name: String, limit: Int)? {
        calls.withLock { calls in
            guard case .running(let running)? = calls[id] else { return nil }
            return (running.gateway, running.limit)
        }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        let id = dataTask.taskIdentifier
        guard let (gateway, limit) = gateway(of: id) else {
            dataTask.cancel()  // no call waits for it (ended or cancelled): stop the transfer
            return completionHandler(.cancel)
        }
        // FoundationNetworking on Linux ignores `.cancel` from this handler and goes on transferring:
        // the task is cancelled as well, so a refused answer never holds its connection.
        guard let http = response as? HTTPURLResponse else {
            finish(id, .failure(GatewayError(gateway: gateway, .unreachable("the answer is not HTTP"))))
            dataTask.cancel()
            return completionHandler(.cancel)
        }
        if http.expectedContentLength > Int64(limit) {
            finish(id, .failure(GatewayError(gateway: gateway, .bodyTooLarge(limit: limit))))
            dataTask.cancel()
            return completionHandler(.cancel)
        }
        calls.withLock { calls in
            if case .running(var running)? = calls[id] {
                running.response = http
                calls[id] = .running(running)
            }
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64, totalBytesExpectedToSend: Int64) {
        // A connection took the body (libcurl reads it only once connected; FoundationNetworking tells it for a data
        // task's `httpBody` too): told before the task completes, on the same serial delegate queue.
        calls.withLock { calls in
            if case .running(var running)? = calls[task.taskIdentifier] {
                running.handedOver = true
                calls[task.taskIdentifier] = .running(running)
            }
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let id = dataTask.taskIdentifier
        let over = calls.withLock { calls -> (String, Int)?? in
            guard case .running(var running)? = calls[id] else { return .some(nil) }
            guard running.body.count + data.count <= running.limit else { return (running.gateway, running.limit) }
            running.body.append(data)
            calls[id] = .running(running)
            return nil
        }
        switch over {
        case .some(.some(let (gateway, limit))):
            finish(id, .failure(GatewayError(gateway: gateway, .bodyTooLarge(limit: limit))))
            dataTask.cancel()
        case .some(nil):
            dataTask.cancel()  // no call waits for these bytes any more: stop the transfer
        case nil:
            break
        }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
        completionHandler: @escaping (URLRequest?) -> Void
    ) {
        // Not followed: the redirect itself comes back as the answer (a 3xx the gateway refuses).
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let id = task.taskIdentifier
        let running = calls.withLock { calls -> Running? in
            guard case .running(let running)? = calls[id] else { return nil }
            calls[id] = nil
            return running
        }
        guard let running else { return }
        if let error {
            running.continuation.resume(throwing: Self.gatewayError(error, running))
        } else {
            Self.answer(running)
        }
    }

    /// Ends a call with the answer it received: the response and the body read so far, or `unreachable` when
    /// no HTTP response came.
    private static func answer(_ running: Running) {
        guard let http = running.response else {
            return running.continuation.resume(throwing: GatewayError(gateway: running.gateway, .unreachable("no HTTP answer")))
        }
        var headers: [String: String] = [:]
        for case (let name as String, let value as String) in http.allHeaderFields {
            headers[name.lowercased(), default: ""] += headers[name.lowercased()] == nil ? value : ", \(value)"
        }
        running.continuation.resume(returning: HTTPResponse(status: http.statusCode, headers: headers, body: [UInt8](running.body)))
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        // A vendor's 401 (or a proxy's 407) asking for credentials is the answer: no call ever gives any, and
        // FoundationNetworking's default handling of the challenge left the task running until its time limit,
        // reported as a time-out that may have been billed. The call ends with the answer received. Any other
        // challenge (the server's TLS trust, which Apple's Foundation sends here when the session has no handler
        // of its own) is the system's to judge, as by default: never cancelled, never trusted by this code.
        let asksForCredentials = [
            NSURLAuthenticationMethodDefault, NSURLAuthenticationMethodHTTPBasic, NSURLAuthenticationMethodHTTPDigest,
            NSURLAuthenticationMethodNTLM, NSURLAuthenticationMethodNegotiate,
        ].contains(challenge.protectionSpace.authenticationMethod)
        guard asksForCredentials else {
            completionHandler(.performDefaultHandling, nil)
            return
        }
        let running = calls.withLock { calls -> Running? in
            guard case .running(let running)? = calls[task.taskIdentifier] else { return nil }
            calls[task.taskIdentifier] = nil
            return running
        }
        if let running { Self.answer(running) }
        completionHandler(.cancelAuthenticationChallenge, nil)
        task.cancel()
    }

    /// URLSession's error as a gateway's: by its code, never its text (which quotes the URL).
    private static func gatewayError(_ error: any Error, _ running: Running) -> GatewayError {
        GatewayError(
            gateway: running.gateway,
            kind(of: (error as? URLError)?.code, answered: running.response != nil, handedOver: running.handedOver, carriesBody: running.carriesBody))
    }

    /// What a failed call's URLSession error code says, given what the call saw.
    ///
    /// A refused connection is `notSent` only while no connection took the request's body. FoundationNetworking
    /// reports "cannot connect to host" whenever any connect of the call was refused (libcurl's last connect `errno` is
    /// read before its error code, and is never reset): a call whose first address refused (an IPv6 address, say) and
    /// whose second took the request before failing reads so too. A request with a body says when a connection took it
    /// (`didSendBodyData`); one without (Aliyun's RPC calls) says nothing, and its refused connection stays `notSent`:
    /// counted as one that may have been sent, every refused call of an outage would fill the SMS limits.
    ///
    /// FoundationNetworking reports libcurl's TLS failures and a connect with no route to the host as an unknown error
    /// (it names the refused connect and a handful more only): a request with a body no connection took never left.
    /// - Parameters:
    ///   - code: The `URLError` code, nil for another error.
    ///   - answered: Whether the status and headers came.
    ///   - handedOver: Whether a connection took the body.
    ///   - carriesBody: Whether the request has a body (without one, ``handedOver`` says nothing).
    /// - Returns: The gateway error's kind.
    static func kind(of code: URLError.Code?, answered: Bool, handedOver: Bool, carriesBody: Bool) -> GatewayError.Kind {
        switch code {
        case .timedOut?:
            return .timedOut
        case _ where answered:
            // The status and headers came, the body did not finish (libcurl reports that as an unknown error).
            return .malformedBody("the answer was cut short (the connection closed mid-body)")
        case .networkConnectionLost?:
            return .unreachable("the connection closed before an answer")
        case _ where handedOver:
            // A connection took the request: whatever failed after, it may have been received.
            return .unreachable("URLError \(code?.rawValue ?? 0) after a connection took the request")
        // Before a byte of the request left: nothing received, nothing billed.
        case .cannotFindHost?, .dnsLookupFailed?:
            return .notSent("the host name does not resolve")
        case .cannotConnectToHost?:
            return .notSent("the connection was refused")
        case .secureConnectionFailed?, .serverCertificateUntrusted?, .serverCertificateHasBadDate?, .serverCertificateNotYetValid?,
            .serverCertificateHasUnknownRoot?:
            return .notSent("TLS failed (the server's certificate or the handshake)")
        case .unknown? where carriesBody:
            return .notSent("the connection failed before it took the request (TLS, or no route to the host)")
        case let code?:
            return .unreachable("URLError \(code.rawValue)")
        case nil:
            return .unreachable("the transport failed")
        }
    }
}
