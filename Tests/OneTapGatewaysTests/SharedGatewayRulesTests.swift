import Foundation
import OneTap
@testable import OneTapGateways
import OneTapTesting
import Testing

/// The rules every gateway reads through one helper: result codes, numbers, `--field`s of a sign preview, ids and
/// secrets, the endpoint a request goes to and a description shows. Each error's words are pinned as written here.
@Suite struct SharedGatewayRulesTests {
    /// 2026-12-01T00:00:00Z (python3: datetime(2026, 12, 1, tzinfo=timezone.utc).timestamp()).
    static let instant = Date(timeIntervalSince1970: 1_796_083_200)

    @Test func aResultCodeIsReadUnderEitherSpellingAndNamedAsTheCallerSays() throws {
        #expect(try GatewayAnswer.code(["resultcode": .number(103000)], "resultCode", "resultcode", gateway: "cmcc") == "103000")
        for (object, label, words) in [
            ([String: JSONValue](), nil as String?, "no 'code'"), (["code": .string("")], nil, "'code' is not a code (empty, over 64 bytes or a control character)"),
            ([:], "header.resultCode", "no header.resultCode"), (["code": .string("a\u{7}")], "Code", "Code is not a code (empty, over 64 bytes or a control character)"),
        ] {
            #expect(throws: GatewayError(gateway: "g", .malformedBody(words))) { try GatewayAnswer.code(object, "code", gateway: "g", label: label) }
        }
        #expect(throws: GatewayError(gateway: "g", .malformedBody("'data' is not an object"))) { try GatewayAnswer.object(["data": .string("x")], "data", gateway: "g") }
        #expect(try GatewayAnswer.object(["data": .null], "data", gateway: "g") == nil)
    }

    @Test func aNumberThatIsNotAMainlandMobileNumberIsNamedNeverQuoted() throws {
        #expect(try GatewayAnswer.phoneNumber("13800138000", gateway: "tianyi", label: "mobileName").digits == "13800138000")
        let error = #expect(throws: GatewayError.self) { try GatewayAnswer.phoneNumber("1380013800x", gateway: "tianyi", label: "mobileName") }
        #expect(error == GatewayError(gateway: "tianyi", .malformedBody("mobileName is not a mainland mobile number")))
    }

