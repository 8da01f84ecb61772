import Foundation
import OneTap

/// How OneTap calls Tencent Captcha's `DescribeCaptchaResult` (API 3.0, version `2019-07-22`, signed with
/// TC3-HMAC-SHA256) to check a ticket the client's captcha gave, as Tencent's public documents give it
/// (`Data/gateways/tencent-captcha.md` names them and each fact).
public struct TencentCaptchaConfiguration: Sendable, CustomStringConvertible {
    /// The documented endpoint: `https://captcha.tencentcloudapi.com` (the document's request domain; path `/`).
    public static let documentedURL = URL(string: "https://captcha.tencentcloudapi.com/")!

    /// `SecretId` of the Tencent Cloud API key that signs.
    public let secretID: String
    /// `SecretKey` of that key.
    public let secretKey: Secret
    /// `CaptchaAppId`: the captcha application's id (digits; sent as a JSON integer, as the document types it).
    public let captchaAppID: String
    /// `AppSecretKey`: the captcha application's key for checking tickets (sent in the body).
    public let appSecretKey: Secret
    /// Where requests go: ``documentedURL`` unless set (a proxy, or a fake in tests).
    public var url: URL = documentedURL
    /// The whole call's limit: 3 s unless set (a send waits on it).
    public var timeout: Duration = .seconds(3)
    /// The answer's expected content types (a JSON object under another is read all the same): `application/json` unless set.
    public var contentTypes = ["application/json"]

    /// A configuration with the documented defaults.
    /// - Parameters:
    ///   - secretID: `SecretId`.
    ///   - secretKey: `SecretKey`.
    ///   - captchaAppID: `CaptchaAppId`.
    ///   - appSecretKey: `AppSecretKey`.
    public init(secretID: String, secretKey: Secret, captchaAppID: String, appSecretKey: Secret) {
        self.secretID = secretID
        self.secretKey = secretKey
        self.captchaAppID = captchaAppID
        self.appSecretKey = appSecretKey
    }

    /// `tencent-captcha CaptchaAppId 199999164, captcha.tencentcloudapi.com/`: never a key, the URL's user, password
    /// or query.
    public var description: String { summary("tencent-captcha CaptchaAppId \(captchaAppID)") }
}
