import Foundation
@testable import OneTap
@testable import OneTapGateways
import OneTapTesting
import Testing

/// Aliyun SMS `SendSms` over a scripted transport: what is sent (against python3's signature, Fakes/aliyun_acs3.py:
/// the SendSms vector below), and each `Code` mapped to the SMS service's outcomes, no error quoting the code sent.
///
/// ```sh
/// cd Tests/OneTapGatewaysTests/Fakes && python3 -c '
/// import hashlib, json, aliyun_acs3 as a
/// h = {"host": "dysmsapi.aliyuncs.com", "x-acs-action": "SendSms", "x-acs-version": "2017-05-25",
///      "x-acs-date": "2026-12-01T00:00:00Z", "x-acs-signature-nonce": "0123456789abcdef0123456789abcdef",
///      "x-acs-content-sha256": hashlib.sha256(b"").hexdigest()}
/// p = [("PhoneNumbers", "13800138000"), ("SignName", "阿里云短信测试"), ("TemplateCode", "SMS_154950909"),
///      ("TemplateParam", json.dumps({"code": "123456"}, separators=(",", ":")))]
/// c, s = a.canonical_request("POST", "/", p, h, b""); print(a.canonical_query(p)); print(a.signature("accessKeySecret-123", c))'
/// ```
@Suite struct AliyunSMSSenderTests {
    static let json = ["Content-Type": "application/json;charset=utf-8"]

    static func sender(_ transport: ScriptedHTTPTransport, templateParamName: String = "code") throws -> AliyunSMSSender {
        var configuration = AliyunSMSConfiguration(
            accessKeyID: "LTAI5tTestKeyId", accessKeySecret: Secret("accessKeySecret-123"), signName: "阿里云短信测试", templateCode: "SMS_154950909")
        configuration.templateParamName = templateParamName
        return try AliyunSMSSender(configuration: configuration, transport: transport, clock: FakeClock(), nonces: { AliyunPNVSRequestTests.nonce })
    }

    static func message(_ code: String = "123456", number: String = "13800138000") throws -> SMSMessage {
        SMSMessage(number: try PhoneNumber(number), code: Secret(code), expiresAt: FakeClock.epoch.addingTimeInterval(300), session: nil)
    }

