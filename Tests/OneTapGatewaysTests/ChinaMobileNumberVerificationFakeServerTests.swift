import Foundation
import OneTap
@testable import OneTapGateways
import OneTapTesting
import Testing

/// China Mobile's number verification over the URLSession transport against the fake written from China Mobile's
/// document (Fakes/cmcc_token_validate.py), which recomputes phoneNum and the HMAC-SHA256 sign: each of the fake's
/// answers maps to the right verdict or GatewayError, no error holds the token, the appkey or the number, and under
/// NumberVerificationService a token is sent once and billed as Data/verification-billing.csv says.
@Suite(.timeLimit(.minutes(4))) struct ChinaMobileNumberVerificationFakeServerTests {
    static let appID = "300011111111"
    static let appKey = "appKey-5a4b3c"
    static let number = try! PhoneNumber("13800138000")
    static let other = try! PhoneNumber("13900139000")

    static func fake(_ arguments: [String] = []) async throws -> FakeServer {
        try await FakeServer.start("cmcc_token_validate.py", arguments: ["--appid", appID, "--appkey", appKey, "--number", number.digits] + arguments)
    }

    static func gateway(_ server: FakeServer, appKey: String = appKey, timeout: Duration = .seconds(30)) throws -> ChinaMobileNumberVerification {
        var configuration = ChinaMobileNumberVerificationConfiguration(appID: appID, appKey: Secret(appKey))
        configuration.url = server.url("/openapi/rs/tokenValidate")
        configuration.timeout = timeout
        return try ChinaMobileNumberVerification(configuration: configuration, transport: URLSessionTransport())
    }

    static func credential(_ prefix: String = "STsid") -> CarrierCredential {
        CarrierCredential(flow: .mobile, token: Secret("\(prefix)-\(UUID().uuidString)"))
    }

    static func expectNothingSecret(_ error: (any Error)?, token: CarrierCredential) {
        let text = "\(String(describing: error))"
        #expect(!text.contains(token.token.reveal()))
        #expect(!text.contains(appKey))
        #expect(!text.contains(number.digits))
    }

    @Test func theSIMsOwnNumberPassesAnotherIsRejected() async throws {
        let server = try await Self.fake(["--sms-assist"])
        defer { server.stop() }
        let gateway = try Self.gateway(server)
        #expect(try await gateway.verify(Self.credential(), number: Self.number) == NumberVerificationResponse(code: "000", verdict: .pass))
        #expect(try await gateway.verify(Self.credential(), number: Self.other) == NumberVerificationResponse(code: "001", verdict: .reject))
    }

    @Test func aWrongAppKeyIsTheSignError302() async throws {
        let server = try await Self.fake()
        defer { server.stop() }
        #expect(try await Self.gateway(server, appKey: "appKey-wrong").verify(Self.credential(), number: Self.number) == NumberVerificationResponse(code: "302", verdict: .unknown))
    }

    @Test func anAddressOffTheWhitelistIs124() async throws {
        let server = try await Self.fake(["--whitelist", "10.1.2.3"])
        defer { server.stop() }
        #expect(try await Self.gateway(server).verify(Self.credential(), number: Self.number).code == "124")
    }

    @Test func aTokenUsedTwiceOrExpiredIs606AndEachDocumentedErrorIsUnknown() async throws {
        let server = try await Self.fake()
        defer { server.stop() }
        let gateway = try Self.gateway(server)
        let credential = Self.credential()
        #expect(try await gateway.verify(credential, number: Self.number).verdict == .pass)
        #expect(try await gateway.verify(credential, number: Self.number) == NumberVerificationResponse(code: "606", verdict: .unknown))
        #expect(try await gateway.verify(Self.credential("expired"), number: Self.number).code == "606")
        for code in ["002", "003", "004", "999", "102315"] {
            #expect(try await gateway.verify(Self.credential("code-\(code)"), number: Self.number) == NumberVerificationResponse(code: try ResultCode(code), verdict: .unknown))
        }
    }

    @Test func aSlowAnswerPastTheTimeOutIsTimedOut() async throws {
        let server = try await Self.fake()
        defer { server.stop() }
        let credential = Self.credential("slow")
        let error = await #expect(throws: GatewayError.self) { try await Self.gateway(server, timeout: .milliseconds(700)).verify(credential, number: Self.number) }
        #expect(error == GatewayError(gateway: "cmcc", .timedOut))
        #expect(error?.mayHaveReachedVendor == true)
        Self.expectNothingSecret(error, token: credential)
    }

    @Test(arguments: [
        ("status-500", GatewayError.Kind.httpStatus(500)),
        ("status-502", .httpStatus(502)),
        ("truncated", .malformedBody("the answer was cut short (the connection closed mid-body)")),
        ("malformed", .malformedBody("the body is not JSON (39 bytes)")),
        ("html", .wrongContentType("text/html")),
    ])
    func everyBrokenAnswerIsATypedErrorNamingTheGatewayAndNoSecret(prefix: String, kind: GatewayError.Kind) async throws {
        let server = try await Self.fake()
        defer { server.stop() }
        let credential = Self.credential(prefix)
        let error = await #expect(throws: GatewayError.self) { try await Self.gateway(server).verify(credential, number: Self.number) }
        #expect(error == GatewayError(gateway: "cmcc", kind))
        Self.expectNothingSecret(error, token: credential)
    }

    @Test func aServerThatIsNotThereIsNotSentSoNotBilled() async throws {
        // Port 1 on loopback: no fake ever listens there (they take ephemeral ports), so the connection is refused.
        // (A stopped fake's port could be taken by another suite's fake in between, which then answered.)
        let url = try #require(URL(string: "http://127.0.0.1:1/openapi/rs/tokenValidate"))
        var configuration = ChinaMobileNumberVerificationConfiguration(appID: Self.appID, appKey: Secret(Self.appKey))
        configuration.url = url
        configuration.timeout = .seconds(31)   // a refused connection is quick; a machine under ThreadSanitizer is not
        let service = NumberVerificationService(provider: try ChinaMobileNumberVerification(configuration: configuration, transport: URLSessionTransport()),
                                                timeout: .seconds(30), quota: nil, events: RecordingEventSink())
        let answer = try await service.verify(Self.credential(), number: Self.number)
        #expect(answer.verdict == .unknown)
        #expect(answer.billed == false)
    }

    /// Under the service: a pass and a reject are billed (`cmcc` rows), a token is sent once, an answer past the
    /// service's time-out is unknown and may have been billed.
    @Test func underTheServiceATokenIsSentOnceAndBilledAsTheTableSays() async throws {
        let server = try await Self.fake()
        defer { server.stop() }
        let events = RecordingEventSink()
        // One ledger, two services: the honest answers get a loaded machine's 30 s; the slow one (the fake answers after
        // 3 s) meets a time-out of 1.5 s.
        let ledger = InMemoryExchangeLedger()
        let service = NumberVerificationService(provider: try Self.gateway(server), ledger: ledger, timeout: .seconds(30), quota: nil, events: events)
        let hurried = NumberVerificationService(provider: try Self.gateway(server), ledger: ledger, timeout: .milliseconds(1500), quota: nil, events: events)
        let credential = Self.credential()
        #expect(service.gateway == "cmcc")
        let pass = try await service.verify(credential, number: Self.number, caller: "end-user")
        #expect(pass.code == "000" && pass.verdict == .pass && pass.billed == true)
        // Sent again, the fake would answer 606: the service never sends it. The same number gets the recorded answer
        // again (unbilled), another number nothing.
        let again = try await service.verify(credential, number: Self.number, caller: "end-user")
        #expect(again.code == "000" && again.verdict == .pass && again.billed == false)
        let guess = try await service.verify(credential, number: Self.other, caller: "end-user")
        #expect(guess.code == nil && guess.verdict == .unknown && guess.billed == false)
        let reject = try await service.verify(Self.credential(), number: Self.other)
        #expect(reject.code == "001" && reject.verdict == .reject && reject.billed == true)
        let wrong = try await service.verify(Self.credential("code-999"), number: Self.number)
        #expect(wrong.code == "999" && wrong.verdict == .unknown && wrong.billed == false)
        let slow = try await hurried.verify(Self.credential("slow"), number: Self.number)
        #expect(slow.code == nil && slow.verdict == .unknown && slow.billed == nil)
        for line in events.recorded.map({ $0.json() }) {
            #expect(line.contains(#""area":"verify""#))
            #expect(line.contains(#""gateway":"cmcc""#))
            #expect(!line.contains(credential.token.reveal()) && !line.contains(Self.number.digits) && !line.contains(Self.appKey))
        }
    }

    /// The fake holds requests to the document too: a request that strays from it gets the document's codes, so a
    /// gateway that sent one could not pass the tests above.
    @Test func theFakeRefusesWhatTheDocumentDoesNotAllow() async throws {
        let server = try await Self.fake()
        defer { server.stop() }
        let transport = URLSessionTransport()
        func send(_ body: String, contentType: String = "application/json") async throws -> String? {
            let response = try await transport.send(HTTPRequest(
                gateway: "cmcc", method: "POST", url: server.url("/openapi/rs/tokenValidate"), headers: [HTTPHeader("Content-Type", contentType)],
                body: Array(body.utf8), timeout: .seconds(30)))
            let object = try GatewayAnswer.jsonObject(response, gateway: "cmcc", contentTypes: ["application/json"])
            return object["header"]?.objectValue?["resultCode"]?.stringValue
        }
        let header = #""header":{"version":"1.0","msgId":"m1","timestamp":"20261201080000000","appId":"\#(Self.appID)"}"#
        let body = #""openType":"1","requesterType":"0","phoneNum":"AB","token":"t1""#
        #expect(try await send("{\(header),\"body\":{\(body),\"sign\":\"x\"}}") == "302")
        #expect(try await send("{\(header),\"body\":{\(body)}}") == "102")
        #expect(try await send("{\(header),\"body\":{\(body),\"sign\":1}}") == "102")
        #expect(try await send("{\(header),\"body\":{\(body),\"sign\":\"x\",\"extra\":\"y\"}}") == "102")
        #expect(try await send("{\(header.replacingOccurrences(of: "1.0", with: "2.0")),\"body\":{\(body),\"sign\":\"x\"}}") == "102")
        #expect(try await send("{\(header),\"body\":{\(body.replacingOccurrences(of: "\"openType\":\"1\",", with: "")),\"sign\":\"x\"}}") == "102")
        #expect(try await send("not json") == "303")
        #expect(try await send("{\(header),\"body\":{\(body),\"sign\":\"x\"}}", contentType: "text/plain") == "303")
    }
}
