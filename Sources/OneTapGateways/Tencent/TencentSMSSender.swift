import Foundation
import OneTap
import OneTapSupport

/// Tencent Cloud SMS `SendSms` (API 3.0, version `2021-01-11`) as an ``SMSSender``: one code to one mainland
/// number per call, the code in the approved template's `TemplateParamSet`, the request signed with
/// TC3-HMAC-SHA256.
///
/// Each call sends one request and never retries it. A code other than `Ok` (in `SendStatusSet[0].Code` or as
/// `Response.Error.Code`) throws ``SMSDeliveryError``: the number's rate limits are `throttled`, a number Tencent will
/// not send to is `numberRejected`, anything else `failed` (``TencentSMSCodes`` holds the table). Its errors name
/// `tencent-sms` and quote no code, key, signature or number.
public final class TencentSMSSender: SMSSender, CustomStringConvertible {
    /// The gateway's name in errors and configuration: `tencent-sms`.
    public static let name = "tencent-sms"

    /// The settings it was made with.
    public let configuration: TencentSMSConfiguration
    private let client: TencentCloudClient

    /// Creates the gateway, checking its configuration.
    /// - Parameters:
    ///   - configuration: The settings.
    ///   - transport: The HTTP transport (one ``URLSessionTransport`` shared by every gateway, in production).
    ///   - clock: The clock `X-TC-Timestamp` and the minutes left are read from.
    /// - Throws: ``GatewayError/Kind/misconfigured(_:)`` naming the field and the fix: an empty or padded id, a
    ///   `SecretKey` with spaces, an `SmsSdkAppId` or `TemplateId` that is not digits, no template parameter.
    public init(configuration: TencentSMSConfiguration, transport: any HTTPTransport, clock: any WallClock = SystemClock()) throws(GatewayError) {
        let signer = TC3Signer(gateway: Self.name, secretID: configuration.secretID, secretKey: configuration.secretKey, service: "sms")
        client = try TencentCloudClient(signer: signer, action: "SendSms", version: "2021-01-11", endpoint: configuration, transport: transport, clock: clock)
        for (field, value) in [("sdkAppId", configuration.sdkAppID), ("templateId", configuration.templateID)] {
            guard !value.isEmpty, value.allSatisfy({ $0.isASCII && $0.isNumber }) else {
                throw GatewayError(gateway: Self.name, .misconfigured("\(field) must be the digits the SMS console shows, not \(CredentialCheck.glimpse(value))"))
            }
        }
        guard !configuration.signName.isEmpty, configuration.signName.trimmingCharacters(in: .whitespacesAndNewlines) == configuration.signName else {
            throw GatewayError(gateway: Self.name, .misconfigured("signName must be the approved signature's text, without surrounding spaces"))
        }
        guard configuration.templateParameters.contains(.code) else {
            throw GatewayError(gateway: Self.name, .misconfigured("templateParamSet must include code: the template carries the code"))
        }
        guard !configuration.region.isEmpty, configuration.region.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) else {
            throw GatewayError(gateway: Self.name, .misconfigured("region must be a Tencent Cloud region such as ap-guangzhou"))
        }
        self.configuration = configuration
    }

    /// `tencent-sms SdkAppId 1400006666, template 1110, ap-guangzhou, sms.tencentcloudapi.com/`.
    public var description: String { configuration.description }

    /// Sends one code.
    /// - Parameter message: The number, the code and its expiry.
    /// - Throws: ``SMSDeliveryError`` when Tencent answered with a code other than `Ok`; ``GatewayError`` from the
    ///   transport (`timedOut`, `unreachable`, `notSent`) or for an answer that is not Tencent's (`httpStatus`,
    ///   `wrongContentType`, `malformedBody`); `CancellationError`.
    public func send(_ message: SMSMessage) async throws {
        let (built, _) = try request(number: message.number, code: message.code, expiresAt: message.expiresAt, now: client.clock.now())
        switch try await client.send(built) {
        case .error(let code, let requestID):
            throw TencentSMSCodes.error(code, requestID: requestID)
        case .response(let members):
            let requestID = GatewayAnswer.bookkeepingID(members, "RequestId")
            guard case .array(let statuses)? = members["SendStatusSet"], statuses.count == 1, let status = statuses[0].objectValue else {
                throw GatewayError(gateway: Self.name, .malformedBody("SendStatusSet is not one status for the one number sent"))
            }
            if let number = try GatewayAnswer.text(status, "PhoneNumber", gateway: Self.name), number != "+86\(message.number.digits)" {
                throw GatewayError(gateway: Self.name, .malformedBody("SendStatusSet[0] is another number's"))
            }
            guard let code = try GatewayAnswer.text(status, "Code", gateway: Self.name, acceptingNumbers: true), !code.isEmpty else {
                throw GatewayError(gateway: Self.name, .malformedBody("SendStatusSet[0] has no Code"))
            }
            guard code == TencentSMSCodes.sent else { throw TencentSMSCodes.error(DisplayText.label(code), requestID: requestID) }
        }
    }

    /// Builds and signs one `SendSms` request.
    /// - Parameters:
    ///   - number: The number (sent as `+86…`).
    ///   - code: The code.
    ///   - expiresAt: When the code expires (for a `minutes` parameter).
    ///   - now: The clock's time.
    /// - Returns: The request and its signature's strings.
    /// - Throws: ``GatewayError/Kind/misconfigured(_:)`` when the signature cannot be made.
    package func request(number: PhoneNumber, code: Secret, expiresAt: Date, now: Date) throws(GatewayError) -> (HTTPRequest, TC3Signer.Signed) {
        let minutes = max(1, Int((expiresAt.timeIntervalSince(now) / 60).rounded(.up)))
        let parameters = configuration.templateParameters.map { parameter -> JSONValue in
            switch parameter {
            case .code: .string(code.reveal())
            case .minutes: .string(String(minutes))
            }
        }
        let body = JSONValue.object([
            "PhoneNumberSet": .array([.string("+86\(number.digits)")]), "SmsSdkAppId": .string(configuration.sdkAppID),
            "SignName": .string(configuration.signName), "TemplateId": .string(configuration.templateID), "TemplateParamSet": .array(parameters),
        ])
        return try client.request(body, region: configuration.region, at: now)
    }

    /// What `onetap gateway sign tencent-sms` shows: the TC3 string to sign for a `SendSms` request and its signature.
    /// - Parameter fields: `phone` (11 digits, default `13800138000`), `code` (default `123456`), `timestamp` (seconds,
    ///   default the clock's); unknown fields are refused.
    /// - Returns: The string to sign (it holds no secret: the body and the key enter as a hash and an HMAC key) and
    ///   the signature.
    /// - Throws: ``GatewayError/Kind/misconfigured(_:)`` naming a bad field.
    package func signPreview(fields: [String: String]) throws(GatewayError) -> SignPreview {
        let given = try SignPreviewFields(fields, known: ["phone", "code", "timestamp"], of: client.action, gateway: Self.name)
        let number: PhoneNumber
        do { number = try PhoneNumber(given["phone"] ?? "13800138000") } catch {
            throw GatewayError(gateway: Self.name, .misconfigured("--field phone must be an 11-digit mainland mobile number"))
        }
        let now = try given.timestamp(client.clock)
        return try request(number: number, code: Secret(given["code"] ?? "123456"), expiresAt: now.addingTimeInterval(300), now: now).1.preview
    }
}
