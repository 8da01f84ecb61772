import Foundation
@testable import OneTap
@testable import OneTapGateways
import OneTapTesting
import Testing

/// The PNVS gateway and the SMS sender over the URLSession transport against the fakes written from Aliyun's
/// documents (Fakes/aliyun_pnvs.py, aliyun_sms.py), which recompute the signature V3 and check every parameter: each
/// of the fakes' answers maps to the right outcome or GatewayError, and no error's words hold a token, the secret,
/// the number or the code.
@Suite(.timeLimit(.minutes(4))) struct AliyunFakeServerTests {
    static let keyID = "LTAI5tFakeKeyId"
    static let secret = "fake-access-key-secret"
    static let number = "13800138000"

    static func pnvs(_ server: FakeServer, secret: String = secret, timeout: Duration = .seconds(30)) throws -> AliyunPNVSGateway {
        var configuration = AliyunPNVSConfiguration(accessKeyID: keyID, accessKeySecret: Secret(secret))
        configuration.url = server.url("")
        configuration.timeout = timeout
        return try AliyunPNVSGateway(configuration: configuration, transport: URLSessionTransport())
    }

    static func startPNVS() async throws -> FakeServer {
        try await FakeServer.start("aliyun_pnvs.py", arguments: ["--access-key-id", keyID, "--secret", secret, "--number", number])
    }

    static func token(_ prefix: String = "tok") -> String { "\(prefix)-\(UUID().uuidString)" }

    static func expectNothingSecret(_ error: (any Error)?, _ words: String...) {
        let text = "\(String(describing: error))"
        for word in words + [secret, number] { #expect(!text.contains(word)) }
    }

    @Test func getMobileGetsTheNumberForEveryCarriersFlowAndATokenServesOnce() async throws {
        let server = try await Self.startPNVS()
        defer { server.stop() }
        let gateway = try Self.pnvs(server)
        for flow in [LoginFlow.mobile, .unicom, .tianyi] {
            let token = Self.token("tok +/*")
            let response = try await gateway.exchange(CarrierCredential(flow: flow, token: Secret(token)))
            #expect(response == ExchangeResponse(code: "OK", phoneNumber: try PhoneNumber(Self.number)))
            #expect(try await gateway.exchange(CarrierCredential(flow: flow, token: Secret(token))) == ExchangeResponse(code: "isv.TOKEN_INVALID"))
        }
        #expect(try await gateway.exchange(CarrierCredential(flow: .mobile, token: Secret(Self.token("expired")))) == ExchangeResponse(code: "isv.TOKEN_INVALID"))
        #expect(try await gateway.exchange(CarrierCredential(flow: .mobile, token: Secret(Self.token("verify")))) == ExchangeResponse(code: "isv.TOKEN_UNAUTHORIZED_USED"))
    }

    @Test func verifyMobileAnswersPassRejectAndUnknown() async throws {
        let server = try await Self.startPNVS()
        defer { server.stop() }
        let gateway = try Self.pnvs(server)
        func verify(_ token: String, _ number: String) async throws -> NumberVerificationResponse {
            try await gateway.verify(CarrierCredential(flow: .mobile, token: Secret(token)), number: try PhoneNumber(number))
        }
        #expect(try await verify(Self.token(), Self.number) == NumberVerificationResponse(code: "OK", verdict: .pass))
        #expect(try await verify(Self.token(), "13900139000") == NumberVerificationResponse(code: "OK", verdict: .reject))
        #expect(try await verify(Self.token("unknown"), Self.number) == NumberVerificationResponse(code: "OK", verdict: .unknown))
        #expect(try await verify(Self.token("expired"), Self.number) == NumberVerificationResponse(code: "isv.TOKEN_INVALID", verdict: .unknown))
    }

    @Test func aWrongSecretIsSignatureDoesNotMatch() async throws {
        let server = try await Self.startPNVS()
        defer { server.stop() }
        let response = try await Self.pnvs(server, secret: "another-secret").exchange(CarrierCredential(flow: .unicom, token: Secret(Self.token())))
        #expect(response == ExchangeResponse(code: "SignatureDoesNotMatch"))
    }

    @Test func aSlowAnswerPastTheTimeOutIsTimedOut() async throws {
        let server = try await Self.startPNVS()
        defer { server.stop() }
        let token = Self.token("slow")
        let error = await #expect(throws: GatewayError.self) {
            try await Self.pnvs(server, timeout: .milliseconds(700)).exchange(CarrierCredential(flow: .mobile, token: Secret(token)))
        }
        #expect(error == GatewayError(gateway: "aliyun-pnvs", .timedOut))
        Self.expectNothingSecret(error, token)
    }

    @Test(arguments: [
        ("status-500", GatewayError.Kind.httpStatus(500)),
        ("status-503", .httpStatus(503)),
        ("truncated", .malformedBody("the answer was cut short (the connection closed mid-body)")),
        ("malformed", .malformedBody("the body is not JSON (28 bytes)")),
        ("html", .wrongContentType("text/html")),
    ])
    func everyBrokenAnswerIsATypedErrorNamingTheGatewayAndNoSecret(prefix: String, kind: GatewayError.Kind) async throws {
        let server = try await Self.startPNVS()
        defer { server.stop() }
        let token = Self.token(prefix)
        let error = await #expect(throws: GatewayError.self) { try await Self.pnvs(server).exchange(CarrierCredential(flow: .tianyi, token: Secret(token))) }
        #expect(error == GatewayError(gateway: "aliyun-pnvs", kind))
        Self.expectNothingSecret(error, token)
    }

    @Test func manyCallsAtOnceEachGetTheirOwnAnswerAndNonce() async throws {
        let server = try await Self.startPNVS()
        defer { server.stop() }
        let gateway = try Self.pnvs(server)
        let codes = try await withThrowingTaskGroup(of: ResultCode.self) { group in
            for _ in 0..<16 { group.addTask { try await gateway.exchange(CarrierCredential(flow: .mobile, token: Secret(Self.token()))).code } }
            return try await group.reduce(into: [ResultCode]()) { $0.append($1) }
        }
        #expect(codes == Array(repeating: "OK", count: 16))
    }

    /// The PNVS fake checks the signature's headers as Aliyun's gateway does: a date off by more than 15 minutes, a
    /// nonce used twice, a version that is not the API's, each gets Aliyun's code.
    @Test func thePNVSFakeRefusesAStaleDateAReusedNonceAndAnotherVersion() async throws {
        let server = try await Self.startPNVS()
        defer { server.stop() }
        var configuration = AliyunPNVSConfiguration(accessKeyID: Self.keyID, accessKeySecret: Secret(Self.secret))
        configuration.url = server.url("")
        func exchange(clock: any WallClock = SystemClock(), nonce: String? = nil, version: String = "2017-05-25") async throws -> ResultCode {
            var configured = configuration
            configured.version = version
            let gateway = try AliyunPNVSGateway(
                configuration: configured, transport: URLSessionTransport(), clock: clock, nonces: { nonce ?? RequestNonce.make() })
            return try await gateway.exchange(CarrierCredential(flow: .mobile, token: Secret(Self.token()))).code
        }
        #expect(try await exchange(clock: FakeClock(now: Date().addingTimeInterval(-16 * 60))) == "InvalidTimeStamp.Expired")
        #expect(try await exchange(nonce: "same-nonce") == "OK")
        // A nonce Aliyun had seen: every call draws a new one, so the request reached Aliyun twice (`sentTwice`).
        let repeated = await #expect(throws: GatewayError.self) { try await exchange(nonce: "same-nonce") }
        #expect(repeated?.kind == .sentTwice)
        #expect(try await exchange(version: "2020-01-01") == "InvalidApi.NotFound")
    }

    // MARK: SMS

    static func sms(_ server: FakeServer, timeout: Duration = .seconds(30)) throws -> AliyunSMSSender {
        var configuration = AliyunSMSConfiguration(accessKeyID: keyID, accessKeySecret: Secret(secret), signName: "阿里云短信测试", templateCode: "SMS_154950909")
        configuration.url = server.url("/")
        configuration.timeout = timeout
        return try AliyunSMSSender(configuration: configuration, transport: URLSessionTransport())
    }

    static func startSMS() async throws -> FakeServer {
        try await FakeServer.start(
            "aliyun_sms.py", arguments: ["--access-key-id", keyID, "--secret", secret, "--sign-name", "阿里云短信测试", "--template-code", "SMS_154950909"])
    }

    static func message(_ number: String, code: String = "482913") throws -> SMSMessage {
        SMSMessage(number: try PhoneNumber(number), code: Secret(code), expiresAt: Date().addingTimeInterval(300), session: nil)
    }

    @Test func sendSmsDeliversTheCodeInTheTemplate() async throws {
        let server = try await Self.startSMS()
        defer { server.stop() }
        try await Self.sms(server).send(try Self.message(Self.number))
        let sent = try await URLSessionTransport().send(HTTPRequest(gateway: "test", method: "GET", url: server.url("/_sent?number=\(Self.number)"), timeout: .seconds(30)))
        #expect(String(decoding: sent.body, as: UTF8.self) == #"{"TemplateParam": "{\"code\":\"482913\"}"}"#)
    }

    @Test(arguments: [
        ("13800000011", "isv.MOBILE_NUMBER_ILLEGAL", SMSDeliveryError.Reason.numberRejected),
        ("13800000012", "isv.BUSINESS_LIMIT_CONTROL", .throttled),
        ("13800000013", "isv.DAY_LIMIT_CONTROL", .throttled),
        ("13800000014", "isv.OUT_OF_SERVICE", .failed),
    ])
    func eachRefusalIsTheSMSServicesOutcome(number: String, code: String, reason: SMSDeliveryError.Reason) async throws {
        let server = try await Self.startSMS()
        defer { server.stop() }
        let error = await #expect(throws: SMSDeliveryError.self) { try await Self.sms(server).send(try Self.message(number)) }
        #expect(error?.reason == reason)
        #expect(error?.code == code)
        Self.expectNothingSecret(error, "482913", number)
    }

    @Test(arguments: [
        ("13800000001", GatewayError.Kind.timedOut),
        ("13800000500", .httpStatus(500)),
        ("13800000002", .malformedBody("the answer was cut short (the connection closed mid-body)")),
        ("13800000003", .malformedBody("the body is not JSON (28 bytes)")),
        ("13800000004", .wrongContentType("text/html")),
    ])
    func noUsableAnswerIsAGatewayErrorWithoutTheCode(number: String, kind: GatewayError.Kind) async throws {
        let server = try await Self.startSMS()
        defer { server.stop() }
        // Only the slow answer meets a short time-out; the others get the default, for a loaded machine.
        let timeout: Duration = kind == .timedOut ? .milliseconds(700) : .seconds(5)
        let error = await #expect(throws: GatewayError.self) { try await Self.sms(server, timeout: timeout).send(try Self.message(number)) }
        #expect(error == GatewayError(gateway: "aliyun-sms", kind))
        Self.expectNothingSecret(error, "482913", number)
    }

    /// The fake holds requests to the documents too: what strays from them gets Aliyun's codes, so a sender that
    /// sent it could not pass the tests above.
    @Test func theSMSFakeRefusesWhatTheDocumentDoesNotAllow() async throws {
        let server = try await Self.startSMS()
        defer { server.stop() }
        func code(signName: String = "阿里云短信测试", _ configure: (inout AliyunSMSConfiguration) -> Void = { _ in }) async throws -> String? {
            var configuration = AliyunSMSConfiguration(accessKeyID: Self.keyID, accessKeySecret: Secret(Self.secret), signName: signName, templateCode: "SMS_154950909")
            configuration.url = server.url("/")
            configure(&configuration)
            do {
                try await AliyunSMSSender(configuration: configuration, transport: URLSessionTransport()).send(try Self.message("13900139000"))
                return "OK"
            } catch let error as SMSDeliveryError {
                return error.code
            }
        }
        #expect(try await code(signName: "另一个签名") == "isv.SMS_SIGNATURE_ILLEGAL")
        #expect(try await code { $0.templateParamName = "otp" } == "isv.TEMPLATE_MISSING_PARAMETERS")
        #expect(try await code { $0.version = "2018-01-01" } == "InvalidApi.NotFound")
        #expect(try await code() == "OK")
    }
}
