import Foundation
import OneTap
import OneTapSupport

/// Aliyun's 号码认证服务 (PNVS), an aggregator serving China Mobile, China Unicom and China Telecom SIMs, as two
/// providers: `GetMobile` as a ``TokenExchangeProvider`` (the SDK's one-tap token in, the number out) and
/// `VerifyMobile` as a ``NumberVerificationProvider`` (the SDK's verification token and a number in, `PASS`, `REJECT`
/// or `UNKNOWN` out), both signed with Aliyun's signature V3.
///
/// Each call sends one request and never retries it (the exchange guard decides). Its errors are ``GatewayError``s
/// named `aliyun-pnvs` that quote no token, secret, signature, number or body.
public final class AliyunPNVSGateway: TokenExchangeProvider, NumberVerificationProvider, NamedGateway, CustomStringConvertible {
    /// The gateway's name in errors and configuration: `aliyun-pnvs`.
    public static let name = "aliyun-pnvs"

    /// The settings it was made with.
    public let configuration: AliyunPNVSConfiguration
    private let client: AliyunRPCClient

    /// Creates the gateway, checking its settings once.
    /// - Parameters:
    ///   - configuration: The settings.
    ///   - transport: The HTTP transport (one ``URLSessionTransport`` shared by every gateway, in production).
    ///   - clock: The clock `x-acs-date` is read from.
    /// - Throws: ``GatewayError/Kind/misconfigured(_:)`` naming the field and the fix.
    public convenience init(configuration: AliyunPNVSConfiguration, transport: any HTTPTransport, clock: any WallClock = SystemClock()) throws(GatewayError) {
        try self.init(configuration: configuration, transport: transport, clock: clock, nonces: RequestNonce.make)
    }

    /// Creates the gateway with the nonces given (tests pin them).
    /// - Parameters:
    ///   - configuration: The settings.
    ///   - transport: The HTTP transport.
    ///   - clock: The clock.
    ///   - nonces: Makes each request's `x-acs-signature-nonce`.
    /// - Throws: ``GatewayError/Kind/misconfigured(_:)``.
    package init(
        configuration: AliyunPNVSConfiguration, transport: any HTTPTransport, clock: any WallClock, nonces: @escaping @Sendable () -> String
    ) throws(GatewayError) {
        self.configuration = configuration
        client = try AliyunRPCClient(gateway: Self.name, configuration: configuration, transport: transport, clock: clock, nonces: nonces)
    }

    /// `aliyun-pnvs accessKeyId LTAI…, dypnsapi.aliyuncs.com, version 2017-05-25`.
    public var description: String { configuration.description }

    /// Exchanges a one-tap token from Aliyun's SDK for its number (`GetMobile`).
    /// - Parameter credential: A `mobile`, `unicom` or `tianyi` credential whose token is the SDK's `AccessToken`.
    /// - Returns: Aliyun's `Code` as it came (`OK`, `isv.TOKEN_INVALID`, …), the number on `OK`.
    /// - Throws: ``GatewayError`` once the request may have reached Aliyun (`timedOut`, `unreachable`, `httpStatus`,
    ///   `wrongContentType`, `sentTwice`, `malformedBody`: an `OK` without a mainland mobile number); ``ExchangeNotSentError``
    ///   when nothing was sent (an SMS credential, a request that could not be made or left).
    public func exchange(_ credential: CarrierCredential) async throws -> ExchangeResponse {
        try Self.requireOneTap(credential)
        let answer = try await SentOnce.run { try await self.client.call(action: "GetMobile", parameters: [("AccessToken", credential.token.reveal())]) }
        let carried = (try? answer.text(in: "GetMobileResultDTO", "Mobile", gateway: Self.name)) ?? nil
        return try GatewayAnswer.numbered(answer.code, gateway: Self.name, carried: carried) { ExchangeResponse(code: answer.code) } _: { () throws(GatewayError) in
            guard let mobile = try answer.text(in: "GetMobileResultDTO", "Mobile", gateway: Self.name), !mobile.isEmpty else {
                throw GatewayError(gateway: Self.name, .malformedBody("OK without GetMobileResultDTO.Mobile"))
            }
            return ExchangeResponse(code: answer.code, phoneNumber: try GatewayAnswer.phoneNumber(mobile, gateway: Self.name, label: "GetMobileResultDTO.Mobile"))
        }
    }

