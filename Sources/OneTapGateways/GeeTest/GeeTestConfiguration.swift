import Foundation
import OneTap

/// How OneTap calls GeeTest CAPTCHA v4's secondary validation (`/validate`, 二次校验) to check what the client's
/// captcha gave, as GeeTest's public documents give it (`Data/gateways/geetest-validate.md` names them and each fact).
public struct GeeTestConfiguration: Sendable, CustomStringConvertible {
    /// The endpoint: `https://gcaptcha4.geetest.com/validate` (the document gives `http://gcaptcha4.geetest.com/validate`
    /// and says the interface supports http and https; OneTap uses https).
    public static let documentedURL = URL(string: "https://gcaptcha4.geetest.com/validate")!

    /// `captcha_id`: the captcha's id (32 hexadecimal characters in GeeTest's examples), sent in the query.
    public let captchaID: String
    /// `captcha_key`: the captcha's private key; it is never sent, only the HMAC-SHA256 `sign_token` made with it.
    public let captchaKey: Secret
    /// Where requests go: ``documentedURL`` unless set (a proxy, or a fake in tests); `captcha_id` is added to its
    /// query.
    public var url: URL = documentedURL
    /// The whole call's limit: 3 s unless set (a send waits on it).
    public var timeout: Duration = .seconds(3)
    /// The answer's expected content types (a JSON object under another is read all the same): `application/json` unless set (the document says the answer is JSON).
    public var contentTypes = ["application/json"]

    /// A configuration with the documented defaults.
    /// - Parameters:
    ///   - captchaID: `captcha_id`.
    ///   - captchaKey: `captcha_key`.
    public init(captchaID: String, captchaKey: Secret) {
        self.captchaID = captchaID
        self.captchaKey = captchaKey
    }

    /// `geetest captcha_id 647f5ed2…, gcaptcha4.geetest.com/validate`: never the key, the URL's user, password or
    /// query.
    public var description: String { summary("geetest captcha_id \(captchaID)") }
}
