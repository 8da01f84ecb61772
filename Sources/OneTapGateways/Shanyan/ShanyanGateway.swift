import Foundation
import OneTap
import OneTapSupport

/// Shanyan (闪验, 创蓝) as a ``TokenExchangeProvider`` (`mobile-query`: the SDK's token in, the number out, AES- or
/// RSA-decrypted) and a ``NumberVerificationProvider`` (`mobile-validate`), over HTTPS POST with an
/// `application/x-www-form-urlencoded` body signed with HMAC-SHA256.
///
/// Each call sends one request and never retries it; `outId` is 32 hexadecimal characters from the system's secure
/// generator. Its errors are ``GatewayError``s named `shanyan` that quote no token, secret, sign, number or body.
public final class ShanyanGateway: TokenExchangeProvider, NumberVerificationProvider, NamedGateway, CustomStringConvertible {
    /// The gateway's name in errors and configuration: `shanyan`.
    public static let name = "shanyan"

    /// The settings it was made with.
    public let configuration: ShanyanConfiguration
    private let signer: ShanyanSigner
    private let key: RSAPrivateKey?
    private let transport: any HTTPTransport
    private let outIDs: @Sendable () -> String

    /// Creates the gateway, reading its appKey and key once.
    /// - Parameters:
    ///   - configuration: The settings.
    ///   - transport: The HTTP transport (one ``URLSessionTransport`` shared by every gateway, in production).
    /// - Throws: ``GatewayError/Kind/misconfigured(_:)`` naming the field and the fix.
    public convenience init(configuration: ShanyanConfiguration, transport: any HTTPTransport) throws(GatewayError) {
        try self.init(configuration: configuration, transport: transport, outIDs: RequestNonce.make)
    }

    /// Creates the gateway with the `outId`s given (tests pin them).
    /// - Parameters:
    ///   - configuration: The settings.
    ///   - transport: The HTTP transport.
    ///   - outIDs: Makes each request's `outId`.
    /// - Throws: ``GatewayError/Kind/misconfigured(_:)``.
    package init(configuration: ShanyanConfiguration, transport: any HTTPTransport, outIDs: @escaping @Sendable () -> String) throws(GatewayError) {
        try CredentialCheck.lettersAndDigits(configuration.appID, "appId", mustBe: "the appId from Shanyan's console", gateway: Self.name)
        signer = try ShanyanSigner(configuration)
        key = try configuration.privateKey.map { (pem) throws(GatewayError) in
            try CredentialCheck.privateKey(
                pem, "privateKey", note: "Shanyan encrypts mobileName to the RSA public key given to its console; this must be its private half", gateway: Self.name)
        }
        self.configuration = configuration
        self.transport = transport
        self.outIDs = outIDs
    }

    /// `shanyan appId ZQZSp7C0, AES, api.253.com/open/flashsdk/mobile-query`.
    public var description: String { configuration.description }

    /// Exchanges a one-tap credential for its number.
    /// - Parameter credential: A credential of a flow in ``ShanyanConfiguration/flows``: its token is the Shanyan
    ///   SDK's token.
    /// - Returns: Shanyan's code as it came (`200000` is success), the number on success.
    /// - Throws: ``GatewayError`` once the request may have reached Shanyan; ``ExchangeNotSentError`` when nothing
    ///   was sent.
    public func exchange(_ credential: CarrierCredential) async throws -> ExchangeResponse {
        try await AggregatorCall.exchange(credential, serves: configuration.flows, gateway: Self.name) { try await mobileQuery($0) }
    }

    /// Asks whether a number is the SIM's own.
    /// - Parameters:
    ///   - credential: A credential whose token is the SDK's number-verification token.
    ///   - number: The number to check.
    /// - Returns: The code and its verdict from `Data/verification-codes.csv`: `200000` with `isVerify` 1 pass, 0
    ///   reject; anything else unknown.
    /// - Throws: As ``exchange(_:)``.
    public func verify(_ credential: CarrierCredential, number: PhoneNumber) async throws -> NumberVerificationResponse {
        try await AggregatorCall.verify(credential, serves: configuration.flows, gateway: Self.name) { try await mobileValidate(token: $0, number: number) }
    }