    static func code(_ code: String, status: Int = 200) -> ScriptedHTTPTransport.Step {
        .answer(HTTPResponse(status: status, headers: json, body: Array(#"{"Code":"\#(code)","Message":"quoting 123456 13800138000","RequestId":"r","BizId":"1^0"}"#.utf8)))
    }

    @Test func theCodeGoesIntoTemplateParamAndTheRequestIsSignedAsPythonSignsIt() async throws {
        let transport = ScriptedHTTPTransport([Self.code("OK")])
        try await Self.sender(transport).send(try Self.message())
        let request = try #require(transport.requests.first)
        #expect(request.method == "POST")
        #expect(request.url.absoluteString == "https://dysmsapi.aliyuncs.com/?PhoneNumbers=13800138000&SignName=%E9%98%BF%E9%87%8C%E4%BA%91%E7%9F%AD%E4%BF%A1%E6%B5%8B%E8%AF%95&TemplateCode=SMS_154950909&TemplateParam=%7B%22code%22%3A%22123456%22%7D")
        #expect(request.header("x-acs-action") == "SendSms")
        #expect(request.header("x-acs-version") == "2017-05-25")
        #expect(request.timeout == .seconds(5))
        #expect(request.header("authorization")?.hasSuffix("Signature=70c117ce85035085a5b97c721c816ee07adc569dc024c4736bf2b826f533d46a") == true)
    }

    @Test func theTemplatesVariableIsConfigurable() async throws {
        let transport = ScriptedHTTPTransport([Self.code("OK")])
        try await Self.sender(transport, templateParamName: "otp").send(try Self.message("654321"))
        #expect(transport.requests.first?.url.query?.hasSuffix("TemplateParam=%7B%22otp%22%3A%22654321%22%7D") == true)
    }

    @Test(arguments: [
        ("isv.MOBILE_NUMBER_ILLEGAL", SMSDeliveryError.Reason.numberRejected),
        ("isv.BUSINESS_LIMIT_CONTROL", .throttled),
        ("isv.DAY_LIMIT_CONTROL", .throttled),
        ("isv.OUT_OF_SERVICE", .failed),
        ("isv.SMS_TEMPLATE_ILLEGAL", .failed),
        ("isv.MONTH_LIMIT_CONTROL", .failed),
        ("isv.SOMETHING_NEW", .failed),
    ])
    func eachCodeIsTheSMSServicesOutcomeAndNoErrorQuotesTheCodeOrTheNumber(code: String, reason: SMSDeliveryError.Reason) async throws {
        let transport = ScriptedHTTPTransport([Self.code(code)])
        let error = await #expect(throws: SMSDeliveryError.self) { try await Self.sender(transport).send(try Self.message()) }
        #expect(error?.reason == reason)
        #expect(error?.code == code)
        #expect(error?.gateway == "aliyun-sms")
        let text = "\(String(describing: error)) \(error?.message ?? "")"
        #expect(!text.contains("123456"))
        #expect(!text.contains("13800138000"))
    }

    /// `SignatureNonceUsed`: Aliyun had seen the request's nonce, and the sender draws a new one for every request, so
    /// the request reached Aliyun twice and the first copy, perhaps delivered, lost its answer: `sentTwice`, which may
    /// have reached the vendor (the SMS service keeps the code), never "did not take the message".
    @Test func aNonceAliyunHadSeenIsARequestSentTwiceNotARefusal() async throws {
        let transport = ScriptedHTTPTransport([Self.code("SignatureNonceUsed", status: 400)])
        let error = await #expect(throws: GatewayError.self) { try await Self.sender(transport).send(try Self.message()) }
        #expect(error == GatewayError(gateway: "aliyun-sms", .sentTwice))
        #expect(error?.mayHaveReachedVendor == true)
    }

    @Test func aGatewayLevelRefusalIsFailedWithItsCode() async throws {
        let transport = ScriptedHTTPTransport([Self.code("SignatureDoesNotMatch", status: 400)])
        let error = await #expect(throws: SMSDeliveryError.self) { try await Self.sender(transport).send(try Self.message()) }
        #expect(error == SMSDeliveryError(.failed, gateway: "aliyun-sms", code: "SignatureDoesNotMatch", message: "Aliyun did not take the message"))
    }

    @Test func noUsableAnswerIsAGatewayErrorWithoutTheCode() async throws {
        let transport = ScriptedHTTPTransport([.answer(HTTPResponse(status: 503, headers: Self.json, body: Array("123456".utf8)))])
        let error = await #expect(throws: GatewayError.self) { try await Self.sender(transport).send(try Self.message()) }
        #expect(error == GatewayError(gateway: "aliyun-sms", .httpStatus(503)))
    }

    @Test func signPreviewTakesThePhoneAndAnExampleCode() throws {
        let sender = try Self.sender(ScriptedHTTPTransport())
        let preview = try sender.signPreview(fields: ["phone": "13800138000", "date": "2026-12-01T00:00:00Z", "nonce": AliyunPNVSRequestTests.nonce])
        #expect(preview.stringToSign == "ACS3-HMAC-SHA256\n1a81528d2d39e79ead89215aa4f93464ef800def62adb904b5c13a260710ecff")
        #expect(preview.signature == "70c117ce85035085a5b97c721c816ee07adc569dc024c4736bf2b826f533d46a")
        let error = #expect(throws: GatewayError.self) { try sender.signPreview(fields: ["token": "t"]) }
        #expect("\(String(describing: error))".contains("--field token is not a field of SendSms (its fields: phone, code, date, nonce)"))
    }
}
