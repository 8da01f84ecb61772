import Foundation
import OneTap
@testable import OneTapGateways
import Testing

/// The configuration file's `tianyi` object: the open API's field names, secrets only as references, errors that name
/// the field and the fix and never a secret.
@Suite struct TianyiConfigurationSettingsTests {
    static func settings(_ json: String, environment: [String: String] = ["TIANYI_SECRET": "S3cret-from-env", "TIANYI_SIGN": "sign-from-env"]) throws -> GatewaySettings {
        let file = try GatewayConfigurationFile(text: "{\"tianyi\": \(json)}", file: "gateways.json", environment: { environment[$0] })
        return try file.settings("tianyi")
    }

    @Test func theDefaultsAndEverySetting() throws {
        let minimal = try TianyiConfiguration(settings: Self.settings(#"{"appId": "8013818507", "appSecret": {"env": "TIANYI_SECRET"}}"#))
        #expect(minimal.appID == "8013818507")
        #expect(minimal.appSecret == Secret("S3cret-from-env"))
        #expect(minimal.mode == .encrypted && minimal.signDigest == .hmacSHA1 && minimal.uppercaseSign && minimal.signSecret == nil)
        #expect(minimal.url == TianyiConfiguration.documentedURL && minimal.refreshURL == TianyiConfiguration.documentedRefreshURL)
        #expect(minimal.clientType == "1" && minimal.format == "json" && minimal.version == "v1.5" && minimal.clientIP == nil)
        let full = try TianyiConfiguration(settings: Self.settings(#"""
            {"appId": "8013818507", "appSecret": {"env": "TIANYI_SECRET"}, "signSecret": {"env": "TIANYI_SIGN"}, "mode": "plain",
             "signDigest": "HMAC-MD5", "signCase": "lower", "url": "http://127.0.0.1:9/u", "refreshUrl": "https://proxy.example/r",
             "clientType": "20100", "format": "json", "version": "v1.1", "clientIp": "203.0.113.7"}
            """#))
        #expect(full.signSecret == Secret("sign-from-env") && full.mode == .plain && full.signDigest == .hmacMD5 && !full.uppercaseSign)
        #expect(full.url.absoluteString == "http://127.0.0.1:9/u" && full.refreshURL.absoluteString == "https://proxy.example/r")
        #expect(full.clientType == "20100" && full.version == "v1.1" && full.clientIP == "203.0.113.7")
    }

    @Test(arguments: [
        (#"{"appSecret": {"env": "TIANYI_SECRET"}}"#, "appId is missing"),
        (#"{"appId": "8013818507"}"#, "appSecret is missing"),
        (#"{"appId": "8013818507", "appSecret": "S3cret-literal"}"#, "appSecret is a secret and must not be written in the file"),
        (#"{"appId": "8013818507", "appSecret": {"env": "UNSET"}}"#, "appSecret names the environment variable UNSET, which is not set"),
        (#"{"appId": "8013818507", "appSecret": {"env": "TIANYI_SECRET"}, "mode": "xxtea"}"#, "mode must be \"encrypted\""),
        (#"{"appId": "8013818507", "appSecret": {"env": "TIANYI_SECRET"}, "signDigest": "SHA1"}"#, "signDigest must be \"HMAC-SHA1\""),
        (#"{"appId": "8013818507", "appSecret": {"env": "TIANYI_SECRET"}, "signCase": "UPPER"}"#, "signCase must be"),
        (#"{"appId": "8013818507", "appSecret": {"env": "TIANYI_SECRET"}, "refreshUrl": "http://open.e.189.cn/r"}"#, "refreshUrl must be https"),
        (#"{"appId": "8013818507", "appSecret": {"env": "TIANYI_SECRET"}, "clientID": "x"}"#, "clientID is not a field of tianyi"),
    ])
    func aBadObjectNamesTheFieldAndTheFix(json: String, words: String) throws {
        let error = #expect(throws: GatewayError.self) { try TianyiConfiguration(settings: Self.settings(json)) }
        #expect(error?.gateway == "tianyi")
        #expect(error?.description.contains(words) == true, "\(String(describing: error))")
        #expect(error?.description.contains("S3cret") == false)
    }

    /// `clientIp` is the server's address: anything else is the configuration's fault, said once at start. A value the
    /// request cannot carry (an IPv6 zone's `%`, an `&`) was refused only at each call, as the refresh token's fault:
    /// `relogin-required`, and every account's token was dropped (a review's finding).
    @Test(arguments: ["fe80::1%eth0", "203.0.113.7&x=1", "the-server", " 203.0.113.7", ""])
    func aClientIpThatIsNoAddressIsMisconfigured(_ value: String) throws {
        var configuration = TianyiConfiguration(appID: "8013818507", appSecret: Secret("S3cret-literal"))
        configuration.clientIP = value
        let error = #expect(throws: GatewayError.self) { try TianyiTokenRefresher(configuration: configuration, transport: URLSessionTransport()) }
        guard case .misconfigured(let message)? = error?.kind else { Issue.record("\(String(describing: error))"); return }
        #expect(message.contains("clientIp"), "\(message)")
        configuration.clientIP = "2001:db8::7"
        #expect(throws: Never.self) { try TianyiTokenRefresher(configuration: configuration, transport: URLSessionTransport()) }
    }
}
