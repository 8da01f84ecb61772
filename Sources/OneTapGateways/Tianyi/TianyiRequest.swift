import Foundation
import OneTap
import OneTapSupport

/// One open API request's fields, encrypted and signed as the configuration says: built without I/O, so
/// `onetap gateway sign tianyi` and the tests can show exactly what is signed.
package struct TianyiRequest: Sendable {
    /// The fields sent, in order.
    package let fields: [(name: String, value: String)]
    /// The text the HMAC signs (never holds a secret: the secret is the HMAC's key).
    package let signedText: String
    /// `sign`.
    package let sign: String
    /// The signed text as `onetap gateway sign` shows it: in the encrypted form, `paras` as how it is made
    /// (`XXTEA(accessToken=…&timeStamp=…, <appSecret>)`), never its hex: that is the token encrypted, which with the
    /// signature is the request itself, replayable, and open to whoever holds the app secret.
    let shownText: String

    /// Builds a request.
    /// - Parameters:
    ///   - parameters: The call's own parameters, in order (`accessToken`, `timeStamp`, …).
    ///   - configuration: The gateway's settings.
    /// - Throws: ``GatewayError/Kind/misconfigured(_:)`` when the HMAC cannot be made;
    ///   ``GatewayError/Kind/refusedCredential(_:)`` when (the encrypted form) a value holds `&`, `=`, `%` or a control
    ///   character.
    package init(parameters: [(name: String, value: String)], configuration: TianyiConfiguration) throws(GatewayError) {
        let c = configuration
        var fields: [(name: String, value: String)]
        let shownText: String
        switch c.mode {
        case .encrypted:
            // `paras` is `name=value&…` with the values as they are (the samples escape nothing): a value holding `&`
            // or `=` would be read as other fields, and one holding `%` would be if the server percent-decodes the
            // text before it splits it (not stated), so such a value, or one with a control character, is refused
            // before anything is sent (never quoted).
            let odd = parameters.first { parameter in
                parameter.value.unicodeScalars.contains { "&=%".unicodeScalars.contains($0) || $0.properties.generalCategory == .control }
            }
            if let odd {
                throw GatewayError(
                    gateway: TianyiTokenExchange.name,
                    .refusedCredential("\(odd.name) holds '&', '=', '%' or a control character, which the XXTEA paras text cannot carry"))
            }
            let plain = parameters.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
            let paras = XXTEA.encryptHex(plain, secret: c.appSecret)
            fields = [("appId", c.appID), ("clientType", c.clientType), ("format", c.format), ("version", c.version), ("paras", paras)]
            signedText = c.appID + c.clientType + c.format + c.version + paras
            shownText = c.appID + c.clientType + c.format + c.version + "XXTEA(\(plain), <appSecret>)"
        case .plain:
            fields = [("clientId", c.appID), ("clientType", c.clientType), ("format", c.format), ("version", c.version)] + parameters
            // Java's `String.compareTo` on the names: UTF-16 code units, the same order as bytes for ASCII names.
            signedText = fields.sorted { Array($0.name.utf16).lexicographicallyPrecedes($1.name.utf16) }.map(\.value).joined()
            shownText = signedText
        }
        let key = Array((c.signSecret ?? c.appSecret).reveal().utf8)
        do {
            let tag = try (c.signDigest == .hmacSHA1 ? Digest.sha1 : Digest.md5).hmac(key: key, message: Array(signedText.utf8))
            sign = Hex.encode(tag, uppercase: c.uppercaseSign)
        } catch {
            throw GatewayError(gateway: TianyiTokenExchange.name, .misconfigured("the sign could not be made: \(error)"))
        }
        fields.append(("sign", sign))
        self.fields = fields
        self.shownText = shownText
    }

    /// The `application/x-www-form-urlencoded` body.
    package var body: [UInt8] { FormEncoding.body(fields) }

    /// What `onetap gateway sign tianyi` shows: the signed text, `paras` as how it is made (``shownText``), the key
    /// shown as `<appSecret>` or `<signSecret>`.
    /// - Parameter configuration: The settings the request was built with.
    /// - Returns: The preview.
    package func preview(_ configuration: TianyiConfiguration) -> SignPreview {
        let keyName = configuration.signSecret == nil ? "<appSecret>" : "<signSecret>"
        return SignPreview(stringToSign: shownText, signature: sign, algorithm: "\(configuration.signDigest.rawValue) with key \(keyName)")
    }

    /// A call's time stamp: milliseconds since 1970 from the gateway's clock.
    /// - Parameter date: The instant.
    /// - Returns: Its milliseconds as decimal digits (never negative).
    package static func timeStamp(_ date: Date) -> String {
        String(max(0, date.millisecondsSince1970))
    }
}
