import Foundation
import OneTap
@testable import OneTapGateways
import OneTapTesting
import Testing

/// The pieces the aggregators share, and the fakes' own checks: a request that strays from the document gets the
/// fake's refusal, so a gateway that sent one could not pass the fake-server tests.
@Suite(.timeLimit(.minutes(4))) struct AggregatorSharedTests {
    @Test func theSignedStringSortsNamesByTheirBytes() {
        #expect(SortedParameters.concatenated([("token", "t"), ("appId", "a"), ("Zeta", "z"), ("outId", "")]) == "ZetazappIdaoutIdtokent")
    }

    @Test func jverificationsIdIsReadExactlyWhateverItsForm() throws {
        func id(_ body: String) -> String? { JVerificationGateway.rawID(Array(body.utf8)) }
        #expect(id(#"{"id" : 117270465679982593,"code":8000}"#) == "117270465679982593")
        #expect(id(#"{"exID":"1","id":"abc"}"#) == "abc")
        #expect(id(#"{"code":8001}"#) == nil)
        #expect(id(#"{"content":"\"id\"","id":42}"#) == "42")
        // Only the top level's id is the call's: not one in an object before it, nor one in an array.
        #expect(id(#"{"data":{"id":5},"list":[{"id":6}],"id":117270465679982592}"#) == "117270465679982592")
        #expect(id(#"{"data":{"id":5},"code":8000}"#) == nil)
        #expect(id(#"{"id":-7}"#) == "-7")
        #expect(id(#"{"id":1.5}"#) == nil)
        #expect(id(#"{"id":true}"#) == nil)
        // A string id is quoted as any vendor text: bounded, no control character.
        #expect(id(#"{"id":"a\u001b[2Jb"}"#) == "a\u{FFFD}[2Jb")
        #expect(id("{\"id\":\"\(String(repeating: "x", count: 300))\"}") == String(repeating: "x", count: 128))
    }

    @Test func aNumberThatDoesNotDecryptAsANumberIsMalformed() throws {
        #expect(throws: GatewayError(gateway: "x", .malformedBody("'phone' is not a mainland mobile number"))) {
            try GatewayAnswer.phoneNumber("hello", gateway: "x", label: "'phone'")
        }
    }

    /// A gateway attacker's read: a number encrypted to the app's key may come in any count of RSA blocks, and each was
    /// decrypted before the number was read, so an answer of 47 blocks (16 KiB of Base64) cost 47 private-key
    /// operations. A number fits in one block: more than two are refused as malformed before any is decrypted.
    @Test func aNumberInMoreThanTwoRSABlocksIsRefusedBeforeDecrypting() throws {
        let key = try RSAPrivateKey(pem: try TestKeys.pem("app-private-pkcs1.pem"))
        let block = (key.bits + 7) / 8
        let many = Data(repeating: 1, count: block * 47).base64EncodedString()
        #expect(throws: GatewayError(gateway: "x", .malformedBody("'phone' holds 47 RSA blocks; a number takes one (at most 2 are read)"))) {
            try AggregatorCall.rsaPhoneNumber(many, key: key, field: "phone", keyField: "privateKey", gateway: "x")
        }
        // Two blocks are read (and these, not made with the key, do not decrypt).
        let two = Data(repeating: 1, count: block * 2).base64EncodedString()
        let error = #expect(throws: GatewayError.self) { try AggregatorCall.rsaPhoneNumber(two, key: key, field: "phone", keyField: "privateKey", gateway: "x") }
        #expect(error.map { "\($0)".contains("blocks") } == false, "\(String(describing: error))")
    }

    /// A gateway attacker's read: of a number in two RSA blocks, the second was decrypted only when the first's
    /// padding held, so an answer's time told good padding from bad (one private-key operation more): a padding
    /// oracle, under OpenSSL before 3.2, for whoever can answer in the vendor's place. Every block is decrypted now,
    /// whichever fails, and the first failure is thrown after the last.
    @Test func everyBlockIsDecryptedWhicheverFails() throws {
        let blocks: [UInt8] = [1, 1, 2, 2]
        for failing: UInt8 in [1, 2] {
            var decrypted: [UInt8] = []
            let error = #expect(throws: CryptoError.self) {
                try AggregatorCall.decryptedBlocks(blocks, block: 2) { (block) throws(CryptoError) in
                    decrypted.append(block[0])
                    if block[0] == failing { throw CryptoError("test", "block \(failing)") }
                    return block
                }
            }
            #expect(decrypted == [1, 2], "block \(failing) failing")
            #expect(error?.reason == "block \(failing)")
        }
        var calls = 0
        let whole = try AggregatorCall.decryptedBlocks(blocks, block: 2) { (block) throws(CryptoError) in
            calls += 1
            return Array(block.prefix(1))
        }
        #expect(whole == [1, 2] && calls == 2)
    }

    @Test func theShanyanFakeRefusesAFormWithoutSignOrWithAnUnknownParameter() async throws {
        let server = try await FakeServer.start("shanyan_flashsdk.py", arguments: ["--app-id", "A1", "--app-key", "K1", "--number", "13800138000"])
        defer { server.stop() }
        let transport = URLSessionTransport()
        func code(_ body: String, type: String = "application/x-www-form-urlencoded") async throws -> String? {
            let response = try await transport.send(HTTPRequest(
                gateway: "shanyan", method: "POST", url: server.url("/open/flashsdk/mobile-query"), headers: [HTTPHeader("Content-Type", type)], body: Array(body.utf8), timeout: .seconds(30)))
            return try GatewayAnswer.text(try GatewayAnswer.jsonObject(response, gateway: "shanyan", contentTypes: ["application/json"]), "code", gateway: "shanyan", acceptingNumbers: true)
        }
        #expect(try await code("appId=A1&token=t1") == "fake-parameters")
        #expect(try await code("appId=A1&token=t1&sign=x&extra=1") == "fake-parameters")
        #expect(try await code("appId=A1&token=t1&token=t2&sign=x") == "fake-parameters")
        #expect(try await code("appId=A1&token=t1&sign=x", type: "application/json") == "fake-parameters")
        #expect(try await code("appId=A2&token=t1&sign=x") == "fake-app")
        #expect(try await code("appId=A1&token=t1&sign=00") == "fake-sign")
    }

    /// The stale timestamp against the demo's own 6 s window (a loaded machine's delay only makes it staler); the
    /// fresh call and the reused nonce against a fake with a 60 s window, so that a loaded CI machine's delay
    /// between signing and arrival (it once passed 6 s) cannot turn the fresh call stale.
    @Test func theYidunFakeRefusesAStaleTimestampAndAReusedNonce() async throws {
        let arguments = ["--secret-id", "s1", "--secret-key", "k1", "--business-id", "b1", "--number", "13800138000"]
        let demo = try await FakeServer.start("yidun_quickpass.py", arguments: arguments)
        defer { demo.stop() }
        var configuration = YidunConfiguration(secretID: "s1", secretKey: Secret("k1"), businessID: "b1")
        configuration.url = demo.url("/v1/oneclick/check")
        let stale = try YidunGateway(configuration: configuration, transport: URLSessionTransport(), clock: FakeClock(now: Date().addingTimeInterval(-60)), nonces: { UUID().uuidString })
        #expect(try await stale.oneclickCheck(YidunTokens(token: Secret("t1"), accessToken: Secret("a1"))).code == "fake-timestamp")
        let server = try await FakeServer.start("yidun_quickpass.py", arguments: arguments + ["--timestamp-window-ms", "60000"])
        defer { server.stop() }
        configuration.url = server.url("/v1/oneclick/check")
        let sameNonce = try YidunGateway(configuration: configuration, transport: URLSessionTransport(), clock: SystemClock(), nonces: { "n-fixed" })
        #expect(try await sameNonce.oneclickCheck(YidunTokens(token: Secret("t2"), accessToken: Secret("a2"))).code == "200")
        #expect(try await sameNonce.oneclickCheck(YidunTokens(token: Secret("t3"), accessToken: Secret("a3"))).code == "fake-nonce")
    }

    /// The configuration file's three aggregator objects, as the README shows them, make working gateways.
    @Test func theConfigurationFileMakesEachAggregator() throws {
        let pem = try TestKeys.pem("app-private-pkcs1.pem")
        let text = #"""
            {"jverification": {"appKey": "7d431e42", "masterSecret": {"env": "JV_MASTER_SECRET"}, "privateKey": {"file": "/run/secrets/jverification.pem"}},
             "shanyan": {"appId": "ZQZSp7C0", "appKey": {"env": "SHANYAN_APP_KEY"}},
             "yidun": {"secretId": "sid1", "secretKey": {"env": "YIDUN_SECRET_KEY"}, "businessId": "bid1"}}
            """#
        let file = try GatewayConfigurationFile(
            text: text, file: "gateways.json", environment: { ["JV_MASTER_SECRET": "m1", "SHANYAN_APP_KEY": "k1", "YIDUN_SECRET_KEY": "k2"][$0] },
            readFile: { path in
                guard path == "/run/secrets/jverification.pem" else { throw CocoaError(.fileNoSuchFile) }
                return Data(pem.utf8)
            })
        let transport = ScriptedHTTPTransport([])
        let jverification = try JVerificationGateway(configuration: JVerificationConfiguration(settings: try file.settings("jverification")), transport: transport)
        let shanyan = try ShanyanGateway(configuration: ShanyanConfiguration(settings: try file.settings("shanyan")), transport: transport)
        let yidun = try YidunGateway(configuration: YidunConfiguration(settings: try file.settings("yidun")), transport: transport)
        let descriptions = [jverification.description, shanyan.description, yidun.description].joined(separator: "\n")
        #expect(descriptions == """
            jverification appKey 7d431e42, api.verification.jpush.cn/v1/web/loginTokenVerify
            shanyan appId ZQZSp7C0, AES, api.253.com/open/flashsdk/mobile-query
            yidun secretId sid1, businessId bid1, ye.dun.163yun.com/v1/oneclick/check
            """)
        // A sign preview refuses a field the signed call does not take (a typo was ignored and the preview made
        // without it), naming the field, as every other gateway's does.
        let previews: [(String, [String: String], ([String: String]) throws -> SignPreview)] = [
            ("shanyan", ["token": "t"], { try shanyan.signPreview(fields: $0) }), ("yidun", ["token": "t", "accessToken": "a"], { try yidun.signPreview(fields: $0) }),
            ("jverification", [:], { try jverification.signPreview(fields: $0) }),
        ]
        for (name, fields, preview) in previews {
            #expect(throws: Never.self) { try preview(fields) }
            let error = #expect(throws: GatewayError.self) { try preview(fields.merging(["phnoe": "13800138000"]) { a, _ in a }) }
            #expect(error.map { "\($0)".contains("--field phnoe is not a field of") } == true, "\(name): \(String(describing: error))")
        }
        let missing = #expect(throws: GatewayError.self) { try YidunConfiguration(settings: try GatewayConfigurationFile(text: #"{"yidun": {"secretId": "s"}}"#, file: "g.json").settings("yidun")) }
        #expect(missing?.description == "yidun: misconfigured: secretKey is missing: add \"secretKey\": {\"env\": \"NAME\"} or {\"file\": \"PATH\"} to \"yidun\"")
    }
}
