import Foundation
import OneTap
import OneTapTesting
@testable import OneTapGateways
import Testing

/// Every gateway's object takes an optional `timeout` in seconds (0.1 to 120) in place of its documented default:
/// the time-out per gateway comes from the configuration data, and a bad value is refused naming the field.
@Suite struct GatewayTimeoutSettingTests {
    /// One object per gateway, each with `"timeout": TIMEOUT` (the fields each needs, as the README shows them).
    static func file(timeout: String) throws -> GatewayConfigurationFile {
        let text = """
            {"cmcc": {"appId": "300011111111", "appSecret": {"env": "S"}, "appKey": {"env": "S"}, "timeout": \(timeout)},
             "tianyi": {"appId": "8013818507", "appSecret": {"env": "S"}, "timeout": \(timeout)},
             "aliyun-pnvs": {"accessKeyId": "LTAI5tTestKeyId", "accessKeySecret": {"env": "S"}, "timeout": \(timeout)},
             "jverification": {"appKey": "7d431e42", "masterSecret": {"env": "S"}, "privateKey": {"file": "/run/secrets/jv.pem"}, "timeout": \(timeout)},
             "shanyan": {"appId": "ZQZSp7C0", "appKey": {"env": "S"}, "timeout": \(timeout)},
             "yidun": {"secretId": "sid1", "secretKey": {"env": "S"}, "businessId": "bid1", "timeout": \(timeout)},
             "aliyun-sms": {"accessKeyId": "LTAI5tTestKeyId", "accessKeySecret": {"env": "S"}, "signName": "OneTap", "templateCode": "SMS_154950909", "timeout": \(timeout)},
             "tencent-sms": {"secretId": "AKIDexample", "secretKey": {"env": "S"}, "sdkAppId": "1400006666", "signName": "OneTap", "templateId": "1110", "timeout": \(timeout)},
             "tencent-captcha": {"secretId": "AKIDexample", "secretKey": {"env": "S"}, "captchaAppId": "199999164", "appSecretKey": {"env": "S"}, "timeout": \(timeout)},
             "geetest": {"captchaId": "647f5ed2ed8acb4be36784e01556bb71", "captchaKey": {"env": "S"}, "timeout": \(timeout)}}
            """
        let pem = try TestKeys.pem("app-private-pkcs1.pem")
        return try GatewayConfigurationFile(
            text: text, file: "gateways.json", environment: { $0 == "S" ? "secret-value" : nil },
            readFile: { path in
                guard path == "/run/secrets/jv.pem" else { throw CocoaError(.fileNoSuchFile) }
                return Data(pem.utf8)
            })
    }

    /// Each configuration's time-out as read from its object.
    static func timeouts(_ file: GatewayConfigurationFile) throws -> [String: Duration] {
        [
            "cmcc": try ChinaMobileConfiguration(settings: try file.settings("cmcc")).timeout,
            "cmcc verify": try ChinaMobileNumberVerificationConfiguration(settings: try file.settings("cmcc")).timeout,
            "tianyi": try TianyiConfiguration(settings: try file.settings("tianyi")).timeout,
            "aliyun-pnvs": try AliyunPNVSConfiguration(settings: try file.settings("aliyun-pnvs")).timeout,
            "jverification": try JVerificationConfiguration(settings: try file.settings("jverification")).timeout,
            "shanyan": try ShanyanConfiguration(settings: try file.settings("shanyan")).timeout,
            "yidun": try YidunConfiguration(settings: try file.settings("yidun")).timeout,
            "aliyun-sms": try AliyunSMSConfiguration(settings: try file.settings("aliyun-sms")).timeout,
            "tencent-sms": try TencentSMSConfiguration(settings: try file.settings("tencent-sms")).timeout,
            "tencent-captcha": try TencentCaptchaConfiguration(settings: try file.settings("tencent-captcha")).timeout,
            "geetest": try GeeTestConfiguration(settings: try file.settings("geetest")).timeout,
        ]
    }

    @Test func everyGatewayTakesItsTimeoutFromItsObject() throws {
        let timeouts = try Self.timeouts(try Self.file(timeout: "2.5"))
        #expect(timeouts.count == 11)
        for (gateway, timeout) in timeouts { #expect(timeout == .milliseconds(2500), "\(gateway)") }
        #expect(try Self.timeouts(try Self.file(timeout: "120")).values.allSatisfy { $0 == .seconds(120) })
    }

    @Test(arguments: [
        ("\"6\"", "timeout must be a number of seconds"),
        ("0", "timeout must be from 0.1 to 120 seconds"),
        ("-1", "timeout must be from 0.1 to 120 seconds"),
        ("121", "timeout must be from 0.1 to 120 seconds"),
    ])
    func aBadTimeoutIsRefusedNamingTheField(value: String, words: String) throws {
        let file = try Self.file(timeout: value)
        let error = #expect(throws: GatewayError.self) { try YidunConfiguration(settings: try file.settings("yidun")) }
        #expect(error?.gateway == "yidun")
        #expect("\(String(describing: error))".contains(words), "\(String(describing: error))")
    }
}
