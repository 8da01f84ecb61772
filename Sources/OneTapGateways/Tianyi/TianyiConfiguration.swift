import Foundation
import OneTap
import OneTapSupport

/// How OneTap calls China Telecom's 天翼账号 open API (open.e.189.cn): the user-info call that turns the Tianyi
/// account's `accessToken` into the user's number, and the month-long `accessToken`'s refresh (`refreshToken.do`).
///
/// No official document of these calls is public; the facts come from integrators' public code, each named in
/// `Data/gateways/tianyi.md`, and every detail that could not be confirmed is a setting here with its default said.
public struct TianyiConfiguration: Sendable, CustomStringConvertible {
    /// How a request's parameters travel.
    public enum ParameterMode: String, Sendable {
        /// The open API's "secure" form: the parameters as `name=value&…`, XXTEA-encrypted with the app secret, in
        /// `paras` (upper-case hex); beside it `appId`, `clientType`, `format`, `version` and `sign` = HMAC of
        /// `appId + clientType + format + version + paras`. The issue's and the login box samples' form.
        case encrypted = "XXTEA paras"
        /// The parameters in the clear (`clientId`, `clientType`, `format`, `version`, `timeStamp`, …) and `sign` =
        /// HMAC of their values concatenated in the order of their names: public integrators' `userInfo.do` code.
        case plain = "plain parameters, sorted-values sign"
    }

    /// The HMAC that makes `sign`.
    public enum SignDigest: String, Sendable {
        /// HMAC-SHA1 (the login box and `userInfo.do` samples).
        case hmacSHA1 = "HMAC-SHA1"
        /// HMAC-MD5 (an older "secure open API" sample, with a separate sign secret).
        case hmacMD5 = "HMAC-MD5"
    }

    /// The user-info endpoint integrators' public code calls: `https://open.e.189.cn/api/oauth2/account/userInfo.do`.
    public static let documentedURL = URL(string: "https://open.e.189.cn/api/oauth2/account/userInfo.do")!
    /// The refresh endpoint: `https://open.e.189.cn/api/oauth2/refreshToken.do`.
    public static let documentedRefreshURL = URL(string: "https://open.e.189.cn/api/oauth2/refreshToken.do")!

    /// The app's id on the 天翼账号 open platform (`appId` / `clientId`).
    public let appID: String
    /// The app secret: the XXTEA key of `paras` and the HMAC key of `sign` (unless ``signSecret`` is set).
    public let appSecret: Secret
    /// A separate HMAC key for `sign`, for apps issued one; nil: the app secret.
    public var signSecret: Secret?
    /// How parameters travel: ``ParameterMode/encrypted`` unless set.
    public var mode: ParameterMode = .encrypted
    /// The HMAC of `sign`: HMAC-SHA1 unless set.
    public var signDigest: SignDigest = .hmacSHA1
    /// Whether `sign` is upper-case hexadecimal (the login box sample's `toUpperCase()`); false: lower case.
    public var uppercaseSign = true
    /// Where the user-info call goes: ``documentedURL`` unless set (a proxy, or a fake in tests).
    public var url: URL = documentedURL
    /// Where the refresh goes: ``documentedRefreshURL`` unless set.
    public var refreshURL: URL = documentedRefreshURL
    /// `clientType`: `1` unless set (the `userInfo.do` samples' value; the open API's client-type table is not public).
    public var clientType = "1"
    /// `format`: `json`.
    public var format = "json"
    /// `version`: `v1.5` unless set (the `userInfo.do` samples' value).
    public var version = "v1.5"
    /// `clientIp`, sent only when set (the samples send the server's address; whether it is required is not public).
    public var clientIP: String?
    /// The whole call's limit: 6 s, past the exchange guard's 5 s, so that the guard's time-out comes first.
    public var timeout: Duration = .seconds(6)
    /// The answer's expected content types (a JSON object under another is read all the same): `application/json` unless set (not public).
    public var contentTypes = ["application/json"]

    /// A configuration with the defaults above.
    /// - Parameters:
    ///   - appID: The app's id.
    ///   - appSecret: The app secret.
    public init(appID: String, appSecret: Secret) {
        self.appID = appID
        self.appSecret = appSecret
    }

    /// `tianyi appId 8013818507, XXTEA paras, HMAC-SHA1, open.e.189.cn/api/oauth2/account/userInfo.do`: the URL's host
    /// and path only, never a secret.
    public var description: String { summary("tianyi appId \(appID), \(mode.rawValue), \(signDigest.rawValue)\(signSecret == nil ? "" : " with a sign secret")") }
}
