import CLibCrypto

/// AES in the two modes the vendors use for their answers (CBC with an IV, ECB), from OpenSSL's libcrypto
/// (`EVP_aes_*_cbc`, `EVP_aes_*_ecb`): the key's length (16, 24, 32 bytes) chooses AES-128, -192 or -256.
package enum AESCipher {
    /// The mode of operation.
    package enum Mode: Sendable, Equatable {
        /// CBC with a 16-byte IV.
        case cbc(iv: [UInt8])
        /// ECB (no IV; each block alone: only where a vendor mandates it).
        case ecb
    }

    /// Encrypts bytes.
    /// - Parameters:
    ///   - plaintext: What to encrypt.
    ///   - key: 16, 24 or 32 bytes.
    ///   - mode: CBC with its IV, or ECB.
    ///   - padding: PKCS#7 padding (the vendors' "PKCS5Padding"); without it the plaintext must fill whole blocks.
    /// - Returns: The ciphertext.
    /// - Throws: ``CryptoError`` for a key or IV of the wrong length, or a plaintext that does not fill whole
    ///   blocks without padding.
    package static func encrypt(_ plaintext: [UInt8], key: [UInt8], mode: Mode, padding: Bool = true) throws(CryptoError) -> [UInt8] {
        try run(plaintext, key: key, mode: mode, padding: padding, encrypting: true)
    }

    /// Decrypts bytes.
    /// - Parameters:
    ///   - ciphertext: What to decrypt.
    ///   - key: 16, 24 or 32 bytes.
    ///   - mode: CBC with its IV, or ECB.
    ///   - padding: Whether PKCS#7 padding is removed (and checked).
    /// - Returns: The plaintext.
    /// - Throws: ``CryptoError`` for a key or IV of the wrong length, a ciphertext that is not whole blocks, or bad
    ///   padding (a wrong key or IV, or not this cipher's output).
    package static func decrypt(_ ciphertext: [UInt8], key: [UInt8], mode: Mode, padding: Bool = true) throws(CryptoError) -> [UInt8] {
        try run(ciphertext, key: key, mode: mode, padding: padding, encrypting: false)
    }

    private static func run(_ input: [UInt8], key: [UInt8], mode: Mode, padding: Bool, encrypting: Bool) throws(CryptoError) -> [UInt8] {
        let name = "AES-\(key.count * 8)-\(mode == .ecb ? "ECB" : "CBC") \(encrypting ? "encryption" : "decryption")"
        let cipher: OpaquePointer?
        switch (key.count, mode) {
        case (16, .ecb): cipher = EVP_aes_128_ecb()
        case (24, .ecb): cipher = EVP_aes_192_ecb()
        case (32, .ecb): cipher = EVP_aes_256_ecb()
        case (16, .cbc): cipher = EVP_aes_128_cbc()
        case (24, .cbc): cipher = EVP_aes_192_cbc()
        case (32, .cbc): cipher = EVP_aes_256_cbc()
        default: throw CryptoError("AES \(encrypting ? "encryption" : "decryption")", "the key is \(key.count) bytes; AES takes 16, 24 or 32")
        }
        var iv: [UInt8] = []
        if case .cbc(let given) = mode {
            guard given.count == 16 else { throw CryptoError(name, "the IV is \(given.count) bytes; CBC takes 16") }
            iv = given
        }
        guard input.count < Int(Int32.max) - 32 else { throw CryptoError(name, "the input is too long") }
        if !encrypting || !padding, input.count % 16 != 0 {
            throw CryptoError(name, "the input is \(input.count) bytes, not whole 16-byte blocks")
        }
        guard let context = EVP_CIPHER_CTX_new() else { throw CryptoError(name, "libcrypto could not allocate a context") }
        defer {
            EVP_CIPHER_CTX_free(context)
            ERR_clear_error()
        }
        guard EVP_CipherInit_ex(context, cipher, nil, key, iv.isEmpty ? nil : iv, encrypting ? 1 : 0) == 1,
            EVP_CIPHER_CTX_set_padding(context, padding ? 1 : 0) == 1
        else { throw CryptoError(name, "libcrypto refused the key") }
        var output = [UInt8](repeating: 0, count: input.count + 32)
        var length: Int32 = 0
        var written = 0
        let updated = output.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let base = buffer.baseAddress else { return false }
            if !input.isEmpty {
                guard EVP_CipherUpdate(context, base, &length, input, Int32(input.count)) == 1 else { return false }
                written = Int(length)
            }
            guard EVP_CipherFinal_ex(context, base + written, &length) == 1 else { return false }
            written += Int(length)
            return true
        }
        guard updated else {
            throw CryptoError(name, encrypting ? "libcrypto refused the input" : "bad padding (a wrong key or IV, or not this cipher's output)")
        }
        return Array(output.prefix(written))
    }
}
