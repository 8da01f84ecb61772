extension AccountID {
    /// The prefix of the ids OneTap generates for accounts created by number: `acct_`.
    package static let generatedPrefix = "acct_"

    /// An account id made of 16 random bytes: `acct_` and the bytes as 22 characters of URL-safe base64
    /// without padding (RFC 4648 §5), e.g. `acct_AAECAwQFBgcICQoLDA0ODw` for the bytes 0 to 15. The caller
    /// draws the bytes (the system's generator, above the core).
    /// - Parameter bytes: 16 bytes; more are ignored, fewer are padded with zeros so the id keeps its length.
    /// - Returns: The id.
    package static func generated(from bytes: [UInt8]) -> AccountID {
        var sixteen = Array(bytes.prefix(16))
        sixteen += [UInt8](repeating: 0, count: 16 - sixteen.count)
        return AccountID(verified: generatedPrefix + Base64.urlEncoded(sixteen))
    }

    /// An id already known to be valid (27 ASCII characters).
    private init(verified text: String) {
        rawValue = text
    }
}
