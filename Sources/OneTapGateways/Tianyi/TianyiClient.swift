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
        let headers = [HTTPHeader("Content-Type", "application/x-www-form-urlencoded;charset=UTF-8"), HTTPHeader("Accept", "application/json")]
        return try await transport.send(configuration.post(gateway: TianyiTokenExchange.name, to: url, headers: headers, body: request.body))
    }
}
