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
        let done: Void? = bytes.withContiguousStorageIfAvailable { update(buffer: UnsafeRawBufferPointer($0)) }
        if done != nil { return }
        for byte in bytes { append(byte) }
    }

    private mutating func update(buffer: UnsafeRawBufferPointer) {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return }
        var index = 0
        let count = buffer.count
        length &+= UInt64(count)
        // Fill a partly filled block first.
        if pendingCount > 0 {
            let taken = min(64 - pendingCount, count)
            addPending(base, taken)
            index = taken
            if pendingCount < 64 { return }
            compressPending()
        }
        let blocks = (count - index) / 64
        if blocks > 0 {
            compress(base + index, blocks: blocks)
            index += blocks * 64
        }
        if index < count { addPending(base + index, count - index) }
    }

    /// Copies `count` bytes (which fit) after the pending ones.
    @inline(__always)
    private mutating func addPending(_ source: UnsafeRawPointer, _ count: Int) {
        let offset = pendingCount
        withUnsafeMutableBytes(of: &pending) { $0.baseAddress.unsafelyUnwrapped.advanced(by: offset).copyMemory(from: source, byteCount: count) }
        pendingCount += count
    }

    @inline(__always)
    private mutating func append(_ byte: UInt8) {
        withUnsafeBytes(of: byte) { addPending($0.baseAddress.unsafelyUnwrapped, 1) }
        length &+= 1
        if pendingCount == 64 { compressPending() }
    }

    private mutating func compressPending() {
        var block = pending
        withUnsafeBytes(of: &block) { raw in compress(raw.baseAddress.unsafelyUnwrapped, blocks: 1) }
        pendingCount = 0
    }

    /// Ends the message and returns its digest.
    /// - Returns: The digest.
    package consuming func finalize() -> Digest {
        pad()
        let out = [UInt8](unsafeUninitializedCapacity: 32) { buffer, initialized in
            writeState(to: UnsafeMutableRawPointer(buffer.baseAddress.unsafelyUnwrapped))
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
        writeState(to: UnsafeMutableRawPointer(output.baseAddress.unsafelyUnwrapped))
    }

    /// Appends the padding and the length (FIPS 180-4 §5.1.1) and hashes the last block (or two).
    private mutating func pad() {
        let bits = length &* 8
        let used = pendingCount
        withUnsafeMutableBytes(of: &pending) { raw in
            raw[used] = 0x80
            raw.baseAddress.unsafelyUnwrapped.advanced(by: used + 1).initializeMemory(as: UInt8.self, repeating: 0, count: 63 - used)
        }
        if used >= 56 {
            compressPending()
            pending = (0, 0, 0, 0, 0, 0, 0, 0)
        }
        pending.7 = bits.bigEndian
        compressPending()
    }

    /// Writes the eight state words big-endian into the first 32 bytes of `output`.
    @inline(__always)
    private func writeState(to output: UnsafeMutableRawPointer) {
        let words = (state.0.bigEndian, state.1.bigEndian, state.2.bigEndian, state.3.bigEndian,
                     state.4.bigEndian, state.5.bigEndian, state.6.bigEndian, state.7.bigEndian)
        withUnsafeBytes(of: words) { output.copyMemory(from: $0.baseAddress.unsafelyUnwrapped, byteCount: 32) }
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

    /// One round (FIPS 180-4 §6.2.2 step 3) written so that the eight working variables never move: the
    /// caller names them in turn, `d` receives `d + T1` and `h` receives `T1 + T2` (the new `a`).
    @inline(__always)
    private static func round(
        _ a: UInt32, _ b: UInt32, _ c: UInt32, _ d: inout UInt32, _ e: UInt32, _ f: UInt32, _ g: UInt32, _ h: inout UInt32,
        _ kw: UInt32
    ) {
        let t1 = h &+ (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) &+ (g ^ (e & (f ^ g))) &+ kw
        d &+= t1
        h = t1 &+ (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) &+ ((a & b) | (c & (a | b)))
    }

    /// Processes `blocks` consecutive 64-byte blocks starting at `data` (any alignment).
    ///
    /// The message schedule lives in 16 words on the stack, rewritten in place from round 16 on; each pass of
    /// the loop runs eight rounds with the working variables renamed rather than moved (FIPS 180-4 §6.2.2).
    private mutating func compress(_ data: UnsafeRawPointer, blocks: Int) {
        var (h0, h1, h2, h3, h4, h5, h6, h7) = state
        var schedule: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutablePointer(to: &schedule) { tuple in tuple.withMemoryRebound(to: UInt32.self, capacity: 16) { w in
            Self.k.withUnsafeBufferPointer { constants in
                let k = constants.baseAddress.unsafelyUnwrapped
                for block in 0..<blocks {
                    let bytes = data + block &* 64
                    for index in 0..<16 {
                        w[index] = UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: index &* 4, as: UInt32.self))
                    }
                    var (a, b, c, d, e, f, g, h) = (h0, h1, h2, h3, h4, h5, h6, h7)
                    var round = 0
                    while round < 64 {
                        if round >= 16 {
                            for index in 0..<8 {
                                let at = (round &+ index) & 15
                                let w15 = w[(at &+ 1) & 15], w2 = w[(at &+ 14) & 15]
                                let s0 = Self.rotr(w15, 7) ^ Self.rotr(w15, 18) ^ (w15 >> 3)
                                let s1 = Self.rotr(w2, 17) ^ Self.rotr(w2, 19) ^ (w2 >> 10)
                                w[at] = w[at] &+ s0 &+ w[(at &+ 9) & 15] &+ s1
                            }
                        }
                        let at = round & 15
                        Self.round(a, b, c, &d, e, f, g, &h, k[round] &+ w[at])
                        Self.round(h, a, b, &c, d, e, f, &g, k[round &+ 1] &+ w[at &+ 1])
                        Self.round(g, h, a, &b, c, d, e, &f, k[round &+ 2] &+ w[at &+ 2])
                        Self.round(f, g, h, &a, b, c, d, &e, k[round &+ 3] &+ w[at &+ 3])
                        Self.round(e, f, g, &h, a, b, c, &d, k[round &+ 4] &+ w[at &+ 4])
                        Self.round(d, e, f, &g, h, a, b, &c, k[round &+ 5] &+ w[at &+ 5])
                        Self.round(c, d, e, &f, g, h, a, &b, k[round &+ 6] &+ w[at &+ 6])
                        Self.round(b, c, d, &e, f, g, h, &a, k[round &+ 7] &+ w[at &+ 7])
                        round &+= 8
                    }
                    h0 &+= a; h1 &+= b; h2 &+= c; h3 &+= d; h4 &+= e; h5 &+= f; h6 &+= g; h7 &+= h
                }
            }
        } }
        state = (h0, h1, h2, h3, h4, h5, h6, h7)
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
