import Foundation
import OneTap
import OneTapSupport

/// China Mobile's 统一认证 `loginTokenValidate` as a ``TokenExchangeProvider``: the one-tap token (result 103000 in
/// the SDK) in, the number out, over HTTP POST with a JSON body whose values are all strings.
///
/// Each call sends one request and never retries it (the exchange guard decides); `msgid` is 32 hexadecimal
/// characters from the system's secure generator, `systemtime` comes from the injected clock. Its errors are
/// ``GatewayError``s named `cmcc` that quote no token, secret, signature, number or body.
public final class ChinaMobileTokenExchange: TokenExchangeProvider, NamedGateway, CustomStringConvertible {
    /// The gateway's name in errors and configuration: `cmcc`.
    public static let name = "cmcc"

    /// The settings it was made with.
    public let configuration: ChinaMobileConfiguration
    private let signer: ChinaMobileSigner
    private let transport: any HTTPTransport
    private let clock: any WallClock
    private let messageIDs: @Sendable () -> String

    /// Creates the gateway, reading its secret or keys once.
    /// - Parameters:
    ///   - configuration: The settings.
    ///   - transport: The HTTP transport (one ``URLSessionTransport`` shared by every gateway, in production).
    ///   - clock: The clock `systemtime` is read from.
    /// - Throws: ``GatewayError/Kind/misconfigured(_:)`` naming the field and the fix: an empty or padded secret, a
    ///   key in a form that cannot be used (which form, and the `openssl` command that converts it).
    public convenience init(configuration: ChinaMobileConfiguration, transport: any HTTPTransport, clock: any WallClock = SystemClock()) throws(GatewayError) {
        try self.init(configuration: configuration, transport: transport, clock: clock, messageIDs: RequestNonce.make)
    }

    /// Creates the gateway with the message ids given (tests pin them).
    /// - Parameters:
    ///   - configuration: The settings.
    ///   - transport: The HTTP transport.
    ///   - clock: The clock.
    ///   - messageIDs: Makes each request's `msgid` (1–36 characters).
    /// - Throws: ``GatewayError/Kind/misconfigured(_:)``.
    package init(
        configuration: ChinaMobileConfiguration, transport: any HTTPTransport, clock: any WallClock, messageIDs: @escaping @Sendable () -> String
    ) throws(GatewayError) {
        try CredentialCheck.lettersAndDigits(configuration.appID, "appId", mustBe: ChinaMobileConfiguration.appIDSource, gateway: Self.name)
        self.configuration = configuration
        signer = try ChinaMobileSigner(configuration.signing)
        self.transport = transport
        self.clock = clock
        self.messageIDs = messageIDs
    }

    /// `cmcc appid 300011111111, MD5 sign, www.cmpassport.com/unisdk/rsapi/loginTokenValidate`.
    public var description: String { configuration.description }

    /// Exchanges a China Mobile one-tap credential for its number.
    /// - Parameter credential: A `mobile` credential.
    /// - Returns: China Mobile's code as it came, the number on success.
    /// - Throws: ``GatewayError`` (see ``validate(_:)``) once the request may have reached China Mobile (the
    ///   exchange guard then keeps the token `unknown`, for reconciliation); ``ExchangeNotSentError`` when
    ///   nothing was sent (a credential of another flow, a `misconfigured` request).
    public func exchange(_ credential: CarrierCredential) async throws -> ExchangeResponse {
        guard credential.flow == .mobile else {
            throw ExchangeNotSentError("\(Self.name): China Mobile exchanges mobile tokens; this credential is \(credential.flow)")
        }
        return try await SentOnce.run { try await validate(credential.token).exchangeResponse }
    }

