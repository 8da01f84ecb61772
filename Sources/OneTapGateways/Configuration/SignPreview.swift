/// What a gateway signs and the signature it makes, for `onetap gateway sign`: to set beside what a vendor's
/// support says when it answers "sign error". The app's own secrets stand in the text as `<appSecret>`,
/// `<secretKey>`; a request's values (a token, a number) stand as given, so the type is the package's own and its
/// description leaves the text out: the tool hides the values read from standard input before it shows the text.
package struct SignPreview: Hashable, Sendable, CustomStringConvertible {
    /// The exact string the signature is made over, each of the app's secrets shown as `<appSecret>`, `<secretKey>`.
    package let stringToSign: String
    /// The signature as the request carries it.
    package let signature: String
    /// The signature's algorithm as the vendor names it (`MD5`, `ACS3-HMAC-SHA256`, `TC3-HMAC-SHA256`).
    package let algorithm: String

    /// `MD5 signature 213EF8…`: the text signed is left out (it holds the request's values, a token among them).
    package var description: String { "\(algorithm) signature \(signature)" }
}
