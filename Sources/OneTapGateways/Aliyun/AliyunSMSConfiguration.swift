import Foundation
import OneTap

/// How OneTap sends its codes through Aliyun's 短信服务 (SMS) `SendSms`, as Aliyun's public documents give it
/// (`Data/gateways/aliyun-sms.md` names each document and fact), signed with Aliyun's signature V3.
public struct AliyunSMSConfiguration: Sendable, CustomStringConvertible {
    /// The documented endpoint: `https://dysmsapi.aliyuncs.com`.
    public static let documentedURL = URL(string: "https://dysmsapi.aliyuncs.com")!

    /// The RAM AccessKey's id (`LTAI…`), Aliyun's `AccessKeyId`.
    public let accessKeyID: String
    /// The AccessKey's secret, Aliyun's `AccessKeySecret`: the signature V3 HMAC key.
    public let accessKeySecret: Secret
    /// `SignName`: the approved signature (短信签名) the message carries.
    public let signName: String
    /// `TemplateCode`: the approved template's code (`SMS_15305****`).
    public let templateCode: String
    /// The template's variable the code goes in, within `TemplateParam`'s JSON: `code` unless set
    /// (`{"code":"123456"}` for a template reading `…${code}…`).
    public var templateParamName = "code"
    /// Where requests go: ``documentedURL`` unless set; the endpoint alone, no path.
    public var url: URL = documentedURL
    /// `x-acs-version`: `2017-05-25`, the documented API version.
    public var version = "2017-05-25"
    /// The whole call's limit: 5 s (Aliyun advises at least 1 s for SMS sent to the Chinese mainland).
    public var timeout: Duration = .seconds(5)
    /// The answer's expected content types (a JSON object under another is read all the same): `application/json` (parameters such as `;charset=utf-8` accepted).
    public var contentTypes = ["application/json"]

    /// A configuration with the documented defaults.
    /// - Parameters:
    ///   - accessKeyID: The AccessKey's id.
    ///   - accessKeySecret: The AccessKey's secret.
    ///   - signName: The approved signature's name.
    ///   - templateCode: The approved template's code.
    public init(accessKeyID: String, accessKeySecret: Secret, signName: String, templateCode: String) {
        self.accessKeyID = accessKeyID
        self.accessKeySecret = accessKeySecret
        self.signName = signName
        self.templateCode = templateCode
    }

    /// `aliyun-sms accessKeyId LTAI…, template SMS_1 (code), dysmsapi.aliyuncs.com`: never the secret.
    public var description: String { summary("aliyun-sms accessKeyId \(accessKeyID), template \(templateCode) (\(templateParamName))") }
}
