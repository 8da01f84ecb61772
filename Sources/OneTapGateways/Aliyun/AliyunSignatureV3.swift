import Foundation
import OneTap
import OneTapSupport

/// Aliyun's request signature V3 (`ACS3-HMAC-SHA256`), shared by every Aliyun call OneTap makes (PNVS `GetMobile`
/// and `VerifyMobile`, SMS `SendSms`), as Aliyun's document "V3版本请求体&签名机制" gives it
/// (`Data/gateways/aliyun-pnvs.md` names the document and each step):
///
/// ```text
/// CanonicalRequest = METHOD \n / \n CanonicalQueryString \n CanonicalHeaders \n SignedHeaders \n hex(SHA-256(body))
/// StringToSign     = ACS3-HMAC-SHA256 \n hex(SHA-256(CanonicalRequest))
/// Signature        = hex(HMAC-SHA256(AccessKeySecret, StringToSign))
/// Authorization    = ACS3-HMAC-SHA256 Credential=<AccessKeyId>,SignedHeaders=<SignedHeaders>,Signature=<Signature>
/// ```
///
/// Pure: the date and the nonce come in (the gateway reads its clock and the system's secure generator).
package struct AliyunSignatureV3: Sendable {
    /// The algorithm's name, as the `Authorization` header and the string to sign begin.
    package static let algorithm = "ACS3-HMAC-SHA256"

    /// One signed request: what was signed, and the headers that carry it.
    package struct Signed: Sendable {
        /// The canonical request, every step of the document's step 1.
        package let canonicalRequest: String
        /// `ACS3-HMAC-SHA256\n` and the canonical request's SHA-256 in lower-case hex.
        package let stringToSign: String
        /// The signature: 64 lower-case hex digits.
        package let signature: String
        /// The `Authorization` header's value.
        package let authorization: String
        /// The canonical query string, which is also the URL's query.
        package let query: String
        /// The headers to send: every signed header but `host` (the transport writes it from the URL), then
        /// `Authorization`.
        package let headers: [HTTPHeader]
    }

    /// The AccessKey's id (`Credential=`).
    package let accessKeyID: String
    /// The AccessKey's secret: the HMAC key, as it is (no suffix, unlike signature V2's `&`).
    package let accessKeySecret: Secret

    /// A signer.
    /// - Parameters:
    ///   - accessKeyID: The AccessKey's id.
    ///   - accessKeySecret: Its secret.
    package init(accessKeyID: String, accessKeySecret: Secret) {
        self.accessKeyID = accessKeyID
        self.accessKeySecret = accessKeySecret
    }

    /// Signs an RPC-style request (canonical URI `/`).
    /// - Parameters:
    ///   - method: `POST`.
    ///   - host: The `host` header's value: the endpoint's host, with `:port` when the URL names one.
    ///   - query: The API's parameters, which travel in the query string.
    ///   - body: The body (empty for RPC calls whose parameters are in the query).
    ///   - contentType: The body's `Content-Type`, signed when given.
    ///   - action: `x-acs-action` (`GetMobile`).
    ///   - version: `x-acs-version` (`2017-05-25`).
    ///   - date: `x-acs-date`'s instant (seconds are kept, fractions dropped).
    ///   - nonce: `x-acs-signature-nonce`: unique per request.
    ///   - gateway: The gateway's name, for errors.
    /// - Returns: The signed request.
    /// - Throws: ``GatewayError`` `misconfigured` when libcrypto refused the digest or the HMAC.
    package func sign(
        method: String = "POST", host: String, query: [(name: String, value: String)], body: [UInt8] = [], contentType: String? = nil,
        action: String, version: String, date: Date, nonce: String, gateway: String
    ) throws(GatewayError) -> Signed {
        do {
            let payloadHash = Hex.encode(try Digest.sha256.hash(body))
            var signed: [(name: String, value: String)] = [
                ("host", host), ("x-acs-action", action), ("x-acs-content-sha256", payloadHash), ("x-acs-date", Self.date(date)),
                ("x-acs-signature-nonce", nonce), ("x-acs-version", version),
            ]
            if let contentType { signed.append(("content-type", contentType)) }
            signed.sort { $0.name < $1.name }
            let canonicalHeaders = signed.map { "\($0.name):\($0.value.trimmingCharacters(in: .whitespaces))\n" }.joined()
            let signedHeaders = signed.map(\.name).joined(separator: ";")
            let canonicalQuery = Self.canonicalQuery(query)
            let canonicalRequest = [method, "/", canonicalQuery, canonicalHeaders, signedHeaders, payloadHash].joined(separator: "\n")
            let stringToSign = Self.algorithm + "\n" + Hex.encode(try Digest.sha256.hash(canonicalRequest))
            let signature = Hex.encode(try Digest.sha256.hmac(key: Array(accessKeySecret.reveal().utf8), message: Array(stringToSign.utf8)))
            let authorization = "\(Self.algorithm) Credential=\(accessKeyID),SignedHeaders=\(signedHeaders),Signature=\(signature)"
            let headers = signed.filter { $0.name != "host" }.map { HTTPHeader($0.name, $0.value) } + [HTTPHeader("Authorization", authorization)]
            return Signed(
                canonicalRequest: canonicalRequest, stringToSign: stringToSign, signature: signature, authorization: authorization, query: canonicalQuery,
                headers: headers)
        } catch {
            throw GatewayError(gateway: gateway, .misconfigured("the V3 signature could not be made: \(error)"))
        }
    }

    /// The canonical query string: parameters sorted by name (byte order), each name and value percent-encoded,
    /// `name=value` joined with `&`.
    /// - Parameter parameters: The parameters.
    /// - Returns: The string (empty for none).
    package static func canonicalQuery(_ parameters: [(name: String, value: String)]) -> String {
        parameters.sorted { Array($0.name.utf8).lexicographicallyPrecedes(Array($1.name.utf8)) }
            .map { "\(percentEncode($0.name))=\(percentEncode($0.value))" }.joined(separator: "&")
    }

    /// RFC 3986 encoding as the document gives it: `A–Z a–z 0–9 - _ . ~` kept, every other UTF-8 byte `%XX` in upper
    /// case (a space is `%20`, `*` is `%2A`).
    /// - Parameter text: The text.
    /// - Returns: The encoded text.
    package static func percentEncode(_ text: String) -> String {
        var out = [UInt8]()
        out.reserveCapacity(text.utf8.count)
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
                out.append(byte)
            default:
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `x-acs-date`: ISO 8601 in UTC to the second, `2023-10-26T10:22:32Z` (fractions dropped, years 0…9999).
    /// - Parameter date: The instant.
    /// - Returns: The text.
    package static func date(_ date: Date) -> String {
        let milliseconds = min(max(date.millisecondsSince1970, Timestamp.earliest), Timestamp.latest)
        let text = Timestamp.format(milliseconds: milliseconds - milliseconds % 1000)
        return String(text.prefix(19)) + "Z"
    }

    /// What `onetap gateway sign` shows: the exact string to sign (the secret is the HMAC's key, never shown).
    /// - Parameter signed: A signed request.
    /// - Returns: The preview.
    package static func preview(_ signed: Signed) -> SignPreview {
        SignPreview(stringToSign: signed.stringToSign, signature: signed.signature, algorithm: algorithm)
    }
}
