import Foundation
import OneTap
@testable import OneTapGateways
import OneTapTesting
import Testing

/// What China Mobile's number verification sends and how it reads answers, against values computed outside the
/// project with python3 (`hashlib.sha256`, `hmac.new(key, msg, hashlib.sha256)`):
///
///     python3 -c 'import hashlib,hmac; k="appKey-0123"; ts="20261201080000000"
///     pn=hashlib.sha256(("13800138000"+k+ts).encode()).hexdigest().upper(); print(pn)
///     s="3000666666666"+"8ADFF305C7FCB3E1B1AECC130792FBD0"+pn+ts+"STsid0000001515028196605yc1oYNTuPlTlLT10AR3ywr2WApEq14JH"+"1.0"
///     print(hmac.new(k.encode(), s.encode(), hashlib.sha256).hexdigest().upper())'
@Suite struct ChinaMobileNumberVerificationRequestTests {
    static let token = "STsid0000001515028196605yc1oYNTuPlTlLT10AR3ywr2WApEq14JH"
    static let messageID = "8ADFF305C7FCB3E1B1AECC130792FBD0"
    static let appKey = "appKey-0123"
    static let phoneNum = "E2521BB720C6137F054BFA5C3333403B10DC17FA2870A3E50A958737CD30F0DA"
    static let sign = "C4A57363F01F9BD1018C5ED54846B39B37CD559A299F1F8A7C5BC03743468E71"
    static let number = try! PhoneNumber("13800138000")

    static func gateway(_ transport: ScriptedHTTPTransport, appKey: String = appKey, appID: String = "3000666666666") throws -> ChinaMobileNumberVerification {
        try ChinaMobileNumberVerification(
            configuration: ChinaMobileNumberVerificationConfiguration(appID: appID, appKey: Secret(appKey)), transport: transport, clock: FakeClock(),
            messageIDs: { messageID })
    }

    static func answer(_ body: String, contentType: String = "application/json;charset=UTF-8") -> ScriptedHTTPTransport.Step {
        .answer(HTTPResponse(status: 200, headers: ["Content-Type": contentType], body: Array(body.utf8)))
    }

