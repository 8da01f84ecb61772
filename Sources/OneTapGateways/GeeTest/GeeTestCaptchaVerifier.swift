import Foundation
import OneTap
import OneTapSupport

/// GeeTest CAPTCHA v4's secondary validation (`/validate`) as a ``CaptchaVerifier``.
///
/// The client sends, as ``SMSContext/captcha``, the object the widget's `getValidate()` returns, as JSON:
/// `{"lot_number":"…","captcha_output":"…","pass_token":"…","gen_time":"…","captcha_id":"…"}` (`captcha_id`, when
/// present, must be this configuration's). OneTap posts the four values with `sign_token` = HMAC-SHA256 of
/// `lot_number` under `captcha_key` (lower-case hexadecimal) and `captcha_id` in the query. `result` `success` is
/// solved, `fail` is not; `status` `error` (GeeTest refusing the request: a wrong id, a malformed value, a repeat)
/// throws. One request per call, never retried.
public final class GeeTestCaptchaVerifier: CaptchaVerifier, CustomStringConvertible {
    /// The gateway's name in errors and configuration: `geetest`.
    public static let name = "geetest"
    /// The error codes GeeTest's server error list names, with their meaning.
    static let errors: [String: String] = [
        "-50000": "runtime error", "-50001": "illegal risk_type", "-50002": "param decrypt error", "-50003": "illegal verify (verified again)",
        "-50004": "jsonp xss", "-50005": "illegal gen_time", "-50101": "no captcha_id", "-50102": "illegal captcha_id: check captchaId",
        "-50103": "captcha_id does not exist: check captchaId", "-50104": "captcha_id deleted", "-50105": "captcha_id paused",
        "-50301": "no proof (the lot's record expired)", "-50302": "no lot_number", "-50303": "illegal lot_number", "-50304": "lot_number does not match",
        "-50305": "lot_number expired", "-50306": "process_token error", "-50307": "payload error", "-50308": "payload used",
    ]
    /// The codes of ``errors`` no client's values can cause: GeeTest's runtime error and the configuration's
    /// `captcha_id` refused (missing, illegal, unknown, deleted, paused). Every other code, a client's made-up, expired
    /// or repeated values may cause.
    static let providerFaults: Set<String> = ["-50000", "-50101", "-50102", "-50103", "-50104", "-50105"]

    /// The settings it was made with.
    public let configuration: GeeTestConfiguration
    private let transport: any HTTPTransport

    /// Creates the verifier, checking its configuration.
    /// - Parameters:
    ///   - configuration: The settings.
    ///   - transport: The HTTP transport.
    /// - Throws: ``GatewayError/Kind/misconfigured(_:)`` naming the field and the fix.
    public init(configuration: GeeTestConfiguration, transport: any HTTPTransport) throws(GatewayError) {
        guard !configuration.captchaID.isEmpty, configuration.captchaID.count <= 64,
            configuration.captchaID.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") })
        else {
            throw GatewayError(gateway: Self.name, .misconfigured("captchaId must be the captcha's id from GeeTest's console (letters and digits), not \(CredentialCheck.glimpse(configuration.captchaID))"))
        }
        let key = configuration.captchaKey.reveal()
        guard !key.isEmpty, key.allSatisfy({ $0.isASCII && !$0.isWhitespace }) else {
            throw GatewayError(gateway: Self.name, .misconfigured("captchaKey must be the captcha's key from GeeTest's console, without spaces"))
        }
        self.configuration = configuration
        self.transport = transport
    }

    /// `geetest captcha_id 647f5ed2…, gcaptcha4.geetest.com/validate`.
    public var description: String { configuration.description }

