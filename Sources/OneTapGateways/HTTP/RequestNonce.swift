import OneTap

/// A request's one-use id (`msgid`, `exID`, `outId`, `nonce`, `x-acs-signature-nonce`): 16 bytes from the system's
/// secure generator as 32 hexadecimal digits. Every gateway draws its ids here unless a test pins them.
package enum RequestNonce {
    /// A new id, in lower-case hexadecimal.
    /// - Returns: 32 hexadecimal digits.
    package static func make() -> String { Hex.encode(systemRandomBytes(16)) }

    /// A new id, in upper-case hexadecimal (China Mobile's `tokenValidate` `msgId`).
    /// - Returns: 32 hexadecimal digits.
    package static func makeUppercase() -> String { Hex.encode(systemRandomBytes(16), uppercase: true) }
}
