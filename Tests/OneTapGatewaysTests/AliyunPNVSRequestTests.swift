import Foundation
import OneTap
@testable import OneTapGateways
import OneTapTesting
import Testing

/// What the PNVS gateway sends and how it reads Aliyun's answers, over a scripted transport, against values computed
/// outside the project with python3 (Fakes/aliyun_acs3.py, written from Aliyun's V3 document):
///
/// ```sh
/// cd Tests/OneTapGatewaysTests/Fakes && python3 -c '
/// import hashlib, aliyun_acs3 as a
/// h = {"host": "dypnsapi.aliyuncs.com", "x-acs-action": "GetMobile", "x-acs-version": "2017-05-25",
///      "x-acs-date": "2026-12-01T00:00:00Z", "x-acs-signature-nonce": "0123456789abcdef0123456789abcdef",
///      "x-acs-content-sha256": hashlib.sha256(b"").hexdigest()}
/// c, s = a.canonical_request("POST", "/", [("AccessToken", "tok+en/=1 *~")], h, b"")
/// print(a.signature("accessKeySecret-123", c))'
/// ```
@Suite struct AliyunPNVSRequestTests {
    static let nonce = "0123456789abcdef0123456789abcdef"
    static let json = ["Content-Type": "application/json;charset=utf-8"]

    static func gateway(_ transport: ScriptedHTTPTransport, configuration: AliyunPNVSConfiguration? = nil) throws -> AliyunPNVSGateway {
        try AliyunPNVSGateway(
            configuration: configuration ?? AliyunPNVSConfiguration(accessKeyID: "LTAI5tTestKeyId", accessKeySecret: Secret("accessKeySecret-123")),
            transport: transport, clock: FakeClock(now: FakeClock.epoch.addingTimeInterval(0.5)), nonces: { nonce })
    }

    static func answer(_ body: String, status: Int = 200, headers: [String: String] = json) -> ScriptedHTTPTransport.Step {
        .answer(HTTPResponse(status: status, headers: headers, body: Array(body.utf8)))
    }

    static func credential(_ token: String, _ flow: LoginFlow = .mobile) -> CarrierCredential { CarrierCredential(flow: flow, token: Secret(token)) }

