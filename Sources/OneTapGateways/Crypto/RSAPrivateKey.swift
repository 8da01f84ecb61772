import CLibCrypto

/// An RSA private key read from PEM (PKCS#8 or PKCS#1), held by libcrypto: it signs (SHA256withRSA, MD5withRSA,
/// PKCS#1 v1.5) and decrypts what a vendor encrypted to its public half (PKCS#1 v1.5).
package typealias RSAPrivateKey = RSAKey<PrivateHalf>

extension RSAKey where Half == PrivateHalf {
    /// Signs a message: RSASSA-PKCS1-v1_5 over its digest (`SHA256withRSA`, `MD5withRSA` in Java's names).
    /// - Parameters:
    ///   - message: The bytes signed.
    ///   - digest: The digest: `.sha256` or `.md5` (or `.sha1`).
    /// - Returns: The signature, as long as the modulus.
    /// - Throws: ``CryptoError`` when libcrypto failed.
    package func sign(_ message: [UInt8], digest: Digest) throws(CryptoError) -> [UInt8] {
        let operation = "\(digest.rawValue.filter { $0 != "-" })withRSA signing"
        guard let context = EVP_MD_CTX_new() else { throw CryptoError(operation, "libcrypto could not allocate a context") }
        defer {
            EVP_MD_CTX_free(context)
            ERR_clear_error()
        }
        guard EVP_DigestSignInit(context, nil, digest.evp, nil, key) == 1 else { throw CryptoError(operation, "libcrypto refused the key") }
        var length = 0
        guard EVP_DigestSign(context, nil, &length, message, message.count) == 1 else { throw CryptoError(operation, "libcrypto refused the message") }
        var signature = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(context, &signature, &length, message, message.count) == 1 else { throw CryptoError(operation, "libcrypto failed to sign") }
        return Array(signature.prefix(length))
    }

    /// Decrypts what was encrypted to this key's public half with RSAES-PKCS1-v1_5.
    /// - Parameter ciphertext: As long as the modulus.
    /// - Returns: The plaintext.
    /// - Throws: ``CryptoError`` for a ciphertext of the wrong length, or one that does not decrypt (another key,
    ///   other padding, damaged bytes). OpenSSL 3.2 and later answer bad padding with random bytes instead
    ///   (implicit rejection, against timing oracles): a caller must check what it decrypted, as
    ///   `GatewayAnswer.decryptedPhoneNumber` does, giving one error for both.
    package func decryptPKCS1v15(_ ciphertext: [UInt8]) throws(CryptoError) -> [UInt8] {
        let operation = "RSA PKCS#1 v1.5 decryption"
        guard ciphertext.count == (bits + 7) / 8 else {
            throw CryptoError(operation, "the ciphertext is \(ciphertext.count) bytes; this \(bits)-bit key takes \((bits + 7) / 8)")
        }
        guard let context = EVP_PKEY_CTX_new(key, nil) else { throw CryptoError(operation, "libcrypto could not allocate a context") }
        defer {
            EVP_PKEY_CTX_free(context)
            ERR_clear_error()
        }
        guard EVP_PKEY_decrypt_init(context) == 1, EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PADDING) == 1 else {
            throw CryptoError(operation, "libcrypto refused the key")
        }
        // OpenSSL 3.2 and later keep their default, implicit rejection (bad padding decrypts to random bytes, in
        // the same time as good padding), so no timing tells a ciphertext that does not decrypt from one that
        // decrypts to no number (the Marvin attack). The OpenSSL 3.0 of Debian 12 does not: bad padding fails
        // here, sooner than a number is read. The gateways give one error for both, but an attacker who can
        // answer in a vendor's place (a broken TLS connection) over many exchanges could time them; so the number's
        // decryption should have a key pair of its own (China Mobile's `msisdnKey`), not the signing key. The
        // vendor's document has one key pair, so by default the signing key decrypts (said in the configuration
        // and in `Data/gateways/cmcc-login-token-validate.md`).
        var length = 0
        guard EVP_PKEY_decrypt(context, nil, &length, ciphertext, ciphertext.count) == 1 else { throw CryptoError(operation, "libcrypto refused the ciphertext") }
        var plaintext = [UInt8](repeating: 0, count: length)
        guard EVP_PKEY_decrypt(context, &plaintext, &length, ciphertext, ciphertext.count) == 1 else {
            throw CryptoError(operation, "it does not decrypt with this key (another key pair, other padding, or damaged bytes)")
        }
        return Array(plaintext.prefix(length))
    }
}
