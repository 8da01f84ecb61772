import Foundation
import OneTap
import OneTapSupport

/// One `loginTokenValidate` request's fields, signed: built without I/O, so `onetap gateway sign` and the tests
/// can show exactly what is signed.
package struct ChinaMobileRequest: Sendable {
    /// The fields sent, every value a string, in the document's order.
    package let fields: [(name: String, value: String)]
    /// The string signed with the secret shown as `<appSecret>` (the MD5 sign) or the string the RSA key signs.
    package let signedText: String

    /// Builds a request.
    /// - Parameters:
    ///   - token: The one-tap token.
    ///   - messageID: `msgid`: 1–36 characters, unique per request.
    ///   - systemTime: `systemtime`: 17 digits.
    ///   - configuration: The gateway's settings.
    ///   - signer: How to sign (the MD5 secret or the RSA key, read once).
    /// - Throws: ``GatewayError/Kind/misconfigured(_:)`` when the signature cannot be made.
    package init(token: Secret, messageID: String, systemTime: String, configuration: ChinaMobileConfiguration, signer: ChinaMobileSigner) throws(GatewayError) {
        let appID = configuration.appID, version = configuration.version, strict = configuration.strictCheck
        var fields: [(name: String, value: String)] = [
            ("version", version), ("msgid", messageID), ("systemtime", systemTime), ("strictcheck", strict), ("appid", appID), ("token", token.reveal()),
        ]
        let sign: String
        do {
            switch signer {
            case .md5(let secret):
                let prefix = appID + version + messageID + systemTime + strict + token.reveal()
                signedText = "\(prefix)<appSecret>"
                sign = Hex.encode(try Digest.md5.hash(prefix + secret.reveal()), uppercase: true)
            case .rsa(let key, _, let digest, let encoding):
                signedText = appID + token.reveal()
                let signature = try key.sign(Array(signedText.utf8), digest: digest == .sha256 ? .sha256 : .md5)
                switch encoding {
                case .hexUppercase: sign = Hex.encode(signature, uppercase: true)
                case .hexLowercase: sign = Hex.encode(signature)
                case .base64: sign = Data(signature).base64EncodedString()
                }
            }
        } catch {
            throw GatewayError(gateway: ChinaMobileTokenExchange.name, .misconfigured("the sign could not be made: \(error)"))
        }
        fields.append(("sign", sign))
        if case .rsa = signer { fields.append(("encryptionalgorithm", "RSA")) }
        if let signType = configuration.signType { fields.append(("signType", signType)) }
        self.fields = fields
    }

    /// China Mobile's JSON objects (`loginTokenValidate`'s body, `tokenValidate`'s `header` and `body`): every value a
    /// string.
    /// - Parameter fields: The fields.
    /// - Returns: The object.
    package static func object(_ fields: [(name: String, value: String)]) -> JSONValue {
        .object(Dictionary(uniqueKeysWithValues: fields.map { ($0.name, JSONValue.string($0.value)) }))
    }

    /// The JSON body: one object, every value a string.
    package var body: [UInt8] {
        Array(ChinaMobileRequest.object(fields).json.utf8)
    }
}

/// A configuration's signing, its secret or keys read once.
package enum ChinaMobileSigner: Sendable {
    /// The MD5 sign with this secret.
    case md5(Secret)
    /// The RSA mode: the signing key, the key that decrypts `msisdn`, the digest and the encoding.
    case rsa(RSAPrivateKey, msisdnKey: RSAPrivateKey, ChinaMobileConfiguration.RSADigest, ChinaMobileConfiguration.SignatureEncoding)

    /// Reads a configuration's secret or keys.
    /// - Parameter signing: The configuration's signing.
    /// - Throws: ``GatewayError/Kind/misconfigured(_:)`` naming the field, the key's form and the fix.
    package init(_ signing: ChinaMobileConfiguration.Signing) throws(GatewayError) {
        let gateway = ChinaMobileTokenExchange.name
        switch signing {
        case .md5(let secret):
            try CredentialCheck.trimmed(
                secret, "appSecret", setTo: "the APPSecret of the app in China Mobile's developer community", padded: "a 103101 sign error", gateway: gateway)
            self = .md5(secret)
        case .rsa(let signingKey, let msisdnKey, let digest, let encoding):
            let signer = try CredentialCheck.privateKey(signingKey, "signingKey", gateway: gateway)
            let decrypter = try msisdnKey.map { (key) throws(GatewayError) in try CredentialCheck.privateKey(key, "msisdnKey", gateway: gateway) } ?? signer
            self = .rsa(signer, msisdnKey: decrypter, digest, encoding)
        }
    }
}
