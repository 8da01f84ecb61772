import Foundation
@testable import OneTap
@testable import OneTapGateways
import OneTapTesting
import Testing

/// What the Tencent SMS gateway sends and how it reads the answer, against values computed outside the project:
/// the signature with `printf '%s' BODY | python3 Fakes/tencent_tc3.py sign onetap-tc3-secret-key-0001 sms
/// sms.tencentcloudapi.com 1796083199` (Tencent's document's algorithm, written independently); every code of
/// Tencent's list mapped to the SMS service's outcome.
@Suite struct TencentSMSRequestTests {
    static let secretKey = "onetap-tc3-secret-key-0001"
    static let now = FakeClock.epoch.addingTimeInterval(-1)  // 2026-11-30T23:59:59Z: 08:00 in China, still 11-30 in UTC

    static func configuration() -> TencentSMSConfiguration {
        TencentSMSConfiguration(secretID: "AKIDonetapTEST0001", secretKey: Secret(secretKey), sdkAppID: "1400006666", signName: "腾讯云", templateID: "1110")
    }

    static func message(_ number: String = "13800138000", code: String = "123456") throws -> SMSMessage {
        SMSMessage(number: try PhoneNumber(number), code: Secret(code), expiresAt: now.addingTimeInterval(270), session: nil)
    }