    /// Checks a captcha the client solved.
    /// - Parameters:
    ///   - token: The widget's `getValidate()` object as JSON.
    ///   - context: The send's context (GeeTest's validation takes no address).
    /// - Returns: Whether GeeTest answered `result` `success`.
    /// - Throws: ``CaptchaTokenError`` for a token that is not that object (nothing is sent); ``GatewayCodeError`` for
    ///   `status` `error`; ``GatewayError`` from the transport or for an answer that is not GeeTest's;
    ///   `CancellationError`.
    public func verify(_ token: Secret, context: SMSContext) async throws -> Bool {
        let names = ["lot_number", "captcha_output", "pass_token", "gen_time"]
        let members = try CaptchaToken.members(token, gateway: Self.name, required: names, optional: ["captcha_id"])
        if let id = members["captcha_id"], id != configuration.captchaID {
            throw CaptchaTokenError(gateway: Self.name, "\"captcha_id\" is not this configuration's captchaId: the client's captcha is another one")
        }
        guard members["gen_time"]?.allSatisfy({ $0.isASCII && $0.isNumber }) == true else {
            throw CaptchaTokenError(gateway: Self.name, "\"gen_time\" is not a timestamp of digits")
        }
        let response = try await transport.send(try request(names.map { (name: $0, value: members[$0] ?? "") }))
        let object = try configuration.jsonObject(response, gateway: Self.name)
        let status = try GatewayAnswer.text(object, "status", gateway: Self.name, acceptingNumbers: true)
        if status == "error" {
            let code = DisplayText.label(try GatewayAnswer.text(object, "code", gateway: Self.name, acceptingNumbers: true) ?? "", limit: 32)
            throw GatewayCodeError(
                gateway: Self.name, code: code.isEmpty ? "error" : code, meaning: Self.errors[code] ?? "GeeTest refused the request",
                providerFault: Self.providerFaults.contains(code))
        }
        // Every verdict in GeeTest's document comes under `status` `success`: anything else is no answer of GeeTest's.
        guard status == "success" else { throw GatewayError(gateway: Self.name, .malformedBody("status is neither success nor error")) }
        switch try GatewayAnswer.text(object, "result", gateway: Self.name, acceptingNumbers: true) {
        case "success"?: return true
        case "fail"?: return false
        default: throw GatewayError(gateway: Self.name, .malformedBody("result is neither success nor fail"))
        }
    }

    /// Builds one validation request.
    /// - Parameter fields: `lot_number`, `captcha_output`, `pass_token`, `gen_time`, in that order.
    /// - Returns: The request: POST, the form body with `sign_token` appended, `captcha_id` in the query.
    /// - Throws: ``GatewayError/Kind/misconfigured(_:)`` when the HMAC cannot be made or the URL cannot take a query.
    package func request(_ fields: [(name: String, value: String)]) throws(GatewayError) -> HTTPRequest {
        let lotNumber = fields.first { $0.name == "lot_number" }?.value ?? ""
        let body = FormEncoding.body(fields + [("sign_token", try signToken(lotNumber))])
        guard var components = URLComponents(url: configuration.url, resolvingAgainstBaseURL: false) else {
            throw GatewayError(gateway: Self.name, .misconfigured("url cannot take a query"))
        }
        let query = (components.percentEncodedQuery.map { $0 + "&" } ?? "") + "captcha_id=" + FormEncoding.encode(configuration.captchaID)
        components.percentEncodedQuery = query
        guard let url = components.url else { throw GatewayError(gateway: Self.name, .misconfigured("url cannot take a query")) }
        return configuration.post(gateway: Self.name, to: url, headers: [FormEncoding.contentType], body: body)
    }

    /// `sign_token`: HMAC-SHA256 of `lot_number` (its UTF-8) under `captcha_key`, in lower-case hexadecimal.
    /// - Parameter lotNumber: `lot_number`.
    /// - Returns: 64 hexadecimal digits.
    /// - Throws: ``GatewayError/Kind/misconfigured(_:)`` when libcrypto cannot make the HMAC.
    package func signToken(_ lotNumber: String) throws(GatewayError) -> String {
        do {
            return Hex.encode(try Digest.sha256.hmac(key: Array(configuration.captchaKey.reveal().utf8), message: Array(lotNumber.utf8)))
        } catch {
            throw GatewayError(gateway: Self.name, .misconfigured("sign_token could not be made (\(error))"))
        }
    }

    /// What `onetap gateway sign geetest` shows: `sign_token` for a `lot_number`.
    /// - Parameter fields: `lot_number` (required); unknown fields are refused.
    /// - Returns: The message signed (`lot_number`; the key is `<captchaKey>`) and `sign_token`.
    /// - Throws: ``GatewayError/Kind/misconfigured(_:)`` naming a missing or unknown field.
    package func signPreview(fields: [String: String]) throws(GatewayError) -> SignPreview {
        guard let lotNumber = try SignPreviewFields(fields, known: ["lot_number"], of: "sign_token", gateway: Self.name)["lot_number"], !lotNumber.isEmpty else {
            throw GatewayError(gateway: Self.name, .misconfigured("--field lot_number=… is required: the lot_number the client's captcha gave"))
        }
        return SignPreview(stringToSign: lotNumber, signature: try signToken(lotNumber), algorithm: "HMAC-SHA256 under <captchaKey>")
    }
}
