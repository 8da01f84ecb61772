/// SHA-256 (FIPS 180-4) in pure Swift: the digest OneTap keys exchanged tokens by and builds HMAC on.
///
/// ```swift
/// let digest = SHA256.hash(Array("abc".utf8))   // ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad
/// ```
/// Checked against the NIST test vectors (the suite in `SHA256Tests`).
package struct SHA256: Sendable {
    /// The digest type.
    package typealias Digest = SHA256Digest

    private static let k: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]

    private var state: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) =
        (0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19)
    /// Bytes waiting for a whole 64-byte block, held inline (no heap buffer, so copying a prepared
    /// state, as HMAC keys do, allocates nothing).
    private var pending: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
    private var pendingCount = 0
    private var length: UInt64 = 0

    /// Starts a digest.
    package init() {}

    /// Adds bytes.
    /// - Parameter bytes: The next bytes of the message.
    /// - Complexity: O(*n*); whole blocks of contiguous input are hashed in place.
    package mutating func update(_ bytes: some Sequence<UInt8>) {
        let done: Void? = bytes.withContiguousStorageIfAvailable { update(buffer: $0) }
        if done != nil { return }
        for byte in bytes { append(byte) }
    }

    private mutating func update(buffer: UnsafeBufferPointer<UInt8>) {
        var index = 0
        let count = buffer.count
        length &+= UInt64(count)
        // Fill a partly filled block first.
        if pendingCount > 0 {
            while index < count, pendingCount < 64 {
                setPending(pendingCount, buffer[index])
                pendingCount += 1
                index += 1
            }
            if pendingCount == 64 { compressPending() }
        }
        while count - index >= 64 {
            compress(UnsafeBufferPointer(rebasing: buffer[index..<(index + 64)]))
            index += 64
        }
        while index < count {
            setPending(pendingCount, buffer[index])
            pendingCount += 1
            index += 1
        }
    }

    @inline(__always)
    private mutating func append(_ byte: UInt8) {
        setPending(pendingCount, byte)
        pendingCount += 1
        length &+= 1
        if pendingCount == 64 { compressPending() }
    }

    @inline(__always)
    private mutating func setPending(_ index: Int, _ byte: UInt8) {
        withUnsafeMutableBytes(of: &pending) { $0[index] = byte }
    }

    private mutating func compressPending() {
        var block = pending
        withUnsafeBytes(of: &block) { raw in compress(raw.bindMemory(to: UInt8.self)) }
        pendingCount = 0
    }

    /// Ends the message and returns its digest.
    /// - Returns: The digest.
    package consuming func finalize() -> Digest {
        pad()
        let out = [UInt8](unsafeUninitializedCapacity: 32) { buffer, initialized in
            writeState(to: buffer)
            initialized = 32
        }
        return Digest(bytes: out)
    }

    /// Ends the message and writes its 32-byte digest into `output`, allocating nothing (for hot paths
    /// that compare a digest and keep none).
    /// - Parameter output: At least 32 bytes; the first 32 receive the digest, most significant first.
    package consuming func finalize(into output: UnsafeMutableBufferPointer<UInt8>) {
        precondition(output.count >= 32, "a SHA-256 digest needs 32 bytes")
        pad()
        writeState(to: output)
    }

    /// Appends the padding and the length (FIPS 180-4 §5.1.1) and hashes the last block.
    private mutating func pad() {
        let bits = length &* 8
        setPending(pendingCount, 0x80)
        pendingCount += 1
        if pendingCount > 56 {
            while pendingCount < 64 { setPending(pendingCount, 0); pendingCount += 1 }
            compressPending()
        }
        while pendingCount < 56 { setPending(pendingCount, 0); pendingCount += 1 }
        for shift in stride(from: 56, through: 0, by: -8) {
            setPending(pendingCount, UInt8(truncatingIfNeeded: bits >> UInt64(shift)))
            pendingCount += 1
        }
        compressPending()
    }

    /// Writes the eight state words big-endian into the first 32 bytes of `output`.
    @inline(__always)
    private func writeState(to output: UnsafeMutableBufferPointer<UInt8>) {
        var words = state
        withUnsafeBytes(of: &words) { raw in
            for index in 0..<8 {
                let word = raw.load(fromByteOffset: 4 * index, as: UInt32.self)
                output[4 * index] = UInt8(truncatingIfNeeded: word >> 24)
                output[4 * index + 1] = UInt8(truncatingIfNeeded: word >> 16)
                output[4 * index + 2] = UInt8(truncatingIfNeeded: word >> 8)
                output[4 * index + 3] = UInt8(truncatingIfNeeded: word)
            }
        }
    }

    /// The digest of a whole message.
    /// - Parameter bytes: The message.
    /// - Returns: Its digest.
    /// - Complexity: O(*n*).
    package static func hash(_ bytes: some Sequence<UInt8>) -> Digest {
        var hasher = SHA256()
        hasher.update(bytes)
        return hasher.finalize()
    }

    @inline(__always)
    private static func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { (x >> n) | (x << (32 &- n)) }

    /// Processes one 64-byte block.
    private mutating func compress(_ block: UnsafeBufferPointer<UInt8>) {
        var w = (
            UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0),
            UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0))
        withUnsafeMutableBytes(of: &w) { raw in
            let words = raw.bindMemory(to: UInt32.self)
            for index in 0..<16 {
                let base = index * 4
                words[index] = UInt32(block[base]) << 24 | UInt32(block[base + 1]) << 16 | UInt32(block[base + 2]) << 8 | UInt32(block[base + 3])
            }
        }
        var (a, b, c, d, e, f, g, h) = state
        withUnsafeMutableBytes(of: &w) { raw in
            let words = raw.bindMemory(to: UInt32.self)
            Self.k.withUnsafeBufferPointer { k in
                for round in 0..<64 {
                    let word: UInt32
                    if round < 16 {
                        word = words[round]
                    } else {
                        let w15 = words[(round &- 15) & 15], w2 = words[(round &- 2) & 15]
                        let s0 = Self.rotr(w15, 7) ^ Self.rotr(w15, 18) ^ (w15 >> 3)
                        let s1 = Self.rotr(w2, 17) ^ Self.rotr(w2, 19) ^ (w2 >> 10)
                        word = words[round & 15] &+ s0 &+ words[(round &- 7) & 15] &+ s1
                        words[round & 15] = word
                    }
                    let s1 = Self.rotr(e, 6) ^ Self.rotr(e, 11) ^ Self.rotr(e, 25)
                    let choice = (e & f) ^ (~e & g)
                    let t1 = h &+ s1 &+ choice &+ k[round] &+ word
                    let s0 = Self.rotr(a, 2) ^ Self.rotr(a, 13) ^ Self.rotr(a, 22)
                    let majority = (a & b) ^ (a & c) ^ (b & c)
                    let t2 = s0 &+ majority
                    h = g; g = f; f = e; e = d &+ t1
                    d = c; c = b; b = a; a = t1 &+ t2
                }
            }
        }
        state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d, state.4 &+ e, state.5 &+ f, state.6 &+ g, state.7 &+ h)
    }
}

