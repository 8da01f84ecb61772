import Foundation
import OneTap
@testable import OneTapGateways
import OneTapTesting
import Testing

/// Tencent Captcha's `DescribeCaptchaResult`: the token the client sends (the callback's result as JSON), the request
/// against values computed outside the project (`printf '%s' BODY | python3 Fakes/tencent_tc3.py sign
/// onetap-tc3-secret-key-0001 captcha captcha.tencentcloudapi.com 1796083199`), and the codes; then against the fake
/// written from Tencent's document (Fakes/tencent_captcha_describe_captcha_result.py).
@Suite(.timeLimit(.minutes(4))) struct TencentCaptchaTests {
    static let now = FakeClock.epoch.addingTimeInterval(-1)
    static let context = SMSContext(ip: .v4(0xCB00_7107), session: .testSession)  // 203.0.113.7

    static func verifier(_ transport: any HTTPTransport, url: URL? = nil, appID: String = "199999164", appKey: String = "app-secret-key-0001", timeout: Duration = .seconds(30)) throws -> TencentCaptchaVerifier {
        var configuration = TencentCaptchaConfiguration(
            secretID: "AKIDonetapTEST0001", secretKey: Secret("onetap-tc3-secret-key-0001"), captchaAppID: appID, appSecretKey: Secret(appKey))
        if let url { configuration.url = url }
        configuration.timeout = timeout
        return try TencentCaptchaVerifier(configuration: configuration, transport: transport, clock: FakeClock(now: now))
    }

    static func token(_ ticket: String, randstr: String = "@Vki") -> Secret {
        Secret(#"{"ret":0,"ticket":"\#(ticket)","CaptchaAppId":"199999164","bizState":"","randstr":"\#(randstr)"}"#)
    }

    static func answer(_ json: String) -> ScriptedHTTPTransport.Step {
        .answer(HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: Array(json.utf8)))
    }

    @Test func theRequestIsTheDocumentsSignedAsPythonSignsIt() async throws {
        let transport = ScriptedHTTPTransport([Self.answer(#"{"Response":{"CaptchaCode":1,"CaptchaMsg":"OK","EvilLevel":0,"RequestId":"r"}}"#)])
        #expect(try await Self.verifier(transport).verify(Self.token("tr03ticket*"), context: Self.context))
        let request = try #require(transport.requests.last)
        #expect(String(decoding: request.body, as: UTF8.self)
            == #"{"AppSecretKey":"app-secret-key-0001","CaptchaAppId":199999164,"CaptchaType":9,"Randstr":"@Vki","Ticket":"tr03ticket*","UserIp":"203.0.113.7"}"#)
        #expect(request.url == TencentCaptchaConfiguration.documentedURL)
        #expect(request.header("Authorization")
            == "TC3-HMAC-SHA256 Credential=AKIDonetapTEST0001/2026-11-30/captcha/tc3_request, SignedHeaders=content-type;host, Signature=43b21e008f4c4980730009f0af90b6e3f51baa68fb6f8623a44f1f0245115aa0")
        #expect(request.header("X-TC-Action") == "DescribeCaptchaResult")
        #expect(request.header("X-TC-Version") == "2019-07-22")
        #expect(request.header("X-TC-Region") == nil)
        let preview = try Self.verifier(ScriptedHTTPTransport()).signPreview(fields: ["ticket": "tr03ticket*", "randstr": "@Vki", "userIp": "203.0.113.7", "timestamp": "1796083199"])
        #expect(preview.stringToSign.hasSuffix("\nc8b8a8b3c3c1a689157c35f997e2a2b3256668965cb49f25a4a70c1a6a951d9d"))
        #expect(preview.signature == "43b21e008f4c4980730009f0af90b6e3f51baa68fb6f8623a44f1f0245115aa0")
    }

    /// `EvilLevel` as Tencent's SDKs type it (a nullable integer): 0, absent or null is solved; any other level is not;
    /// a value of another kind is no answer of Tencent's (it throws, and the check counts as not passed).
    @Test(arguments: [
        (#""EvilLevel":0"#, true as Bool?), (#""EvilLevel":null"#, true), ("", true), (#""EvilLevel":100"#, false), (#""EvilLevel":50"#, false),
        (#""EvilLevel":{"x":1}"#, nil),
    ])
    func theInvisibleModesEvilLevelDecides(member: String, solved: Bool?) async throws {
        let body = #"{"Response":{"CaptchaCode":1,"CaptchaMsg":"OK","RequestId":"r""# + (member.isEmpty ? "" : "," + member) + "}}"
        let verifier = try Self.verifier(ScriptedHTTPTransport([Self.answer(body)]))
        if let solved {
            #expect(try await verifier.verify(Self.token("tr03ticket*"), context: Self.context) == solved)
        } else {
            await #expect(throws: GatewayError.self) { try await verifier.verify(Self.token("tr03ticket*"), context: Self.context) }
        }
    }

    @Test(arguments: [
        ("not json", "not JSON"), (#"["ticket"]"#, "not a JSON object"), (#"{"randstr":"@Vki"}"#, #"no "ticket""#),
        (#"{"ticket":"","randstr":"@Vki"}"#, #""ticket" is empty"#), (#"{"ticket":"t","randstr":true}"#, #""randstr" is not a string"#),
        (String(repeating: " ", count: 9000), "longer than 8192 bytes"),
    ])
    func aMalformedTokenIsRefusedBeforeAnyRequest(token: String, words: String) async throws {
        let transport = ScriptedHTTPTransport()
        let error = await #expect(throws: CaptchaTokenError.self) { try await Self.verifier(transport).verify(Secret(token), context: Self.context) }
        #expect(error?.description.contains(words) == true, "\(String(describing: error))")
        #expect(transport.requests.isEmpty)
    }

    @Test func aContextWithoutTheClientsAddressIsRefusedBeforeAnyRequest() async throws {
        let transport = ScriptedHTTPTransport()
        let error = await #expect(throws: CaptchaTokenError.self) { try await Self.verifier(transport).verify(Self.token("t"), context: SMSContext(session: .testSession)) }
        #expect(error?.description.contains("UserIp") == true)
        #expect(transport.requests.isEmpty)
    }

    @Test func aBadConfigurationFailsAtStartNamingTheField() throws {
        for (appID, key, words) in [("19999x", "k", "captchaAppId"), ("", "k", "captchaAppId"), ("199999164", "", "appSecretKey"), ("199999164", "s3cret value", "appSecretKey")] {
            let error = #expect(throws: GatewayError.self) { try Self.verifier(ScriptedHTTPTransport(), appID: appID, appKey: key) }
            #expect("\(String(describing: error))".contains(words))
            #expect(!"\(String(describing: error))".contains("s3cret"))
        }
        let settings = try GatewayConfigurationFile(
            text: #"{"tencent-captcha": {"secretId": "AKIDx", "secretKey": {"env": "K"}, "captchaAppId": "199999164", "appSecretKey": {"env": "A"}}}"#, file: "g.json",
            environment: { $0 == "K" ? "k1" : $0 == "A" ? "a1" : nil }
        ).settings("tencent-captcha")
        let configuration = try TencentCaptchaConfiguration(settings: settings)
        #expect(configuration.appSecretKey.reveal() == "a1")
        // Signed at / with no query: a URL with a path is refused at start, as the SMS sender's is.
        var elsewhere = configuration
        elsewhere.url = try #require(URL(string: "https://captcha.tencentcloudapi.com/v1"))
        let error = #expect(throws: GatewayError.self) { try TencentCaptchaVerifier(configuration: elsewhere, transport: ScriptedHTTPTransport()) }
        #expect("\(String(describing: error))".contains("url must be the endpoint alone"), "\(String(describing: error))")
        #expect(configuration.description == "tencent-captcha CaptchaAppId 199999164, captcha.tencentcloudapi.com/")
    }

    static func fake() async throws -> FakeServer {
        try await FakeServer.start("tencent_captcha_describe_captcha_result.py", arguments: [
            "--secret-id", "AKIDonetapTEST0001", "--secret-key", "onetap-tc3-secret-key-0001", "--captcha-app-id", "199999164", "--app-secret-key", "app-secret-key-0001",
        ])
    }

    static func live(
        _ server: FakeServer, appID: String = "199999164", appKey: String = "app-secret-key-0001", secretKey: String = "onetap-tc3-secret-key-0001",
        timeout: Duration = .seconds(30)
    ) throws -> TencentCaptchaVerifier {
        var configuration = TencentCaptchaConfiguration(
            secretID: "AKIDonetapTEST0001", secretKey: Secret(secretKey), captchaAppID: appID, appSecretKey: Secret(appKey))
        configuration.url = server.url("/")
        configuration.timeout = timeout
        return try TencentCaptchaVerifier(configuration: configuration, transport: URLSessionTransport())
    }

    @Test func theFakeAnswersSolvedOnceAndNotSolvedForBadTickets() async throws {
        let server = try await Self.fake()
        defer { server.stop() }
        let verifier = try Self.live(server)
        let ticket = "tr03-\(UUID().uuidString)"
        #expect(try await verifier.verify(Self.token(ticket), context: Self.context))
        #expect(try await verifier.verify(Self.token(ticket), context: Self.context) == false)  // 9 ticket reused
        #expect(try await verifier.verify(Self.token("expired-\(UUID().uuidString)"), context: Self.context) == false)  // 8
        #expect(try await verifier.verify(Self.token("diff-\(UUID().uuidString)"), context: Self.context) == false)  // 21
        #expect(try await verifier.verify(Self.token(UUID().uuidString, randstr: "bad"), context: Self.context) == false)  // 7
    }

    /// In the invisible mode (无感验证) a malicious request's ticket checks out `CaptchaCode` 1 and the verdict is
    /// `EvilLevel`: 100 is malicious (Tencent's "无感验证方式如何接入"). A bot passed as solved (an attacker's read).
    @Test func aTicketTencentJudgesMaliciousIsNotSolved() async throws {
        let server = try await Self.fake()
        defer { server.stop() }
        #expect(try await Self.live(server).verify(Self.token("evil-\(UUID().uuidString)"), context: Self.context) == false)
        #expect(try await Self.live(server).verify(Self.token("tr03-\(UUID().uuidString)"), context: Self.context))
    }

    @Test func aConfigurationTencentRefusesThrowsItsCode() async throws {
        let server = try await Self.fake()
        defer { server.stop() }
        let wrongApp = await #expect(throws: GatewayCodeError.self) { try await Self.live(server, appID: "199999165").verify(Self.token(UUID().uuidString), context: Self.context) }
        #expect(wrongApp?.code == "16")
        let wrongKey = await #expect(throws: GatewayCodeError.self) { try await Self.live(server, appKey: "app-secret-key-0002").verify(Self.token(UUID().uuidString), context: Self.context) }
        #expect(wrongKey?.code == "100")
        #expect(!"\(String(describing: wrongKey))".contains("app-secret-key"))
        // Response.Error: the API refused the call itself (here the signature, made with another SecretKey).
        let signature = await #expect(throws: GatewayCodeError.self) { try await Self.live(server, secretKey: "s3cret-other").verify(Self.token(UUID().uuidString), context: Self.context) }
        #expect(signature?.code == "AuthFailure.SignatureFailure")
        #expect(signature?.requestID != nil)
        #expect(!"\(String(describing: signature))".contains("s3cret-other"))
        let busy = await #expect(throws: GatewayCodeError.self) { try await Self.live(server).verify(Self.token("busy-\(UUID().uuidString)"), context: Self.context) }
        #expect(busy?.code == "26")
        // Which of them a client's ticket can cause (16 and 100 answer another app's ticket too), and which are
        // Tencent's or the account's own trouble (a captcha check that ends in one counts against no one).
        #expect(wrongApp?.isProviderFault == false && wrongKey?.isProviderFault == false)
        #expect(signature?.isProviderFault == true && busy?.isProviderFault == true)
        // The account's or the server address's request frequency limit: no requester's doing, so it counts against
        // none (a review: counted, a flood from elsewhere would charge every neighbour checked meanwhile).
        let throttled = await #expect(throws: GatewayCodeError.self) { try await Self.live(server).verify(Self.token("throttled-\(UUID().uuidString)"), context: Self.context) }
        #expect(throttled?.code == "RequestLimitExceeded" && throttled?.isProviderFault == true)
    }

    @Test(arguments: [
        ("status-500", GatewayError.Kind.httpStatus(500)),
        ("truncated", .malformedBody("the answer was cut short (the connection closed mid-body)")),
        ("malformed", .malformedBody("the body is not JSON (30 bytes)")),
        ("html", .wrongContentType("text/html")),
    ])
    func everyBrokenAnswerIsATypedError(prefix: String, kind: GatewayError.Kind) async throws {
        let server = try await Self.fake()
        defer { server.stop() }
        let ticket = "\(prefix)-\(UUID().uuidString)"
        let error = await #expect(throws: GatewayError.self) { try await Self.live(server).verify(Self.token(ticket), context: Self.context) }
        #expect(error == GatewayError(gateway: "tencent-captcha", kind))
        #expect(!"\(String(describing: error))".contains(ticket))
    }

    @Test func aSlowAnswerIsTimedOut() async throws {
        let server = try await Self.fake()
        defer { server.stop() }
        let error = await #expect(throws: GatewayError.self) { try await Self.live(server, timeout: .milliseconds(700)).verify(Self.token("slow-\(UUID().uuidString)"), context: Self.context) }
        #expect(error == GatewayError(gateway: "tencent-captcha", .timedOut))
    }

    /// Tencent Cloud API 3.0's common error codes (its 公共错误码 page): the platform's or the account's own trouble is a
    /// provider fault, a code a request's values can cause is not.
    @Test(arguments: [
        ("RequestLimitExceeded", true), ("RequestLimitExceeded.UinLimitExceeded", true), ("InternalError", true), ("AuthFailure.SecretIdNotFound", true),
        ("ResourceUnavailable", true), ("UnauthorizedOperation", true), ("IpNotInWhitelist", true), ("InvalidParameter", false),
        ("InvalidParameterValue", false), ("MissingParameter", false), ("FailedOperation", false), ("RequestSizeLimitExceeded", false),
        ("InternalErrorish", false),
    ])
    func platformFaultsAreTheCommonCodesNoTicketCauses(code: String, fault: Bool) {
        #expect(TencentCaptchaVerifier.isPlatformFault(code) == fault)
    }
}
