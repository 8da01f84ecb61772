import Foundation
import OneTapTesting
import OneTap
@testable import OneTapGateways
import Testing
import OneTapTesting

/// Tencent Cloud's TC3-HMAC-SHA256 pinned to the worked example of Tencent's "签名方法 v3" document (cvm
/// `DescribeInstances`, ap-guangzhou, timestamp 1551113065, SecretId `AKIDz8krbsJ5yKBZQpn74WFkmLPx3EXAMPLE`, SecretKey
/// `Gu5t9xGARNpq86cd98joQYCN3EXAMPLE`): its canonical request, string to sign, signature and Authorization header
/// are the document's own values (`python3 Fakes/tencent_tc3.py example` recomputes them independently).
@Suite struct TC3SignerTests {
    static let examplePayload = #"{"Limit": 1, "Filters": [{"Values": ["\u672a\u547d\u540d"], "Name": "instance-name"}]}"#

    @Test func theDocumentsWorkedExampleIsReproducedByteForByte() throws {
        let signer = TC3Signer(gateway: "test", secretID: "AKIDz8krbsJ5yKBZQpn74WFkmLPx3EXAMPLE", secretKey: Secret("Gu5t9xGARNpq86cd98joQYCN3EXAMPLE"), service: "cvm")
        let signed = try signer.sign(
            action: "DescribeInstances", version: "2017-03-12", region: "ap-guangzhou", host: "cvm.tencentcloudapi.com", timestamp: 1_551_113_065,
            payload: Array(Self.examplePayload.utf8))
        #expect(signed.canonicalRequest == """
            POST
            /

            content-type:application/json; charset=utf-8
            host:cvm.tencentcloudapi.com

            content-type;host
            35e9c5b0e3ae67532d3c9f17ead6c90222632e5b1ff7f6e89887f1398934f064
            """)
        #expect(signed.stringToSign == """
            TC3-HMAC-SHA256
            1551113065
            2019-02-25/cvm/tc3_request
            5ffe6a04c0664d6b969fab9a13bdab201d63ee709638e2749d62a09ca18d7031
            """)
        #expect(signed.signature == "72e494ea809ad7a8c8f7a4507b9bddcbaa8e581f516e8da2f66e2c5a96525168")
        #expect(signed.authorization == "TC3-HMAC-SHA256 Credential=AKIDz8krbsJ5yKBZQpn74WFkmLPx3EXAMPLE/2019-02-25/cvm/tc3_request, SignedHeaders=content-type;host, Signature=72e494ea809ad7a8c8f7a4507b9bddcbaa8e581f516e8da2f66e2c5a96525168")
        #expect(signed.headers == [
            HTTPHeader("Authorization", signed.authorization), HTTPHeader("Content-Type", "application/json; charset=utf-8"),
            HTTPHeader("X-TC-Action", "DescribeInstances"), HTTPHeader("X-TC-Timestamp", "1551113065"), HTTPHeader("X-TC-Version", "2017-03-12"),
            HTTPHeader("X-TC-Region", "ap-guangzhou"),
        ])
    }

    /// The document's note: the date is the timestamp's UTC date, never China's (1551113065 is 2019-02-26 00:44:25 at
    /// UTC+8, and the scope's date is 2019-02-25).
    @Test func theScopesDateIsUTCAndTheHostCarriesAnExplicitPort() throws {
        #expect(TC3Signer.date(1_551_113_065) == "2019-02-25")
        #expect(TC3Signer.date(1_796_083_199) == "2026-11-30")
        #expect(TC3Signer.date(1_796_083_200) == "2026-12-01")
        #expect(TC3Signer.date(-1) == "1969-12-31")
        #expect(TC3Signer.host(of: try #require(URL(string: "https://SMS.tencentcloudapi.com/"))) == "sms.tencentcloudapi.com")
        #expect(TC3Signer.host(of: try #require(URL(string: "http://127.0.0.1:8443/"))) == "127.0.0.1:8443")
        // The scheme's own port is left out, as libcurl leaves it out of the `Host` header it sends: signed with
        // it, every call would fail the vendor's signature check.
        #expect(TC3Signer.host(of: try #require(URL(string: "https://sms.tencentcloudapi.com:443/"))) == "sms.tencentcloudapi.com")
        #expect(TC3Signer.host(of: try #require(URL(string: "http://127.0.0.1:80/"))) == "127.0.0.1")
        #expect(TC3Signer.host(of: try #require(URL(string: "http://127.0.0.1:443/"))) == "127.0.0.1:443")
    }

    @Test func aRegionlessAPISendsNoRegionHeader() throws {
        let signer = TC3Signer(gateway: "test", secretID: "AKIDx", secretKey: Secret("k"), service: "captcha")
        let signed = try signer.sign(action: "DescribeCaptchaResult", version: "2019-07-22", region: nil, host: "captcha.tencentcloudapi.com", timestamp: 1, payload: [])
        #expect(!signed.headers.contains { $0.name == "X-TC-Region" })
        // SHA-256 of the empty body, as the canonical request's last line.
        #expect(signed.canonicalRequest.hasSuffix("\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"))
    }

    @Test func aCredentialThatCannotSignIsRefusedNamingTheFieldNeverTheKey() {
        for (id, key, words) in [("", "k", "secretId"), ("AKID x", "k", "secretId"), ("AKIDx", "", "secretKey is empty"), ("AKIDx", "s3cret key", "white space")] {
            let error = #expect(throws: GatewayError.self) { try TC3Signer(gateway: "tencent-sms", secretID: id, secretKey: Secret(key), service: "sms").validate() }
            #expect(error?.gateway == "tencent-sms")
            #expect("\(String(describing: error))".contains(words))
            #expect(!"\(String(describing: error))".contains("s3cret"))
        }
    }

    /// The signer against the independent Python implementation (Fakes/tencent_tc3.py, from the document) on bodies
    /// with non-ASCII text, escapes and an empty body, at timestamps on both sides of UTC midnight.
    @Test func everySignatureMatchesThePythonImplementation() async throws {
        let signer = TC3Signer(gateway: "test", secretID: "AKIDcross", secretKey: Secret("cross-check-key/+="), service: "sms")
        let cases: [(String, Int64)] = [
            (#"{"SignName":"腾讯云","TemplateParamSet":["123456"]}"#, 1_796_083_199), (#"{"a":"\u00e9\n"}"#, 1_796_083_200), ("", 0),
        ]
        for (body, timestamp) in cases {
            let signed = try signer.sign(action: "SendSms", version: "2021-01-11", region: "ap-guangzhou", host: "sms.tencentcloudapi.com", timestamp: timestamp, payload: Array(body.utf8))
            let python = try await Self.python(["sign", "cross-check-key/+=", "sms", "sms.tencentcloudapi.com", String(timestamp)], input: body)
            #expect(python == [signed.canonicalRequest, signed.stringToSign, signed.signature], "\(body)")
        }
    }

    /// Runs `Fakes/tencent_tc3.py` and splits its output at `--` lines.
    static func python(_ arguments: [String], input: String) async throws -> [String] {
        let text = try await PythonScript.run("tencent_tc3.py", arguments: arguments, input: input)
        return text.components(separatedBy: "\n--\n").filter { !$0.isEmpty }
    }
}
