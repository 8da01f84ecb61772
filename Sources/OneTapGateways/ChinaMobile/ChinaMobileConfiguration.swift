import Foundation
import OneTap

/// How OneTap calls China Mobile's 统一认证 `loginTokenValidate` (one-tap token → number), as China Mobile's public
/// document gives it (`Data/gateways/cmcc-login-token-validate.md` names the document and each fact); every detail
/// the document leaves open is a setting here, with the default said.
public struct ChinaMobileConfiguration: Sendable, CustomStringConvertible {
    /// How requests are signed, and whether `msisdn` comes back encrypted.
    public enum Signing: Sendable {
        /// The MD5 sign: `MD5(appid + version + msgid + systemtime + strictcheck + token + secret)` as 32 upper-case
        /// hexadecimal digits, `msisdn` in the clear. `secret` is the APPSecret the developer community issued the
        /// app (its appkey for apps whose server sign uses it: China Mobile's 103101 note tells the two apart).
        case md5(secret: Secret)
        /// The RSA mode (`encryptionalgorithm` = `RSA`): `sign` is the app's RSA private key's PKCS#1 v1.5
        /// signature of `appid + token` (its public half configured in China Mobile's developer community), and
        /// `msisdn` comes back RSA-encrypted to the app's public key.
        /// - Parameters:
        ///   - signingKey: The PEM private key that signs (PKCS#8 or PKCS#1).
        ///   - msisdnKey: The PEM private key that decrypts `msisdn` (PKCS#1 v1.5); nil: the signing key, as China
        ///     Mobile's document has one key pair. Give one where China Mobile takes a second: with an OpenSSL older
        ///     than 3.2, a failed decryption's timing could tell one who answers in China Mobile's place about the key.
        ///   - digest: The signature's digest: SHA-256 (`SHA256withRSA`) unless set; the document does not name it.
        ///   - encoding: How the signature is written in `sign`: upper-case hexadecimal unless set; the document does
        ///     not say.
        case rsa(signingKey: Secret, msisdnKey: Secret? = nil, digest: RSADigest = .sha256, encoding: SignatureEncoding = .hexUppercase)
    }

    /// The digest an RSA signature is made over.
    public enum RSADigest: String, Sendable {
        /// `SHA256withRSA`.
        case sha256 = "SHA256withRSA"
        /// `MD5withRSA`.
        case md5 = "MD5withRSA"
    }

    /// How a signature's bytes are written.
    public enum SignatureEncoding: String, Sendable {
        /// `213EF8…`.
        case hexUppercase = "upper-case hex"
        /// `213ef8…`.
        case hexLowercase = "lower-case hex"
        /// Standard Base64 with padding.
        case base64 = "Base64"
    }

    /// The documented endpoint: `https://www.cmpassport.com/unisdk/rsapi/loginTokenValidate`.
    public static let documentedURL = URL(string: "https://www.cmpassport.com/unisdk/rsapi/loginTokenValidate")!

    /// The app's id in China Mobile's developer community (`appid`).
    public let appID: String
    /// How requests are signed.
    public let signing: Signing
    /// Where requests go: ``documentedURL`` unless set (a proxy, or a fake in tests).
    public var url: URL = documentedURL
    /// The whole call's limit: 6 s, past the exchange guard's 5 s, so that the guard's time-out (recorded as
    /// "unknown", since the token may be spent) comes first.
    public var timeout: Duration = .seconds(6)
    /// `version`: `2.0`, as the document says.
    public var version = "2.0"
    /// `strictcheck`: `0` unless set. The document: "暂时填写0; 填写1时，将对服务器IP白名单进行强校验".
    public var strictCheck = "0"
    /// `signType`, sent only when set: China Mobile's 103101 note names the field (its values tell an APPSecret
    /// sign from an appkey one) but no public document gives its values.
    public var signType: String?
    /// The offset from UTC of `systemtime` (17 digits, `yyyyMMddHHmmssSSS`): +8 h (China Standard Time) unless set;
    /// the document gives the format, not the zone.
    public var systemTimeUTCOffset: Duration = .seconds(8 * 3600)
    /// The answer's expected content types (a JSON object under another is read all the same): `application/json` unless set (the document names the request's, not
    /// the answer's).
    public var contentTypes = ["application/json"]

    /// A configuration with the documented defaults.
    /// - Parameters:
    ///   - appID: The app's id.
    ///   - signing: How requests are signed.
    public init(appID: String, signing: Signing) {
        self.appID = appID
        self.signing = signing
    }

    /// `cmcc appid 300011111111, MD5 sign, www.cmpassport.com/unisdk/rsapi/loginTokenValidate`: the URL's host and path
    /// only (never its user, password or query), never a secret or a key.
    public var description: String {
        let mode: String
        switch signing {
        case .md5: mode = "MD5 sign"
        case .rsa(_, let msisdnKey, let digest, let encoding): mode = "RSA sign (\(digest.rawValue), \(encoding.rawValue)\(msisdnKey == nil ? "" : ", a second key for msisdn"))"
        }
        return summary("cmcc appid \(appID), \(mode)")
    }
}
