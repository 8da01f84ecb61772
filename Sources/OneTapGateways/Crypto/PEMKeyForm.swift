import Foundation

/// The forms of PEM text a key may come in, told by its label (`-----BEGIN RSA PRIVATE KEY-----`).
package enum PEMKeyForm: String, Sendable, Equatable {
    /// `PRIVATE KEY`: PKCS#8, unencrypted (the form Java's `PKCS8EncodedKeySpec` and most vendors take).
    case pkcs8Private = "a PKCS#8 private key"
    /// `RSA PRIVATE KEY`: PKCS#1 (OpenSSL's traditional form).
    case pkcs1Private = "a PKCS#1 RSA private key"
    /// `RSA PRIVATE KEY` with `Proc-Type: 4,ENCRYPTED`: PKCS#1 under a passphrase.
    case pkcs1EncryptedPrivate = "a passphrase-encrypted PKCS#1 RSA private key"
    /// `ENCRYPTED PRIVATE KEY`: PKCS#8 under a passphrase.
    case pkcs8EncryptedPrivate = "an encrypted PKCS#8 private key"
    /// `PUBLIC KEY`: X.509 SubjectPublicKeyInfo.
    case spkiPublic = "a public key (X.509 SubjectPublicKeyInfo)"
    /// `RSA PUBLIC KEY`: PKCS#1.
    case pkcs1Public = "a PKCS#1 RSA public key"
    /// `CERTIFICATE`: an X.509 certificate.
    case certificate = "an X.509 certificate"
    /// No PEM label: bare Base64 (as vendors' consoles show keys), read as DER.
    case bareBase64 = "bare Base64 with no PEM label"
    /// Another PEM label, or no key at all.
    case other = "not a PEM key"

    /// The form of PEM text, by its first label.
    /// - Parameter text: The key's text.
    /// - Returns: Its form.
    package static func of(_ text: String) -> PEMKeyForm {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let begin = trimmed.range(of: "-----BEGIN ") else {
            let base64 = trimmed.unicodeScalars.allSatisfy { $0.properties.isWhitespace || "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=".unicodeScalars.contains($0) }
            return base64 && trimmed.count >= 64 ? .bareBase64 : .other
        }
        let label = trimmed[begin.upperBound...].prefix { $0 != "-" }
        switch label {
        case "PRIVATE KEY": return .pkcs8Private
        case "RSA PRIVATE KEY": return trimmed.contains("Proc-Type: 4,ENCRYPTED") ? .pkcs1EncryptedPrivate : .pkcs1Private
        case "ENCRYPTED PRIVATE KEY": return .pkcs8EncryptedPrivate
        case "PUBLIC KEY": return .spkiPublic
        case "RSA PUBLIC KEY": return .pkcs1Public
        case "CERTIFICATE": return .certificate
        default: return .other
        }
    }
}
