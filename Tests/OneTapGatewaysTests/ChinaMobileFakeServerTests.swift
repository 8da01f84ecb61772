import Foundation
import OneTap
@testable import OneTapGateways
import Testing
import OneTapTesting

/// China Mobile's gateway over the URLSession transport against the fake written from China Mobile's document
/// (Fakes/cmcc_login_token_validate.py), which checks every field and the signature: each of the fake's answers
/// maps to the right ExchangeResponse or GatewayError, and no error's words hold the token, the secret or the number.
@Suite(.timeLimit(.minutes(4))) struct ChinaMobileFakeServerTests {
    static let appID = "300011111111"
    static let secret = "appSecret-9f8e7d"
    static let number = "13800138000"

    static func fake(_ arguments: [String] = ["--secret", secret]) async throws -> FakeServer {
        try await FakeServer.start("cmcc_login_token_validate.py", arguments: ["--appid", appID, "--number", number] + arguments)
    }

    static func gateway(_ server: FakeServer, signing: ChinaMobileConfiguration.Signing = .md5(secret: Secret(secret)), timeout: Duration = .seconds(30)) throws -> ChinaMobileTokenExchange {
        var configuration = ChinaMobileConfiguration(appID: appID, signing: signing)
        configuration.url = server.url("/unisdk/rsapi/loginTokenValidate")
        configuration.timeout = timeout
        configuration.contentTypes = ["application/json"]
        return try ChinaMobileTokenExchange(configuration: configuration, transport: URLSessionTransport())
    }

    static func token(_ prefix: String = "STsid") -> String { "\(prefix)-\(UUID().uuidString)" }

    static func expectNothingSecret(_ error: (any Error)?, token: String) {
        let text = "\(String(describing: error))"
        #expect(!text.contains(token))
        #expect(!text.contains(secret))
        #expect(!text.contains(number))
    }

    @Test func theMD5SignGetsTheNumberAndTheTaskID() async throws {
        let server = try await Self.fake(["--secret", Self.secret, "--task-ids"])
        defer { server.stop() }
        let gateway = try Self.gateway(server)
        let answer = try await gateway.validate(Secret(Self.token()))
        #expect(answer.code == "103000")
        #expect(answer.phoneNumber == (try PhoneNumber(Self.number)))
        #expect(answer.taskID?.hasPrefix("task-") == true)
        #expect(answer.messageID.count == 32)
        #expect(!answer.description.contains(Self.number))
        let response = try await gateway.exchange(CarrierCredential(flow: .mobile, token: Secret(Self.token())))
        #expect(response == ExchangeResponse(code: "103000", phoneNumber: try PhoneNumber(Self.number)))
    }

    @Test(arguments: ["hex", "base64"], ["app-private-pkcs8.pem", "app-private-pkcs1.pem"])
    func theRSAModeIsVerifiedByTheFakeAndTheNumberDecrypts(encoding: String, keyFile: String) async throws {
        let publicKey = FakeServer.fakes.appendingPathComponent("keys/app-public.pem").path
        let server = try await Self.fake(["--public-key", publicKey, "--msisdn-encoding", encoding])
        defer { server.stop() }
        let gateway = try Self.gateway(server, signing: .rsa(signingKey: Secret(try TestKeys.pem(keyFile))))
        let answer = try await gateway.validate(Secret(Self.token()))
        #expect(answer.code == "103000")
        #expect(answer.phoneNumber == (try PhoneNumber(Self.number)))
    }

    /// China Mobile's document does not say which bytes `msisdn` encrypts; a public integration (gin-vue-admin's
    /// oneLogin plugin) decodes them as UTF-16LE. Read as UTF-8 alone, every such login's number was `malformedBody`
    /// after a billed exchange (a review's finding): both are read.
    @Test func aNumberEncryptedAsUTF16LEDecrypts() async throws {
        let publicKey = FakeServer.fakes.appendingPathComponent("keys/app-public.pem").path
        let server = try await Self.fake(["--public-key", publicKey, "--msisdn-text", "utf-16le"])
        defer { server.stop() }
        let gateway = try Self.gateway(server, signing: .rsa(signingKey: Secret(try TestKeys.pem("app-private-pkcs8.pem"))))
        let answer = try await gateway.validate(Secret(Self.token()))
        #expect(answer.code == "103000")
        #expect(answer.phoneNumber == (try PhoneNumber(Self.number)))
    }

    @Test func aWrongSecretOrAnotherKeyIsTheSignError() async throws {
        let publicKey = FakeServer.fakes.appendingPathComponent("keys/app-public.pem").path
        let server = try await Self.fake(["--secret", Self.secret, "--public-key", publicKey])
        defer { server.stop() }
        #expect(try await Self.gateway(server, signing: .md5(secret: Secret("appkey-instead"))).validate(Secret(Self.token())).code == "103101")
        // The RSA sign with SHA-1 instead of SHA-256 is not what the fake verifies.
        let md5Signed = try Self.gateway(server, signing: .rsa(signingKey: Secret(try TestKeys.pem("app-private-pkcs8.pem")), digest: .md5))
        #expect(try await md5Signed.validate(Secret(Self.token())).code == "103101")
        // A sign error is misconfigured in Data/exchange-codes.csv.
        #expect(ExchangeCodeTable.builtIn.entry(for: .mobile, code: "103101").action == .misconfigured)
    }

    @Test func anAddressOffTheWhitelistIs103511() async throws {
        let server = try await Self.fake(["--secret", Self.secret, "--whitelist", "10.1.2.3"])
        defer { server.stop() }
        let answer = try await Self.gateway(server).validate(Secret(Self.token()))
        #expect(answer == ChinaMobileAnswer(code: "103511", phoneNumber: nil, taskID: nil, messageID: answer.messageID))
    }

    @Test func aTokenUsedTwiceOrExpiredIs104201() async throws {
        let server = try await Self.fake()
        defer { server.stop() }
        let gateway = try Self.gateway(server)
        let token = Self.token()
        #expect(try await gateway.exchange(CarrierCredential(flow: .mobile, token: Secret(token))).code == "103000")
        #expect(try await gateway.exchange(CarrierCredential(flow: .mobile, token: Secret(token))) == ExchangeResponse(code: "104201"))
        #expect(try await gateway.exchange(CarrierCredential(flow: .mobile, token: Secret(Self.token("expired")))) == ExchangeResponse(code: "104201"))
    }

    /// The fake answers a msgid it has seen `103107`, as China Mobile does. The gateway draws a new msgid for every
    /// request, so that answer means the request reached China Mobile twice (libcurl sends it again when a reused
    /// connection closes before the answer) and the first copy's answer, perhaps the number, was lost: the outcome
    /// is unknown (`sentTwice`, which may have reached the vendor), never a `103107` answer read as misconfiguration.
    @Test func aMessageIDTheGatewayHadSeenIsARequestSentTwice() async throws {
        let server = try await Self.fake()
        defer { server.stop() }
        var configuration = ChinaMobileConfiguration(appID: Self.appID, signing: .md5(secret: Secret(Self.secret)))
        configuration.url = server.url("/unisdk/rsapi/loginTokenValidate")
        configuration.contentTypes = ["application/json"]
        let gateway = try ChinaMobileTokenExchange(configuration: configuration, transport: URLSessionTransport(), clock: SystemClock(), messageIDs: { "0123456789abcdef0123456789abcdef" })
        #expect(try await gateway.exchange(CarrierCredential(flow: .mobile, token: Secret(Self.token()))).code == "103000")
        let token = Self.token()
        let error = await #expect(throws: GatewayError.self) { try await gateway.exchange(CarrierCredential(flow: .mobile, token: Secret(token))) }
        #expect(error?.kind == .sentTwice)
        #expect(error?.mayHaveReachedVendor == true)
        Self.expectNothingSecret(error, token: token)
    }

    @Test func aSlowAnswerPastTheTimeOutIsTimedOut() async throws {
        let server = try await Self.fake()
        defer { server.stop() }
        let token = Self.token("slow")
        let error = await #expect(throws: GatewayError.self) { try await Self.gateway(server, timeout: .milliseconds(700)).validate(Secret(token)) }
        #expect(error == GatewayError(gateway: "cmcc", .timedOut))
        #expect(error?.mayHaveReachedVendor == true)
        Self.expectNothingSecret(error, token: token)
    }

    @Test(arguments: [
        ("status-500", GatewayError.Kind.httpStatus(500)),
        ("status-503", .httpStatus(503)),
        ("truncated", .malformedBody("the answer was cut short (the connection closed mid-body)")),
        ("malformed", .malformedBody("the body is not JSON (45 bytes)")),
        ("html", .wrongContentType("text/html")),
    ])
    func everyBrokenAnswerIsATypedErrorNamingTheGatewayAndNoSecret(prefix: String, kind: GatewayError.Kind) async throws {
        let server = try await Self.fake()
        defer { server.stop() }
        let token = Self.token(prefix)
        let error = await #expect(throws: GatewayError.self) { try await Self.gateway(server).exchange(CarrierCredential(flow: .mobile, token: Secret(token))) }
        #expect(error == GatewayError(gateway: "cmcc", kind))
        Self.expectNothingSecret(error, token: token)
    }

    @Test func manyExchangesAtOnceEachGetTheirOwnAnswer() async throws {
        let server = try await Self.fake()
        defer { server.stop() }
        let gateway = try Self.gateway(server)
        let codes = try await withThrowingTaskGroup(of: ResultCode.self) { group in
            for _ in 0..<16 { group.addTask { try await gateway.validate(Secret(Self.token())).code } }
            return try await group.reduce(into: [ResultCode]()) { $0.append($1) }
        }
        #expect(codes == Array(repeating: "103000", count: 16))
    }

    /// The fake holds requests to the document too: a request that strays from it gets the document's codes, so a
    /// gateway that sent one could not pass the tests above.
    @Test func theFakeRefusesWhatTheDocumentDoesNotAllow() async throws {
        let server = try await Self.fake()
        defer { server.stop() }
        let transport = URLSessionTransport()
        func send(_ body: String, contentType: String = "application/json") async throws -> String? {
            let response = try await transport.send(HTTPRequest(
                gateway: "cmcc", method: "POST", url: server.url("/unisdk/rsapi/loginTokenValidate"), headers: [HTTPHeader("Content-Type", contentType)],
                body: Array(body.utf8), timeout: .seconds(30)))
            return try GatewayAnswer.jsonObject(response, gateway: "cmcc", contentTypes: ["application/json"])["resultCode"]?.stringValue
        }
        let time = SystemTime17.format(Date(), offset: .seconds(8 * 3600))
        let valid = #""version":"2.0","msgid":"m1","systemtime":"\#(time)","strictcheck":"0","appid":"\#(Self.appID)","token":"t1""#
        #expect(try await send("{\(valid),\"sign\":1}") == "103414")
        #expect(try await send("{\(valid)}") == "103414")
        #expect(try await send("{\(valid),\"sign\":\"x\",\"extra\":\"y\"}") == "103414")
        #expect(try await send("{\(valid.replacingOccurrences(of: time, with: "2026120108000012")),\"sign\":\"x\"}") == "103414")
        #expect(try await send("{\(valid.replacingOccurrences(of: Self.appID, with: "300099999999")),\"sign\":\"x\"}") == "103119")
        #expect(try await send("{\(valid),\"sign\":\"00000000000000000000000000000000\"}") == "103101")
        #expect(try await send("not json") == "103412")
        #expect(try await send("{\(valid),\"sign\":\"x\"}", contentType: "text/plain") == "103412")
    }
}
