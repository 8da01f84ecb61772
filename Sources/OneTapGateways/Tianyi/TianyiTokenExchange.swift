import Foundation
import OneTap
import OneTapSupport

/// China Telecom's 天翼账号 user-info call as a ``TokenExchangeProvider`` for the `tianyi` flow (seed 002's way): the
/// Tianyi account's `accessToken` in, the user's number (`mobileName`) out, over an HTTP POST form whose parameters
/// are XXTEA-encrypted with the app secret and signed (or plain and signed: ``TianyiConfiguration/mode``).
///
/// Each call sends one request and never retries it (the exchange guard decides); `timeStamp` comes from the injected
/// clock. Its errors are ``GatewayError``s named `tianyi` that quote no token, secret, signature, number or body.
public final class TianyiTokenExchange: TokenExchangeProvider, NamedGateway, CustomStringConvertible {
    /// The gateway's name in errors and configuration: `tianyi`.
    public static let name = "tianyi"

    /// The settings it was made with.
    public var configuration: TianyiConfiguration { client.configuration }
    private let client: TianyiClient

    /// Creates the gateway, checking its settings once.
    /// - Parameters:
    ///   - configuration: The settings.
    ///   - transport: The HTTP transport (one ``URLSessionTransport`` shared by every gateway, in production).
    ///   - clock: The clock `timeStamp` is read from.
    /// - Throws: ``GatewayError/Kind/misconfigured(_:)`` naming the field and the fix (an empty or padded secret, an
    ///   `appId` that is not the platform's id).
    public init(configuration: TianyiConfiguration, transport: any HTTPTransport, clock: any WallClock = SystemClock()) throws(GatewayError) {
        client = try TianyiClient(configuration: configuration, transport: transport, clock: clock)
    }

    /// `tianyi appId 8013818507, XXTEA paras, HMAC-SHA1, open.e.189.cn/api/oauth2/account/userInfo.do`.
    public var description: String { configuration.description }

    /// Exchanges a Tianyi account's access token for its number.
    /// - Parameter credential: A `tianyi` credential whose token is the account's `accessToken`.
    /// - Returns: The open API's `result` as it came, the number on success.
    /// - Throws: ``GatewayError`` (see ``userInfo(_:)``) once the request may have left (the exchange guard keeps the
    ///   token `unknown`); ``ExchangeNotSentError`` when nothing was sent (a credential of another flow, a request
    ///   that cannot be made).
    public func exchange(_ credential: CarrierCredential) async throws -> ExchangeResponse {
        guard credential.flow == .tianyi else {
            throw ExchangeNotSentError("\(Self.name): the 天翼账号 open API exchanges tianyi access tokens; this credential is \(credential.flow)")
        }
        return try await SentOnce.run { try await userInfo(credential.token) }
    }

    /// Sends one user-info request.
    /// - Parameter accessToken: The Tianyi account's access token.
    /// - Returns: `result` and, when it is `0`, the number from `mobileName`.
    /// - Throws: ``GatewayError``: the transport's (`timedOut`, `unreachable`, `bodyTooLarge`), `httpStatus`,
    ///   `wrongContentType`, `malformedBody` (not JSON, no `result`, a success without a usable `mobileName`);
    ///   `CancellationError`.
    package func userInfo(_ accessToken: Secret) async throws -> ExchangeResponse {
        let request = try TianyiRequest(parameters: parameters(accessToken: accessToken.reveal(), timeStamp: client.timeStamp), configuration: configuration)
        let response = try await client.send(request, to: configuration.url)
        return try answer(response)
    }

    /// The exact string `sign` is made over, for `onetap gateway sign tianyi`.
    /// - Parameter fields: `accessToken` (default `ACCESS_TOKEN`) and `timeStamp` (default: the clock's milliseconds).
    /// - Returns: The signed text and `sign`.
    /// - Throws: ``GatewayError/Kind/misconfigured(_:)`` for a field the call does not take.
    package func signPreview(fields: [String: String]) throws(GatewayError) -> SignPreview {
        let given = try SignPreviewFields(fields, known: ["accessToken", "timeStamp"], of: "the user-info call", gateway: Self.name)
        let request = try TianyiRequest(
            parameters: parameters(accessToken: given["accessToken"] ?? "ACCESS_TOKEN", timeStamp: given["timeStamp"] ?? client.timeStamp),
            configuration: configuration)
        return request.preview(configuration)
    }

    private func parameters(accessToken: String, timeStamp: String) -> [(name: String, value: String)] {
        client.withClientIP([("accessToken", accessToken), ("timeStamp", timeStamp)])
    }

    /// Reads an answer: `result` (`0` is success) and `mobileName`.
    private func answer(_ response: HTTPResponse) throws(GatewayError) -> ExchangeResponse {
        let name = Self.name
        let object = try configuration.jsonObject(response, gateway: name)
        let code = try GatewayAnswer.code(object, "result", gateway: name, label: "result")
        let carried = (try? GatewayAnswer.text(object, "mobileName", gateway: name, acceptingNumbers: true)) ?? nil
        return try GatewayAnswer.numbered(code, gateway: name, carried: carried) { ExchangeResponse(code: code) } _: { () throws(GatewayError) in
            guard let mobile = try GatewayAnswer.text(object, "mobileName", gateway: name, acceptingNumbers: true), !mobile.isEmpty else {
                throw GatewayError(gateway: name, .malformedBody("result 0 without mobileName"))
            }
            return ExchangeResponse(code: code, phoneNumber: try GatewayAnswer.phoneNumber(mobile, gateway: name, label: "mobileName"))
        }
    }
}
