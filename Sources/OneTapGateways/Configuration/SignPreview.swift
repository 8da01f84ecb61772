/// What a gateway signs and the signature it makes, for `onetap gateway sign`: to set beside what a vendor's
/// support says when it answers "sign error". Secrets stand in the text as `<fieldName>`. Only the gateways make one
/// (its memberwise initialiser is internal).
public struct SignPreview: Hashable, Sendable, CustomStringConvertible {
    /// The exact string the signature is made over, each secret shown as `<appSecret>`, `<secretKey>`.
    public let stringToSign: String
    /// The signature as the request carries it.
    public let signature: String
    /// The signature's algorithm as the vendor names it (`MD5`, `ACS3-HMAC-SHA256`, `TC3-HMAC-SHA256`).
    public let algorithm: String

    /// `MD5 over "300011…<appSecret>": 213EF8…`.
    public var description: String { "\(algorithm) over \"\(stringToSign)\": \(signature)" }
}
