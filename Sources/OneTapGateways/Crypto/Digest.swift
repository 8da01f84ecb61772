import CLibCrypto

/// The message digests the vendors' signatures use, and HMAC over them, from OpenSSL's libcrypto (`EVP_Digest`,
/// `HMAC`): never a hash of OneTap's own.
package enum Digest: String, Sendable, CaseIterable {
    /// MD5 (China Mobile's MD5 sign, Yidun's signature; never for anything that must resist collisions).
    case md5 = "MD5"
    /// SHA-1 (HMAC-SHA-1 signatures).
    case sha1 = "SHA-1"
    /// SHA-256.
    case sha256 = "SHA-256"

    /// libcrypto's description of the digest.
    var evp: OpaquePointer? {
        switch self {
        case .md5: EVP_md5()
        case .sha1: EVP_sha1()
        case .sha256: EVP_sha256()
        }
    }

    /// The digest's length in bytes: 16, 20, 32.
    package var length: Int {
        switch self {
        case .md5: 16
        case .sha1: 20
        case .sha256: 32
        }
    }

    /// Hashes bytes.
    /// - Parameter bytes: The message.
    /// - Returns: The digest (``length`` bytes).
    /// - Throws: ``CryptoError`` when libcrypto failed (a FIPS-only build refusing MD5, say).
    package func hash(_ bytes: [UInt8]) throws(CryptoError) -> [UInt8] {
        defer { ERR_clear_error() }  // the thread's error queue is shared with libpq's TLS
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var written: UInt32 = 0
        let status = bytes.withUnsafeBytes { message in
            EVP_Digest(message.baseAddress, message.count, &output, &written, evp, nil)
        }
        guard status == 1, Int(written) == length else { throw CryptoError(rawValue, "libcrypto refused the digest") }
        return Array(output.prefix(length))
    }

    /// Hashes a string's UTF-8.
    /// - Parameter text: The message.
    /// - Returns: The digest.
    /// - Throws: ``CryptoError`` as ``hash(_:)-(bytes)`` does.
    package func hash(_ text: String) throws(CryptoError) -> [UInt8] { try hash(Array(text.utf8)) }

    /// An HMAC (RFC 2104) with this digest.
    /// - Parameters:
    ///   - key: The key (any length).
    ///   - message: The message.
    /// - Returns: The tag (``length`` bytes).
    /// - Throws: ``CryptoError`` when libcrypto failed.
    package func hmac(key: [UInt8], message: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard key.count < Int(Int32.max) else { throw CryptoError("HMAC-\(rawValue)", "the key is too long") }
        defer { ERR_clear_error() }  // the thread's error queue is shared with libpq's TLS
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var written: UInt32 = 0
        let result = key.withUnsafeBytes { keyBytes in
            message.withUnsafeBytes { messageBytes in
                HMAC(evp, keyBytes.baseAddress, Int32(keyBytes.count), messageBytes.baseAddress?.assumingMemoryBound(to: UInt8.self), messageBytes.count, &output, &written)
            }
        }
        guard result != nil, Int(written) == length else { throw CryptoError("HMAC-\(rawValue)", "libcrypto refused the HMAC") }
        return Array(output.prefix(length))
    }
}
