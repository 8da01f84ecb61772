/// HMAC-SHA-256 (RFC 2104) on OneTap's ``SHA256``: how SMS codes are stored (never the code itself), and
/// how guest ids are derived from device ids. Checked against RFC 4231's test vectors.
package enum HMACSHA256 {
    /// The authentication code of a message under a key.
    /// - Parameters:
    ///   - message: The message.
    ///   - key: The key; keys longer than 64 bytes are hashed first, as RFC 2104 says.
    /// - Returns: The 32-byte code.
    /// - Complexity: O(*n*) in the message and key lengths.
    package static func authenticationCode(for message: some Sequence<UInt8>, key: some Collection<UInt8>) -> SHA256Digest {
        Key(key).authenticationCode(for: message)
    }

    /// A key with its padded blocks already hashed: what a server that authenticates many messages
    /// under one key keeps, so each message costs two compressions fewer.
    package struct Key: Sendable, CustomStringConvertible, CustomReflectable {
        private let inner: SHA256
        private let outer: SHA256

        /// Prepares a key.
        /// - Parameter bytes: The key; keys longer than 64 bytes are hashed first, as RFC 2104 says.
        package init(_ bytes: some Collection<UInt8>) {
            var block = bytes.count > 64 ? SHA256.hash(bytes).bytes : Array(bytes)
            block.append(contentsOf: repeatElement(0, count: 64 - block.count))
            var inner = SHA256()
            inner.update(block.map { $0 ^ 0x36 })
            var outer = SHA256()
            outer.update(block.map { $0 ^ 0x5c })
            self.inner = inner
            self.outer = outer
        }

        /// The authentication code of a message under this key.
        /// - Parameter message: The message.
        /// - Returns: The same code as ``HMACSHA256/authenticationCode(for:key:)``.
        /// - Complexity: O(*n*) in the message's length.
        package func authenticationCode(for message: some Sequence<UInt8>) -> SHA256Digest {
            var inner = self.inner
            inner.update(message)
            let innerDigest = inner.finalize()
            var outer = self.outer
            outer.update(innerDigest.bytes)
            return outer.finalize()
        }

        /// The authentication code of a message under this key, written into a buffer the caller owns:
        /// no allocation (what a verifier that only compares the code uses).
        /// - Parameters:
        ///   - message: The message.
        ///   - output: At least 32 bytes; the first 32 receive the code (the same bytes as
        ///     ``authenticationCode(for:)``'s).
        package func authenticationCode(for message: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableBufferPointer<UInt8>) {
            var inner = self.inner
            inner.update(message)
            inner.finalize(into: output)
            var outer = self.outer
            outer.update(UnsafeBufferPointer(rebasing: output[0..<32]))
            outer.finalize(into: output)
        }

        /// Always `HMACSHA256.Key(<redacted>)`: a key is a secret.
        package var description: String { "HMACSHA256.Key(<redacted>)" }

        /// No children: the keyed midstates are as good as the key for forging codes, so `dump` and `Mirror` show none.
        package var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
    }

    /// Compares two codes in time that does not depend on where they differ.
    /// - Parameters:
    ///   - lhs: One code.
    ///   - rhs: The other.
    /// - Returns: Whether they are equal.
    package static func constantTimeEquals(_ lhs: SHA256Digest, _ rhs: SHA256Digest) -> Bool {
        lhs.bytes.withUnsafeBufferPointer { constantTimeEquals($0, rhs) }
    }

    /// Compares a code computed into a buffer with a digest, in time that does not depend on where they differ.
    /// - Parameters:
    ///   - code: The computed code's bytes.
    ///   - digest: The digest to compare it with.
    /// - Returns: Whether they are the same bytes.
    package static func constantTimeEquals(_ code: UnsafeBufferPointer<UInt8>, _ digest: SHA256Digest) -> Bool {
        guard code.count == digest.bytes.count else { return false }
        var difference: UInt8 = 0
        for index in code.indices { difference |= code[index] ^ digest.bytes[index] }
        return difference == 0
    }
}
