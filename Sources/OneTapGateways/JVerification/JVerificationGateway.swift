import Foundation
import OneTap
import OneTapSupport

/// JVerification (极光认证) as a ``TokenExchangeProvider`` (`loginTokenVerify`: the SDK's loginToken in, the number
/// out, RSA-decrypted with the app's private key) and a ``NumberVerificationProvider`` (`verify`), over HTTPS POST
/// with a JSON body and HTTP Basic authentication (`appKey:masterSecret`).
///
/// Each call sends one request and never retries it; `exID` is 32 hexadecimal characters from the system's secure
/// generator, checked against the answer's echo. Its errors are ``GatewayError``s named `jverification` that quote
/// no token, secret, number or body.
public final class JVerificationGateway: TokenExchangeProvider, NumberVerificationProvider, NamedGateway, CustomStringConvertible {
    /// The gateway's name in errors and configuration: `jverification`.
    public static let name = "jverification"

    /// The settings it was made with.
    public let configuration: JVerificationConfiguration
    private let key: RSAPrivateKey
    private let authorization: Secret
    private let transport: any HTTPTransport
    private let exIDs: @Sendable () -> String

    /// Creates the gateway, reading its key once.
    /// - Parameters:
    ///   - configuration: The settings.
    ///   - transport: The HTTP transport (one ``URLSessionTransport`` shared by every gateway, in production).
    /// - Throws: ``GatewayError/Kind/misconfigured(_:)`` naming the field and the fix: an empty or malformed
    ///   `appKey`, an empty `masterSecret`, a `privateKey` in a form that cannot be used (which form, and the
    ///   `openssl` command that converts it).
    public convenience init(configuration: JVerificationConfiguration, transport: any HTTPTransport) throws(GatewayError) {
        try self.init(configuration: configuration, transport: transport, exIDs: RequestNonce.make)
    }

    /// Creates the gateway with the `exID`s given (tests pin them).
    /// - Parameters:
    ///   - configuration: The settings.
    ///   - transport: The HTTP transport.
    ///   - exIDs: Makes each request's `exID`.
    /// - Throws: ``GatewayError/Kind/misconfigured(_:)``.
    package init(configuration: JVerificationConfiguration, transport: any HTTPTransport, exIDs: @escaping @Sendable () -> String) throws(GatewayError) {
        let name = Self.name
        try CredentialCheck.lettersAndDigits(configuration.appKey, "appKey", mustBe: "the appKey from JiGuang's console", gateway: name)
        guard !configuration.masterSecret.isEmpty else {
            throw GatewayError(gateway: name, .misconfigured("masterSecret is empty: set it to the app's Master Secret from JiGuang's console"))
        }
        key = try CredentialCheck.privateKey(
            configuration.privateKey, "privateKey", note: "JiGuang encrypts phone to the public key configured in its console; this must be its private half", gateway: name)
        self.configuration = configuration
        authorization = Secret("Basic " + Data("\(configuration.appKey):\(configuration.masterSecret.reveal())".utf8).base64EncodedString())
        self.transport = transport
        self.exIDs = exIDs
    }

    /// `jverification appKey 7d431e42…, api.verification.jpush.cn/v1/web/loginTokenVerify`.
    public var description: String { configuration.description }

    /// Exchanges a one-tap credential for its number.
    /// - Parameter credential: A credential of a flow in ``JVerificationConfiguration/flows``: its token is the
    ///   JVerification SDK's loginToken.
    /// - Returns: JVerification's code as it came (`8000` is success), the number on success.
    /// - Throws: ``GatewayError`` once the request may have reached JiGuang; ``ExchangeNotSentError`` when nothing
    ///   was sent (another flow, a request that could not leave).
    public func exchange(_ credential: CarrierCredential) async throws -> ExchangeResponse {
        try await AggregatorCall.exchange(credential, serves: configuration.flows, gateway: Self.name) { try await loginTokenVerify($0) }
    }

    /// Asks whether a number is the SIM's own.
    /// - Parameters:
    ///   - credential: A credential whose token is the SDK's number-verification token.
    ///   - number: The number to check.
    /// - Returns: The code and its verdict from `Data/verification-codes.csv`: `9000` pass, `9001` reject, anything
    ///   else unknown.
    /// - Throws: As ``exchange(_:)``.
    public func verify(_ credential: CarrierCredential, number: PhoneNumber) async throws -> NumberVerificationResponse {
        try await AggregatorCall.verify(credential, serves: configuration.flows, gateway: Self.name) { try await verify(token: $0, number: number) }
    }

