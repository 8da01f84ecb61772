import Foundation
import OneTap

/// How OneTap calls JVerification (极光认证): `loginTokenVerify` (one-tap token → number, RSA-encrypted to the
/// app's public key) and `verify` (is this number the SIM's own?), as JiGuang's public REST documents give them
/// (`Data/gateways/jverification.md` names each document and fact); every detail they leave open is a setting here.
public struct JVerificationConfiguration: Sendable, CustomStringConvertible {
    /// The documented exchange endpoint: `https://api.verification.jpush.cn/v1/web/loginTokenVerify`.
    public static let documentedURL = URL(string: "https://api.verification.jpush.cn/v1/web/loginTokenVerify")!
    /// The documented number-verification endpoint: `https://api.verification.jpush.cn/v1/web/verify`.
    public static let documentedVerifyURL = URL(string: "https://api.verification.jpush.cn/v1/web/verify")!

    /// The app's `appKey` in JiGuang's console (the HTTP Basic user).
    public let appKey: String
    /// The app's `masterSecret` (the HTTP Basic password).
    public let masterSecret: Secret
    /// The PEM private key (PKCS#8 or PKCS#1) whose public half is configured at JiGuang: `phone` comes back
    /// encrypted to it.
    public let privateKey: Secret
    /// Where exchanges go: ``documentedURL`` unless set.
    public var url: URL = documentedURL
    /// Where number verifications go: ``documentedVerifyURL`` unless set.
    public var verifyURL: URL = documentedVerifyURL
    /// The flows whose SDK tokens JVerification takes: all three carriers' (its SDK wraps each carrier's).
    public var flows: Set<LoginFlow> = [.mobile, .unicom, .tianyi]
    /// The whole call's limit: 6 s, past the exchange guard's 5 s, so the guard's time-out comes first.
    public var timeout: Duration = .seconds(6)
    /// The answer's expected content types (a JSON object under another is read all the same): `application/json` unless set (the documents show JSON answers and
    /// name no content type).
    public var contentTypes = ["application/json"]

    /// A configuration with the documented defaults.
    /// - Parameters:
    ///   - appKey: The app's `appKey`.
    ///   - masterSecret: Its `masterSecret`.
    ///   - privateKey: The PEM private key that decrypts `phone`.
    public init(appKey: String, masterSecret: Secret, privateKey: Secret) {
        self.appKey = appKey
        self.masterSecret = masterSecret
        self.privateKey = privateKey
    }

    /// `jverification appKey 7d431e42…, api.verification.jpush.cn/v1/web/loginTokenVerify`: never a secret or key.
    public var description: String { summary("jverification appKey \(appKey)") }
}
