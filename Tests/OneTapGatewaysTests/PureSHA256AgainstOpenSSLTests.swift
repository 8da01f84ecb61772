@testable import OneTapGateways
import OneTapSupport
import Testing

/// OneTap's own SHA-256 and HMAC-SHA-256 (pure Swift, in `OneTapSupport`) against OpenSSL's libcrypto on the
/// same bytes: every length across several blocks, fed whole and in random pieces, and keys shorter than,
/// exactly and longer than a block. A difference in the rounds, the schedule, the padding or the pending
/// bytes shows as a mismatch naming the length and the seed.
@Suite struct PureSHA256AgainstOpenSSLTests {
    /// Every length from 0 to 300 bytes (every padding boundary of five blocks), whole and in pieces.
    @Test func everyLengthAgreesWholeAndInPieces() throws {
        var random = SplitMix64(seed: 0x5EED_0256)
        for length in 0...300 {
            let message = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            let expected = try Digest.sha256.hash(message)
            #expect(SHA256.hash(message).bytes == expected, "whole, \(length) bytes")
            var pieces = SHA256()
            var rest = message[...]
            while !rest.isEmpty {
                let size = Int.random(in: 1...min(rest.count, 70), using: &random)
                pieces.update(rest.prefix(size))
                rest = rest.dropFirst(size)
            }
            #expect(pieces.finalize().bytes == expected, "in pieces, \(length) bytes")
            // A sequence without contiguous storage goes byte by byte.
            #expect(SHA256.hash(message.lazy.map { $0 }).bytes == expected, "byte by byte, \(length) bytes")
        }
    }

    /// Large random messages (up to 64 KiB, many whole blocks hashed in place) agree.
    @Test func largeMessagesAgree() throws {
        var random = SplitMix64(seed: 0x5EED_1A26)
        for _ in 0..<20 {
            let length = Int.random(in: 1_000...65_536, using: &random)
            let message = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            #expect(SHA256.hash(message).bytes == (try Digest.sha256.hash(message)), "\(length) bytes")
        }
    }

    /// HMAC-SHA-256 with keys of 0 to 130 bytes (a long key is hashed first) over random messages, through the
    /// prepared key and into a caller's buffer alike.
    @Test func hmacAgreesForEveryKeyLength() throws {
        var random = SplitMix64(seed: 0x5EED_4AC)
        for keyLength in 0...130 {
            let key = (0..<keyLength).map { _ in UInt8.random(in: 0...255, using: &random) }
            let message = (0..<Int.random(in: 0...200, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            let expected = try Digest.sha256.hmac(key: key, message: message)
            #expect(HMACSHA256.authenticationCode(for: message, key: key).bytes == expected, "key of \(keyLength) bytes")
            var buffer = [UInt8](repeating: 0, count: 32)
            message.withUnsafeBufferPointer { input in
                buffer.withUnsafeMutableBufferPointer { HMACSHA256.Key(key).authenticationCode(for: input, into: $0) }
            }
            #expect(buffer == expected, "into a buffer, key of \(keyLength) bytes")
        }
    }
}
