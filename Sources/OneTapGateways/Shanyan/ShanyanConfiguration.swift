import Foundation
import OneTap

/// How OneTap calls Shanyan (闪验, 创蓝): `mobile-query` (one-tap token → number) and `mobile-validate` (is this
/// number the SIM's own?), V2 server API, as 创蓝's public document gives them (`Data/gateways/shanyan.md` names it
/// and each fact); every detail it leaves open is a setting here.
public struct ShanyanConfiguration: Sendable, CustomStringConvertible {
    /// The documented exchange endpoint: `https://api.253.com/open/flashsdk/mobile-query`.
    public static let documentedURL = URL(string: "https://api.253.com/open/flashsdk/mobile-query")!
    /// The documented number-verification endpoint: `https://api.253.com/open/flashsdk/mobile-validate`.
    public static let documentedVerifyURL = URL(string: "https://api.253.com/open/flashsdk/mobile-validate")!

    /// The app's `appId` from Shanyan's console.
    public let appID: String
    /// The app's `appKey`: the HMAC-SHA256 key of every `sign`, and (MD5 of it) the AES key and IV of `mobileName`.
    public let appKey: Secret
    /// The PEM private key (PKCS#8 or PKCS#1) whose public half was given to Shanyan's console: set, `encryptType`
    /// is `1` and `mobileName` is RSA-decrypted with it; nil (the default), `encryptType` is `0` (AES-CBC).
    public var privateKey: Secret?
    /// Where exchanges go: ``documentedURL`` unless set.
    public var url: URL = documentedURL
    /// Where number verifications go: ``documentedVerifyURL`` unless set.
    public var verifyURL: URL = documentedVerifyURL
    /// The flows whose SDK tokens Shanyan takes: all three carriers' (the document gives each one's token lifetime).
    public var flows: Set<LoginFlow> = [.mobile, .unicom, .tianyi]
    /// Whether the AES key and IV are cut from MD5(appKey) written in upper-case hexadecimal: false (lower case,
    /// as the document's PHP demo writes it) unless set; the document says "md5(appKey)" without the case.
    public var aesKeyFromUppercaseDigest = false
    /// The whole call's limit: 6 s, past the exchange guard's 5 s, so the guard's time-out comes first.
    public var timeout: Duration = .seconds(6)
    /// The answer's expected content types (a JSON object under another is read all the same): `application/json`, as the document says.
    public var contentTypes = ["application/json"]

    /// A configuration with the documented defaults.
    /// - Parameters:
    ///   - appID: The app's `appId`.
    ///   - appKey: The app's `appKey`.
    public init(appID: String, appKey: Secret) {
        self.appID = appID
        self.appKey = appKey
    }

    /// `shanyan appId ZQZSp7C0, AES, api.253.com/open/flashsdk/mobile-query`: never a secret or key.
    public var description: String { summary("shanyan appId \(appID), \(privateKey == nil ? "AES" : "RSA")") }
}
