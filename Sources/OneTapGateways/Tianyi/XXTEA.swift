import OneTap
import OneTapSupport

/// XXTEA ("Corrected Block TEA", Wheeler and Needham, 1998): the obfuscation China Telecom's 天翼账号 open API mandates
/// for its `paras` parameter, written here because libcrypto has no XXTEA. Not a cipher to choose for anything else.
///
/// The byte layout is the one the published XXTEA libraries and the open API's Java samples share: the data's bytes in
/// little-endian 32-bit words (the last one zero-padded), then one word holding the data's length; the key's bytes
/// zero-padded or cut to 16 (four words). Pinned to published vectors: gchq/CyberChef
/// `tests/operations/tests/XXTEA.mjs` (commit bfcc6c4) and ifduyue/xxtea `tests/vectors_length_word.json` (commit
/// 4561d3e); see `Data/gateways/tianyi.md`.
package enum XXTEA {
    private static let delta: UInt32 = 0x9E37_79B9

    /// Encrypts bytes: their words and the length word (an empty input is one zero word and the length 0).
    /// - Parameters:
    ///   - data: The plaintext (any length).
    ///   - key: The key: its first 16 bytes, zero-padded (any length).
    /// - Returns: The ciphertext: 4 bytes per started word of data, plus 4 (at least 8).
    package static func encrypt(_ data: [UInt8], key: [UInt8]) -> [UInt8] {
        var words = data.isEmpty ? [0] : Self.words(data)
        words.append(UInt32(truncatingIfNeeded: data.count))
        encryptBlock(&words, keyWords(key))
        return bytes(words)
    }

    /// Decrypts what ``encrypt(_:key:)`` made.
    /// - Parameters:
    ///   - cipher: The ciphertext.
    ///   - key: The key.
    /// - Returns: The plaintext.
    /// - Throws: ``CryptoError`` (`XXTEA decryption`) when the ciphertext is not whole words, shorter than 8 bytes, or
    ///   its length word does not fit (a wrong key, or not this layout), or the padding after the data is not zero.
    package static func decrypt(_ cipher: [UInt8], key: [UInt8]) throws(CryptoError) -> [UInt8] {
        let operation = "XXTEA decryption"
        guard cipher.count >= 8, cipher.count % 4 == 0 else {
            throw CryptoError(operation, "the ciphertext is \(cipher.count) bytes; XXTEA's are whole 4-byte words, at least 8")
        }
        var words = Self.words(cipher)
        decryptBlock(&words, keyWords(key))
        let length = Int(words.removeLast())
        let room = words.count * 4
        // The data fills the last word partly (1…4 bytes of it), or is empty in a single zero word.
        guard length <= room, length > room - 4 || (length == 0 && room == 4) else {
            throw CryptoError(operation, "the length word does not fit the ciphertext (a wrong key, or not XXTEA with a length word)")
        }
        let plain = bytes(words)
        guard plain[length...].allSatisfy({ $0 == 0 }) else {
            throw CryptoError(operation, "the padding after the data is not zero (a wrong key)")
        }
        return Array(plain[..<length])
    }

    /// The open API's form: UTF-8 text encrypted with the app secret's UTF-8 bytes as the key, as upper-case hex.
    /// - Parameters:
    ///   - text: The plaintext (`accessToken=…&timeStamp=…`).
    ///   - secret: The app secret.
    /// - Returns: Upper-case hexadecimal.
    package static func encryptHex(_ text: String, secret: Secret) -> String {
        Hex.encode(encrypt(Array(text.utf8), key: Array(secret.reveal().utf8)), uppercase: true)
    }

    /// Reads the open API's form back.
    /// - Parameters:
    ///   - hex: Hexadecimal (either case).
    ///   - secret: The app secret.
    /// - Returns: The text.
    /// - Throws: ``CryptoError`` when it is not hexadecimal, does not decrypt, or is not UTF-8.
    package static func decryptHex(_ hex: String, secret: Secret) throws(CryptoError) -> String {
        guard let cipher = Hex.decode(hex) else { throw CryptoError("XXTEA decryption", "the ciphertext is not hexadecimal") }
        let plain = try decrypt(cipher, key: Array(secret.reveal().utf8))
        guard let text = String(validating: plain, as: UTF8.self) else { throw CryptoError("XXTEA decryption", "the plaintext is not UTF-8") }
        return text
    }

    /// The block cipher on n ≥ 2 words.
    private static func encryptBlock(_ v: inout [UInt32], _ k: [UInt32]) {
        let n = v.count
        var sum: UInt32 = 0
        var z = v[n - 1]
        for _ in 0..<(6 + 52 / n) {
            sum &+= delta
            let e = Int((sum >> 2) & 3)
            for p in 0..<n {
                let y = v[(p + 1) % n]
                v[p] &+= mix(sum: sum, y: y, z: z, key: k[(p & 3) ^ e])
                z = v[p]
            }
        }
    }

    /// Undoes ``encryptBlock(_:_:)``.
    private static func decryptBlock(_ v: inout [UInt32], _ k: [UInt32]) {
        let n = v.count
        let rounds = 6 + 52 / n
        var sum = UInt32(truncatingIfNeeded: rounds) &* delta
        var y = v[0]
        for _ in 0..<rounds {
            let e = Int((sum >> 2) & 3)
            for p in stride(from: n - 1, through: 0, by: -1) {
                let z = v[p == 0 ? n - 1 : p - 1]
                v[p] &-= mix(sum: sum, y: y, z: z, key: k[(p & 3) ^ e])
                y = v[p]
            }
            sum &-= delta
        }
    }

    /// XXTEA's MX.
    private static func mix(sum: UInt32, y: UInt32, z: UInt32, key: UInt32) -> UInt32 {
        (((z >> 5) ^ (y << 2)) &+ ((y >> 3) ^ (z << 4))) ^ ((sum ^ y) &+ (key ^ z))
    }

    /// The key's first 16 bytes, zero-padded, as four little-endian words.
    private static func keyWords(_ key: [UInt8]) -> [UInt32] {
        words(Array((key + [UInt8](repeating: 0, count: 16)).prefix(16)))
    }

    /// Bytes as little-endian words, the last zero-padded.
    private static func words(_ bytes: [UInt8]) -> [UInt32] {
        stride(from: 0, to: bytes.count, by: 4).map { start in
            bytes[start..<min(start + 4, bytes.count)].enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (8 * $1.offset) }
        }
    }

    /// Words as little-endian bytes.
    private static func bytes(_ words: [UInt32]) -> [UInt8] {
        words.flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> (8 * $0)) } }
    }
}
