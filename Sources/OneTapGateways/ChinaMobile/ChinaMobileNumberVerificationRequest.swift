import Foundation
import OneTap
import OneTapSupport

/// One `tokenValidate` request, signed: built without I/O, so `onetap gateway sign cmcc` and the tests can show exactly
/// what is hashed and signed.
///
/// - `phoneNum` = SHA-256 of `phone + appKey + timestamp`, 64 upper-case hexadecimal digits;
/// - `sign` = HMAC-SHA256 keyed with the appKey over `appId + msgId + phoneNum + timestamp + token + version` (the
///   parameters' names in natural order), 64 upper-case hexadecimal digits.
package struct ChinaMobileNumberVerificationRequest: Sendable {
    /// `header`'s fields, in the document's order.
    package let header: [(name: String, value: String)]
    /// `body`'s fields, in the document's order.
    package let body: [(name: String, value: String)]
    /// The string `sign` is made over (it holds no secret: `phoneNum` is a digest).
    package let signedText: String
    /// `sign`.
    package let sign: String

    /// Builds a request.
    /// - Parameters:
    ///   - token: The SDK's token.
    ///   - phone: The number to check, 11 digits.
    ///   - messageID: `msgId`, unique per request.
    ///   - timestamp: `timestamp`: 17 digits.
    ///   - configuration: The gateway's settings.
    /// - Throws: ``GatewayError/Kind/misconfigured(_:)`` when the digest or the HMAC cannot be made.
    package init(
        token: Secret, phone: String, messageID: String, timestamp: String, configuration: ChinaMobileNumberVerificationConfiguration
    ) throws(GatewayError) {
        let key = configuration.appKey.reveal()
        let phoneNum: String
        do {
            phoneNum = Hex.encode(try Digest.sha256.hash(phone + key + timestamp), uppercase: true)
            signedText = configuration.appID + messageID + phoneNum + timestamp + token.reveal() + configuration.version
            sign = Hex.encode(try Digest.sha256.hmac(key: Array(key.utf8), message: Array(signedText.utf8)), uppercase: true)
        } catch {
            throw GatewayError(gateway: ChinaMobileNumberVerification.name, .misconfigured("the sign could not be made: \(error)"))
        }
        header = [("version", configuration.version), ("msgId", messageID), ("timestamp", timestamp), ("appId", configuration.appID)]
        var body: [(name: String, value: String)] = []
        if let openType = configuration.openType { body.append(("openType", openType)) }
        body.append(("requesterType", configuration.requesterType))
        if let keyType = configuration.keyType { body.append(("keyType", keyType)) }
        body += [("phoneNum", phoneNum), ("token", token.reveal()), ("sign", sign)]
        self.body = body
    }

    /// The JSON body: `{"header": {…}, "body": {…}}`, every value a string.
    package var json: [UInt8] {
        Array(JSONValue.object(["header": ChinaMobileRequest.object(header), "body": ChinaMobileRequest.object(body)]).json.utf8)
    }
}
