import Foundation
import OneTap
import OneTapSupport

/// Tencent Captcha's `DescribeCaptchaResult` (API 3.0, version `2019-07-22`) as a ``CaptchaVerifier``.
///
/// The client sends, as ``SMSContext/captcha``, the captcha callback's result as JSON (`JSON.stringify(res)`:
/// `{"ret":0,"ticket":"…","randstr":"…",…}`; `ticket` and `randstr` are read, other members ignored). The client's
/// address (``SMSContext/ip``, which Tencent requires as `UserIp`) must be given. `CaptchaCode` 1 is solved; a
/// ticket Tencent judges bad, expired or reused is not solved (`false`); a code that says the configuration is
/// wrong (16, 100) or Tencent failed (26), and `Response.Error`, throw (the SMS service records the throw as the
/// provider failing, and asks for a captcha again; it counts the check against the client unless the code is
/// Tencent's own trouble: 26, or a platform fault of `Response.Error`). One request per call, never retried.
public final class TencentCaptchaVerifier: CaptchaVerifier, CustomStringConvertible {
    /// The gateway's name in errors and configuration: `tencent-captcha`.
    public static let name = "tencent-captcha"
    /// The codes that throw rather than answer "not solved": the configuration's or Tencent's fault.
    static let faults: [String: String] = [
        "16": "appid-ticket mismatch: captchaAppId is not the CaptchaAppId the client's captcha used (see the captcha console)",
        "100": "appid-secretkey-ticket mismatch: captchaAppId and appSecretKey do not belong together, or the ticket is another app's",
        "26": "system busy: Tencent Captcha's internal error",
    ]
    /// The codes of ``faults`` no client's ticket can cause: Tencent's own trouble (16 and 100 also answer another
    /// app's ticket, so they count against the client that sent it).
    static let providerFaults: Set<String> = ["26"]
    /// The prefixes of Tencent Cloud API 3.0's common error codes (`Response.Error.Code`) that say the fault is the
    /// platform's or the account's, never the request's values: an outage, the account's or the server address's
    /// request frequency limit, a refused signature or key, an address or product the account may not use (公共错误码,
    /// one list for every product: `Data/gateways/tencent-captcha.md` [P]). Every other code (`InvalidParameter`,
    /// `MissingParameter`, `FailedOperation`, …) a client's ticket may cause.
    static let platformFaults = [
        "ActionOffline", "AuthFailure", "InternalError", "InvalidAction", "IpInBlacklist", "IpNotInWhitelist", "LimitExceeded", "NoSuchProduct",
        "NoSuchVersion", "RequestLimitExceeded", "ResourceInsufficient", "ResourceUnavailable", "ServiceUnavailable", "UnauthorizedOperation",
        "UnsupportedProtocol", "UnsupportedRegion",
    ]

    /// Whether a `Response.Error.Code` is one of ``platformFaults`` (the code itself, or a `.`-separated refinement).
    /// - Parameter code: The code as it came.
    /// - Returns: Whether no client's ticket can cause it.
    static func isPlatformFault(_ code: String) -> Bool {
        platformFaults.contains { code == $0 || code.hasPrefix($0 + ".") }
    }

    /// The settings it was made with.
    public let configuration: TencentCaptchaConfiguration
    private let client: TencentCloudClient

