import OneTap

/// Shanyan's `sign` and `mobileName` cipher: HMAC-SHA256, keyed with the appKey, over every parameter's name and
/// value with names in ascending order and no separators, in lower-case hexadecimal; and AES-128-CBC with the key
/// and IV cut from MD5(appKey)'s 32 hexadecimal digits (the first 16 the key, the last 16 the IV).
package struct ShanyanSigner: Sendable {
    private let appKey: Secret
    /// The AES key and IV (16 hexadecimal digits each, used as their ASCII bytes), held as secrets: whoever has
    /// them decrypts every `mobileName`, and a `dump()` shows a secret redacted, where it shows a byte array whole.
    private let aesKey: Secret
    private let aesIV: Secret

    /// Reads the configuration's appKey once.
    /// - Parameter configuration: The settings.
    /// - Throws: ``GatewayError/Kind/misconfigured(_:)`` for an empty appKey.
    package init(_ configuration: ShanyanConfiguration) throws(GatewayError) {
        guard !configuration.appKey.isEmpty else {
            throw GatewayError(gateway: ShanyanGateway.name, .misconfigured("appKey is empty: set it to the app's appKey from Shanyan's console"))
        }
        appKey = configuration.appKey
        do {
            let digits = Hex.encode(try Digest.md5.hash(configuration.appKey.reveal()), uppercase: configuration.aesKeyFromUppercaseDigest)
            aesKey = Secret(String(digits.prefix(16)))
            aesIV = Secret(String(digits.suffix(16)))
        } catch {
            throw GatewayError(gateway: ShanyanGateway.name, .misconfigured("MD5 of appKey cannot be made: \(error)"))
        }
    }

    /// The parameters with their `sign` appended.
    /// - Parameter fields: The parameters sent, `sign` excepted.
    /// - Returns: The parameters and `sign`, and the string signed.
    /// - Throws: ``GatewayError/Kind/misconfigured(_:)`` when libcrypto fails.
    package func signed(_ fields: [(name: String, value: String)]) throws(GatewayError) -> (fields: [(name: String, value: String)], signed: String, sign: String) {
        let text = SortedParameters.concatenated(fields)
        let sign: String
        do {
            sign = Hex.encode(try Digest.sha256.hmac(key: Array(appKey.reveal().utf8), message: Array(text.utf8)))
        } catch {
            throw GatewayError(gateway: ShanyanGateway.name, .misconfigured("the sign could not be made: \(error)"))
        }
        return (fields + [("sign", sign)], text, sign)
    }

    /// `mobileName` in the AES mode: hexadecimal AES-128-CBC ciphertext, PKCS#7 padded, of the number.
    /// - Parameter text: `mobileName` as sent.
    /// - Returns: The number.
    /// - Throws: ``GatewayError/Kind/malformedBody(_:)``: `'mobileName' is not hexadecimal`, or one error,
    ///   ``GatewayAnswer/decryptedPhoneNumber(gateway:label:key:_:)``'s, for a ciphertext that does not decrypt or
    ///   decrypts to no number.
    package func aesPhoneNumber(_ text: String) throws(GatewayError) -> PhoneNumber {
        guard let bytes = Hex.decode(text), !bytes.isEmpty else {
            throw GatewayError(gateway: ShanyanGateway.name, .malformedBody("'mobileName' is not hexadecimal"))
        }
        let described = "with the key and IV from MD5(appKey): check appKey, or set privateKey if the console holds an RSA public key"
        return try GatewayAnswer.decryptedPhoneNumber(gateway: ShanyanGateway.name, label: "'mobileName'", key: described) { () throws(CryptoError) in
            try AESCipher.decrypt(bytes, key: Array(aesKey.reveal().utf8), mode: .cbc(iv: Array(aesIV.reveal().utf8)))
        }
    }
}
