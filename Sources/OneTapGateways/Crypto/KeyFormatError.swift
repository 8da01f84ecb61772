import Foundation

/// A key that cannot be used as given: which form it is in, what the gateway needs, and the `openssl` command that
/// converts it. Never any of the key's bytes.
package struct KeyFormatError: Error, Equatable, CustomStringConvertible {
    /// What the text holds, as far as its PEM label tells: `"an encrypted PKCS#8 private key"`.
    package let found: String
    /// What was needed and how to get it: `"an unencrypted RSA private key; decrypt it with: openssl pkcs8 …"`.
    package let fix: String

    /// `the key is an encrypted PKCS#8 private key; needed: …`.
    package var description: String { "the key is \(found); needed: \(fix)" }
}