    /// Creates the verifier, checking its configuration.
    /// - Parameters:
    ///   - configuration: The settings.
    ///   - transport: The HTTP transport.
    ///   - clock: The clock `X-TC-Timestamp` is read from.
    /// - Throws: ``GatewayError/Kind/misconfigured(_:)`` naming the field and the fix.
    public init(configuration: TencentCaptchaConfiguration, transport: any HTTPTransport, clock: any WallClock = SystemClock()) throws(GatewayError) {
        let signer = TC3Signer(gateway: Self.name, secretID: configuration.secretID, secretKey: configuration.secretKey, service: "captcha")
        client = try TencentCloudClient(signer: signer, action: "DescribeCaptchaResult", version: "2019-07-22", endpoint: configuration, transport: transport, clock: clock)
        guard !configuration.captchaAppID.isEmpty, configuration.captchaAppID.count <= 15, configuration.captchaAppID.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            throw GatewayError(gateway: Self.name, .misconfigured("captchaAppId must be the CaptchaAppId the captcha console shows (digits), not \(CredentialCheck.glimpse(configuration.captchaAppID))"))
        }
        let key = configuration.appSecretKey.reveal()
        guard !key.isEmpty, key.allSatisfy({ $0.isASCII && !$0.isWhitespace }) else {
            throw GatewayError(gateway: Self.name, .misconfigured("appSecretKey must be the AppSecretKey the captcha console shows, without spaces"))
        }
        self.configuration = configuration
    }

    /// `tencent-captcha CaptchaAppId 199999164, captcha.tencentcloudapi.com/`.
    public var description: String { configuration.description }

    /// Checks a captcha the client solved.
    /// - Parameters:
    ///   - token: The callback's result as JSON, holding `ticket` and `randstr`.
    ///   - context: The send's context: its `ip` is sent as `UserIp`.
    /// - Returns: Whether Tencent answered `CaptchaCode` 1 with no `EvilLevel` but 0 (the invisible mode's verdict).
    /// - Throws: ``CaptchaTokenError`` for a token that is not the callback's JSON, or a context without an
    ///   address (nothing is sent); ``GatewayCodeError`` for `Response.Error` and `CaptchaCode` 16, 100, 26;
    ///   ``GatewayError`` from the transport or for an answer that is not Tencent's; `CancellationError`.
    public func verify(_ token: Secret, context: SMSContext) async throws -> Bool {
        let members = try CaptchaToken.members(token, gateway: Self.name, required: ["ticket", "randstr"])
        guard let ip = context.ip else {
            throw CaptchaTokenError(gateway: Self.name, "the send's context has no client address: Tencent requires UserIp (set SMSContext.ip)")
        }
        let (built, _) = try request(ticket: members["ticket"] ?? "", randstr: members["randstr"] ?? "", userIP: ip.description, now: client.clock.now())
        switch try await client.send(built) {
        case .error(let code, let requestID):
            throw GatewayCodeError(
                gateway: Self.name, code: code, meaning: "Tencent Cloud API refused the call", requestID: requestID, providerFault: Self.isPlatformFault(code))
        case .response(let members):
            guard let code = try GatewayAnswer.text(members, "CaptchaCode", gateway: Self.name, acceptingNumbers: true), Int(code) != nil else {
                throw GatewayError(gateway: Self.name, .malformedBody("no CaptchaCode integer"))
            }
            // The invisible mode (无感验证) answers a malicious request's ticket 1 too, and gives its verdict in EvilLevel:
            // 0 no malice, 100 malicious (Tencent's "无感验证方式如何接入", cloud.tencent.com/document/product/1110/83666).
            // Any level but 0 is not solved (fail closed); absent or null, the other modes' answer, is no verdict.
            if code == "1" { return (try GatewayAnswer.text(members, "EvilLevel", gateway: Self.name, acceptingNumbers: true)).map { $0 == "0" } ?? true }
            if let meaning = Self.faults[code] {
                let requestID = GatewayAnswer.bookkeepingID(members, "RequestId")
                throw GatewayCodeError(gateway: Self.name, code: code, meaning: meaning, requestID: requestID, providerFault: Self.providerFaults.contains(code))
            }
            return false
        }
    }

    /// Builds and signs one `DescribeCaptchaResult` request.
    /// - Parameters:
    ///   - ticket: `Ticket`.
    ///   - randstr: `Randstr`.
    ///   - userIP: `UserIp`.
    ///   - now: The clock's time.
    /// - Returns: The request and its signature's strings.
    /// - Throws: ``GatewayError/Kind/misconfigured(_:)`` when the signature cannot be made.
    package func request(ticket: String, randstr: String, userIP: String, now: Date) throws(GatewayError) -> (HTTPRequest, TC3Signer.Signed) {
        let body = JSONValue.object([
            "CaptchaType": .number(9), "Ticket": .string(ticket), "UserIp": .string(userIP), "Randstr": .string(randstr),
            "CaptchaAppId": .number(Double(configuration.captchaAppID) ?? 0), "AppSecretKey": .string(configuration.appSecretKey.reveal()),
        ])
        return try client.request(body, region: nil, at: now)
    }

    /// What `onetap gateway sign tencent-captcha` shows: the TC3 string to sign for a `DescribeCaptchaResult` request
    /// and its signature.
    /// - Parameter fields: `ticket`, `randstr`, `userIp` (defaults `t`, `r`, `127.0.0.1`), `timestamp` (seconds, default
    ///   the clock's); unknown fields are refused.
    /// - Returns: The string to sign (no secret in it) and the signature.
    /// - Throws: ``GatewayError/Kind/misconfigured(_:)`` naming a bad field.
    package func signPreview(fields: [String: String]) throws(GatewayError) -> SignPreview {
        let given = try SignPreviewFields(fields, known: ["ticket", "randstr", "userIp", "timestamp"], of: client.action, gateway: Self.name)
        let now = try given.timestamp(client.clock)
        return try request(ticket: given["ticket"] ?? "t", randstr: given["randstr"] ?? "r", userIP: given["userIp"] ?? "127.0.0.1", now: now).1.preview
    }
}
