/// A libcrypto operation that failed, or input it cannot take: the operation and why, never a key, a plaintext
/// or a secret.
package struct CryptoError: Error, Equatable, CustomStringConvertible {
    /// What was being done: `"AES-128-CBC decryption"`, `"RSA PKCS#1 v1.5 decryption"`.
    package let operation: String
    /// Why it failed, in words that hold no secret: `"the key is 20 bytes; AES takes 16, 24 or 32"`.
    package let reason: String

    /// Creates an error.
    /// - Parameters:
    ///   - operation: What was being done.
    ///   - reason: Why it failed (no secret in it).
    package init(_ operation: String, _ reason: String) {
        self.operation = operation
        self.reason = reason
    }

    /// `AES-128-CBC decryption failed: bad padding (a wrong key or IV, or not this cipher's output)`.
    package var description: String { "\(operation) failed: \(reason)" }
}
