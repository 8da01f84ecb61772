import Foundation
import OneTap
import OneTapSupport

/// What the user-info call and the refresh share: a checked configuration, the clock, and one signed POST.
package struct TianyiClient: Sendable {
    /// The settings, checked.
    package let configuration: TianyiConfiguration
    private let transport: any HTTPTransport
    private let clock: any WallClock

    /// Checks a configuration.
    /// - Parameters:
    ///   - configuration: The settings.
    ///   - transport: The HTTP transport.
    ///   - clock: The clock `timeStamp` is read from.
    /// - Throws: ``GatewayError/Kind/misconfigured(_:)`` naming the field and the fix (`clientIp` must be an IPv4 or
    ///   IPv6 address).
    package init(configuration: TianyiConfiguration, transport: any HTTPTransport, clock: any WallClock) throws(GatewayError) {
        let gateway = TianyiTokenExchange.name
        try CredentialCheck.lettersAndDigits(configuration.appID, "appId", mustBe: "the app's id on the 天翼账号 open platform", gateway: gateway)
        for (field, secret) in [("appSecret", configuration.appSecret), ("signSecret", configuration.signSecret)] {
            guard let secret else { continue }
            try CredentialCheck.trimmed(secret, field, setTo: "the secret the open platform issued the app", padded: "a sign error", gateway: gateway)
        }
        for (field, value) in [("clientType", configuration.clientType), ("format", configuration.format), ("version", configuration.version)] {
            guard !value.isEmpty, value.allSatisfy({ $0.isASCII && !$0.isWhitespace && $0 != "&" && $0 != "=" }) else {
                throw GatewayError(gateway: gateway, .misconfigured("\(field) must be a non-empty ASCII word without spaces, '&' or '=', not \(CredentialCheck.glimpse(value))"))
            }
        }
        if let clientIP = configuration.clientIP {
            // The server's address, as the samples send it: anything else is this configuration's fault, said here once
            // (the request refuses a value it cannot carry at every call, as a credential's fault).
            let problem: String?
            do {
                _ = try IPAddress(clientIP)
                problem = clientIP.contains(where: \.isWhitespace) ? "it holds white space" : nil
            } catch {
                problem = error.reason
            }
            if let problem {
                throw GatewayError(gateway: gateway, .misconfigured("clientIp must be the server's IPv4 or IPv6 address, not \(CredentialCheck.glimpse(clientIP)) (\(problem))"))
            }
        }
        self.configuration = configuration
        self.transport = transport
        self.clock = clock
    }

    /// The call's time stamp from the clock.
    package var timeStamp: String { TianyiRequest.timeStamp(clock.now()) }

    /// The call's parameters with the optional `clientIp` after them.
    /// - Parameter parameters: The call's own parameters.
    /// - Returns: All the parameters sent.
    package func withClientIP(_ parameters: [(name: String, value: String)]) -> [(name: String, value: String)] {
        parameters + (configuration.clientIP.map { [("clientIp", $0)] } ?? [])
    }

    /// Sends one signed request, once.
    /// - Parameters:
    ///   - request: The built request.
    ///   - url: Where to.
    ///   - timeout: The call's limit: the configuration's unless given.
    /// - Returns: The answer, whatever its status.
    /// - Throws: ``GatewayError`` from the transport; `CancellationError`.
    package func send(_ request: TianyiRequest, to url: URL, timeout: Duration? = nil) async throws -> HTTPResponse {
        let headers = [HTTPHeader("Content-Type", "application/x-www-form-urlencoded;charset=UTF-8"), HTTPHeader("Accept", "application/json")]
        var endpoint = configuration
        if let timeout { endpoint.timeout = timeout }
        return try await transport.send(endpoint.post(gateway: TianyiTokenExchange.name, to: url, headers: headers, body: request.body))
    }
}