    @Test func aSignPreviewRefusesAFieldItsCallDoesNotTakeInOneWording() throws {
        let error = #expect(throws: GatewayError.self) {
            try SignPreviewFields(["zeta": "1", "alpha": "2", "token": "t"], known: ["token", "msgid"], of: "loginTokenValidate's sign", gateway: "cmcc")
        }
        #expect(error == GatewayError(gateway: "cmcc", .misconfigured("--field alpha is not a field of loginTokenValidate's sign (its fields: token, msgid)")))
        let fields = try SignPreviewFields(["token": "t", "date": "2023-10-26T10:22:32Z", "timestamp": "1551113065"], known: ["token", "date", "timestamp"], of: "x", gateway: "g")
        #expect(fields["token"] == "t")
        #expect(try fields.date() == Date(timeIntervalSince1970: 1_698_315_752))  // python3: datetime(2023,10,26,10,22,32,tzinfo=utc).timestamp()
        #expect(try fields.timestamp(FakeClock(now: Self.instant)) == Date(timeIntervalSince1970: 1_551_113_065))
        #expect(try SignPreviewFields([:], known: [], of: "x", gateway: "g").timestamp(FakeClock(now: Self.instant)) == Self.instant)
        #expect(throws: GatewayError(gateway: "g", .misconfigured("--field token=… is needed (a secret one as token=-, its value on standard input)"))) { try SignPreviewFields([:], known: [], of: "x", gateway: "g").required("token") }
        let badDate = try SignPreviewFields(["date": "yesterday"], known: ["date"], of: "x", gateway: "g")
        #expect(throws: GatewayError(gateway: "g", .misconfigured("--field date must be UTC like 2023-10-26T10:22:32Z, not 'yesterday'"))) { try badDate.date() }
        let badSeconds = try SignPreviewFields(["timestamp": "-1"], known: ["timestamp"], of: "x", gateway: "g")
        #expect(throws: GatewayError.self) { try badSeconds.timestamp(FakeClock(now: Self.instant)) }
    }

    @Test func idsAndSecretsAreCheckedInTheSameWordsForEveryVendorNeverQuotingASecret() throws {
        try CredentialCheck.lettersAndDigits("300011111111", "appId", mustBe: "the app's id", gateway: "cmcc")
        #expect(throws: GatewayError(gateway: "cmcc", .misconfigured("appId must be the app's id (letters and digits), not '3000…' (6 characters)"))) {
            try CredentialCheck.lettersAndDigits("3000 1", "appId", mustBe: "the app's id", gateway: "cmcc")
        }
        // A gateway attacker's read: an id's field quoted 40 characters of what it held, so a secret pasted into it by
        // mistake (an Aliyun AccessKeySecret with a `/`) reached the error. Four characters and the length now.
        #expect(throws: GatewayError(gateway: "cmcc", .misconfigured("appId must be the app's id (letters and digits), not 'wJal…' (30 characters)"))) {
            try CredentialCheck.lettersAndDigits("wJalrXUtnFEMI/K7MDENG+bPxRfiCY", "appId", mustBe: "the app's id", gateway: "cmcc")
        }
        #expect(throws: GatewayError(gateway: "cmcc", .misconfigured("appId must be the app's id (letters and digits), not ''"))) {
            try CredentialCheck.lettersAndDigits("", "appId", mustBe: "the app's id", gateway: "cmcc")
        }
        try CredentialCheck.trimmed(Secret("s3cret"), "appSecret", setTo: "the APPSecret", padded: "a 103101 sign error", gateway: "cmcc")
        #expect(throws: GatewayError(gateway: "cmcc", .misconfigured("appSecret is empty: set it to the APPSecret"))) {
            try CredentialCheck.trimmed(Secret(""), "appSecret", setTo: "the APPSecret", padded: "a 103101 sign error", gateway: "cmcc")
        }
        let padded = #expect(throws: GatewayError.self) {
            try CredentialCheck.trimmed(Secret(" s3cret\n"), "appSecret", setTo: "the APPSecret", padded: "a 103101 sign error", gateway: "cmcc")
        }
        #expect(padded == GatewayError(gateway: "cmcc", .misconfigured("appSecret begins or ends with white space (a 103101 sign error): remove it")))
        #expect(padded?.description.contains("s3cret") == false)
    }

    @Test func anEndpointGivesEveryRequestItsLimitsAndEveryDescriptionItsHostPortAndPath() throws {
        var configuration = GeeTestConfiguration(captchaID: "647f5ed2ed8acb4be36784e01556bb71", captchaKey: Secret("k"))
        configuration.url = try #require(URL(string: "https://user:pw@127.0.0.1:8443/validate?x=1"))
        configuration.timeout = .seconds(2)
        let request = configuration.post(gateway: "geetest", headers: [FormEncoding.contentType], body: [1])
        // One bound for every gateway's answer: 16 KiB (16 × 1024).
        #expect(request.method == "POST" && request.url == configuration.url && request.timeout == .seconds(2) && request.maximumResponseBytes == 16_384)
        #expect(GatewayAnswer.maximumBytes == 16_384)
        #expect(request.header("content-type") == "application/x-www-form-urlencoded")
        #expect(configuration.description == "geetest captcha_id 647f5ed2ed8acb4be36784e01556bb71, 127.0.0.1:8443/validate")
        let other = try #require(URL(string: "https://example.invalid/other"))
        #expect(configuration.post(gateway: "geetest", to: other, headers: []).url == other)
        #expect(throws: GatewayError(gateway: "geetest", .wrongContentType("text/html"))) {
            try configuration.jsonObject(HTTPResponse(status: 200, headers: ["Content-Type": "text/html"], body: Array("<html>busy</html>".utf8)), gateway: "geetest")
        }
    }
}
