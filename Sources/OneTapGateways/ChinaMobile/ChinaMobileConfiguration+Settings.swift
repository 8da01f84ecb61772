import Foundation
import OneTap

extension ChinaMobileConfiguration {
    /// What `appId` must be, for errors: the app's id from China Mobile's developer community.
    static let appIDSource = "the app's id from China Mobile's developer community"

    /// Every field of the `cmcc` object: the token exchange's and number verification's, which share it.
    package static let settingsFields: Set<String> = [
        "appId", "appSecret", "privateKey", "msisdnPrivateKey", "rsaDigest", "signatureEncoding", "signType", "strictcheck", "appKey",
        "tokenValidateUrl",
    ]

    /// The exchange's configuration from the `cmcc` object of the gateways' configuration file:
    ///
    /// ```json
    /// {"cmcc": {"appId": "300011111111", "appSecret": {"env": "CMCC_APP_SECRET"}, "appKey": {"env": "CMCC_APP_KEY"}}}
    /// ```
    ///
    /// `appId`; the MD5 sign's `appSecret` (China Mobile's APPSecret, or the appkey for an app whose server sign uses
    /// it), or the RSA mode's `privateKey` (PEM; `msisdnPrivateKey` when `msisdn` is encrypted to a second key pair,
    /// `rsaDigest` `SHA256withRSA` or `MD5withRSA`, `signatureEncoding` `HEX`, `hex` or `base64`); optional `signType`,
    /// `strictcheck` and `url` (the `loginTokenValidate` endpoint). `appKey` and `tokenValidateUrl` are number
    /// verification's (``ChinaMobileNumberVerificationConfiguration/init(settings:)``).
    /// - Parameter settings: The `cmcc` object.
    /// - Throws: ``GatewayError`` `misconfigured` naming the field and the fix: a missing `appId`, neither or both of
    ///   `appSecret` and `privateKey`, an unknown `rsaDigest` or `signatureEncoding`, a field `cmcc` does not have.
    public init(settings: GatewaySettings) throws(GatewayError) {
        try settings.refuseUnknownFields(Self.settingsFields)
        let appID = try settings.text("appId")
        let secret = try settings.optionalSecret("appSecret"), key = try settings.optionalSecret("privateKey")
        let signing: Signing
        switch (secret, key) {
        case (let secret?, nil):
            for field in ["msisdnPrivateKey", "rsaDigest", "signatureEncoding"] where settings.fields[field] != nil {
                throw settings.misconfigured(field, "is for the RSA mode (privateKey), not the MD5 sign (appSecret): remove it")
            }
            signing = .md5(secret: secret)
        case (nil, let key?):
            let digest = try settings.optionalText("rsaDigest").map { (text) throws(GatewayError) in
                guard let digest = RSADigest(rawValue: text) else { throw settings.misconfigured("rsaDigest", "must be SHA256withRSA or MD5withRSA") }
                return digest
            }
            let encoding = try settings.optionalText("signatureEncoding").map { (text) throws(GatewayError) in
                switch text {
                case "HEX": return SignatureEncoding.hexUppercase
                case "hex": return .hexLowercase
                case "base64": return .base64
                default: throw settings.misconfigured("signatureEncoding", "must be HEX (upper-case hex), hex (lower-case) or base64")
                }
            }
            signing = .rsa(signingKey: key, msisdnKey: try settings.optionalSecret("msisdnPrivateKey"), digest: digest ?? .sha256, encoding: encoding ?? .hexUppercase)
        case (nil, nil):
            throw settings.misconfigured("appSecret", "is missing: add \"appSecret\": {\"env\": \"NAME\"} (the MD5 sign) or \"privateKey\": {\"file\": \"PATH\"} (the RSA mode) to \"cmcc\"")
        case (_?, _?):
            throw settings.misconfigured("privateKey", "and appSecret are both set: keep appSecret for the MD5 sign or privateKey for the RSA mode")
        }
        self.init(appID: appID, signing: signing)
        try settings.applyEndpoint(to: &self)
        if let signType = try settings.optionalText("signType") { self.signType = signType }
        if let strict = try settings.optionalText("strictcheck") {
            guard strict == "0" || strict == "1" else { throw settings.misconfigured("strictcheck", "must be \"0\" or \"1\"") }
            strictCheck = strict
        }
    }
}