    /// Asks whether a number is the SIM's own (`VerifyMobile`).
    /// - Parameters:
    ///   - credential: A `mobile`, `unicom` or `tianyi` credential whose token is the SDK's verification token
    ///     (`AccessCode`).
    ///   - number: The number to check (`PhoneNumber`, 11 digits).
    /// - Returns: From `Data/verification-codes.csv`: `OK` with `GateVerifyResultDTO.VerifyResult`'s verdict (`PASS`
    ///   pass, `REJECT` reject, `UNKNOWN` unknown); any other `Code` as it came, with the verdict unknown.
    /// - Throws: ``GatewayError`` once the request may have reached Aliyun (`sentTwice`; `malformedBody` for an `OK`
    ///   without a `VerifyResult` of those three); ``ExchangeNotSentError`` when nothing was sent.
    public func verify(_ credential: CarrierCredential, number: PhoneNumber) async throws -> NumberVerificationResponse {
        try Self.requireOneTap(credential)
        let answer = try await SentOnce.run {
            try await self.client.call(action: "VerifyMobile", parameters: [("AccessCode", credential.token.reveal()), ("PhoneNumber", number.digits)])
        }
        let verdict = try VerificationVerdicts.verdict(gateway: Self.name, code: answer.code, member: "a VerifyResult of") { () throws(GatewayError) in
            try answer.text(in: "GateVerifyResultDTO", "VerifyResult", gateway: Self.name, acceptingNumbers: true)
        }
        return NumberVerificationResponse(code: answer.code, verdict: verdict)
    }

    /// What `onetap gateway sign aliyun-pnvs` shows.
    /// - Parameter fields: `action` (`GetMobile`, the default, or `VerifyMobile`), `token` (the `AccessToken` or
    ///   `AccessCode`), `phone` (`VerifyMobile`'s `PhoneNumber`), `date` (`x-acs-date`, `2023-10-26T10:22:32Z`; the
    ///   clock's now by default), `nonce` (`x-acs-signature-nonce`; a fresh one by default).
    /// - Returns: The exact string to sign and the signature.
    /// - Throws: ``GatewayError`` `misconfigured` naming a field that is unknown, missing or malformed.
    package func signPreview(fields: [String: String]) throws(GatewayError) -> SignPreview {
        let action = fields["action"] ?? "GetMobile"
        let given: SignPreviewFields, parameters: [(name: String, value: String)]
        switch action {
        case "GetMobile":
            given = try SignPreviewFields(fields, known: ["action", "token", "date", "nonce"], of: "GetMobile", gateway: Self.name)
            parameters = [("AccessToken", try given.required("token"))]
        case "VerifyMobile":
            given = try SignPreviewFields(fields, known: ["action", "token", "phone", "date", "nonce"], of: "VerifyMobile", gateway: Self.name)
            parameters = [("AccessCode", try given.required("token")), ("PhoneNumber", try given.required("phone"))]
        default:
            throw GatewayError(gateway: Self.name, .misconfigured("action must be GetMobile or VerifyMobile, not '\(action.prefix(40))'"))
        }
        return AliyunSignatureV3.preview(try client.sign(action: action, parameters: parameters, date: try given.date(), nonce: given["nonce"]))
    }

    /// Refuses, before sending, a credential no PNVS token can be.
    private static func requireOneTap(_ credential: CarrierCredential) throws {
        guard credential.flow.isOneTap else {
            throw ExchangeNotSentError("\(name): PNVS takes one-tap tokens (mobile, unicom, tianyi); this credential is \(credential.flow)")
        }
    }

}
