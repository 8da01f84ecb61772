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
    /// - Throws: ``GatewayError/Kind/misconfigured(_:)`` naming the field and the fix.
    package init(configuration: TianyiConfiguration, transport: any HTTPTransport, clock: any WallClock) throws(GatewayError) {
        let gateway = TianyiTokenExchange.name
        guard !configuration.appID.isEmpty, configuration.appID.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
            throw GatewayError(gateway: gateway, .misconfigured("appId must be the app's id on the 天翼账号 open platform (letters and digits), not '\(configuration.appID.prefix(40))'"))
        }
        for (field, secret) in [("appSecret", configuration.appSecret), ("signSecret", configuration.signSecret)] {
            guard let secret else { continue }
            guard !secret.isEmpty else { throw GatewayError(gateway: gateway, .misconfigured("\(field) is empty: set it to the secret the open platform issued the app")) }
            guard secret.reveal() == secret.reveal().trimmingCharacters(in: .whitespacesAndNewlines) else {
                throw GatewayError(gateway: gateway, .misconfigured("\(field) begins or ends with white space (a sign error): remove it"))
            }
        }
        for (field, value) in [("clientType", configuration.clientType), ("format", configuration.format), ("version", configuration.version)] {
            guard !value.isEmpty, value.allSatisfy({ $0.isASCII && !$0.isWhitespace && $0 != "&" && $0 != "=" }) else {
                throw GatewayError(gateway: gateway, .misconfigured("\(field) must be a non-empty ASCII word without spaces, '&' or '=', not '\(value.prefix(40))'"))
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
    /// - Returns: The answer, whatever its status.
    /// - Throws: ``GatewayError`` from the transport; `CancellationError`.
    package func send(_ request: TianyiRequest, to url: URL) async throws -> HTTPResponse {
        try await transport.send(
            HTTPRequest(
                gateway: TianyiTokenExchange.name, method: "POST", url: url,
                headers: [HTTPHeader("Content-Type", "application/x-www-form-urlencoded;charset=UTF-8"), HTTPHeader("Accept", "application/json")],
                body: request.body, timeout: configuration.timeout, maximumResponseBytes: configuration.maximumResponseBytes))
    }
}