    static func answer(code: String, msgId: String = messageID) -> ScriptedHTTPTransport.Step {
        answer(#"{"header":{"msgId":"\#(msgId)","timestamp":"20261201080000500","appId":"3000666666666","resultCode":"\#(code)"},"body":{"resultDesc":"x","message":""}}"#)
    }

    /// A pass is taken only from an answer bound to this request: one that echoes no `msgId` (a cached or replayed
    /// answer) is malformed; a reject or an unknown without it is taken as it is.
    @Test func aPassWithoutTheEchoedMsgIdIsMalformed() async throws {
        let unbound = { (code: String) in Self.answer(#"{"header":{"timestamp":"20261201080000500","appId":"3000666666666","resultCode":"\#(code)"},"body":{}}"#) }
        let transport = ScriptedHTTPTransport([unbound("000"), unbound("001")])
        let gateway = try Self.gateway(transport)
        let error = await #expect(throws: GatewayError.self) { try await gateway.verify(CarrierCredential(flow: .mobile, token: Secret(Self.token)), number: Self.number) }
        #expect(error == GatewayError(gateway: "cmcc", .malformedBody("a pass without header.msgId")))
        #expect(try await gateway.verify(CarrierCredential(flow: .mobile, token: Secret(Self.token)), number: Self.number).verdict == .reject)
    }

    @Test func theRequestHasTheDocumentsShapeAndThePythonComputedPhoneNumAndSign() async throws {
        let transport = ScriptedHTTPTransport([Self.answer(code: "000")])
        let response = try await Self.gateway(transport).verify(CarrierCredential(flow: .mobile, token: Secret(Self.token)), number: Self.number)
        #expect(response == NumberVerificationResponse(code: "000", verdict: .pass))
        let request = try #require(transport.requests.last)
        #expect(request.method == "POST")
        #expect(request.url == ChinaMobileNumberVerificationConfiguration.documentedURL)
        #expect(request.url.absoluteString == "https://www.cmpassport.com/openapi/rs/tokenValidate")
        #expect(request.header("content-type") == "application/json")
        #expect(request.timeout == .seconds(6))
        let sent = try #require(try JSONValue.parse(String(decoding: request.body, as: UTF8.self)).objectValue)
        #expect(sent == [
            "header": .object(["version": "1.0", "msgId": .string(Self.messageID), "timestamp": "20261201080000000", "appId": "3000666666666"]),
            "body": .object(["openType": "1", "requesterType": "0", "phoneNum": .string(Self.phoneNum), "token": .string(Self.token), "sign": .string(Self.sign)]),
        ])
    }

    @Test func theSignPreviewShowsTheSignedStringAndNeverTheAppKey() throws {
        let preview = try Self.gateway(ScriptedHTTPTransport()).signPreview(fields: ["token": Self.token, "phone": "13800138000", "msgId": Self.messageID, "timestamp": "20261201080000000"])
        #expect(preview.stringToSign == "3000666666666\(Self.messageID)\(Self.phoneNum)20261201080000000\(Self.token)1.0")
        #expect(preview.signature == Self.sign)
        // An attacker's read: the preview's description showed the token the request carries (`stringToSign`).
        #expect(!"\(preview)".contains(Self.appKey) && !"\(preview)".contains(Self.token), "\(preview)")
        #expect(throws: GatewayError.self) { try Self.gateway(ScriptedHTTPTransport()).signPreview(fields: ["token": "t"]) }
        let typo = #expect(throws: GatewayError.self) { try Self.gateway(ScriptedHTTPTransport()).signPreview(fields: ["token": "t", "phone": "13800138000", "msgid": "x"]) }
        #expect(typo.map { "\($0)".contains("--field msgid is not a field of") } == true, "\(String(describing: typo))")
    }

    @Test(arguments: [("000", NumberVerdict.pass), ("001", .reject), ("002", .unknown), ("102", .unknown), ("124", .unknown), ("302", .unknown),
                      ("606", .unknown), ("999", .unknown), ("102315", .unknown)])
    func eachDocumentedCodeHasItsVerdict(code: String, verdict: NumberVerdict) async throws {
        let transport = ScriptedHTTPTransport([Self.answer(code: code)])
        let response = try await Self.gateway(transport).verify(CarrierCredential(flow: .mobile, token: Secret(Self.token)), number: Self.number)
        #expect(response == NumberVerificationResponse(code: try ResultCode(code), verdict: verdict))
    }

    @Test(arguments: [
        (#"{"header":{"msgId":"8ADFF305C7FCB3E1B1AECC130792FBD0"},"body":{}}"#, GatewayError.Kind.malformedBody("no header.resultCode")),
        (#"{"resultCode":"000"}"#, .malformedBody("no header object")),
        (#"{"header":{"msgId":"another","resultCode":"000"},"body":{}}"#, .malformedBody("header.msgId is not this request's msgId")),
        (#"{"header":{"resultCode":["000"]},"body":{}}"#, .malformedBody("'resultCode' is not a string")),
        // The echo the document gives as a string, as a JSON number: refused, never read into one (a gateway attacker's read).
        (#"{"header":{"msgId":123456789,"resultCode":"000"},"body":{}}"#, .malformedBody("'msgId' is not a string")),
    ])
    func aMalformedAnswerIsATypedErrorThatMayHaveBeenBilled(body: String, kind: GatewayError.Kind) async throws {
        let transport = ScriptedHTTPTransport([Self.answer(body)])
        let error = await #expect(throws: GatewayError.self) {
            try await Self.gateway(transport).verify(CarrierCredential(flow: .mobile, token: Secret(Self.token)), number: Self.number)
        }
        #expect(error == GatewayError(gateway: "cmcc", kind))
        #expect(error?.mayHaveReachedVendor == true)
    }

    /// Nothing leaves for another carrier's token or a configuration that cannot sign: ExchangeNotSentError, so the
    /// service records `failed`, not billed.
    @Test func whatNeverLeftIsExchangeNotSentError() async throws {
        let transport = ScriptedHTTPTransport([.fail(GatewayError(gateway: "cmcc", .notSent("connection refused")))])
        await #expect(throws: ExchangeNotSentError.self) {
            try await Self.gateway(transport).verify(CarrierCredential(flow: .unicom, token: Secret(Self.token)), number: Self.number)
        }
        #expect(transport.requests.isEmpty)
        await #expect(throws: ExchangeNotSentError.self) {
            try await Self.gateway(transport).verify(CarrierCredential(flow: .mobile, token: Secret(Self.token)), number: Self.number)
        }
    }

    @Test func aBadConfigurationFailsAtStartNamingTheFieldNeverTheKey() {
        for (appID, appKey, words) in [("", "k3y-value", "appId"), ("3000 66", "k3y-value", "appId"), ("3000666666666", "", "appKey is empty"),
                                       ("3000666666666", " k3y-value", "appKey begins or ends with white space")] {
            let error = #expect(throws: GatewayError.self) { try Self.gateway(ScriptedHTTPTransport(), appKey: appKey, appID: appID) }
            #expect(error?.gateway == "cmcc")
            #expect("\(String(describing: error))".contains(words))
            #expect(!"\(String(describing: error))".contains("k3y-value"))
        }
        let configuration = ChinaMobileNumberVerificationConfiguration(appID: "3000666666666", appKey: Secret("k3y-value"))
        #expect(configuration.description == "cmcc appid 3000666666666, HMAC-SHA256 sign, www.cmpassport.com/openapi/rs/tokenValidate")
    }
}
