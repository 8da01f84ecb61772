/// The server's secret key: what SMS codes are stored under (HMAC-SHA-256(key, number ‖ code ‖ code id),
/// so a copy of the store reveals no code) and what guest ids are derived with (HMAC-SHA-256(key,
/// device id), so a guest id cannot be turned back into its device id). Each use prefixes its own
/// label to what it authenticates, so one key serves both without one use's outputs standing for
/// the other's.
///
/// Every instance of a server shares one key. A new key makes the codes already sent unverifiable
/// (they answer `wrong`) and gives every device a new guest id, so rotate it rarely and when few codes
/// are out. A secret: its description is `<redacted>` and no error quotes it.
package struct ServerKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    let hmac: HMACSHA256.Key

    /// The shortest key, in bytes: 32 (the strength of SHA-256).
    package static let minimumBytes = 32

    /// Creates a key from bytes.
    /// - Parameter bytes: At least 32 bytes from a secure source (a secrets manager, `openssl rand 32`).
    /// - Throws: ``ParseError`` with subject `server key` and kind `wrong-length` for fewer than 32 bytes
    ///   (its input reads `<redacted>`).
    package init(bytes: some Collection<UInt8>) throws(ParseError) {
        guard bytes.count >= Self.minimumBytes else {
            throw ParseError(.serverKey, .wrongLength, input: "<redacted>", reason: "\(bytes.count) bytes; a server key has at least \(Self.minimumBytes)")
        }
        hmac = HMACSHA256.Key(bytes)
    }

    /// Creates a key from base64 text (how a key travels in an environment variable).
    /// - Parameter base64: Standard or URL-safe base64 of at least 32 bytes; padding optional.
    /// - Throws: ``ParseError`` with subject `server key`: `malformed` for text that is not base64,
    ///   `wrong-length` for fewer than 32 bytes (its input reads `<redacted>`).
    package init(base64: Secret) throws(ParseError) {
        guard let bytes = Base64.decode(base64.reveal()) else {
            throw ParseError(.serverKey, .malformed, input: "<redacted>", reason: "the text is not base64")
        }
        try self.init(bytes: bytes)
    }

    /// A key from bytes known to be long enough (the package's own random keys).
    package init(unchecked bytes: [UInt8]) { hmac = HMACSHA256.Key(bytes) }

    /// Always `<redacted>`.
    package var description: String { "<redacted>" }
    /// Always `ServerKey(<redacted>)`.
    package var debugDescription: String { "ServerKey(<redacted>)" }
    /// A mirror with no children.
    package var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