    /// A gateway attacker's read: the number, a string in Aliyun's document, was read from a JSON number too. Refused.
    @Test func aMobileSentAsAJSONNumberIsMalformed() async throws {
        let transport = ScriptedHTTPTransport([Self.answer(#"{"Code":"OK","Message":"请求成功","RequestId":"8906582E-6722","GetMobileResultDTO":{"Mobile":13800138000}}"#)])
        let error = await #expect(throws: GatewayError.self) { try await Self.gateway(transport).exchange(Self.credential("token-1")) }
        #expect(error == GatewayError(gateway: "aliyun-pnvs", .malformedBody("'Mobile' is not a string")))
    }

    @Test func getMobileIsAV3SignedPOSTWithTheTokenInTheQuery() async throws {
        let transport = ScriptedHTTPTransport([Self.answer(#"{"Code":"OK","Message":"请求成功","RequestId":"8906582E-6722","GetMobileResultDTO":{"Mobile":"13800138000"}}"#)])
        let response = try await Self.gateway(transport).exchange(Self.credential("tok+en/=1 *~"))
        #expect(response == ExchangeResponse(code: "OK", phoneNumber: try PhoneNumber("13800138000")))
        let request = try #require(transport.requests.first)
        #expect(request.method == "POST")
        #expect(request.url.absoluteString == "https://dypnsapi.aliyuncs.com/?AccessToken=tok%2Ben%2F%3D1%20%2A~")
        #expect(request.body.isEmpty)
        #expect(request.timeout == .seconds(6))
        #expect(request.header("x-acs-action") == "GetMobile")
        #expect(request.header("x-acs-version") == "2017-05-25")
        #expect(request.header("x-acs-date") == "2026-12-01T00:00:00Z")
        #expect(request.header("x-acs-signature-nonce") == Self.nonce)
        #expect(request.header("x-acs-content-sha256") == AliyunSignatureV3Tests.emptyHash)
        #expect(request.header("accept") == "application/json")
        #expect(request.header("content-type") == nil)
        #expect(request.header("authorization") == "ACS3-HMAC-SHA256 Credential=LTAI5tTestKeyId,SignedHeaders=host;x-acs-action;x-acs-content-sha256;x-acs-date;x-acs-signature-nonce;x-acs-version,Signature=50dbf00461b9517636f7ce81709dad823cd3274352fdb4a9a41461ef6d4d0dff")
    }

    /// A gateway attacker's read: `RequestId`, kept for support only, was read strictly, so an `OK` with the number
    /// whose `RequestId` was no text was thrown away as malformed, and the billed number lost. It is left out now.
    @Test(arguments: ["12345678901234567890", "false", "[1]"])
    func anAnswerWhoseRequestIdDoesNotReadStillGivesItsNumber(_ requestID: String) async throws {
        let transport = ScriptedHTTPTransport([Self.answer(#"{"Code":"OK","RequestId":"# + requestID + #","GetMobileResultDTO":{"Mobile":"13800138000"}}"#)])
        let response = try await Self.gateway(transport).exchange(Self.credential("token-1"))
        #expect(response == ExchangeResponse(code: "OK", phoneNumber: try PhoneNumber("13800138000")))
    }

    @Test func verifyMobileSendsTheCodeAndTheNumberAndMapsEachVerdict() async throws {
        func body(_ result: String) -> ScriptedHTTPTransport.Step {
            Self.answer(#"{"Code":"OK","RequestId":"r","GateVerifyResultDTO":{"VerifyId":"121343241","VerifyResult":"\#(result)"}}"#)
        }
        let transport = ScriptedHTTPTransport([body("PASS"), body("REJECT"), body("UNKNOWN"), Self.answer(#"{"Code":"isv.TOKEN_INVALID","RequestId":"r"}"#)])
        let gateway = try Self.gateway(transport)
        let number = try PhoneNumber("13800138000")
        #expect(try await gateway.verify(Self.credential("code-1"), number: number) == NumberVerificationResponse(code: "OK", verdict: .pass))
        #expect(try await gateway.verify(Self.credential("code-2", .unicom), number: number) == NumberVerificationResponse(code: "OK", verdict: .reject))
        #expect(try await gateway.verify(Self.credential("code-3", .tianyi), number: number) == NumberVerificationResponse(code: "OK", verdict: .unknown))
        #expect(try await gateway.verify(Self.credential("code-4"), number: number) == NumberVerificationResponse(code: "isv.TOKEN_INVALID", verdict: .unknown))
        let request = try #require(transport.requests.first)
        #expect(request.url.query == "AccessCode=code-1&PhoneNumber=13800138000")
        #expect(request.header("x-acs-action") == "VerifyMobile")
        // python3 as above with action VerifyMobile and [("AccessCode", "code-1"), ("PhoneNumber", "13800138000")].
        #expect(request.header("authorization")?.hasSuffix("Signature=464948874fedf592cfe199994fb04d991f64d73f5a8d5d98320c7a6180df7cad") == true)
    }

    @Test func aCodeOtherThanOKIsAnAnswerAndAGatewayErrorStatusWithAnAliyunBodyToo() async throws {
        let transport = ScriptedHTTPTransport([
            Self.answer(#"{"Code":"isv.TOKEN_INVALID","Message":"令牌无效","RequestId":"r"}"#),
            Self.answer(#"{"Code":"SignatureDoesNotMatch","Message":"Specified signature is not matched","RequestId":"r"}"#, status: 400),
            Self.answer(#"{"Code":"InvalidAccessKeyId.NotFound","RequestId":"r"}"#, status: 404),
        ])
        let gateway = try Self.gateway(transport)
        #expect(try await gateway.exchange(Self.credential("t1")) == ExchangeResponse(code: "isv.TOKEN_INVALID"))
        #expect(try await gateway.exchange(Self.credential("t2")) == ExchangeResponse(code: "SignatureDoesNotMatch"))
        #expect(try await gateway.exchange(Self.credential("t3")) == ExchangeResponse(code: "InvalidAccessKeyId.NotFound"))
    }

    @Test(arguments: [
        (200, #"{"Code":"OK","RequestId":"r"}"#, GatewayError.Kind.malformedBody("OK without GetMobileResultDTO.Mobile")),
        (200, #"{"Code":"OK","GetMobileResultDTO":{"Mobile":"139****1234"}}"#, .malformedBody("GetMobileResultDTO.Mobile is not a mainland mobile number")),
        (200, #"{"Code":"OK","GetMobileResultDTO":"13800138000"}"#, .malformedBody("'GetMobileResultDTO' is not an object")),
        (200, #"{"Message":"no code"}"#, .malformedBody("no Code")),
        (200, #"{"Code":"","RequestId":"r"}"#, .malformedBody("Code is not a code (empty, over 64 bytes or a control character)")),
        (200, #"["OK"]"#, .malformedBody("the body is JSON but not an object")),
        (400, "<html>bad request</html>", .httpStatus(400)),
        (404, #"{"error":"not aliyun's shape"}"#, .httpStatus(404)),
        (502, #"{"Code":"OK","GetMobileResultDTO":{"Mobile":"13800138000"}}"#, .httpStatus(502)),
    ])
    func anAnswerThatIsNotWhatTheDocumentShowsIsATypedErrorQuotingNothing(status: Int, body: String, kind: GatewayError.Kind) async throws {
        let transport = ScriptedHTTPTransport([Self.answer(body, status: status)])
        let error = await #expect(throws: GatewayError.self) { try await Self.gateway(transport).exchange(Self.credential("tok-secret-1")) }
        #expect(error == GatewayError(gateway: "aliyun-pnvs", kind))
        #expect(!"\(String(describing: error))".contains("tok-secret-1"))
    }

    /// A 4xx whose body says `OK` (a proxy's or a broken gateway's page dressed as an answer) is the status, never a
    /// login or a verification (a gateway attacker's read found it read as the number).
    /// `OK` padded with white space is `OK` as a code reads (an attacker's read: `"OK "` passed the check and was then
    /// read as `OK`, a 403 giving the number as a login, or a pass).
    @Test(arguments: [#"OK"#, #"OK "#, #"\tOK"#, #"OK\n"#])
    func aClientErrorStatusWhoseBodySaysOKIsTheStatusNotALogin(code: String) async throws {
        let body = #"{"Code":""# + code + #"","RequestId":"r","GetMobileResultDTO":{"Mobile":"13800138000"}}"#
        let transport = ScriptedHTTPTransport([Self.answer(body, status: 403), Self.answer(body, status: 400)])
        let gateway = try Self.gateway(transport)
        for status in [403, 400] {
            await #expect { _ = try await gateway.exchange(Self.credential("t")) } throws: { ($0 as? GatewayError)?.kind == .httpStatus(status) }
        }
        let pass = #"{"Code":""# + code + #"","GateVerifyResultDTO":{"VerifyResult":"PASS"}}"#
        let verifying = try Self.gateway(ScriptedHTTPTransport([Self.answer(pass, status: 403)]))
        await #expect {
            _ = try await verifying.verify(Self.credential("c"), number: try PhoneNumber("13800138000"))
        } throws: { ($0 as? GatewayError)?.kind == .httpStatus(403) }
    }

    @Test func anOKVerificationWithoutAKnownVerdictIsMalformed() async throws {
        let transport = ScriptedHTTPTransport([Self.answer(#"{"Code":"OK","GateVerifyResultDTO":{"VerifyResult":"MAYBE"}}"#)])
        let error = await #expect(throws: GatewayError.self) { try await Self.gateway(transport).verify(Self.credential("c"), number: try PhoneNumber("13800138000")) }
        #expect(error == GatewayError(gateway: "aliyun-pnvs", .malformedBody("OK without a VerifyResult of PASS, REJECT or UNKNOWN")))
    }

    @Test func nothingLeftIsExchangeNotSentAndAnSMSCredentialIsRefusedWithoutACall() async throws {
        let transport = ScriptedHTTPTransport([.fail(GatewayError(gateway: "aliyun-pnvs", .notSent("the connection was refused")))])
        let gateway = try Self.gateway(transport)
        await #expect(throws: ExchangeNotSentError.self) { try await gateway.exchange(Self.credential("t")) }
        await #expect(throws: ExchangeNotSentError.self) { try await gateway.exchange(Self.credential("t", .sms)) }
        await #expect(throws: ExchangeNotSentError.self) { try await gateway.verify(Self.credential("t", .sms), number: try PhoneNumber("13800138000")) }
        #expect(transport.requests.count == 1)
    }
}
