import Foundation
import OneTap
import OneTapSupport

/// Aliyun's 短信服务 `SendSms` as an ``SMSSender``: the code goes into the template's variable in `TemplateParam`
/// (`{"code":"123456"}`), the message to one number, signed with Aliyun's signature V3.
///
/// Aliyun's `Code` decides the outcome (`Data/gateways/aliyun-sms.md` gives each mapping's source): `OK` is sent;
/// `isv.MOBILE_NUMBER_ILLEGAL` is ``SMSDeliveryError/Reason/numberRejected``; `isv.BUSINESS_LIMIT_CONTROL` and
/// `isv.DAY_LIMIT_CONTROL` are ``SMSDeliveryError/Reason/throttled``; every other code is
/// ``SMSDeliveryError/Reason/failed``. One request per call, never retried (`SendSms` is not idempotent). No error
/// carries the code, the number, the secret or Aliyun's `Message` (which may quote the template's values).
public final class AliyunSMSSender: SMSSender, CustomStringConvertible {
    /// The gateway's name in errors and configuration: `aliyun-sms`.
    public static let name = "aliyun-sms"

    /// The settings it was made with.
    public let configuration: AliyunSMSConfiguration
    private let client: AliyunRPCClient

    /// Creates the sender, checking its settings once.
    /// - Parameters:
    ///   - configuration: The settings.
    ///   - transport: The HTTP transport (one ``URLSessionTransport`` shared by every gateway, in production).
    ///   - clock: The clock `x-acs-date` is read from.
    /// - Throws: ``GatewayError/Kind/misconfigured(_:)`` naming the field and the fix.
    public convenience init(configuration: AliyunSMSConfiguration, transport: any HTTPTransport, clock: any WallClock = SystemClock()) throws(GatewayError) {
        try self.init(configuration: configuration, transport: transport, clock: clock, nonces: RequestNonce.make)
    }

    /// Creates the sender with the nonces given (tests pin them).
    /// - Parameters:
    ///   - configuration: The settings.
    ///   - transport: The HTTP transport.
    ///   - clock: The clock.
    ///   - nonces: Makes each request's `x-acs-signature-nonce`.
    /// - Throws: ``GatewayError/Kind/misconfigured(_:)``.
    package init(
        configuration: AliyunSMSConfiguration, transport: any HTTPTransport, clock: any WallClock, nonces: @escaping @Sendable () -> String
    ) throws(GatewayError) {
        let fields = [
            ("signName", configuration.signName, "signature's name"), ("templateCode", configuration.templateCode, "template's code (SMS_…)"),
            ("templateParamName", configuration.templateParamName, "template's variable for the code"),
        ]
        for (field, value, what) in fields where value.isEmpty || value.trimmingCharacters(in: .whitespacesAndNewlines) != value {
            throw GatewayError(gateway: Self.name, .misconfigured("\(field) must be the approved \(what), without surrounding spaces"))
        }
        self.configuration = configuration
        client = try AliyunRPCClient(gateway: Self.name, configuration: configuration, transport: transport, clock: clock, nonces: nonces)
    }

    /// `aliyun-sms accessKeyId LTAI…, template SMS_1 (code), dysmsapi.aliyuncs.com`.
    public var description: String { configuration.description }

    /// Sends a code.
    /// - Parameter message: The number and the code.
    /// - Throws: ``SMSDeliveryError`` when Aliyun answered and did not take the message (its `Code` kept);
    ///   ``GatewayError`` when no usable answer came (time-out, unreachable, 5xx, malformed, `sentTwice`: the request
    ///   reached Aliyun twice and the first copy's answer was lost) or the request could not be made; `CancellationError`.
    public func send(_ message: SMSMessage) async throws {
        let answer = try await client.call(action: "SendSms", parameters: parameters(number: message.number.digits, code: message.code.reveal()))
        guard answer.code != "OK" else { return }
        let (reason, meaning) = Self.outcome(of: answer.code)
        throw SMSDeliveryError(reason, gateway: Self.name, code: answer.code.text, message: meaning)
    }

    /// What a `Code` other than `OK` means for the SMS service, and a meaning that quotes nothing sent.
    /// - Parameter code: Aliyun's `Code`.
    /// - Returns: The reason and the words for the error.
    package static func outcome(of code: ResultCode) -> (SMSDeliveryError.Reason, String) {
        switch code.text {
        case "isv.MOBILE_NUMBER_ILLEGAL": (.numberRejected, "Aliyun refuses the number (号码格式非法)")
        case "isv.BUSINESS_LIMIT_CONTROL": (.throttled, "Aliyun's sending-frequency limit for the number was reached (触发业务流控)")
        case "isv.DAY_LIMIT_CONTROL": (.throttled, "the account's daily sending limit set in Aliyun's console was reached (触发日发送限额)")
        default: (.failed, "Aliyun did not take the message")
        }
    }

    /// `SendSms`'s parameters.
    private func parameters(number: String, code: String) -> [(name: String, value: String)] {
        [
            ("PhoneNumbers", number), ("SignName", configuration.signName), ("TemplateCode", configuration.templateCode),
            ("TemplateParam", JSONValue.object([configuration.templateParamName: .string(code)]).json),
        ]
    }

    /// What `onetap gateway sign aliyun-sms` shows.
    /// - Parameter fields: `phone` (`PhoneNumbers`), `code` (the code put in `TemplateParam`; `123456` by default),
    ///   `date` (`x-acs-date`; the clock's now by default), `nonce` (`x-acs-signature-nonce`; a fresh one by default).
    /// - Returns: The exact string to sign and the signature.
    /// - Throws: ``GatewayError`` `misconfigured` naming a field that is unknown, missing or malformed.
    package func signPreview(fields: [String: String]) throws(GatewayError) -> SignPreview {
        let given = try SignPreviewFields(fields, known: ["phone", "code", "date", "nonce"], of: "SendSms", gateway: Self.name)
        let parameters = parameters(number: try given.required("phone"), code: given["code"] ?? "123456")
        return AliyunSignatureV3.preview(try client.sign(action: "SendSms", parameters: parameters, date: try given.date(), nonce: given["nonce"]))
    }
}