    /// Sends one `mobile-query` request.
    /// - Parameter token: The SDK's token.
    /// - Returns: The answer: the code, the number on `200000`, `tradeNo`.
    /// - Throws: ``GatewayError``: the transport's, `httpStatus`, `wrongContentType`, `malformedBody` (no `code`, a
    ///   `200000` whose `mobileName` is missing or does not decrypt).
    public func mobileQuery(_ token: Secret) async throws -> AggregatorAnswer {
        let fields: [(name: String, value: String)] = [
            ("appId", configuration.appID), ("token", token.reveal()), ("outId", outIDs()), ("encryptType", key == nil ? "0" : "1"),
        ]
        let (code, data) = try await post(configuration.url, fields)
        let carried = data.flatMap { (try? GatewayAnswer.text($0, "mobileName", gateway: Self.name)) ?? nil }
        return try GatewayAnswer.numbered(code, gateway: Self.name, carried: carried) {
            AggregatorAnswer(gateway: Self.name, code: code, serial: tradeNo(data))
        } _: { () throws(GatewayError) in
            guard let data, let mobileName = try GatewayAnswer.text(data, "mobileName", gateway: Self.name), !mobileName.isEmpty else {
                throw GatewayError(gateway: Self.name, .malformedBody("200000 without data.mobileName"))
            }
            let number: PhoneNumber
            if let key {
                number = try AggregatorCall.rsaPhoneNumber(mobileName, key: key, field: "mobileName", keyField: "privateKey", gateway: Self.name)
            } else {
                number = try signer.aesPhoneNumber(mobileName)
            }
            return AggregatorAnswer(gateway: Self.name, code: code, phoneNumber: number, serial: tradeNo(data))
        }
    }

    /// Sends one `mobile-validate` request.
    /// - Parameters:
    ///   - token: The SDK's token.
    ///   - number: The number to check.
    /// - Returns: The answer with its verdict, from `Data/verification-codes.csv`.
    /// - Throws: ``GatewayError`` as ``mobileQuery(_:)``; `malformedBody` for a `200000` without `isVerify` 0 or 1.
    public func mobileValidate(token: Secret, number: PhoneNumber) async throws -> AggregatorAnswer {
        let fields: [(name: String, value: String)] = [("appId", configuration.appID), ("token", token.reveal()), ("mobile", number.digits), ("outId", outIDs())]
        let (code, data) = try await post(configuration.verifyURL, fields)
        let verdict = try VerificationVerdicts.verdict(gateway: Self.name, code: code, member: "data.isVerify") { () throws(GatewayError) in
            try data.flatMap { data throws(GatewayError) in try GatewayAnswer.text(data, "isVerify", gateway: Self.name, acceptingNumbers: true) }
        }
        return AggregatorAnswer(gateway: Self.name, code: code, verdict: verdict, serial: tradeNo(data))
    }

    /// What `onetap gateway sign shanyan` shows: the string HMAC-SHA256 signs (the appKey is the key, not part of
    /// the string) and the sign.
    /// - Parameter fields: The parameters as sent: `token` (required), `outId`, and `mobile` for `mobile-validate`
    ///   (its parameters then, with no `encryptType`); `appId` and `encryptType` default to the configuration's.
    /// - Returns: The preview.
    /// - Throws: ``GatewayError/Kind/misconfigured(_:)`` when `token` is missing.
    package func signPreview(fields: [String: String]) throws(GatewayError) -> SignPreview {
        _ = try SignPreviewFields(fields, known: ["token", "outId", "mobile", "appId", "encryptType"], of: "mobile-query's sign", gateway: Self.name)
        guard let token = fields["token"] else { throw GatewayError(gateway: Self.name, .misconfigured("give the token: --field token=- (on standard input)")) }
        var sent: [(name: String, value: String)] = [("appId", fields["appId"] ?? configuration.appID), ("token", token)]
        if let outID = fields["outId"] { sent.append(("outId", outID)) }
        if let mobile = fields["mobile"] {
            sent.append(("mobile", mobile))
        } else {
            sent.append(("encryptType", fields["encryptType"] ?? (key == nil ? "0" : "1")))
        }
        let signed = try signer.signed(sent)
        return SignPreview(stringToSign: signed.signed, signature: signed.sign, algorithm: "HMAC-SHA256 keyed with <appKey>")
    }

    private func post(_ url: URL, _ fields: [(name: String, value: String)]) async throws -> (ResultCode, [String: JSONValue]?) {
        let signed = try signer.signed(fields)
        let response = try await transport.send(configuration.post(gateway: Self.name, to: url, headers: [FormEncoding.contentType], body: FormEncoding.body(signed.fields)))
        let object = try configuration.jsonObject(response, gateway: Self.name)
        return (try GatewayAnswer.code(object, "code", gateway: Self.name), try GatewayAnswer.object(object, "data", gateway: Self.name))
    }

    private func tradeNo(_ data: [String: JSONValue]?) -> String? {
        data.flatMap { GatewayAnswer.bookkeepingID($0, "tradeNo") }
    }
}
