import CLibCrypto

/// An RSA public key read from PEM (X.509 SubjectPublicKeyInfo or PKCS#1): it checks PKCS#1 v1.5 signatures, to
/// check a key pair offline and to test.
package typealias RSAPublicKey = RSAKey<PublicHalf>

extension RSAKey where Half == PublicHalf {
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
