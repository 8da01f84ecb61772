import Foundation
import OneTap

/// How OneTap calls China Mobile's 本机号码校验 `tokenValidate` (is this number the SIM's own?), as China Mobile's public
/// document gives it (`Data/gateways/cmcc-token-validate.md` names the document and each fact); every detail the
/// document leaves open is a setting here, with the default said.
public struct ChinaMobileNumberVerificationConfiguration: Sendable, CustomStringConvertible {
    /// The documented endpoint: `https://www.cmpassport.com/openapi/rs/tokenValidate`.
    public static let documentedURL = URL(string: "https://www.cmpassport.com/openapi/rs/tokenValidate")!

    /// The app's id in China Mobile's developer community (`appId`).
    public let appID: String
    /// The app's appkey: the HMAC-SHA256 key of `sign`, and part of what `phoneNum` hashes.
    public let appKey: Secret
    /// Where requests go: ``documentedURL`` unless set (a proxy, or a fake in tests).
    public var url: URL = documentedURL
    /// The whole call's limit: 6 s, past the verification service's 5 s, so that the service's time-out (recorded
    /// as "unknown", since the call may have been billed) comes first.
    public var timeout: Duration = .seconds(6)
    /// `header.version`: `1.0`, the document's initial version and its example's.
    public var version = "1.0"
    /// `body.requesterType`: `0` (APP) unless set; `1` is WAP.
    public var requesterType = "0"
    /// `body.openType` (the carrier: `1` China Mobile), required when `requesterType` is `0`: `1` unless set; nil
    /// leaves it out.
    public var openType: String? = "1"
    /// `body.keyType`, sent only when set: the document's default (absent) is `0`, SHA-256 `phoneNum` and HMAC-SHA256
    /// `sign`, the only form OneTap makes.
    public var keyType: String?
    /// The offset from UTC of `header.timestamp` (17 digits, `yyyyMMddHHmmssSSS`): +8 h (China Standard Time) unless
    /// set; the document gives the format, its sibling APIs the zone (北京时间，东八区).
    public var timestampUTCOffset: Duration = .seconds(8 * 3600)
    /// The answer's expected content types (a JSON object under another is read all the same): `application/json` unless set (the document names the request's only).
    public var contentTypes = ["application/json"]

    /// A configuration with the documented defaults.
    /// - Parameters:
    ///   - appID: The app's id.
    ///   - appKey: The app's appkey.
    public init(appID: String, appKey: Secret) {
        self.appID = appID
        self.appKey = appKey
    }

    /// `cmcc appid 300011111111, HMAC-SHA256 sign, www.cmpassport.com/openapi/rs/tokenValidate`: the URL's host and path
    /// only, never the appkey.
    public var description: String { summary("cmcc appid \(appID), HMAC-SHA256 sign") }
}
