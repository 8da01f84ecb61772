import Foundation
import OneTap
@testable import OneTapGateways
import OneTapTesting
import Testing

/// The `aliyun-pnvs` and `aliyun-sms` objects of the gateways' configuration file, their errors (naming the field
/// and the fix, never the secret), the descriptions, and `onetap gateway sign`'s preview.
@Suite struct AliyunConfigurationTests {
    static let environment: @Sendable (String) -> String? = { ["ALIYUN_SECRET": "s3cret-value", "PADDED": " s3cret-value"][$0] }

    static func settings(_ json: String, _ gateway: String) throws -> GatewaySettings {
        try GatewayConfigurationFile(text: json, file: "gateways.json", environment: environment, readFile: { _ in Data("s3cret-value\n".utf8) }).settings(gateway)
    }

    @Test func bothObjectsReadAliyunsFieldNamesAndSecretsFromTheEnvironmentOrAFile() throws {
        let file = """
            {"aliyun-pnvs": {"accessKeyId": "LTAI5tTestKeyId", "accessKeySecret": {"env": "ALIYUN_SECRET"}, "url": "http://127.0.0.1:8080"},
             "aliyun-sms": {"accessKeyId": "LTAI5tTestKeyId", "accessKeySecret": {"file": "/run/secrets/aliyun"}, "signName": "阿里云短信测试",
                            "templateCode": "SMS_154950909", "templateParamName": "otp"}}
            """
        let pnvs = try AliyunPNVSConfiguration(settings: try Self.settings(file, "aliyun-pnvs"))
        #expect(pnvs.accessKeyID == "LTAI5tTestKeyId")
        #expect(pnvs.accessKeySecret.reveal() == "s3cret-value")
        #expect(pnvs.url.absoluteString == "http://127.0.0.1:8080")
        #expect(pnvs.description == "aliyun-pnvs accessKeyId LTAI5tTestKeyId, 127.0.0.1:8080, version 2017-05-25")
        let sms = try AliyunSMSConfiguration(settings: try Self.settings(file, "aliyun-sms"))
        #expect(sms.accessKeySecret.reveal() == "s3cret-value")
        #expect((sms.signName, sms.templateCode, sms.templateParamName) == ("阿里云短信测试", "SMS_154950909", "otp"))
        #expect(sms.url == AliyunSMSConfiguration.documentedURL)
        #expect(sms.description == "aliyun-sms accessKeyId LTAI5tTestKeyId, template SMS_154950909 (otp), dysmsapi.aliyuncs.com")
        let defaults = AliyunSMSConfiguration(accessKeyID: "LTAI1", accessKeySecret: Secret("k"), signName: "s", templateCode: "SMS_1")
        #expect((defaults.templateParamName, defaults.timeout, defaults.version) == ("code", .seconds(5), "2017-05-25"))
        #expect(AliyunPNVSConfiguration(accessKeyID: "LTAI1", accessKeySecret: Secret("k")).timeout == .seconds(6))
    }

