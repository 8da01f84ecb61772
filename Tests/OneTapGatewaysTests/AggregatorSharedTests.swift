import Foundation
import OneTap
@testable import OneTapGateways
import OneTapTesting
import Testing

/// The pieces the aggregators share, and the fakes' own checks: a request that strays from the document gets the
/// fake's refusal, so a gateway that sent one could not pass the fake-server tests.
@Suite(.timeLimit(.minutes(2))) struct AggregatorSharedTests {
    /// Expected with python3: `urllib.parse.quote("A2+/=中 &x", safe="-._~")`.
    @Test func theFormBodyPercentEncodesAllButTheUnreservedBytes() {
        #expect(String(decoding: FormBody.encode([("token", "A2+/=中 &x"), ("appId", "a-._~1")]), as: UTF8.self) == "token=A2%2B%2F%3D%E4%B8%AD%20%26x&appId=a-._~1")
        #expect(FormBody.sortedConcatenation([("token", "t"), ("appId", "a"), ("Zeta", "z"), ("outId", "")]) == "ZetazappIdaoutIdtokent")
    }

    @Test func jverificationsIdIsReadExactlyWhateverItsForm() throws {
        func id(_ body: String) throws -> String? {
            let members = try #require(try JSONValue.parse(body).objectValue)
            return JVerificationGateway.rawID(Array(body.utf8), members: members)
        }
        #expect(try id(#"{"id" : 117270465679982593,"code":8000}"#) == "117270465679982593")
        #expect(try id(#"{"exID":"1","id":"abc"}"#) == "abc")
        #expect(try id(#"{"code":8001}"#) == nil)
        #expect(try id(#"{"content":"\"id\"","id":42}"#) == "42")
    }

    @Test func aNumberThatDoesNotDecryptAsANumberIsMalformed() throws {
        #expect(throws: GatewayError(gateway: "x", .malformedBody("'phone' is not a mainland mobile number"))) {
            try AggregatorCall.phoneNumber("hello", field: "phone", gateway: "x")
        }
    }

    @Test func theShanyanFakeRefusesAFormWithoutSignOrWithAnUnknownParameter() async throws {
        let server = try await FakeServer.start("shanyan_flashsdk.py", arguments: ["--app-id", "A1", "--app-key", "K1", "--number", "13800138000"])
        defer { server.stop() }
        let transport = URLSessionTransport()
        func code(_ body: String, type: String = "application/x-www-form-urlencoded") async throws -> String? {
            let response = try await transport.send(HTTPRequest(
                gateway: "shanyan", method: "POST", url: server.url("/open/flashsdk/mobile-query"), headers: [HTTPHeader("Content-Type", type)], body: Array(body.utf8), timeout: .seconds(5)))
            return try GatewayAnswer.text(try GatewayAnswer.jsonObject(response, gateway: "shanyan", contentTypes: ["application/json"]), "code", gateway: "shanyan")
        }
        #expect(try await code("appId=A1&token=t1") == "fake-parameters")
        #expect(try await code("appId=A1&token=t1&sign=x&extra=1") == "fake-parameters")
        #expect(try await code("appId=A1&token=t1&token=t2&sign=x") == "fake-parameters")
        #expect(try await code("appId=A1&token=t1&sign=x", type: "application/json") == "fake-parameters")
        #expect(try await code("appId=A2&token=t1&sign=x") == "fake-app")
        #expect(try await code("appId=A1&token=t1&sign=00") == "fake-sign")
    }

    @Test func theYidunFakeRefusesAStaleTimestampAndAReusedNonce() async throws {
        let server = try await FakeServer.start("yidun_quickpass.py", arguments: ["--secret-id", "s1", "--secret-key", "k1", "--business-id", "b1", "--number", "13800138000"])
        defer { server.stop() }
        var configuration = YidunConfiguration(secretID: "s1", secretKey: Secret("k1"), businessID: "b1")
        configuration.url = server.url("/v1/oneclick/check")
        let stale = try YidunGateway(configuration: configuration, transport: URLSessionTransport(), clock: FakeClock(now: Date().addingTimeInterval(-60)), nonces: { UUID().uuidString })
        #expect(try await stale.oneclickCheck(YidunTokens(token: Secret("t1"), accessToken: Secret("a1"))).code == "fake-timestamp")
        let sameNonce = try YidunGateway(configuration: configuration, transport: URLSessionTransport(), clock: SystemClock(), nonces: { "n-fixed" })
        #expect(try await sameNonce.oneclickCheck(YidunTokens(token: Secret("t2"), accessToken: Secret("a2"))).code == "200")
        #expect(try await sameNonce.oneclickCheck(YidunTokens(token: Secret("t3"), accessToken: Secret("a3"))).code == "fake-nonce")
    }
}
