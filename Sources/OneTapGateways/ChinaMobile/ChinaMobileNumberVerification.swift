import Foundation
import OneTap
import OneTapSupport

/// China Mobile's 本机号码校验 `tokenValidate` as a ``NumberVerificationProvider``: the SDK's token and the number the
/// user typed in, `000` (是本机号码: pass) or `001` (非本机号码: reject) out, over HTTP POST with a JSON body of a
/// `header` and a `body` whose values are all strings. China Mobile SIMs only.
///
/// Each call sends one request and never retries it (``NumberVerificationService`` decides); `msgId` is 32
/// hexadecimal characters from the system's secure generator, `timestamp` comes from the injected clock. Its errors
/// are ``GatewayError``s named `cmcc` that quote no token, appkey, signature, number or body.
public final class ChinaMobileNumberVerification: NumberVerificationProvider, NamedGateway, CustomStringConvertible {
    /// The gateway's name in errors, configuration and `Data/verification-billing.csv`: `cmcc`.
    public static let name = "cmcc"

    /// The settings it was made with.
    public let configuration: ChinaMobileNumberVerificationConfiguration
    private let transport: any HTTPTransport
    private let clock: any WallClock
    private let messageIDs: @Sendable () -> String

    /// Creates the gateway.
    /// - Parameters:
    ///   - configuration: The settings.
    ///   - transport: The HTTP transport (one ``URLSessionTransport`` shared by every gateway, in production).
    ///   - clock: The clock `timestamp` is read from.
    /// - Throws: ``GatewayError/Kind/misconfigured(_:)`` naming the field and the fix: an app id that is not letters and
    ///   digits, an empty or padded appkey.
    public convenience init(
        configuration: ChinaMobileNumberVerificationConfiguration, transport: any HTTPTransport, clock: any WallClock = SystemClock()
    ) throws(GatewayError) {
        try self.init(configuration: configuration, transport: transport, clock: clock, messageIDs: RequestNonce.makeUppercase)
    }

    /// Creates the gateway with the message ids given (tests pin them).
    /// - Parameters:
    ///   - configuration: The settings.
    ///   - transport: The HTTP transport.
    ///   - clock: The clock.
    ///   - messageIDs: Makes each request's `msgId`.
    /// - Throws: ``GatewayError/Kind/misconfigured(_:)``.
    package init(
        configuration: ChinaMobileNumberVerificationConfiguration, transport: any HTTPTransport, clock: any WallClock,
        messageIDs: @escaping @Sendable () -> String
    ) throws(GatewayError) {
        try CredentialCheck.lettersAndDigits(configuration.appID, "appId", mustBe: ChinaMobileConfiguration.appIDSource, gateway: Self.name)
        try CredentialCheck.trimmed(
            configuration.appKey, "appKey", setTo: "the appkey of the app in China Mobile's developer community", padded: "a 302 sign error", gateway: Self.name)
        self.configuration = configuration
        self.transport = transport
        self.clock = clock
        self.messageIDs = messageIDs
    }

    /// `cmcc appid 300011111111, HMAC-SHA256 sign, www.cmpassport.com/openapi/rs/tokenValidate`.
    public var description: String { configuration.description }

    /// Asks China Mobile whether `number` is the number of the SIM the token came from.
    /// - Parameters:
    ///   - credential: A `mobile` credential: the SDK's token.
    ///   - number: The number the user typed.
    /// - Returns: China Mobile's `resultCode` as it came, with its verdict from `Data/verification-codes.csv`: `000`
    ///   pass, `001` reject, any other unknown.
    /// - Throws: ``ExchangeNotSentError`` when nothing was sent (a credential of another flow, a request that cannot
    ///   be made, a connection never made); ``GatewayError`` once the request may have reached China Mobile
    ///   (`timedOut`, `httpStatus`, `wrongContentType`, `malformedBody`: no `header.resultCode`, another request's
    ///   `msgId`); `CancellationError`.
    public func verify(_ credential: CarrierCredential, number: PhoneNumber) async throws -> NumberVerificationResponse {
        guard credential.flow == .mobile else {
            throw ExchangeNotSentError("\(Self.name): China Mobile verifies numbers with mobile tokens; this credential is \(credential.flow)")
        }
        return try await SentOnce.run {
            let messageID = messageIDs()
            let request = try ChinaMobileNumberVerificationRequest(
                token: credential.token, phone: number.digits, messageID: messageID,
                timestamp: SystemTime17.format(clock.now(), offset: configuration.timestampUTCOffset), configuration: configuration)
            let response = try await transport.send(configuration.post(gateway: Self.name, headers: [HTTPHeader("Content-Type", "application/json")], body: request.json))
            let (code, echoed) = try answer(response, messageID: messageID)
            let verdict = try VerificationVerdicts.verdict(gateway: Self.name, code: code)
            // A pass is taken only from an answer bound to this request (the document echoes the msgId in every answer).
            guard verdict != .pass || echoed else { throw GatewayError(gateway: Self.name, .malformedBody("a pass without header.msgId")) }
            return NumberVerificationResponse(code: code, verdict: verdict)
        }
    }

    /// What `onetap gateway sign cmcc` shows for number verification: the string `sign` is made over and the sign.
    /// - Parameter fields: `token` and `phone` (required), `msgId` and `timestamp` (17 digits; default: a fixed id and
    ///   the clock's time).
    /// - Returns: The preview; the appkey appears as `<appKey>` in the algorithm's name, never itself.
    /// - Throws: ``GatewayError/Kind/misconfigured(_:)`` naming a missing field.
    package func signPreview(fields: [String: String]) throws(GatewayError) -> SignPreview {
        _ = try SignPreviewFields(fields, known: ["token", "phone", "msgId", "timestamp"], of: "tokenValidate's sign", gateway: Self.name)
        guard let token = fields["token"], let phone = fields["phone"] else {
            throw GatewayError(gateway: Self.name, .misconfigured("sign needs --field token=- (on standard input) and --field phone=… (and optionally msgId, timestamp)"))
        }
        let timestamp = fields["timestamp"] ?? SystemTime17.format(clock.now(), offset: configuration.timestampUTCOffset)
        let request = try ChinaMobileNumberVerificationRequest(
            token: Secret(token), phone: phone, messageID: fields["msgId"] ?? "00000000000000000000000000000000", timestamp: timestamp,
            configuration: configuration)
        return SignPreview(stringToSign: request.signedText, signature: request.sign, algorithm: "HMAC-SHA256 keyed with <appKey>, phoneNum = SHA-256(phone + <appKey> + timestamp)")
    }

    /// Reads an answer's `header.resultCode`, and whether it echoed this request's `msgId`.
    private func answer(_ response: HTTPResponse, messageID: String) throws(GatewayError) -> (code: ResultCode, echoed: Bool) {
        let object = try configuration.jsonObject(response, gateway: Self.name)
        guard case .object(let header)? = object["header"] else { throw GatewayError(gateway: Self.name, .malformedBody("no header object")) }
        let code = try GatewayAnswer.code(header, "resultCode", "resultcode", gateway: Self.name, label: "header.resultCode")
        let echoed = try GatewayAnswer.text(header, "msgId", "msgid", gateway: Self.name)
        if let echoed, echoed != messageID {
            throw GatewayError(gateway: Self.name, .malformedBody("header.msgId is not this request's msgId"))
        }
        return (code, echoed != nil)
    }
}