/// A SHA-256 digest: 32 bytes. What login sessions and exchange ledgers keep of a one-tap token instead
/// of the token (the hasher itself is the package's own).
public struct SHA256Digest: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The 32 bytes, most significant first.
    public let bytes: [UInt8]

    package init(bytes: [UInt8]) { self.bytes = bytes }

    /// Reads a digest written as 64 hexadecimal digits.
    /// - Parameter hex: The digits, upper or lower case.
    /// - Returns: The digest, or nil for anything else.
    public init?(hex: String) {
        let utf8 = Array(hex.utf8)
        guard utf8.count == 64 else { return nil }
        var bytes = [UInt8](repeating: 0, count: 32)
        for index in 0..<32 {
            guard let high = Self.nibble(utf8[2 * index]), let low = Self.nibble(utf8[2 * index + 1]) else { return nil }
            bytes[index] = high << 4 | low
        }
        self.bytes = bytes
    }

    private static func nibble(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 48...57: byte - 48
        case 97...102: byte - 87
        case 65...70: byte - 55
        default: nil
        }
    }

    /// The 64 lowercase hexadecimal digits.
    public var hex: String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(64)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The hexadecimal digits.
    public var description: String { hex }

    /// The message for text that is no digest.
    package static let problem = "a SHA-256 digest is 64 hexadecimal digits"

    /// Decodes the 64 hexadecimal digits.
    /// - Parameter decoder: The decoder.
    /// - Throws: `DecodingError.dataCorrupted` for anything but 64 hexadecimal digits.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        guard let digest = SHA256Digest(hex: try container.decode(String.self)) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: Self.problem)
        }
        self = digest
    }

    /// Encodes the 64 hexadecimal digits.
    /// - Parameter encoder: The encoder.
    /// - Throws: What the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(hex)
    }
}