    /// Sends one `loginTokenVerify` request.
    /// - Parameter token: The SDK's loginToken.
    /// - Returns: The answer: the code, the number on `8000`, JiGuang's `id`.
    /// - Throws: ``GatewayError``: the transport's, `httpStatus`, `wrongContentType`, `malformedBody` (no `code`,
    ///   another request's `exID`, an `8000` whose `phone` is missing or does not decrypt with `privateKey`).
    public func loginTokenVerify(_ token: Secret) async throws -> AggregatorAnswer {
        let exID = exIDs()
        let object = try await post(configuration.url, ["loginToken": .string(token.reveal()), "exID": .string(exID)], exID: exID)
        let (answer, echoed) = try common(object, exID: exID)
        let carried = (try? GatewayAnswer.text(object.members, "phone", gateway: Self.name)) ?? nil
        return try GatewayAnswer.numbered(answer.code, gateway: Self.name, carried: carried) { answer } _: { () throws(GatewayError) in
            // A number is taken only from an answer bound to this request (JiGuang echoes the exID it was sent).
            guard echoed else { throw GatewayError(gateway: Self.name, .malformedBody("\(answer.code) without this request's exID")) }
            guard let phone = try GatewayAnswer.text(object.members, "phone", gateway: Self.name), !phone.isEmpty else {
                throw GatewayError(gateway: Self.name, .malformedBody("8000 without phone"))
            }
            let number = try AggregatorCall.rsaPhoneNumber(phone, key: key, field: "phone", keyField: "privateKey", gateway: Self.name)
            return AggregatorAnswer(gateway: Self.name, code: answer.code, phoneNumber: number, serial: answer.serial)
        }
    }

    /// Sends one `verify` request.
    /// - Parameters:
    ///   - token: The SDK's token.
    ///   - number: The number to check.
    /// - Returns: The answer with its verdict, from `Data/verification-codes.csv`.
    /// - Throws: ``GatewayError`` as ``loginTokenVerify(_:)``.
    public func verify(token: Secret, number: PhoneNumber) async throws -> AggregatorAnswer {
        let exID = exIDs()
        let object = try await post(configuration.verifyURL, ["token": .string(token.reveal()), "phone": .string(number.digits), "exID": .string(exID)], exID: exID)
        let (answer, echoed) = try common(object, exID: exID)
        let verdict = try VerificationVerdicts.verdict(gateway: Self.name, code: answer.code)
        guard verdict != .pass || echoed else { throw GatewayError(gateway: Self.name, .malformedBody("a pass without this request's exID")) }
        return AggregatorAnswer(gateway: Self.name, code: answer.code, verdict: verdict, serial: answer.serial)
    }

    /// What `onetap gateway sign jverification` shows: JiGuang signs nothing; the `Authorization` header carries
    /// `appKey:masterSecret` in Base64, which is the secret itself and so is not shown.
    /// - Parameter fields: None: the header depends on the configuration alone.
    /// - Returns: The preview.
    /// - Throws: ``GatewayError/Kind/misconfigured(_:)`` for any field given (none is signed).
    package func signPreview(fields: [String: String]) throws(GatewayError) -> SignPreview {
        _ = try SignPreviewFields(fields, known: [], of: "the Authorization header", gateway: Self.name)
        return SignPreview(
            stringToSign: "\(configuration.appKey):<masterSecret>", signature: "Basic <Base64 of the string: the masterSecret itself, not shown>",
            algorithm: "HTTP Basic")
    }

    private func post(_ url: URL, _ body: [String: JSONValue], exID: String) async throws -> (members: [String: JSONValue], raw: [UInt8]) {
        let headers = [HTTPHeader("Content-Type", "application/json"), HTTPHeader("Authorization", authorization.reveal())]
        let response = try await transport.send(configuration.post(gateway: Self.name, to: url, headers: headers, body: Array(JSONValue.object(body).json.utf8)))
        return (try configuration.jsonObject(response, gateway: Self.name), response.body)
    }

    /// The code and `id` (a JSON number past a double's exact range, so read from the raw text), and whether the
    /// answer echoed this request's `exID`.
    private func common(_ object: (members: [String: JSONValue], raw: [UInt8]), exID: String) throws(GatewayError) -> (AggregatorAnswer, echoed: Bool) {
        let code = try GatewayAnswer.code(object.members, "code", gateway: Self.name)
        let echoed = try GatewayAnswer.text(object.members, "exID", gateway: Self.name) ?? ""
        if !echoed.isEmpty, echoed != exID {
            throw GatewayError(gateway: Self.name, .malformedBody("exID is not this request's"))
        }
        return (AggregatorAnswer(gateway: Self.name, code: code, serial: Self.rawID(object.raw)), echoed == exID)
    }

    /// The top-level `id` exactly as written: a number's digits from the body (a double would round
    /// 117270465679982592), or a string's text, as a ``DisplayText/label(_:limit:)``; nil when there is none or it
    /// is neither. An `id` in a nested object is not the call's.
    /// - Parameter body: The answer's body, already read as a JSON object.
    /// - Returns: The id.
    static func rawID(_ body: [UInt8]) -> String? {
        let read = Result { () throws(JSONReadError) -> String? in
            try JSONReader.read(body, skippingByteOrderMark: true) { (reader) throws(JSONReadError) -> String? in
                var id: String?
                try reader.members { (key, reader) throws(JSONReadError) in
                    guard "id" ~= key else { return try reader.skipValue() }
                    switch try reader.peek() {
                    case .number: id = try reader.integerText()
                    case .string: id = try reader.string()
                    default: try reader.skipValue()
                    }
                }
                return id
            }
        }
        // A body that is not one JSON object was refused before; a fractional id is no serial.
        guard case .success(let id?) = read else { return nil }
        return DisplayText.label(id)
    }
}
