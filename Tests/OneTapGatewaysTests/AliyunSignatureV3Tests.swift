import Foundation
import OneTap
@testable import OneTapGateways
import OneTapTesting
import Testing

/// Aliyun's signature V3 against values computed outside the project: the worked example of Aliyun's document
/// ("V3版本请求体&签名机制", section 签名示例 / "Signature examples": fixed AccessKey, nonce, date, RunInstances on ECS),
/// and python3 (Fakes/aliyun_acs3.py, written from the document):
///
/// ```sh
/// cd Tests/OneTapGatewaysTests/Fakes && python3 aliyun_acs3.py      # the document's example: 7ea06492…, 06563a9e…
/// python3 -c 'from urllib.parse import quote; print(quote("a b*c~d/é+=&", safe="-_.~"))'
/// ```
@Suite struct AliyunSignatureV3Tests {
    static let emptyHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    @Test func theDocumentsWorkedExampleSignsToItsPublishedSignature() throws {
        let signer = AliyunSignatureV3(accessKeyID: "YourAccessKeyId", accessKeySecret: Secret("YourAccessKeySecret"))
        let date = try Timestamp.parse("2023-10-26T10:22:32Z")
        let signed = try signer.sign(
            host: "ecs.cn-shanghai.aliyuncs.com",
            query: [("RegionId", "cn-shanghai"), ("ImageId", "win2019_1809_x64_dtc_zh-cn_40G_alibase_20230811.vhd")],
            action: "RunInstances", version: "2014-05-26", date: date, nonce: "3156853299f313e23d1673dc12e1703d", gateway: "test")
        #expect(signed.canonicalRequest == """
            POST
            /
            ImageId=win2019_1809_x64_dtc_zh-cn_40G_alibase_20230811.vhd&RegionId=cn-shanghai
            host:ecs.cn-shanghai.aliyuncs.com
            x-acs-action:RunInstances
            x-acs-content-sha256:\(Self.emptyHash)
            x-acs-date:2023-10-26T10:22:32Z
            x-acs-signature-nonce:3156853299f313e23d1673dc12e1703d
            x-acs-version:2014-05-26

            host;x-acs-action;x-acs-content-sha256;x-acs-date;x-acs-signature-nonce;x-acs-version
            \(Self.emptyHash)
            """)
        #expect(signed.stringToSign == "ACS3-HMAC-SHA256\n7ea06492da5221eba5297e897ce16e55f964061054b7695beedaac1145b1e259")
        #expect(signed.signature == "06563a9e1b43f5dfe96b81484da74bceab24a1d853912eee15083a6f0f3283c0")
        #expect(signed.authorization == "ACS3-HMAC-SHA256 Credential=YourAccessKeyId,SignedHeaders=host;x-acs-action;x-acs-content-sha256;x-acs-date;x-acs-signature-nonce;x-acs-version,Signature=06563a9e1b43f5dfe96b81484da74bceab24a1d853912eee15083a6f0f3283c0")
        // Every signed header is sent but host (the transport writes it from the URL), then Authorization.
        #expect(signed.headers.map(\.name) == ["x-acs-action", "x-acs-content-sha256", "x-acs-date", "x-acs-signature-nonce", "x-acs-version", "Authorization"])
        #expect(AliyunSignatureV3.preview(signed) == SignPreview(stringToSign: signed.stringToSign, signature: signed.signature, algorithm: "ACS3-HMAC-SHA256"))
    }

    @Test func aBodyAndItsContentTypeAreSigned() throws {
        // python3: hashlib.sha256(b'{"a":"b"}').hexdigest(); the signature from aliyun_acs3.canonical_request/signature
        // over the same headers (content-type included) with the secret "k".
        let signed = try AliyunSignatureV3(accessKeyID: "id", accessKeySecret: Secret("k")).sign(
            host: "h", query: [], body: Array(#"{"a":"b"}"#.utf8), contentType: "application/json", action: "A", version: "V", date: FakeClock.epoch,
            nonce: "n", gateway: "test")
        #expect(signed.canonicalRequest.contains("\ncontent-type:application/json\nhost:h\n"))
        #expect(signed.headers.contains(HTTPHeader("x-acs-content-sha256", "db4a7ecb114bc66c623a06c4ff6fe8daa2f49cc270ebbf7a1f81e22ab061c837")))
        #expect(signed.headers.contains(HTTPHeader("content-type", "application/json")))
        #expect(signed.signature == "f58baf000d95a717e75be4246066225653adffb94d0b959e18f5d07253e12798")
    }

    @Test func percentEncodingIsRFC3986AsPythonQuotesIt() {
        #expect(AliyunSignatureV3.percentEncode("a b*c~d/é+=&") == "a%20b%2Ac~d%2F%C3%A9%2B%3D%26")
        #expect(AliyunSignatureV3.percentEncode("AZaz09-_.~") == "AZaz09-_.~")
        #expect(AliyunSignatureV3.percentEncode("") == "")
        // Sorted by name's bytes (upper case before lower case), then encoded.
        #expect(AliyunSignatureV3.canonicalQuery([("b", "2"), ("B", "1"), ("a", "x y")]) == "B=1&a=x%20y&b=2")
    }

    @Test func theDateIsUTCToTheSecond() throws {
        #expect(AliyunSignatureV3.date(FakeClock.epoch.addingTimeInterval(0.999)) == "2026-12-01T00:00:00Z")
        #expect(AliyunSignatureV3.date(Date(timeIntervalSince1970: 951_782_399.5)) == "2000-02-28T23:59:59Z")
        #expect(AliyunSignatureV3.date(.distantPast) == "1970-01-01T00:00:00Z")
        #expect(AliyunSignatureV3.date(.distantFuture) == "4001-01-01T00:00:00Z")
        #expect(AliyunSignatureV3.date(Date(timeIntervalSince1970: 1e12)) == "9999-12-31T23:59:59Z")
    }
}
