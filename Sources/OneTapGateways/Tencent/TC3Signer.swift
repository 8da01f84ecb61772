import Foundation
import OneTap
import OneTapSupport

/// Tencent Cloud API 3.0's signature v3, `TC3-HMAC-SHA256`, as Tencent's "签名方法 v3" document gives it
/// (`Data/gateways/tencent-sms.md` names the document; its worked example is a test vector):
///
/// 1. the canonical request: `POST\n/\n\ncontent-type:…\nhost:…\n\ncontent-type;host\n` + SHA-256 of the body, in
///    lower-case hexadecimal;
/// 2. the string to sign: `TC3-HMAC-SHA256\n` + timestamp + `\n` + `date/service/tc3_request` + `\n` + SHA-256 of the
///    canonical request (the date is the timestamp's UTC date);
/// 3. the key: HMAC-SHA256 chained over `"TC3" + SecretKey`, the date, the service and `tc3_request`; the signature is
///    HMAC-SHA256 of the string to sign under it, in lower-case hexadecimal;
/// 4. the `Authorization` header: `TC3-HMAC-SHA256 Credential=SecretId/scope, SignedHeaders=content-type;host,
///    Signature=…`, sent with `X-TC-Action`, `X-TC-Version`, `X-TC-Timestamp` and (when given) `X-TC-Region`.
package struct TC3Signer: Sendable {
    /// `TC3-HMAC-SHA256`.
    package static let algorithm = "TC3-HMAC-SHA256"
    /// The content type the body is sent and signed with: the document's example's.
    package static let contentType = "application/json; charset=utf-8"

    /// One signed request: every intermediate string, for tests and `onetap gateway sign`, and the headers to send.
    package struct Signed: Sendable {
        /// The canonical request (no secret in it).
        package let canonicalRequest: String
        /// The string to sign (no secret in it).
        package let stringToSign: String
        /// The signature: 64 lower-case hexadecimal digits.
        package let signature: String
        /// The `Authorization` header's value.
        package let authorization: String
        /// The headers to send: `Authorization`, `Content-Type` and the `X-TC-*` common parameters (`Host` is the
        /// URL's, set by the transport).
        package let headers: [HTTPHeader]
    }

    /// The gateway's name, for errors.
    package let gateway: String
    /// `SecretId`.
    package let secretID: String
    /// `SecretKey`.
    package let secretKey: Secret
    /// The service: the product's domain's first label (`sms`, `captcha`, `cvm`).
    package let service: String

    /// The `Host` header's value for a URL: its host, and its port when it names one.
    /// - Parameter url: Where the request goes.
    /// - Returns: `sms.tencentcloudapi.com`, `127.0.0.1:8443`.
    package static func host(of url: URL) -> String {
        url.hostAndPort.lowercased()
    }

    /// The credential scope's date: the timestamp's UTC date, `yyyy-MM-dd`.
    /// - Parameter timestamp: Seconds since 1970.
    /// - Returns: `2019-02-25`.
    package static func date(_ timestamp: Int64) -> String {
        let civil = CivilDate.date(timestamp.floorDivided(by: 86_400))
        func digits(_ value: Int64, _ count: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, count - text.count)) + text
        }
        return "\(digits(civil.year, 4))-\(digits(civil.month, 2))-\(digits(civil.day, 2))"
    }

    /// Signs a POST of a JSON body.
    /// - Parameters:
    ///   - action: `X-TC-Action` (`SendSms`).
    ///   - version: `X-TC-Version` (`2021-01-11`).
    ///   - region: `X-TC-Region`, or nil for an API that takes none.
    ///   - host: The `Host` header's value (``host(of:)``).
    ///   - timestamp: `X-TC-Timestamp`: seconds since 1970, from the gateway's clock.
    ///   - payload: The body's bytes, exactly as sent.
    /// - Returns: The signed request's strings and headers.
    /// - Throws: ``GatewayError/Kind/misconfigured(_:)`` when libcrypto cannot make the HMAC.
    package func sign(action: String, version: String, region: String?, host: String, timestamp: Int64, payload: [UInt8]) throws(GatewayError) -> Signed {
        let signedHeaders = "content-type;host"
        let date = Self.date(timestamp)
        let scope = "\(date)/\(service)/tc3_request"
        do {
            let canonicalRequest = "POST\n/\n\ncontent-type:\(Self.contentType)\nhost:\(host)\n\n\(signedHeaders)\n"
                + Hex.encode(try Digest.sha256.hash(payload))
            let stringToSign = "\(Self.algorithm)\n\(timestamp)\n\(scope)\n" + Hex.encode(try Digest.sha256.hash(canonicalRequest))
            var key = Array("TC3\(secretKey.reveal())".utf8)
            for part in [date, service, "tc3_request"] { key = try Digest.sha256.hmac(key: key, message: Array(part.utf8)) }
            let signature = Hex.encode(try Digest.sha256.hmac(key: key, message: Array(stringToSign.utf8)))
            let authorization = "\(Self.algorithm) Credential=\(secretID)/\(scope), SignedHeaders=\(signedHeaders), Signature=\(signature)"
            var headers = [
                HTTPHeader("Authorization", authorization), HTTPHeader("Content-Type", Self.contentType), HTTPHeader("X-TC-Action", action),
                HTTPHeader("X-TC-Timestamp", String(timestamp)), HTTPHeader("X-TC-Version", version),
            ]
            if let region { headers.append(HTTPHeader("X-TC-Region", region)) }
            return Signed(canonicalRequest: canonicalRequest, stringToSign: stringToSign, signature: signature, authorization: authorization, headers: headers)
        } catch {
            throw GatewayError(gateway: gateway, .misconfigured("the TC3-HMAC-SHA256 signature could not be made (\(error))"))
        }
    }

    /// Checks a configuration's credential: `SecretId` and `SecretKey` present, without spaces.
    /// - Throws: ``GatewayError/Kind/misconfigured(_:)`` naming the field and the fix, never the key.
    package func validate() throws(GatewayError) {
        guard !secretID.isEmpty, secretID.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
            throw GatewayError(gateway: gateway, .misconfigured("secretId must be the SecretId of a Tencent Cloud API key (letters and digits, AKID…)"))
        }
        let key = secretKey.reveal()
        guard !key.isEmpty else { throw GatewayError(gateway: gateway, .misconfigured("secretKey is empty: set it to the API key's SecretKey")) }
        guard key.allSatisfy({ $0.isASCII && !$0.isWhitespace }) else {
            throw GatewayError(gateway: gateway, .misconfigured("secretKey holds white space or non-ASCII characters (AuthFailure.SignatureFailure follows): remove them"))
        }
    }
}

extension Int64 {
    /// Division rounding towards negative infinity (a day number for instants before 1970 too).
    fileprivate func floorDivided(by divisor: Int64) -> Int64 {
        let (quotient, remainder) = quotientAndRemainder(dividingBy: divisor)
        return remainder < 0 ? quotient - 1 : quotient
    }
}