    /// Sends one `loginTokenValidate` request.
    /// - Parameter token: The one-tap token.
    /// - Returns: The answer: the code, the number on success (decrypted in the RSA mode), `taskId` when given as text
    ///   or a whole number (one that does not read is left out, never the answer).
    /// - Throws: ``GatewayError`` from the transport (`timedOut`, `unreachable`, `bodyTooLarge`), `httpStatus`,
    ///   `wrongContentType`, `malformedBody` (not JSON, no `resultCode`, another request's `inresponseto`, a success
    ///   without a usable `msisdn`), `sentTwice` (`103107`: the msgid was seen before, so the request reached China
    ///   Mobile twice and the first copy's answer was lost); `CancellationError`.
    public func validate(_ token: Secret) async throws -> ChinaMobileAnswer {
        let messageID = messageIDs()
        let request = try ChinaMobileRequest(
            token: token, messageID: messageID, systemTime: SystemTime17.format(clock.now(), offset: configuration.systemTimeUTCOffset),
            configuration: configuration, signer: signer)
        let response = try await transport.send(configuration.post(gateway: Self.name, headers: [HTTPHeader("Content-Type", "application/json")], body: request.body))
        return try answer(response, messageID: messageID)
    }

    /// `resultCode` `103107` (已存在相同的随机数): the request's msgid was seen before.
    static let messageIDSeen: ResultCode = "103107"

    /// Reads an answer.
    private func answer(_ response: HTTPResponse, messageID: String) throws(GatewayError) -> ChinaMobileAnswer {
        let object = try configuration.jsonObject(response, gateway: Self.name)
        let code = try GatewayAnswer.code(object, "resultCode", "resultcode", gateway: Self.name, label: "resultCode")
        let echoed = try GatewayAnswer.text(object, "inresponseto", gateway: Self.name)
        if let echoed, echoed != messageID {
            throw GatewayError(gateway: Self.name, .malformedBody("inresponseto is not this request's msgid"))
        }
        // Every request draws a new msgid: one China Mobile had seen means the request reached it twice.
        if code == Self.messageIDSeen { throw GatewayError(gateway: Self.name, .sentTwice) }
        let taskID = GatewayAnswer.bookkeepingID(object, "taskId", "taskid")
        let carried = (try? GatewayAnswer.text(object, "msisdn", gateway: Self.name)) ?? nil
        return try GatewayAnswer.numbered(code, gateway: Self.name, carried: carried) {
            ChinaMobileAnswer(code: code, phoneNumber: nil, taskID: taskID, messageID: messageID)
        } _: { () throws(GatewayError) in
            // A number is taken only from an answer bound to this request (the document echoes the msgid in every answer).
            guard echoed != nil else { throw GatewayError(gateway: Self.name, .malformedBody("\(code) without inresponseto")) }
            guard let msisdn = try GatewayAnswer.text(object, "msisdn", gateway: Self.name), !msisdn.isEmpty else {
                throw GatewayError(gateway: Self.name, .malformedBody("103000 without msisdn"))
            }
            return ChinaMobileAnswer(code: code, phoneNumber: try phoneNumber(msisdn), taskID: taskID, messageID: messageID)
        }
    }

    /// `msisdn` as a number: in the clear in the MD5 mode, RSA-encrypted (hexadecimal or Base64) in the RSA mode.
    private func phoneNumber(_ msisdn: String) throws(GatewayError) -> PhoneNumber {
        if case .rsa(_, let key, _, _) = signer {
            let length = (key.bits + 7) / 8
            let ciphertext: [UInt8]
            if msisdn.utf8.count == length * 2, let bytes = Hex.decode(msisdn) {
                ciphertext = bytes
            } else if let data = Data(base64Encoded: msisdn), data.count == length {
                ciphertext = [UInt8](data)
            } else {
                throw GatewayError(gateway: Self.name, .malformedBody("msisdn is neither hexadecimal nor Base64 of a \(key.bits)-bit RSA ciphertext"))
            }
            return try GatewayAnswer.decryptedPhoneNumber(gateway: Self.name, label: "msisdn", key: "with msisdnKey") { () throws(CryptoError) in
                try key.decryptPKCS1v15(ciphertext)
            }
        }
        return try GatewayAnswer.phoneNumber(msisdn, gateway: Self.name, label: "msisdn")
    }
}
