import Foundation
import OneTap

/// How OneTap calls Netease Yidun's number authentication (网易易盾 号码认证): `oneclick/check` (one-tap tokens →
/// number) and `check` (is this number the SIM's own?), as Yidun's public server demo gives them
/// (`Data/gateways/yidun.md` names it and each fact); every detail it leaves open is a setting here.
public struct YidunConfiguration: Sendable, CustomStringConvertible {
    /// The documented exchange endpoint: `https://ye.dun.163yun.com/v1/oneclick/check`.
    public static let documentedURL = URL(string: "https://ye.dun.163yun.com/v1/oneclick/check")!
    /// The documented number-verification endpoint: `https://ye.dun.163yun.com/v1/check`.
    public static let documentedVerifyURL = URL(string: "https://ye.dun.163yun.com/v1/check")!

    /// The product's `secretId` (产品密钥ID).
    public let secretID: String
    /// The product's `secretKey` (产品私有密钥): appended to the signed string, never sent.
    public let secretKey: Secret
    /// The `businessId` Yidun assigned (业务ID).
    public let businessID: String
    /// Where exchanges go: ``documentedURL`` unless set.
    public var url: URL = documentedURL
    /// Where number verifications go: ``documentedVerifyURL`` unless set.
    public var verifyURL: URL = documentedVerifyURL
    /// `version`: `v1`, as the demo sends it.
    public var version = "v1"
    /// The flows whose SDK tokens Yidun takes: all three carriers' (its SDK wraps each carrier's).
    public var flows: Set<LoginFlow> = [.mobile, .unicom, .tianyi]
    /// The whole call's limit: 6 s, past the exchange guard's 5 s, so the guard's time-out comes first.
    public var timeout: Duration = .seconds(6)
    /// The answer's expected content types (a JSON object under another is read all the same): `application/json` unless set (the demo reads JSON; no document names
    /// the type).
    public var contentTypes = ["application/json"]

    /// A configuration with the documented defaults.
    /// - Parameters:
    ///   - secretID: The product's `secretId`.
    ///   - secretKey: Its `secretKey`.
    ///   - businessID: The `businessId`.
    public init(secretID: String, secretKey: Secret, businessID: String) {
        self.secretID = secretID
        self.secretKey = secretKey
        self.businessID = businessID
    }

    /// `yidun secretId 3f2a…, businessId 8c1d…, ye.dun.163yun.com/v1/oneclick/check`: never a secret.
    public var description: String { summary("yidun secretId \(secretID), businessId \(businessID)") }
}
