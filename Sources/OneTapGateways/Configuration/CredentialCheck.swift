import Foundation
import OneTap

/// The checks a gateway makes of its ids and secrets when it is created, before any call, each failure a
/// ``GatewayError`` `misconfigured` naming the field and the fix: the same rules, and the same words, for every vendor.
package enum CredentialCheck {
    /// An id a vendor's console shows (`appId`, `appKey`, `secretId`): ASCII letters and digits, not empty.
    /// - Parameters:
    ///   - value: The id.
    ///   - field: The configuration's field (`appId`).
    ///   - what: What it must be (`the appId from Shanyan's console`).
    ///   - gateway: The gateway's name.
    /// - Throws: `<field> must be <what> (letters and digits), not '<its first four characters>…' (<its length> characters)`.
    package static func lettersAndDigits(_ value: String, _ field: String, mustBe what: String, gateway: String) throws(GatewayError) {
        guard !value.isEmpty, value.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
            throw GatewayError(gateway: gateway, .misconfigured("\(field) must be \(what) (letters and digits), not \(glimpse(value))"))
        }
    }

    /// A value that should have been an id, as an error shows it: its first four characters and its length,
    /// never more (a secret pasted into an id's field by mistake stays a secret).
    /// - Parameter value: The value.
    /// - Returns: `'LTAI…' (31 characters)`.
    package static func glimpse(_ value: String) -> String {
        guard value.count > 4 else { return "'\(DisplayText.label(value, limit: 4))'" }
        return "'\(DisplayText.label(String(value.prefix(4)), limit: 4))…' (\(value.count) characters)"
    }

    /// A private key in PEM, read once when the gateway is created.
    /// - Parameters:
    ///   - pem: The key's PEM text.
    ///   - field: The key's field (`privateKey`).
    ///   - note: What the key is for, when the key's error alone would not say (`JiGuang encrypts phone to …`).
    ///   - gateway: The gateway's name.
    /// - Returns: The key.
    /// - Throws: `<field>: <what is wrong with the key> (<note>)`; never the key.
    package static func privateKey(_ pem: Secret, _ field: String, note: String? = nil, gateway: String) throws(GatewayError) -> RSAPrivateKey {
        do {
            return try RSAPrivateKey(pem: pem.reveal())
        } catch {
            throw GatewayError(gateway: gateway, .misconfigured("\(field): \(error)" + (note.map { " (\($0))" } ?? "")))
        }
    }

    /// A secret that signs: not empty, and without white space around it (the vendor would answer a sign error).
    /// - Parameters:
    ///   - secret: The secret.
    ///   - field: The configuration's field (`appSecret`).
    ///   - fix: What to set it to (`the APPSecret of the app in China Mobile's developer community`).
    ///   - symptom: What a padded secret causes (`a 103101 sign error`).
    ///   - gateway: The gateway's name.
    /// - Throws: `<field> is empty: set it to <fix>`, or `<field> begins or ends with white space (<symptom>): remove it`;
    ///   never the secret.
    package static func trimmed(_ secret: Secret, _ field: String, setTo fix: String, padded symptom: String, gateway: String) throws(GatewayError) {
        guard !secret.isEmpty else { throw GatewayError(gateway: gateway, .misconfigured("\(field) is empty: set it to \(fix)")) }
        guard secret.reveal() == secret.reveal().trimmingCharacters(in: .whitespacesAndNewlines) else {
            throw GatewayError(gateway: gateway, .misconfigured("\(field) begins or ends with white space (\(symptom)): remove it"))
        }
    }
}
