import Foundation
import OneTap
@testable import OneTapGateways
import OneTapTesting
import Testing

/// What Yidun's gateway sends and how it reads answers, against values computed outside the project with python3:
/// `hashlib.md5(("".join(k + f[k] for k in sorted(f)) + "secretKey-9").encode()).hexdigest()` over the parameters
/// below, `timestamp` = FakeClock.epoch + 123 ms = 1796083200123.
@Suite struct YidunRequestTests {
    static let nonce = "0123456789abcdef0123456789abcdef"
    static let tokens = YidunTokens(token: Secret("088c4952ae8749738937386021eb2531"), accessToken: Secret("nm6fb6a8a35aa74823a80de8de073995e5"))

    static func gateway(_ transport: ScriptedHTTPTransport) throws -> YidunGateway {
        try YidunGateway(
            configuration: YidunConfiguration(secretID: "sid1", secretKey: Secret("secretKey-9"), businessID: "bid1"), transport: transport,
            clock: FakeClock(now: FakeClock.epoch.addingTimeInterval(0.123)), nonces: { nonce })
    }

    static func json(_ body: String) -> ScriptedHTTPTransport.Step {
        .answer(HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: Array(body.utf8)))
    }

    static func form(_ request: HTTPRequest?) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in String(decoding: request?.body ?? [], as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            fields[parts[0]] = parts.count > 1 ? parts[1].removingPercentEncoding : ""
        }
        return fields
    }

    /// A gateway attacker's read: the number, a string in Yidun's document, was read from a JSON number too. Refused.
    @Test func aPhoneSentAsAJSONNumberIsMalformed() async throws {
        let transport = ScriptedHTTPTransport([Self.json(#"{"code":200,"msg":"ok","data":{"phone":13800138000,"resultCode":"0"}}"#)])
        let error = await #expect(throws: GatewayError.self) { try await Self.gateway(transport).oneclickCheck(Self.tokens) }
        #expect(error == GatewayError(gateway: "yidun", .malformedBody("'phone' is not a string")))
    }

    @Test func oneclickCheckSendsTheSignedFormAndReadsPhone() async throws {
        let transport = ScriptedHTTPTransport([Self.json(#"{"code":200,"msg":"ok","data":{"phone":"13800138000","resultCode":"0"}}"#)])
        let answer = try await Self.gateway(transport).oneclickCheck(Self.tokens)
        #expect(answer == AggregatorAnswer(gateway: "yidun", code: "200", phoneNumber: try PhoneNumber("13800138000")))
        let request = try #require(transport.requests.last)
        #expect(request.url.absoluteString == "https://ye.dun.163yun.com/v1/oneclick/check")
        #expect(request.header("Content-Type") == "application/x-www-form-urlencoded")
        #expect(Self.form(request) == [
            "secretId": "sid1", "businessId": "bid1", "version": "v1", "timestamp": "1796083200123", "nonce": Self.nonce,
            "accessToken": "nm6fb6a8a35aa74823a80de8de073995e5", "token": "088c4952ae8749738937386021eb2531", "signature": "88d5b666c1a9a22addbebbf3997d436f",
        ])
    }

    @Test func aTwoHundredWithoutPhoneReportsTheCarriersCode() async throws {
        let transport = ScriptedHTTPTransport([Self.json(#"{"code":200,"data":{"phone":"","resultCode":"103101"}}"#), Self.json(#"{"code":200}"#), Self.json(#"{"code":"415","msg":"x"}"#)])
        let gateway = try Self.gateway(transport)
        let credential = CarrierCredential(flow: .mobile, token: Self.tokens.joined)
        #expect(try await gateway.exchange(credential) == ExchangeResponse(code: "103101"))
        await #expect(throws: GatewayError(gateway: "yidun", .malformedBody("200 without data"))) { try await gateway.exchange(credential) }
        #expect(try await gateway.exchange(credential) == ExchangeResponse(code: "415"))
    }

    @Test func checkSendsPhoneAndMapsResult() async throws {
        let transport = ScriptedHTTPTransport([
            Self.json(#"{"code":200,"data":{"result":1}}"#), Self.json(#"{"code":200,"data":{"result":2}}"#), Self.json(#"{"code":200,"data":{"result":3}}"#),
            Self.json(#"{"code":401,"msg":"x"}"#), Self.json(#"{"code":200,"data":{"result":9}}"#),
        ])
        let gateway = try Self.gateway(transport)
        let number = try PhoneNumber("13800138000")
        let credential = CarrierCredential(flow: .tianyi, token: Self.tokens.joined)
        for (code, verdict) in [("200", NumberVerdict.pass), ("200", .reject), ("200", .unknown), ("401", .unknown)] {
            #expect(try await gateway.verify(credential, number: number) == NumberVerificationResponse(code: ResultCode(code), verdict: verdict))
        }
        await #expect(throws: GatewayError(gateway: "yidun", .malformedBody("200 without data.result 1, 2 or 3"))) { try await gateway.verify(credential, number: number) }
        let first = Self.form(transport.requests.first)
        #expect(first["phone"] == "13800138000" && first["signature"] == "a074836cb247d94efa38a1ce1fa4d760")
        #expect(transport.requests.first?.url.absoluteString == "https://ye.dun.163yun.com/v1/check")
    }

    @Test func aTokenThatIsNotAPairIsNotSent() async throws {
        let transport = ScriptedHTTPTransport([])
        let gateway = try Self.gateway(transport)
        for token in ["no-colon", ":access", "token:"] {
            let error = await #expect(throws: ExchangeNotSentError.self) { try await gateway.exchange(CarrierCredential(flow: .mobile, token: Secret(token))) }
            #expect(error?.reason.contains("token:accessToken") == true)
            #expect(error?.refusedCredential == true, "the client's credential, not the way to the carrier")
        }
        #expect(transport.requests.isEmpty)
        #expect(try YidunTokens(joined: Secret("abc:acc:ess")).accessToken.reveal() == "acc:ess")
    }

    @Test func misconfigurationSettingsAndSignPreview() throws {
        let transport = ScriptedHTTPTransport([])
        let bad = #expect(throws: GatewayError.self) {
            try YidunGateway(configuration: YidunConfiguration(secretID: "sid1", secretKey: Secret("secretKey-9"), businessID: ""), transport: transport)
        }
        #expect(bad?.description.contains("businessId must be") == true)
        #expect(!String(describing: bad).contains("secretKey-9"))
        let settings = GatewaySettings(
            gateway: "yidun", fields: ["secretId": "sid1", "secretKey": ["file": "/run/k"], "businessId": "bid1"], environment: { _ in nil },
            readFile: { _ in Data("secretKey-9\n".utf8) })
        let configuration = try YidunConfiguration(settings: settings)
        #expect(configuration.secretKey.reveal() == "secretKey-9" && !configuration.description.contains("secretKey-9"))
        let preview = try Self.gateway(transport).signPreview(fields: ["token": "088c4952ae8749738937386021eb2531", "accessToken": "nm6fb6a8a35aa74823a80de8de073995e5"])
        #expect(preview.stringToSign.hasSuffix("versionv1<secretKey>"))
        #expect(preview.signature == "88d5b666c1a9a22addbebbf3997d436f")
    }
}
