import Foundation
import OneTap
import OneTapSupport

/// The Tianyi account's month-long `accessToken` refreshed through the 天翼账号 open API's `refreshToken.do`, as the
/// ``TokenRefresher`` a ``TokenVault`` calls. The answer is read by ``TianyiRefreshResponse`` (OneTap's reader of
/// this answer: `result`, `accessToken`, `refreshToken`, `expiresIn`), so a refused refresh token is `final` and
/// anything else that goes wrong is `transient`.
///
/// One request per call, never retried (the vault's back-off decides); `timeStamp` from the injected clock. Errors
/// quote no token, secret, signature or body.
public final class TianyiTokenRefresher: TokenRefresher, CustomStringConvertible {
    /// The settings it was made with.
    public var configuration: TianyiConfiguration { client.configuration }
    private let client: TianyiClient
    /// A refresh call's limit (at least the configuration's `timeout`).
    private let callLimit: Duration

    /// Creates the refresher, checking its settings once.
    /// - Parameters:
    ///   - configuration: The settings (the same `tianyi` object as the user-info call's).
    ///   - transport: The HTTP transport.
    ///   - clock: The clock `timeStamp` is read from.
    ///   - callLimit: How long a refresh call may take: 330 s, past a ``TokenVault``'s own limits with their defaults
    ///     (its `refreshTimeout`, 30 s, then its late answer's `lateAnswerLimit`, 5 minutes), which end the call first;
    ///     raise it with them. The configuration's `timeout` (6 s) is the user-info call's, under the exchange guard's:
    ///     an answer past it may carry a rotated refresh token the vault must keep.
    /// - Throws: ``GatewayError/Kind/misconfigured(_:)`` naming the field and the fix.
    public init(
        configuration: TianyiConfiguration, transport: any HTTPTransport, clock: any WallClock = SystemClock(), callLimit: Duration = .seconds(330)
    ) throws(GatewayError) {
        client = try TianyiClient(configuration: configuration, transport: transport, clock: clock)
        self.callLimit = max(configuration.timeout, callLimit)
    }

    /// `tianyi refresh appId 8013818507, XXTEA paras, open.e.189.cn/api/oauth2/refreshToken.do`.
    public var description: String {
        "tianyi refresh appId \(configuration.appID), \(configuration.mode.rawValue), \(configuration.refreshURL.endpointDescription)"
    }

    /// Refreshes a Tianyi access token with its refresh token.
    /// - Parameter token: The stored token (its ``AccessToken/refreshToken`` is sent).
    /// - Returns: The new access token, the rotated refresh token if one came, the new lifetime; for a success that
    ///   cannot be served but rotated the refresh token, an empty access token with ``RefreshResponse/unusable`` set
    ///   (never serve it: ``TokenVault`` keeps the refresh token and counts a failed refresh).
    /// - Throws: ``TokenError``: `relogin-required` for a token of another flow, without a refresh token or with one
    ///   the request cannot carry, and for a non-zero `result`; `refresh-failed` for everything else (no answer within
    ///   the call's limit, `callLimit`: a vault's own limits end it first; a 5xx; a body that is not the documented
    ///   JSON); `CancellationError`.
    public func refresh(_ token: AccessToken) async throws -> RefreshResponse {
        guard token.flow == .tianyi else {
            throw TokenError(.reloginRequired, message: "tianyi: refreshToken.do refreshes tianyi tokens; this one is \(token.flow)")
        }
        guard let refreshToken = token.refreshToken, !refreshToken.isEmpty else {
            throw TokenError(.reloginRequired, message: "tianyi: the token has no refresh token")
        }
        let response: HTTPResponse
        do {
            let request = try TianyiRequest(parameters: parameters(refreshToken: refreshToken.reveal(), timeStamp: client.timeStamp), configuration: configuration)
            response = try await client.send(request, to: configuration.refreshURL, timeout: callLimit)
            // The status and the JSON judged as for every gateway (a JSON object whatever its content type); the fields
            // by OneTap's reader.
            _ = try configuration.jsonObject(response, gateway: TianyiTokenExchange.name)
        } catch let error as GatewayError {
            // A refresh token the request cannot carry never will: the account logs in again (the configuration's own
            // values are checked at `init`).
            if case .refusedCredential = error.kind { throw TokenError(.reloginRequired, message: error.description) }
            throw TokenError(.refreshFailed, message: error.description)
        }
        return try TianyiRefreshResponse.decode(response.body, sent: [token.value, refreshToken])
    }

    /// The exact string `sign` is made over for a refresh, for `onetap gateway sign tianyi`.
    /// - Parameter fields: `refreshToken` (default `REFRESH_TOKEN`) and `timeStamp` (default: the clock's milliseconds).
    /// - Returns: The signed text and `sign`.
    /// - Throws: ``GatewayError/Kind/misconfigured(_:)`` for a field the call does not take.
    package func signPreview(fields: [String: String]) throws(GatewayError) -> SignPreview {
        let given = try SignPreviewFields(fields, known: ["refreshToken", "timeStamp"], of: "refreshToken.do", gateway: TianyiTokenExchange.name)
        return try TianyiRequest(
            parameters: parameters(refreshToken: given["refreshToken"] ?? "REFRESH_TOKEN", timeStamp: given["timeStamp"] ?? client.timeStamp),
            configuration: configuration
        ).preview(configuration)
    }

    private func parameters(refreshToken: String, timeStamp: String) -> [(name: String, value: String)] {
        client.withClientIP([("refreshToken", refreshToken), ("grantType", "refresh_token"), ("timeStamp", timeStamp)])
    }
}
