import Foundation
import OneTap
import OneTapTesting
@testable import OneTapGateways
import Testing

/// The `cmcc` object of the gateways' configuration file, shared by the token exchange and number verification: each
/// reads its own fields, both refuse a field `cmcc` does not have, and every error names the field and the fix,
/// never a secret's value.
@Suite struct ChinaMobileSettingsTests {
    static let environment: @Sendable (String) -> String? = { ["CMCC_SECRET": "s3cret-value", "CMCC_KEY": "k3y-value"][$0] }
    static let pemPath = FakeServer.fakes.appendingPathComponent("keys/app-private-pkcs8.pem").path

    static func settings(_ json: String) throws -> GatewaySettings {
        try GatewayConfigurationFile(text: #"{"cmcc": \#(json)}"#, file: "gateways.json", environment: environment).settings("cmcc")
    }

    static func expectMisconfigured(_ words: String, _ body: () throws -> Void) {
        let error = #expect(throws: GatewayError.self) { try body() }
        #expect(error?.gateway == "cmcc")
        let text = "\(String(describing: error))"
        #expect(text.contains(words), "\(text)")
        #expect(!text.contains("s3cret-value") && !text.contains("k3y-value"))
    }

    @Test func oneObjectConfiguresTheExchangeAndNumberVerification() throws {
        let settings = try Self.settings(#"{"appId": "300011111111", "appSecret": {"env": "CMCC_SECRET"}, "appKey": {"env": "CMCC_KEY"}, "strictcheck": "1", "signType": "x", "url": "http://127.0.0.1:9/a", "tokenValidateUrl": "http://127.0.0.1:9/b"}"#)
        let exchange = try ChinaMobileConfiguration(settings: settings)
        #expect(exchange.appID == "300011111111")
        guard case .md5(let secret) = exchange.signing else { Issue.record("not the MD5 sign"); return }
        #expect(secret.reveal() == "s3cret-value")
        #expect(exchange.strictCheck == "1" && exchange.signType == "x" && exchange.url.absoluteString == "http://127.0.0.1:9/a")
        let verification = try ChinaMobileNumberVerificationConfiguration(settings: settings)
        #expect(verification.appID == "300011111111" && verification.appKey.reveal() == "k3y-value")
        #expect(verification.url.absoluteString == "http://127.0.0.1:9/b")
        #expect(!"\(exchange) \(verification) \(settings)".contains("s3cret-value"))
    }

    /// A secret's file is read only when it is a regular file of at most 64 KiB: `/dev/zero` was read until
    /// memory ran out, and a FIFO blocked the server's start (and `onetap gateway check`) for ever.
    @Test(.timeLimit(.minutes(3))) func aSecretFileThatIsNoSmallRegularFileIsRefused() async throws {
        try await TemporaryDirectory.with("onetap-secret-files") { directory in
            let fifo = directory.appendingPathComponent("fifo").path
            #expect(mkfifo(fifo, 0o600) == 0)
            let big = directory.appendingPathComponent("big").path
            #expect(FileManager.default.createFile(atPath: big, contents: Data(repeating: 0x61, count: 65_537)))
            for (path, reason) in [("/dev/zero", "not a regular file"), (fifo, "not a regular file"), (big, "larger than 64 KiB")] {
                Self.expectMisconfigured("names the file \(path), which cannot be read: \(reason)") {
                    _ = try ChinaMobileConfiguration(settings: try Self.settings(#"{"appId": "300011111111", "appSecret": {"file": "\#(path)"}}"#))
                }
            }
        }
    }

    @Test func theRSAModeReadsItsKeyDigestAndEncoding() throws {
        let exchange = try ChinaMobileConfiguration(settings: try Self.settings(#"{"appId": "300011111111", "privateKey": {"file": "\#(Self.pemPath)"}, "rsaDigest": "MD5withRSA", "signatureEncoding": "base64"}"#))
        guard case .rsa(_, let msisdnKey, let digest, let encoding) = exchange.signing else { Issue.record("not the RSA mode"); return }
        #expect(msisdnKey == nil && digest == .md5 && encoding == .base64)
        let defaults = try ChinaMobileConfiguration(settings: try Self.settings(#"{"appId": "300011111111", "privateKey": {"file": "\#(Self.pemPath)"}}"#))
        guard case .rsa(_, _, .sha256, .hexUppercase) = defaults.signing else { Issue.record("not the documented defaults"); return }
    }

    @Test func eachMistakeNamesItsFieldAndFix() {
        Self.expectMisconfigured("appSecret is missing") { _ = try ChinaMobileConfiguration(settings: try Self.settings(#"{"appId": "300011111111"}"#)) }
        Self.expectMisconfigured("are both set") {
            _ = try ChinaMobileConfiguration(settings: try Self.settings(#"{"appId": "3000", "appSecret": {"env": "CMCC_SECRET"}, "privateKey": {"file": "\#(Self.pemPath)"}}"#))
        }
        Self.expectMisconfigured("rsaDigest is for the RSA mode") {
            _ = try ChinaMobileConfiguration(settings: try Self.settings(#"{"appId": "3000", "appSecret": {"env": "CMCC_SECRET"}, "rsaDigest": "MD5withRSA"}"#))
        }
        Self.expectMisconfigured("rsaDigest must be SHA256withRSA or MD5withRSA") {
            _ = try ChinaMobileConfiguration(settings: try Self.settings(#"{"appId": "3000", "privateKey": {"file": "\#(Self.pemPath)"}, "rsaDigest": "SHA1withRSA"}"#))
        }
        Self.expectMisconfigured("signatureEncoding must be HEX") {
            _ = try ChinaMobileConfiguration(settings: try Self.settings(#"{"appId": "3000", "privateKey": {"file": "\#(Self.pemPath)"}, "signatureEncoding": "b64"}"#))
        }
        Self.expectMisconfigured("strictcheck must be") {
            _ = try ChinaMobileConfiguration(settings: try Self.settings(#"{"appId": "3000", "appSecret": {"env": "CMCC_SECRET"}, "strictcheck": "2"}"#))
        }
        Self.expectMisconfigured("appSecret is a secret and must not be written in the file") {
            _ = try ChinaMobileConfiguration(settings: try Self.settings(#"{"appId": "3000", "appSecret": "s3cret-value"}"#))
        }
        Self.expectMisconfigured("appkey is not a field of cmcc") {
            _ = try ChinaMobileNumberVerificationConfiguration(settings: try Self.settings(#"{"appId": "3000", "appkey": {"env": "CMCC_KEY"}}"#))
        }
        Self.expectMisconfigured("appKey is missing") { _ = try ChinaMobileNumberVerificationConfiguration(settings: try Self.settings(#"{"appId": "3000"}"#)) }
        Self.expectMisconfigured("appId is missing") { _ = try ChinaMobileNumberVerificationConfiguration(settings: try Self.settings(#"{"appKey": {"env": "CMCC_KEY"}}"#)) }
        Self.expectMisconfigured("tokenValidateUrl must be https") {
            _ = try ChinaMobileNumberVerificationConfiguration(settings: try Self.settings(#"{"appId": "3000", "appKey": {"env": "CMCC_KEY"}, "tokenValidateUrl": "http://example.com/x"}"#))
        }
    }
}
