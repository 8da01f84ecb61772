import Foundation
import OneTap
import OneTapSupport

/// What the aggregators' gateways share: the flows they serve, the rule that a failure before sending is not a
/// spent token, and the decryption of RSA-encrypted numbers in their answers.
package enum AggregatorCall {
    /// Refuses a credential of a flow the gateway is not configured to serve (or SMS): nothing is sent.
    /// - Parameters:
    ///   - credential: The credential.
    ///   - flows: The flows the gateway serves.
    ///   - gateway: The gateway's name.
    /// - Throws: ``ExchangeNotSentError`` naming the flow.
    private static func check(_ credential: CarrierCredential, serves flows: Set<LoginFlow>, gateway: String) throws(ExchangeNotSentError) {
        guard credential.flow.isOneTap, flows.contains(credential.flow) else {
            throw ExchangeNotSentError("\(gateway): configured for \(flows.map(\.rawValue).sorted().joined(separator: ", ")); this credential is \(credential.flow)")
        }
    }

    /// One exchange: a credential of a flow the gateway does not serve is refused, the call runs under ``SentOnce``'s
    /// rule, and its answer is read as the login reads it.
    /// - Parameters:
    ///   - credential: The credential.
    ///   - flows: The flows the gateway serves.
    ///   - gateway: The gateway's name.
    ///   - call: Sends the request for the credential's token.
    /// - Returns: The code and the number.
    /// - Throws: ``ExchangeNotSentError`` when nothing was sent; what the call threw otherwise.
    package static func exchange(
        _ credential: CarrierCredential, serves flows: Set<LoginFlow>, gateway: String, _ call: (Secret) async throws -> AggregatorAnswer
    ) async throws -> ExchangeResponse {
        try check(credential, serves: flows, gateway: gateway)
        return try await SentOnce.run { try await call(credential.token).exchangeResponse }
    }

    /// One number verification, under the rules of ``exchange(_:serves:gateway:_:)``.
    /// - Parameters:
    ///   - credential: The credential.
    ///   - flows: The flows the gateway serves.
    ///   - gateway: The gateway's name.
    ///   - call: Sends the request for the credential's token.
    /// - Returns: The code and the verdict.
    /// - Throws: ``ExchangeNotSentError`` when nothing was sent; what the call threw otherwise.
    package static func verify(
        _ credential: CarrierCredential, serves flows: Set<LoginFlow>, gateway: String, _ call: (Secret) async throws -> AggregatorAnswer
    ) async throws -> NumberVerificationResponse {
        try check(credential, serves: flows, gateway: gateway)
        return try await SentOnce.run { try await call(credential.token).verificationResponse }
    }

    /// The most RSA blocks a number's ciphertext is read in: 2.
    static let maximumRSABlocks = 2

    /// Decrypts a number RSA-encrypted (PKCS#1 v1.5) to the app's public key: Base64 or hexadecimal, one block or
    /// two of the key's length (more are refused before any is decrypted: ``maximumRSABlocks``).
    /// - Parameters:
    ///   - text: The ciphertext as sent.
    ///   - key: The app's private key.
    ///   - field: The member it came from.
    ///   - keyField: The configuration field of the key, for the error.
    ///   - gateway: The gateway's name.
    /// - Returns: The number.
    /// - Throws: ``GatewayError/Kind/malformedBody(_:)`` for a text that is no ciphertext of the key's blocks, and one
    ///   error, ``GatewayAnswer/decryptedPhoneNumber(gateway:label:key:_:)``'s, for a ciphertext that does not decrypt
    ///   or decrypts to no number, saying that the configured key must be the private half of the public key given
    ///   to the vendor.
    package static func rsaPhoneNumber(_ text: String, key: RSAPrivateKey, field: String, keyField: String, gateway: String) throws(GatewayError) -> PhoneNumber {
        let block = (key.bits + 7) / 8
        let bytes: [UInt8]
        if text.utf8.count % (block * 2) == 0, let decoded = Hex.decode(text) {
            bytes = decoded
        } else if let data = Data(base64Encoded: text), data.count % block == 0 {
            bytes = [UInt8](data)
        } else {
            throw GatewayError(gateway: gateway, .malformedBody("'\(field)' is neither Base64 nor hexadecimal of \(key.bits)-bit RSA blocks"))
        }
        guard !bytes.isEmpty else { throw GatewayError(gateway: gateway, .malformedBody("'\(field)' is empty")) }
        // A number fits in one block; a second is tolerated (a vendor that splits its plaintext), more are refused
        // before any is decrypted: each costs a private-key operation, and a hostile answer could hold many.
        guard bytes.count <= Self.maximumRSABlocks * block else {
            throw GatewayError(
                gateway: gateway,
                .malformedBody("'\(field)' holds \(bytes.count / block) RSA blocks; a number takes one (at most \(Self.maximumRSABlocks) are read)"))
        }
        let described = "with \(keyField) (\(key.form.rawValue), \(key.bits) bits): it must be the private half of the public key configured at the vendor"
        return try GatewayAnswer.decryptedPhoneNumber(gateway: gateway, label: "'\(field)'", key: described) { () throws(CryptoError) in
            try decryptedBlocks(bytes, block: block) { (block) throws(CryptoError) in try key.decryptPKCS1v15(block) }
        }
    }

    /// The blocks of a ciphertext decrypted one by one and joined. Every block is decrypted, whichever fails, and the
    /// first failure is thrown after the last: stopping at the first would spend one private-key operation less when
    /// the first block's padding is bad, and an answer's time would tell good padding from bad (a padding oracle
    /// under OpenSSL before 3.2, which fails bad padding at once, for whoever can answer in the vendor's place).
    /// - Parameters:
    ///   - bytes: The ciphertext, a whole number of blocks.
    ///   - block: The block's length in bytes (the key's modulus).
    ///   - decrypt: Decrypts one block.
    /// - Returns: The plaintexts joined.
    /// - Throws: The first block's failure, once every block was decrypted.
    package static func decryptedBlocks(
        _ bytes: [UInt8], block: Int, _ decrypt: ([UInt8]) throws(CryptoError) -> [UInt8]
    ) throws(CryptoError) -> [UInt8] {
        var plaintext: [UInt8] = []
        var failure: CryptoError?
        for start in stride(from: 0, to: bytes.count, by: block) {
            do {
                plaintext += try decrypt(Array(bytes[start..<start + block]))
            } catch {
                failure = failure ?? error
            }
        }
        if let failure { throw failure }
        return plaintext
    }
}
