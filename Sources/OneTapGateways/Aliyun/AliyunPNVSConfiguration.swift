import Foundation
import OneTap

/// How OneTap calls Aliyun's 号码认证服务 (Phone Number Verification Service, PNVS) `GetMobile` (one-tap token →
/// number) and `VerifyMobile` (is this number the SIM's?), for China Mobile, China Unicom and China Telecom SIMs
/// alike, as Aliyun's public documents give them (`Data/gateways/aliyun-pnvs.md` names each document and fact). Every
/// detail the documents leave open is a setting here, with its default said.
public struct AliyunPNVSConfiguration: Sendable, CustomStringConvertible {
    /// The documented endpoint: `https://dypnsapi.aliyuncs.com`.
    public static let documentedURL = URL(string: "https://dypnsapi.aliyuncs.com")!

    /// The RAM AccessKey's id (`LTAI…`), Aliyun's `AccessKeyId`.
    public let accessKeyID: String
    /// The AccessKey's secret, Aliyun's `AccessKeySecret`: the signature V3 HMAC key.
    public let accessKeySecret: Secret
    /// Where requests go: ``documentedURL`` unless set (a proxy, or a fake in tests); the endpoint alone, no path.
    public var url: URL = documentedURL
    /// `x-acs-version`: `2017-05-25`, the documented API version.
    public var version = "2017-05-25"
    /// The whole call's limit: 6 s, past the exchange guard's 5 s, so that the guard's time-out (recorded as
    /// "unknown", since the token may be spent) comes first.
    public var timeout: Duration = .seconds(6)
    /// The answer's expected content types (a JSON object under another is read all the same): `application/json` (parameters such as `;charset=utf-8` accepted).
    public var contentTypes = ["application/json"]

    /// A configuration with the documented defaults.
    /// - Parameters:
    ///   - accessKeyID: The AccessKey's id.
    ///   - accessKeySecret: The AccessKey's secret.
    public init(accessKeyID: String, accessKeySecret: Secret) {
        self.accessKeyID = accessKeyID
        self.accessKeySecret = accessKeySecret
    }

    /// `aliyun-pnvs accessKeyId LTAI…, dypnsapi.aliyuncs.com, version 2017-05-25`: the endpoint's host and port only,
    /// never the secret.
    public var description: String {
        "aliyun-pnvs accessKeyId \(accessKeyID), \(url.hostAndPort), version \(version)"
    }
}
