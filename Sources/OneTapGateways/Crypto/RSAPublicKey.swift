import CLibCrypto

/// An RSA public key read from PEM (X.509 SubjectPublicKeyInfo or PKCS#1): it checks PKCS#1 v1.5 signatures, to
/// check a key pair offline and to test.
package final class RSAPublicKey: @unchecked Sendable, CustomStringConvertible {
    // Never changed after it was read; each call uses a context of its own.
    private let key: OpaquePointer
    /// The PEM form it was read from.
    package let form: PEMKeyForm
    /// The modulus's size in bits.
    package let bits: Int

    /// Reads a key.
    /// - Parameter pem: PEM text (`-----BEGIN PUBLIC KEY-----` or `-----BEGIN RSA PUBLIC KEY-----`), or bare Base64.
    /// - Throws: ``KeyFormatError`` naming the form found and the `openssl` command that converts it.
    package init(pem: String) throws(KeyFormatError) {
        (key, form, bits) = try PEMKeyReader.read(pem, wantsPrivate: false)
    }

    deinit { EVP_PKEY_free(key) }

    /// `RSA public key (2048 bits, a public key (X.509 SubjectPublicKeyInfo))`.
    package var description: String { "RSA public key (\(bits) bits, \(form.rawValue))" }

    /// Checks an RSASSA-PKCS1-v1_5 signature.
    /// - Parameters:
    ///   - signature: The signature.
    ///   - message: The bytes signed.
    ///   - digest: The digest it was made with.
    /// - Returns: Whether it is this key's signature of the message.
    package func verify(_ signature: [UInt8], of message: [UInt8], digest: Digest) -> Bool {
        guard let context = EVP_MD_CTX_new() else { return false }
        defer {
            EVP_MD_CTX_free(context)
            ERR_clear_error()
        }
        guard EVP_DigestVerifyInit(context, nil, digest.evp, nil, key) == 1 else { return false }
        return EVP_DigestVerify(context, signature, signature.count, message, message.count) == 1
    }
}
