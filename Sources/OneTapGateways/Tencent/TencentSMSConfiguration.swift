import Foundation
import OneTap

/// How OneTap calls Tencent Cloud SMS `SendSms` (API 3.0, version `2021-01-11`, signed with TC3-HMAC-SHA256), as
/// Tencent's public documents give it (`Data/gateways/tencent-sms.md` names them and each fact); every detail they
/// leave to the account is a setting here, with the default said.
public struct TencentSMSConfiguration: Sendable, CustomStringConvertible {
    /// What one entry of `TemplateParamSet` holds, in the template's order (`{1}`, `{2}`, …).
    public enum TemplateParameter: String, Sendable, CaseIterable {
        /// The code (a verification template takes 0–6 digits).
        case code
        /// The whole minutes until the code expires, rounded up (a template's "valid for {2} minutes").
        case minutes
    }

    /// The documented endpoint: `https://sms.tencentcloudapi.com` (the document's request domain; the API's path
    /// is `/`).
    public static let documentedURL = URL(string: "https://sms.tencentcloudapi.com/")!

    /// `SecretId` of the Tencent Cloud API key that signs.
    public let secretID: String
    /// `SecretKey` of that key.
    public let secretKey: Secret
    /// `SmsSdkAppId`: the SMS application's SdkAppId (`1400006666`).
    public let sdkAppID: String
    /// `SignName`: the approved signature's text (`腾讯云`); required for mainland messages.
    public let signName: String
    /// `TemplateId`: the approved template's id (`1110`).
    public let templateID: String
    /// `X-TC-Region`: `ap-guangzhou` unless set (the API requires a region; the document's examples use this one,
    /// and the SMS region list also names `ap-beijing` and `ap-nanjing`).
    public var region = "ap-guangzhou"
    /// `TemplateParamSet`: the code alone unless set.
    public var templateParameters: [TemplateParameter] = [.code]
    /// Where requests go: ``documentedURL`` unless set (a proxy, or a fake in tests).
    public var url: URL = documentedURL
    /// The whole call's limit: 6 s (one message; the SMS service withdraws the code when the call fails).
    public var timeout: Duration = .seconds(6)
    /// The answer's expected content types (a JSON object under another is read all the same): `application/json` unless set (the document shows JSON answers without
    /// naming their content type).
    public var contentTypes = ["application/json"]

    /// A configuration with the documented defaults.
    /// - Parameters:
    ///   - secretID: `SecretId`.
    ///   - secretKey: `SecretKey`.
    ///   - sdkAppID: `SmsSdkAppId`.
    ///   - signName: `SignName`.
    ///   - templateID: `TemplateId`.
    public init(secretID: String, secretKey: Secret, sdkAppID: String, signName: String, templateID: String) {
        self.secretID = secretID
        self.secretKey = secretKey
        self.sdkAppID = sdkAppID
        self.signName = signName
        self.templateID = templateID
    }

    /// `tencent-sms SdkAppId 1400006666, template 1110, ap-guangzhou, sms.tencentcloudapi.com/`: never the key, the
    /// URL's user, password or query.
    public var description: String { summary("tencent-sms SdkAppId \(sdkAppID), template \(templateID), \(region)") }
}
