import CLibCrypto

/// An RSA key read from PEM, held by libcrypto: ``RSAPrivateKey`` signs and decrypts, ``RSAPublicKey`` checks
/// signatures. Its description names its half, form and size, never a byte of it.
package final class RSAKey<Half: RSAKeyHalf>: @unchecked Sendable, CustomStringConvertible {
    // libcrypto's EVP_PKEY is safe to use from many threads at once for signing, decrypting and verifying, each call
    // with a context of its own; it is never changed after it was read.
    let key: OpaquePointer
    /// The PEM form it was read from.
    package let form: PEMKeyForm
    /// The modulus's size in bits.
    package let bits: Int

    /// Reads a key.
    /// - Parameter pem: PEM text (a private key: `-----BEGIN PRIVATE KEY-----` or `-----BEGIN RSA PRIVATE KEY-----`;
    ///   a public key: `-----BEGIN PUBLIC KEY-----` or `-----BEGIN RSA PUBLIC KEY-----`), or bare Base64 of the DER.
    /// - Throws: ``KeyFormatError`` naming the form found and the `openssl` command that converts it.
    package init(pem: String) throws(KeyFormatError) {
        (key, form, bits) = try PEMKeyReader.read(pem, wantsPrivate: Half.isPrivate)
    }

    deinit { EVP_PKEY_free(key) }

    /// `RSA private key (2048 bits, a PKCS#8 private key)`.
    package var description: String { "RSA \(Half.isPrivate ? "private" : "public") key (\(bits) bits, \(form.rawValue))" }
}

/// Which half of a key pair an ``RSAKey`` holds.
package protocol RSAKeyHalf {
    /// Whether it is the private half.
    static var isPrivate: Bool { get }
}

/// The private half: it signs and decrypts.
package enum PrivateHalf: RSAKeyHalf {
    /// True.
    package static var isPrivate: Bool { true }
}

/// The public half: it checks signatures.
package enum PublicHalf: RSAKeyHalf {
    /// False.
    package static var isPrivate: Bool { false }
}
