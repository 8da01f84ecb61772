import Foundation
import OneTap
import OneTapSupport

/// Netease Yidun (网易易盾) as a ``TokenExchangeProvider`` (`oneclick/check`: Yidun's token and the carrier's
/// accessToken in, the number out) and a ``NumberVerificationProvider`` (`check`), over HTTPS POST with an
/// `application/x-www-form-urlencoded` body signed with MD5.
///
/// Each call sends one request and never retries it; `nonce` is 32 hexadecimal characters from the system's secure
/// generator, `timestamp` (milliseconds) comes from the injected clock. Its errors are ``GatewayError``s named
/// `yidun` that quote no token, secret, signature, number or body.
public final class YidunGateway: TokenExchangeProvider, NumberVerificationProvider, NamedGateway, CustomStringConvertible {
    /// The gateway's name in errors and configuration: `yidun`.
    public static let name = "yidun"

    /// The settings it was made with.
    public let configuration: YidunConfiguration
    private let transport: any HTTPTransport
    private let clock: any WallClock
    private let nonces: @Sendable () -> String

    /// Creates the gateway.
    /// - Parameters:
    ///   - configuration: The settings.
    ///   - transport: The HTTP transport (one ``URLSessionTransport`` shared by every gateway, in production).
    ///   - clock: The clock `timestamp` is read from.
    /// - Throws: ``GatewayError/Kind/misconfigured(_:)`` naming the field and the fix.
    public convenience init(configuration: YidunConfiguration, transport: any HTTPTransport, clock: any WallClock = SystemClock()) throws(GatewayError) {
        try self.init(configuration: configuration, transport: transport, clock: clock, nonces: RequestNonce.make)
    }

    /// Creates the gateway with the nonces given (tests pin them).
    /// - Parameters:
    ///   - configuration: The settings.
    ///   - transport: The HTTP transport.
    ///   - clock: The clock.
    ///   - nonces: Makes each request's `nonce`.
    /// - Throws: ``GatewayError/Kind/misconfigured(_:)``.
    package init(configuration: YidunConfiguration, transport: any HTTPTransport, clock: any WallClock, nonces: @escaping @Sendable () -> String) throws(GatewayError) {
        for (field, value) in [("secretId", configuration.secretID), ("businessId", configuration.businessID)] {
            try CredentialCheck.lettersAndDigits(value, field, mustBe: "the \(field) from Yidun's console", gateway: Self.name)
        }
        guard !configuration.secretKey.isEmpty else {
            throw GatewayError(gateway: Self.name, .misconfigured("secretKey is empty: set it to the product's secretKey from Yidun's console"))
        }
        self.configuration = configuration
        self.transport = transport
        self.clock = clock
        self.nonces = nonces
    }

    /// `yidun secretId …, businessId …, ye.dun.163yun.com/v1/oneclick/check`.
    public var description: String { configuration.description }

    /// Exchanges a one-tap credential for its number.
    /// - Parameter credential: A credential of a flow in ``YidunConfiguration/flows`` whose token is
    ///   ``YidunTokens/joined``.
    /// - Returns: Yidun's `code` (`200` with the number on success); for a `200` without a number, the carrier's
    ///   `resultCode` Yidun passed on.
    /// - Throws: ``GatewayError`` once the request may have reached Yidun; ``ExchangeNotSentError`` when nothing
    ///   was sent (another flow, a token that is not a pair).
    public func exchange(_ credential: CarrierCredential) async throws -> ExchangeResponse {
        try await AggregatorCall.exchange(credential, serves: configuration.flows, gateway: Self.name) { try await oneclickCheck(try YidunTokens(joined: $0)) }
    }

    /// Asks whether a number is the SIM's own.
    /// - Parameters:
    ///   - credential: A credential whose token is ``YidunTokens/joined``.
    ///   - number: The number to check.
    /// - Returns: The code and its verdict from `Data/verification-codes.csv`: `data.result` 1 pass, 2 reject, 3 (or
    ///   any failure) unknown.
    /// - Throws: As ``exchange(_:)``.
    public func verify(_ credential: CarrierCredential, number: PhoneNumber) async throws -> NumberVerificationResponse {
        try await AggregatorCall.verify(credential, serves: configuration.flows, gateway: Self.name) { try await check(try YidunTokens(joined: $0), number: number) }
    }