    @Test(arguments: [
        (#"{"aliyun-pnvs": {"accessKeySecret": {"env": "ALIYUN_SECRET"}}}"#, "aliyun-pnvs", "accessKeyId is missing"),
        (#"{"aliyun-pnvs": {"accessKeyId": "LTAI1", "accessKeySecret": "s3cret-value"}}"#, "aliyun-pnvs", "accessKeySecret is a secret and must not be written in the file"),
        (#"{"aliyun-pnvs": {"accessKeyId": "LTAI1", "accessKeySecret": {"env": "PADDED"}}}"#, "aliyun-pnvs", "accessKeySecret has leading or trailing spaces"),
        (#"{"aliyun-pnvs": {"accessKeyId": "LTAI1", "accessKeySecret": {"env": "ALIYUN_SECRET"}, "AccessKeyID": "x"}}"#, "aliyun-pnvs", "AccessKeyID is not a field of aliyun-pnvs"),
        (#"{"aliyun-pnvs": {"accessKeyId": "LTAI1", "accessKeySecret": {"env": "ALIYUN_SECRET"}, "url": "http://dypnsapi.aliyuncs.com"}}"#, "aliyun-pnvs", "url must be https"),
        (#"{"aliyun-sms": {"accessKeyId": "LTAI1", "accessKeySecret": {"env": "ALIYUN_SECRET"}, "signName": "s"}}"#, "aliyun-sms", "templateCode is missing"),
        (#"{"aliyun-sms": {"accessKeyId": "LTAI1", "accessKeySecret": {"env": "NOT_SET"}, "signName": "s", "templateCode": "SMS_1"}}"#, "aliyun-sms", "names the environment variable NOT_SET, which is not set"),
    ])
    func aFileThatCannotWorkFailsNamingTheFieldNeverTheSecret(json: String, gateway: String, words: String) throws {
        let error = #expect(throws: GatewayError.self) {
            let settings = try Self.settings(json, gateway)
            if gateway == "aliyun-sms" { _ = try AliyunSMSConfiguration(settings: settings) } else { _ = try AliyunPNVSConfiguration(settings: settings) }
        }
        #expect(error?.gateway == gateway)
        #expect("\(String(describing: error))".contains(words), "\(String(describing: error))")
        #expect(!"\(String(describing: error))".contains("s3cret-value"))
    }

    @Test func theGatewaysRefuseWhatCannotBeSignedOrSentBeforeAnyCall() throws {
        let transport = ScriptedHTTPTransport()
        var withPath = AliyunPNVSConfiguration(accessKeyID: "LTAI1", accessKeySecret: Secret("s3cret-value"))
        withPath.url = try #require(URL(string: "https://dypnsapi.aliyuncs.com/v1?x=1"))
        let cases: [(AliyunPNVSConfiguration, String)] = [
            (AliyunPNVSConfiguration(accessKeyID: "", accessKeySecret: Secret("s3cret-value")), "accessKeyId must be a RAM AccessKey's id"),
            (AliyunPNVSConfiguration(accessKeyID: "LTAI 1", accessKeySecret: Secret("s3cret-value")), "accessKeyId must be a RAM AccessKey's id"),
            (AliyunPNVSConfiguration(accessKeyID: "LTAI1", accessKeySecret: Secret("")), "accessKeySecret is empty"),
            (AliyunPNVSConfiguration(accessKeyID: "LTAI1", accessKeySecret: Secret("s3cret-value\n")), "accessKeySecret begins or ends with white space"),
            (withPath, "url must be the endpoint alone"),
        ]
        for (configuration, words) in cases {
            let error = #expect(throws: GatewayError.self) { try AliyunPNVSGateway(configuration: configuration, transport: transport) }
            #expect(error?.mayHaveReachedVendor == false)
            #expect("\(String(describing: error))".contains(words), "\(String(describing: error))")
            #expect(!"\(String(describing: error))".contains("s3cret-value"))
            #expect(!configuration.description.contains("s3cret-value"))
        }
        let blankTemplate = AliyunSMSConfiguration(accessKeyID: "LTAI1", accessKeySecret: Secret("s3cret-value"), signName: "s", templateCode: " SMS_1")
        let error = #expect(throws: GatewayError.self) { try AliyunSMSSender(configuration: blankTemplate, transport: transport) }
        #expect(error == GatewayError(gateway: "aliyun-sms", .misconfigured("templateCode must be the approved template's code (SMS_…), without surrounding spaces")))
        #expect(transport.requests.isEmpty)
    }

    @Test func signPreviewShowsTheStringToSignThatPythonComputes() throws {
        let pnvs = try AliyunPNVSRequestTests.gateway(ScriptedHTTPTransport())
        let fields = ["token": "tok+en/=1 *~", "date": "2026-12-01T00:00:00Z", "nonce": AliyunPNVSRequestTests.nonce]
        let preview = try pnvs.signPreview(fields: fields)
        // python3: the GetMobile vector of AliyunPNVSRequestTests; hashlib.sha256(canonical request) gives adac3b00….
        #expect(preview.stringToSign == "ACS3-HMAC-SHA256\nadac3b005683e635016a7e33cc04d4ff7bda49fce4b08d57be033dd643e80d0e")
        #expect(preview.signature == "50dbf00461b9517636f7ce81709dad823cd3274352fdb4a9a41461ef6d4d0dff")
        #expect(preview.algorithm == "ACS3-HMAC-SHA256")
        #expect(!"\(preview)".contains("accessKeySecret-123"), "\(preview)")
        let verify = try pnvs.signPreview(fields: ["action": "VerifyMobile", "token": "code-1", "phone": "13800138000", "date": "2026-12-01T00:00:00Z", "nonce": AliyunPNVSRequestTests.nonce])
        #expect(verify.stringToSign == "ACS3-HMAC-SHA256\naaab9620b25dd6771d64bc3834ba9bb872ab8eb22f43728906b4d08740276c3c")
        for (bad, words) in [
            (["token": "t", "phone": "1"], "--field phone is not a field of GetMobile (its fields: action, token, date, nonce)"), (["action": "GetMobile"], "--field token=… is needed (a secret one as token=-, its value on standard input)"),
            (["token": "t", "date": "yesterday"], "--field date must be UTC"), (["action": "SendSms", "token": "t"], "action must be GetMobile or VerifyMobile"),
        ] {
            let error = #expect(throws: GatewayError.self) { try pnvs.signPreview(fields: bad) }
            #expect("\(String(describing: error))".contains(words), "\(String(describing: error))")
        }
    }
}
