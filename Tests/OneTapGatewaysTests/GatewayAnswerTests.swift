import Foundation
import OneTap
@testable import OneTapGateways
import Testing

/// The checks every answer passes before its fields are read, and the errors' words (no body, no secret).
@Suite struct GatewayAnswerTests {
    static let json = ["Content-Type": "application/json;charset=UTF-8"]

    @Test func aJSONObjectWithAParameterisedContentTypeIsRead() throws {
        let object = try GatewayAnswer.jsonObject(HTTPResponse(status: 200, headers: Self.json, body: Array(#"{"resultCode":"103000","n":103000}"#.utf8)), gateway: "cmcc", contentTypes: ["application/json"])
        #expect(try GatewayAnswer.text(object, "resultCode", gateway: "cmcc") == "103000")
        #expect(try GatewayAnswer.text(object, "n", gateway: "cmcc", acceptingNumbers: true) == "103000")
        #expect(try GatewayAnswer.text(object, "missing", "resultCode", gateway: "cmcc") == "103000")
        #expect(try GatewayAnswer.text(object, "missing", gateway: "cmcc") == nil)
    }

    /// A JSON object under another content type, or none, is the vendor's answer all the same: most documents name no
    /// type, and refused as `wrong-content-type`, a billed exchange's number was lost (a review's finding).
    @Test(arguments: [["Content-Type": "text/plain;charset=UTF-8"], ["Content-Type": "text/html"], [:]])
    func aJSONObjectUnderAnotherContentTypeIsRead(headers: [String: String]) throws {
        let object = try GatewayAnswer.jsonObject(HTTPResponse(status: 200, headers: headers, body: Array(#"{"resultCode":"103000"}"#.utf8)), gateway: "cmcc", contentTypes: ["application/json"])
        #expect(try GatewayAnswer.text(object, "resultCode", gateway: "cmcc") == "103000")
    }

    /// An answer longer than the gateways' 16 KiB is refused unread whatever transport brought it: `HTTPTransport` is
    /// public, and one that ignored `maximumResponseBytes` let a mebibyte answer be parsed into a whole tree (an
    /// attacker's read of the gateways). 16,384 bytes are read; one more is `bodyTooLarge`.
    @Test func anAnswerLongerThanTheLimitIsRefusedUnreadWhateverTheTransport() throws {
        func answer(_ length: Int) -> HTTPResponse {
            let padding = String(repeating: " ", count: length - #"{"resultCode":"103000"}"#.utf8.count)
            return HTTPResponse(status: 200, headers: Self.json, body: Array((#"{"resultCode":"103000"}"# + padding).utf8))
        }
        #expect(try GatewayAnswer.jsonObject(answer(16_384), gateway: "cmcc", contentTypes: ["application/json"])["resultCode"] == .string("103000"))
        #expect {
            try GatewayAnswer.jsonObject(answer(16_385), gateway: "cmcc", contentTypes: ["application/json"])
        } throws: { ($0 as? GatewayError)?.kind == .bodyTooLarge(limit: 16_384) }
    }

    @Test func everyMalformedAnswerIsATypedErrorThatQuotesNothingOfTheBody() throws {
        let secret = "13812345678-STsid0000001517196594066"
        let cases: [(HTTPResponse, GatewayError.Kind)] = [
            (HTTPResponse(status: 502, headers: Self.json, body: Array(secret.utf8)), .httpStatus(502)),
            (HTTPResponse(status: 200, headers: ["Content-Type": "text/html"], body: Array(secret.utf8)), .wrongContentType("text/html")),
            (HTTPResponse(status: 200, body: Array(secret.utf8)), .wrongContentType(nil)),
            // A content type with a direction override or an escape is shown with U+FFFD in their place.
            (HTTPResponse(status: 200, headers: ["Content-Type": "text/\u{202E}lmth\u{1B}[2J"], body: Array(secret.utf8)), .wrongContentType("text/\u{FFFD}lmth\u{FFFD}[2J")),
            (HTTPResponse(status: 200, headers: Self.json, body: Array("{\"msisdn\":\"\(secret)".utf8)), .malformedBody("the body is not JSON (\(secret.count + 11) bytes)")),
            (HTTPResponse(status: 200, headers: Self.json, body: [0xFF, 0xFE]), .malformedBody("the body is not UTF-8 (2 bytes)")),
            (HTTPResponse(status: 200, headers: Self.json, body: Array("[\"\(secret)\"]".utf8)), .malformedBody("the body is JSON but not an object")),
            // Under another content type, what is no JSON object is named by its type.
            (HTTPResponse(status: 200, headers: ["Content-Type": "text/html"], body: Array("[\"\(secret)\"]".utf8)), .wrongContentType("text/html")),
        ]
        for (response, kind) in cases {
            let error = #expect(throws: GatewayError.self) { try GatewayAnswer.jsonObject(response, gateway: "cmcc", contentTypes: ["application/json"]) }
            #expect(error?.kind == kind)
            #expect(error?.gateway == "cmcc")
            #expect(!"\(String(describing: error))".contains("13812345678"))
            #expect(!"\(String(describing: error))".contains("STsid"))
        }
        let object = try GatewayAnswer.jsonObject(HTTPResponse(status: 200, headers: Self.json, body: Array("{\"resultCode\":[\"\(secret)\"]}".utf8)), gateway: "cmcc", contentTypes: ["application/json"])
        #expect(throws: GatewayError(gateway: "cmcc", .malformedBody("'resultCode' is not a string"))) { try GatewayAnswer.text(object, "resultCode", gateway: "cmcc") }
        // A whole number reads as its digits where codes may come as numbers, and is refused by default (text, as documents give it).
        let numbers: [String: JSONValue] = ["code": .number(103000), "phone": .number(13_800_138_000)]
        #expect(try GatewayAnswer.text(numbers, "code", gateway: "cmcc", acceptingNumbers: true) == "103000")
        #expect(throws: GatewayError(gateway: "cmcc", .malformedBody("'phone' is not a string"))) { try GatewayAnswer.text(numbers, "phone", gateway: "cmcc") }
    }

    @Test func aRequestDescribesNoQueryHeaderOrBody() throws {
        let request = HTTPRequest(
            gateway: "cmcc", method: "POST", url: try #require(URL(string: "https://www.cmpassport.com/unisdk/rsapi/loginTokenValidate?sign=SECRETSIGN")),
            headers: [HTTPHeader("Authorization", "Basic SECRETAUTH")], body: Array("SECRETBODY".utf8), timeout: .seconds(5))
        #expect(request.description == "cmcc POST www.cmpassport.com/unisdk/rsapi/loginTokenValidate (10-byte body)")
        #expect(request.header("authorization") == "Basic SECRETAUTH")
        #expect(HTTPResponse(status: 200, headers: ["X-A": "1"], body: Array("13812345678".utf8)).description == "HTTP 200, no content type, 11 bytes")
    }

    /// `dump` of a request, a header or an answer (a transport that logs what it sends) shows no query, header value
    /// or body either: a header may be JVerification's `Authorization: Basic` (the master secret), a body a token, an
    /// SMS code or a signature, an answer's body Tianyi's new tokens (an attacker's read: `dump` showed them all).
    @Test func dumpShowsNoQueryHeaderValueOrBody() throws {
        let request = HTTPRequest(
            gateway: "jverification", method: "POST", url: try #require(URL(string: "https://api.example.cn/v1/verify?sign=SECRETSIGN")),
            headers: [HTTPHeader("Authorization", "Basic SECRETAUTH")], body: Array("SECRETBODY".utf8), timeout: .seconds(5))
        let response = HTTPResponse(status: 200, headers: ["Set-Cookie": "SECRETCOOKIE"], body: Array(#"{"refreshToken":"SECRETRT"}"#.utf8))
        var text = ""
        dump(request, to: &text)
        dump(request.headers[0], to: &text)
        dump(response, to: &text)
        for secret in ["SECRETSIGN", "SECRETAUTH", "SECRETBODY", "SECRETCOOKIE", "SECRETRT", "- 83\n"] {
            #expect(!text.contains(secret), "\(text)")
        }
        #expect(text.contains("jverification") && text.contains("Authorization") && text.contains("200"))
    }
}