    /// Sends one `oneclick/check` request.
    /// - Parameter tokens: Yidun's token and the carrier's accessToken.
    /// - Returns: The answer: `200` with the number, the carrier's `resultCode` for a `200` without one, or Yidun's
    ///   error code.
    /// - Throws: ``GatewayError``: the transport's, `httpStatus`, `wrongContentType`, `malformedBody`.
    public func oneclickCheck(_ tokens: YidunTokens) async throws -> AggregatorAnswer {
        let (code, data) = try await post(configuration.url, tokens, phone: nil)
        let carried = data.flatMap { (try? GatewayAnswer.text($0, "phone", gateway: Self.name)) ?? nil }
        return try GatewayAnswer.numbered(code, gateway: Self.name, carried: carried) {
            AggregatorAnswer(gateway: Self.name, code: code)
        } _: { () throws(GatewayError) in
            if let phone = try data.flatMap({ data throws(GatewayError) in try GatewayAnswer.text(data, "phone", gateway: Self.name) }), !phone.isEmpty {
                return AggregatorAnswer(gateway: Self.name, code: code, phoneNumber: try GatewayAnswer.phoneNumber(phone, gateway: Self.name, label: "'phone'"))
            }
            guard let data else { throw GatewayError(gateway: Self.name, .malformedBody("200 without data")) }
            return AggregatorAnswer(gateway: Self.name, code: try GatewayAnswer.code(data, "resultCode", gateway: Self.name))
        }
    }

    /// Sends one `check` request.
    /// - Parameters:
    ///   - tokens: Yidun's token and the carrier's accessToken.
    ///   - number: The number to check.
    /// - Returns: The answer with its verdict, from `Data/verification-codes.csv`.
    /// - Throws: ``GatewayError`` as ``oneclickCheck(_:)``; `malformedBody` for a `200` whose `data.result` is not
    ///   1, 2 or 3.
    public func check(_ tokens: YidunTokens, number: PhoneNumber) async throws -> AggregatorAnswer {
        let (code, data) = try await post(configuration.verifyURL, tokens, phone: number.digits)
        let verdict = try VerificationVerdicts.verdict(gateway: Self.name, code: code, member: "data.result") { () throws(GatewayError) in
            try data.flatMap { data throws(GatewayError) in try GatewayAnswer.text(data, "result", gateway: Self.name, acceptingNumbers: true) }
        }
        return AggregatorAnswer(gateway: Self.name, code: code, verdict: verdict)
    }

    /// What `onetap gateway sign yidun` shows: the string MD5 signs, with the secretKey as `<secretKey>`, and the
    /// signature.
    /// - Parameter fields: The parameters as sent: `token` and `accessToken` (required), `phone` for `check`,
    ///   `timestamp` (default: the clock, in milliseconds) and `nonce` (default: a new one); `secretId`,
    ///   `businessId` and `version` default to the configuration's.
    /// - Returns: The preview.
    /// - Throws: ``GatewayError/Kind/misconfigured(_:)`` when a token is missing.
    package func signPreview(fields: [String: String]) throws(GatewayError) -> SignPreview {
        _ = try SignPreviewFields(
            fields, known: ["token", "accessToken", "phone", "timestamp", "nonce", "secretId", "businessId", "version"], of: "oneclick's signature", gateway: Self.name)
        guard let token = fields["token"], let accessToken = fields["accessToken"] else {
            throw GatewayError(gateway: Self.name, .misconfigured("give both tokens: --field token=- --field accessToken=- (one line each on standard input, in that order)"))
        }
        var sent = parameters(YidunTokens(token: Secret(token), accessToken: Secret(accessToken)), phone: fields["phone"])
        for (index, field) in sent.enumerated() {
            if let given = fields[field.name] { sent[index].value = given }
        }
        let text = SortedParameters.concatenated(sent)
        return SignPreview(stringToSign: text + "<secretKey>", signature: try signature(text), algorithm: "MD5")
    }

    private func parameters(_ tokens: YidunTokens, phone: String?) -> [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = [
            ("secretId", configuration.secretID), ("businessId", configuration.businessID), ("version", configuration.version),
            ("timestamp", String(clock.now().millisecondsSince1970)), ("nonce", nonces()),
            ("accessToken", tokens.accessToken.reveal()), ("token", tokens.token.reveal()),
        ]
        if let phone { fields.append(("phone", phone)) }
        return fields
    }

    /// MD5 of the sorted concatenation followed by the secretKey, 32 lower-case hexadecimal digits.
    private func signature(_ concatenation: String) throws(GatewayError) -> String {
        do {
            return Hex.encode(try Digest.md5.hash(concatenation + configuration.secretKey.reveal()))
        } catch {
            throw GatewayError(gateway: Self.name, .misconfigured("the signature could not be made: \(error)"))
        }
    }

    private func post(_ url: URL, _ tokens: YidunTokens, phone: String?) async throws -> (ResultCode, [String: JSONValue]?) {
        let fields = parameters(tokens, phone: phone)
        let body = FormEncoding.body(fields + [("signature", try signature(SortedParameters.concatenated(fields)))])
        let response = try await transport.send(configuration.post(gateway: Self.name, to: url, headers: [FormEncoding.contentType], body: body))
        let object = try configuration.jsonObject(response, gateway: Self.name)
        return (try GatewayAnswer.code(object, "code", gateway: Self.name), try GatewayAnswer.object(object, "data", gateway: Self.name))
    }
}
