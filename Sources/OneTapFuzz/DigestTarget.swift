import OneTapGateways
import OneTapSupport

extension Targets {
    /// OneTap's pure-Swift SHA-256 and HMAC-SHA-256 against OpenSSL's libcrypto on the fuzzer's bytes: the first
    /// byte sets where the message is cut into two pieces and how much of it is the HMAC key (0 to 130 bytes, so
    /// keys shorter than, equal to and longer than a block all occur).
    static let sha256 = FuzzTarget(name: "sha256", summary: "SHA-256 and HMAC-SHA-256 (pure Swift) beside OpenSSL's on the same bytes") { bytes in
        guard let first = bytes.first else { return }
        let message = Array(bytes.dropFirst())
        guard let expected = try? Digest.sha256.hash(message) else {
            Invariant.check(false, "OpenSSL refused to hash \(message.count) bytes")
            return
        }
        Invariant.check(SHA256.hash(message).bytes == expected, "SHA-256 of \(message.count) bytes differs from OpenSSL's")
        let cut = message.isEmpty ? 0 : Int(first) % (message.count + 1)
        var pieces = SHA256()
        pieces.update(message[..<cut])
        pieces.update(message[cut...])
        Invariant.check(pieces.finalize().bytes == expected, "SHA-256 of \(message.count) bytes cut at \(cut) differs from OpenSSL's")

        let keyLength = min(Int(first) % 131, message.count)
        let key = Array(message.prefix(keyLength)), text = Array(message.dropFirst(keyLength))
        guard let tag = try? Digest.sha256.hmac(key: key, message: text) else {
            Invariant.check(false, "OpenSSL refused an HMAC with a key of \(keyLength) bytes")
            return
        }
        Invariant.check(HMACSHA256.authenticationCode(for: text, key: key).bytes == tag,
                        "HMAC-SHA-256 with a key of \(keyLength) bytes over \(text.count) bytes differs from OpenSSL's")
    }
}