    static func answer(_ json: String) -> ScriptedHTTPTransport.Step {
        .answer(HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: Array(json.utf8)))
    }

    static func status(_ code: String) -> ScriptedHTTPTransport.Step {
        answer(#"{"Response":{"SendStatusSet":[{"SerialNo":"2028:1","PhoneNumber":"+8613800138000","Fee":1,"Code":"\#(code)","Message":"m","IsoCode":"CN"}],"RequestId":"r-1"}}"#)
    }

    @Test func theRequestIsTheDocumentsSendSmsSignedAsPythonSignsIt() async throws {
        let transport = ScriptedHTTPTransport([Self.status("Ok")])
        let sender = try TencentSMSSender(configuration: Self.configuration(), transport: transport, clock: FakeClock(now: Self.now))
        try await sender.send(try Self.message())
        let request = try #require(transport.requests.last)
        #expect(String(decoding: request.body, as: UTF8.self)
            == #"{"PhoneNumberSet":["+8613800138000"],"SignName":"腾讯云","SmsSdkAppId":"1400006666","TemplateId":"1110","TemplateParamSet":["123456"]}"#)
        #expect(request.method == "POST")
        #expect(request.url == TencentSMSConfiguration.documentedURL)
        #expect(request.timeout == .seconds(6))
        #expect(request.header("Authorization")
            == "TC3-HMAC-SHA256 Credential=AKIDonetapTEST0001/2026-11-30/sms/tc3_request, SignedHeaders=content-type;host, Signature=a69f8b532b6ba9b9125000f0bb2de41ecd0bc0a5c52d4ebc695d5889fd814555")
        #expect(request.header("Content-Type") == "application/json; charset=utf-8")
        #expect(request.header("X-TC-Action") == "SendSms")
        #expect(request.header("X-TC-Version") == "2021-01-11")
        #expect(request.header("X-TC-Region") == "ap-guangzhou")
        #expect(request.header("X-TC-Timestamp") == "1796083199")
        #expect(!request.description.contains("123456"))
        // The sign preview shows the string python signed, and the same signature.
        let preview = try sender.signPreview(fields: ["phone": "13800138000", "code": "123456", "timestamp": "1796083199"])
        #expect(preview.stringToSign == "TC3-HMAC-SHA256\n1796083199\n2026-11-30/sms/tc3_request\n8050f47b60717d6874195c93b85df00a95c080428ca002503df2d341c3314db5")
        #expect(preview.signature == "a69f8b532b6ba9b9125000f0bb2de41ecd0bc0a5c52d4ebc695d5889fd814555")
        #expect(!preview.description.contains(Self.secretKey))
        for (fields, words) in [(["token": "x"], "--field token is not a field of SendSms (its fields: phone, code, timestamp)"), (["phone": "12345"], "--field phone"), (["timestamp": "soon"], "--field timestamp")] {
            let error = #expect(throws: GatewayError.self) { try sender.signPreview(fields: fields) }
            #expect("\(String(describing: error))".contains(words))
        }
    }

    /// A gateway attacker's read: `RequestId`, kept for support only, was read strictly, so a message Tencent took
    /// (`Ok`) whose `RequestId` was no text was reported failed: the user, told to try again, paid for a second one.
    @Test(arguments: ["12345678901234567890", "{}"])
    func aSentMessageWhoseRequestIdDoesNotReadIsSent(_ requestID: String) async throws {
        let transport = ScriptedHTTPTransport([Self.answer(#"{"Response":{"SendStatusSet":[{"SerialNo":"2028:1","PhoneNumber":"+8613800138000","Fee":1,"Code":"Ok","Message":"m","IsoCode":"CN"}],"RequestId":"# + requestID + "}}")])
        let sender = try TencentSMSSender(configuration: Self.configuration(), transport: transport, clock: FakeClock(now: Self.now))
        try await sender.send(try Self.message())
    }

    @Test func aMinutesParameterFollowsTheCodeRoundedUp() async throws {
        let transport = ScriptedHTTPTransport([Self.status("Ok")])
        var configuration = Self.configuration()
        configuration.templateParameters = [.code, .minutes]
        try await TencentSMSSender(configuration: configuration, transport: transport, clock: FakeClock(now: Self.now)).send(try Self.message())
        let request = try #require(transport.requests.last)
        #expect(String(decoding: request.body, as: UTF8.self).hasSuffix(#""TemplateParamSet":["123456","5"]}"#))
        // printf '%s' BODY | python3 Fakes/tencent_tc3.py sign … (the body with ["123456","5"])
        #expect(request.header("Authorization")?.hasSuffix("Signature=fd5b852029f337067f1119f3b761b24169ba0c3949dd6b22c47b0661ca40d5ee") == true)
    }

    @Test(arguments: [
        ("LimitExceeded.PhoneNumberDailyLimit", SMSDeliveryError.Reason.throttled),
        ("LimitExceeded.PhoneNumberThirtySecondLimit", .throttled),
        ("LimitExceeded.PhoneNumberOneHourLimit", .throttled),
        ("LimitExceeded.PhoneNumberSameContentDailyLimit", .throttled),
        ("LimitExceeded.DeliveryFrequencyLimit", .throttled),
        ("LimitExceeded.AppDailyLimit", .throttled),
        ("InvalidParameterValue.IncorrectPhoneNumber", .numberRejected),
        ("FailedOperation.PhoneNumberInBlacklist", .numberRejected),
        ("UnsupportedOperation.ContainDomesticAndInternationalPhoneNumber", .numberRejected),
        ("FailedOperation.InsufficientBalanceInSmsPackage", .failed),
        ("FailedOperation.TemplateIncorrectOrUnapproved", .failed),
        ("AuthFailure.SignatureFailure", .failed),
        ("SomethingNew.NotInTheList", .failed),
    ])
    func eachCodeInTheStatusOrAsTheAPIErrorMapsToItsOutcome(code: String, reason: SMSDeliveryError.Reason) async throws {
        let error = #"{"Response":{"Error":{"Code":"\#(code)","Message":"m"},"RequestId":"r-2"}}"#
        let transport = ScriptedHTTPTransport([Self.status(code), Self.answer(error)])
        let sender = try TencentSMSSender(configuration: Self.configuration(), transport: transport, clock: FakeClock(now: Self.now))
        for requestID in ["r-1", "r-2"] {
            let thrown = await #expect(throws: SMSDeliveryError.self) { try await sender.send(try Self.message(code: "654321")) }
            #expect(thrown?.reason == reason)
            #expect(thrown?.gateway == "tencent-sms")
            #expect(thrown?.code == code)
            #expect(thrown?.message.contains(requestID) == true)
            #expect(!"\(String(describing: thrown))".contains("654321"))
            #expect(!"\(String(describing: thrown))".contains("13800138000"))
        }
    }

    @Test(arguments: [
        (#"{"Response":{"SendStatusSet":[],"RequestId":"r"}}"#, GatewayError.Kind.malformedBody("SendStatusSet is not one status for the one number sent")),
        (#"{"Response":{"SendStatusSet":[{"PhoneNumber":"+8613800138000"}],"RequestId":"r"}}"#, .malformedBody("SendStatusSet[0] has no Code")),
        (#"{"Response":{"SendStatusSet":[{"PhoneNumber":"+8613900000000","Code":"Ok"}],"RequestId":"r"}}"#, .malformedBody("SendStatusSet[0] is another number's")),
        (#"{"SendStatusSet":[]}"#, .malformedBody("no Response object")),
        (#"{"Response":{"Error":{"Message":"m"}}}"#, .malformedBody("Response.Error without a Code")),
    ])
    func anAnswerThatIsNotTencentsIsMalformed(body: String, kind: GatewayError.Kind) async throws {
        let sender = try TencentSMSSender(configuration: Self.configuration(), transport: ScriptedHTTPTransport([Self.answer(body)]), clock: FakeClock(now: Self.now))
        let error = await #expect(throws: GatewayError.self) { try await sender.send(try Self.message()) }
        #expect(error == GatewayError(gateway: "tencent-sms", kind))
    }

    @Test func aBadConfigurationFailsAtStartNamingTheFieldNeverTheSecret() throws {
        let withPath = try #require(URL(string: "https://sms.tencentcloudapi.com/v1"))
        let withQuery = try #require(URL(string: "https://sms.tencentcloudapi.com/?x=1"))
        func make(_ change: (inout TencentSMSConfiguration) -> Void, secretID: String = "AKIDonetapTEST0001", key: String = "s3cret-value") -> TencentSMSConfiguration {
            var configuration = TencentSMSConfiguration(secretID: secretID, secretKey: Secret(key), sdkAppID: "1400006666", signName: "腾讯云", templateID: "1110")
            change(&configuration)
            return configuration
        }
        let cases: [(TencentSMSConfiguration, String)] = [
            (make({ _ in }, secretID: ""), "secretId"),
            (make({ _ in }, key: "s3cret-value "), "secretKey holds white space"),
            (TencentSMSConfiguration(secretID: "AKIDx", secretKey: Secret("s3cret-value"), sdkAppID: "14000x", signName: "腾讯云", templateID: "1110"), "sdkAppId"),
            (TencentSMSConfiguration(secretID: "AKIDx", secretKey: Secret("s3cret-value"), sdkAppID: "1400006666", signName: " 腾讯云", templateID: "1110"), "signName"),
            (TencentSMSConfiguration(secretID: "AKIDx", secretKey: Secret("s3cret-value"), sdkAppID: "1400006666", signName: "腾讯云", templateID: "SMS_1"), "templateId"),
            (make({ $0.templateParameters = [.minutes] }), "templateParamSet must include code"),
            (make({ $0.region = "ap guangzhou" }), "region"),
            // Signed at / with no query (a review: a path or query was sent as configured, every call refused).
            (make({ $0.url = withPath }), "url must be the endpoint alone"),
            (make({ $0.url = withQuery }), "url must be the endpoint alone"),
        ]
        for (configuration, words) in cases {
            let error = #expect(throws: GatewayError.self) { try TencentSMSSender(configuration: configuration, transport: ScriptedHTTPTransport()) }
            #expect(error?.gateway == "tencent-sms")
            #expect(error?.mayHaveReachedVendor == false)
            #expect("\(String(describing: error))".contains(words), "\(String(describing: error))")
            #expect(!"\(String(describing: error))".contains("s3cret-value"))
            #expect(!configuration.description.contains("s3cret-value"))
        }
    }

    @Test func theConfigurationFileIsReadUnderTencentsFieldNames() throws {
        let file = try GatewayConfigurationFile(
            text: #"{"tencent-sms": {"secretId": "AKIDonetapTEST0001", "secretKey": {"env": "TC_KEY"}, "sdkAppId": "1400006666", "signName": "腾讯云", "templateId": "1110", "region": "ap-nanjing", "templateParamSet": "code,minutes", "url": "http://127.0.0.1:9/"}}"#,
            file: "gateways.json", environment: { $0 == "TC_KEY" ? "s3cret-value" : nil })
        let configuration = try TencentSMSConfiguration(settings: try file.settings("tencent-sms"))
        #expect(configuration.secretKey.reveal() == "s3cret-value")
        #expect(configuration.region == "ap-nanjing")
        #expect(configuration.templateParameters == [.code, .minutes])
        #expect(configuration.description == "tencent-sms SdkAppId 1400006666, template 1110, ap-nanjing, 127.0.0.1:9/")
        for (json, words) in [
            (#"{"tencent-sms": {"secretId": "AKIDx", "secretKey": "s3cret-value", "sdkAppId": "1", "signName": "s", "templateId": "1"}}"#, "secretKey is a secret and must not be written in the file"),
            (#"{"tencent-sms": {"secretId": "AKIDx", "secretKey": {"env": "TC_KEY"}, "sdkAppId": "1", "signName": "s"}}"#, "templateId is missing"),
            (#"{"tencent-sms": {"secretId": "AKIDx", "secretKey": {"env": "TC_KEY"}, "sdkAppId": "1", "signName": "s", "templateId": "1", "templateParamSet": "code,hours"}}"#, "templateParamSet lists 'hours'"),
            (#"{"tencent-sms": {"secretId": "AKIDx", "secretKey": {"env": "TC_KEY"}, "sdkAppId": "1", "signName": "s", "templateId": "1", "smsSdkAppId": "1"}}"#, "smsSdkAppId is not a field of tencent-sms"),
        ] {
            let settings = try GatewayConfigurationFile(text: json, file: "g.json", environment: { $0 == "TC_KEY" ? "s3cret-value" : nil }).settings("tencent-sms")
            let error = #expect(throws: GatewayError.self) { try TencentSMSConfiguration(settings: settings) }
            #expect("\(String(describing: error))".contains(words), "\(String(describing: error))")
            #expect(!"\(String(describing: error))".contains("s3cret-value"))
        }
    }

    /// A vendor's request id and error code reach the SMS error (and from it a refusal's message and the CLI) only as
    /// labels: bounded, with no control character (a gateway attacker's read: 10,078 characters, an escape sequence
    /// and a forged log line came through).
    @Test func theVendorsRequestIDAndCodeReachTheErrorBoundedAndWithoutControlCharacters() async throws {
        let forged = String(repeating: "R", count: 10_000) + #"\u001b[2J\n2026-01-01 level=info msg=forged"#
        let answers = [
            #"{"Response":{"SendStatusSet":[{"PhoneNumber":"+8613800138000","Code":"InvalidParameterValue.IncorrectPhoneNumber"}],"RequestId":"\#(forged)"}}"#,
            #"{"Response":{"Error":{"Code":"X\u001b[31m\nforged","Message":"m"},"RequestId":"r"}}"#,
        ]
        for body in answers {
            let transport = ScriptedHTTPTransport([.answer(HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: Array(body.utf8)))])
            let sender = try TencentSMSSender(
                configuration: TencentSMSConfiguration(secretID: "AKIDonetapTEST0001", secretKey: Secret("k"), sdkAppID: "1400006666", signName: "s", templateID: "1110"),
                transport: transport, clock: FakeClock())
            let error = await #expect(throws: SMSDeliveryError.self) {
                try await sender.send(SMSMessage(number: try PhoneNumber("13800138000"), code: Secret("123456"), expiresAt: FakeClock.epoch.addingTimeInterval(300), session: nil))
            }
            let text = (error?.message ?? "") + (error?.code ?? "")
            #expect(text.count < 400, "\(text.count) characters")
            #expect(!text.unicodeScalars.contains { $0.properties.generalCategory == .control }, "\(String(reflecting: text))")
        }
    }
}
