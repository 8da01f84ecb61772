import CLibCrypto

/// AES-256-GCM from OpenSSL's libcrypto (`EVP_aes_256_gcm`), never a cipher of OneTap's own: a 32-byte
/// key, a 12-byte nonce, a 16-byte tag, additional authenticated data bound into the tag.
///
/// A sealed value is `nonce ‖ ciphertext ‖ tag`, so its length is the plaintext's plus 28 bytes.
package enum AESGCM {
    /// The key's length: 32 bytes (AES-256).
    package static let keyLength = 32
    /// The nonce's length: 12 bytes, GCM's default.
    package static let nonceLength = 12
    /// The tag's length: 16 bytes.
    package static let tagLength = 16

    /// `EVP_CTRL_GCM_GET_TAG` and `EVP_CTRL_GCM_SET_TAG` (`openssl/evp.h`).
    private static let getTag: Int32 = 0x10
    private static let setTag: Int32 = 0x11

    /// Seals bytes.
    /// - Parameters:
    ///   - plaintext: What to seal.
    ///   - key: 32 bytes.
    ///   - nonce: 12 bytes, never used twice with one key (draw them from the system's generator).
    ///   - aad: Bytes the tag covers but the output does not hold.
    /// - Returns: `nonce ‖ ciphertext ‖ tag`, or nil when the key or nonce has the wrong length or libcrypto failed.
    package static func seal(_ plaintext: [UInt8], key: [UInt8], nonce: [UInt8], aad: [UInt8]) -> [UInt8]? {
        defer { ERR_clear_error() }  // the thread's queue is shared with libpq's TLS: left empty
        guard key.count == keyLength, nonce.count == nonceLength, plaintext.count < Int(Int32.max) - 64, aad.count < Int(Int32.max),
            let context = EVP_CIPHER_CTX_new()
        else { return nil }
        defer { EVP_CIPHER_CTX_free(context) }
        guard EVP_EncryptInit_ex(context, EVP_aes_256_gcm(), nil, key, nonce) == 1 else { return nil }
        var length: Int32 = 0
        if !aad.isEmpty, EVP_EncryptUpdate(context, nil, &length, aad, Int32(aad.count)) != 1 { return nil }
        var output = nonce + [UInt8](repeating: 0, count: plaintext.count + tagLength)
        let sealed = output.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let base = buffer.baseAddress else { return false }
            var written = 0
            if !plaintext.isEmpty {
                guard EVP_EncryptUpdate(context, base + nonceLength, &length, plaintext, Int32(plaintext.count)) == 1 else { return false }
                written = Int(length)
            }
            guard EVP_EncryptFinal_ex(context, base + nonceLength + written, &length) == 1 else { return false }
            written += Int(length)
            guard written == plaintext.count else { return false }
            return EVP_CIPHER_CTX_ctrl(context, getTag, Int32(tagLength), base + nonceLength + written) == 1
        }
        return sealed ? output : nil
    }

    /// Opens what ``seal(_:key:nonce:aad:)`` made.
    /// - Parameters:
    ///   - sealed: `nonce ‖ ciphertext ‖ tag`.
    ///   - key: The 32 bytes it was sealed with.
    ///   - aad: The additional authenticated data it was sealed with.
    /// - Returns: The plaintext, or nil when the tag does not match (another key, other data, any byte
    ///   changed) or the input is too short to hold a nonce and a tag.
    package static func open(_ sealed: [UInt8], key: [UInt8], aad: [UInt8]) -> [UInt8]? {
        defer { ERR_clear_error() }  // the thread's queue is shared with libpq's TLS: left empty
        guard key.count == keyLength, sealed.count >= nonceLength + tagLength, sealed.count < Int(Int32.max), aad.count < Int(Int32.max),
            let context = EVP_CIPHER_CTX_new()
        else { return nil }
        defer { EVP_CIPHER_CTX_free(context) }
        let nonce = Array(sealed[0..<nonceLength])
        let ciphertext = Array(sealed[nonceLength..<(sealed.count - tagLength)])
        var tag = Array(sealed[(sealed.count - tagLength)...])
        guard EVP_DecryptInit_ex(context, EVP_aes_256_gcm(), nil, key, nonce) == 1 else { return nil }
        var length: Int32 = 0
        if !aad.isEmpty, EVP_DecryptUpdate(context, nil, &length, aad, Int32(aad.count)) != 1 { return nil }
        var plaintext = [UInt8](repeating: 0, count: ciphertext.count + 16)
        let opened = plaintext.withUnsafeMutableBufferPointer { buffer -> Int? in
            guard let base = buffer.baseAddress else { return nil }
            var written = 0
            if !ciphertext.isEmpty {
                guard EVP_DecryptUpdate(context, base, &length, ciphertext, Int32(ciphertext.count)) == 1 else { return nil }
                written = Int(length)
            }
            guard EVP_CIPHER_CTX_ctrl(context, setTag, Int32(tagLength), &tag) == 1 else { return nil }
            guard EVP_DecryptFinal_ex(context, base + written, &length) > 0 else { return nil }
            return written + Int(length)
        }
        guard let opened, opened == ciphertext.count else { return nil }
        return Array(plaintext.prefix(opened))
    }

    /// Bytes from OpenSSL's generator (`RAND_bytes`, seeded from the system's CSPRNG), for nonces.
    /// - Parameter count: How many.
    /// - Returns: The bytes, or nil when the generator failed.
    package static func randomBytes(_ count: Int) -> [UInt8]? {
        defer { ERR_clear_error() }  // the thread's queue is shared with libpq's TLS: left empty
        var bytes = [UInt8](repeating: 0, count: count)
        guard RAND_bytes(&bytes, Int32(count)) == 1 else { return nil }
        return bytes
    }
}
