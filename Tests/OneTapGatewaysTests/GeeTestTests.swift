import Foundation
import OneTap
@testable import OneTapGateways
import OneTapTesting
import Testing

/// GeeTest v4's `/validate`: the token the client sends (`getValidate()` as JSON), `sign_token` against python3
/// (`hmac.new(b'b09a7aafbfd83f73b35a9b530d0337bf', b'4dc3cfc2cdff448cad8d13107198d473', hashlib.sha256).hexdigest()`:
/// the key and lot_number of GeeTest's document's examples), and the fake written from GeeTest's document
/// (Fakes/geetest_validate.py).
@Suite(.timeLimit(.minutes(4))) struct GeeTestTests {
    static let captchaID = "647f5ed2ed8acb4be36784e01556bb71"
    static let captchaKey = "b09a7aafbfd83f73b35a9b530d0337bf"

    static func verifier(_ transport: any HTTPTransport, url: URL? = nil, key: String = captchaKey, timeout: Duration = .seconds(30)) throws -> GeeTestCaptchaVerifier {
        var configuration = GeeTestConfiguration(captchaID: captchaID, captchaKey: Secret(key))
        if let url { configuration.url = url }
        configuration.timeout = timeout
        return try GeeTestCaptchaVerifier(configuration: configuration, transport: transport)
    }

    static func token(_ lotNumber: String, id: String = captchaID, genTime: String = "1796083199") -> Secret {
        Secret(#"{"lot_number":"\#(lotNumber)","captcha_output":"out+put/=","pass_token":"pass","gen_time":"\#(genTime)","captcha_id":"\#(id)"}"#)
    }

    /// GeeTest's error code is vendor text: shown with U+FFFD for a direction override or an escape, at most
    /// 32 characters (the attacker's read of the gateways).
    @Test func anErrorCodeIsShownAsALabel() async throws {
        let body = #"{"status":"error","code":"-5\u202e0005\u001b[2J","msg":"x"}"#
        let transport = ScriptedHTTPTransport([.answer(HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: Array(body.utf8)))])
        let error = await #expect(throws: GatewayCodeError.self) {
            try await Self.verifier(transport).verify(Self.token("4dc3cfc2cdff448cad8d13107198d473"), context: SMSContext(session: .testSession))
        }
        #expect(error?.code == "-5\u{FFFD}0005\u{FFFD}[2J")
    }

    /// A verdict counts only under `status` `success`, as every answer in GeeTest's document has it: a `result`
    /// `success` beside no status, another status or a padded `error` is no answer of GeeTest's (an attacker's read:
    /// each was taken as a solved captcha).
    @Test(arguments: [#"{"result":"success"}"#, #"{"status":"fail","result":"success"}"#, #"{"status":" error","code":"-50005","result":"success"}"#])
    func aVerdictWithoutStatusSuccessIsMalformed(body: String) async throws {
        let transport = ScriptedHTTPTransport([.answer(HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: Array(body.utf8)))])
        let error = await #expect(throws: GatewayError.self) {
            try await Self.verifier(transport).verify(Self.token("4dc3cfc2cdff448cad8d13107198d473"), context: SMSContext(session: .testSession))
        }
        #expect(error == GatewayError(gateway: "geetest", .malformedBody("status is neither success nor error")))
    }

    @Test func theRequestPostsTheFourValuesAndTheSignTokenPythonComputes() async throws {
        let transport = ScriptedHTTPTransport([.answer(HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: Array(#"{"status":"success","result":"success","reason":""}"#.utf8)))])
        #expect(try await Self.verifier(transport).verify(Self.token("4dc3cfc2cdff448cad8d13107198d473"), context: SMSContext(session: .testSession)))
        let request = try #require(transport.requests.last)
        #expect(request.url.absoluteString == "https://gcaptcha4.geetest.com/validate?captcha_id=647f5ed2ed8acb4be36784e01556bb71")
        #expect(request.header("Content-Type") == "application/x-www-form-urlencoded")
        #expect(String(decoding: request.body, as: UTF8.self)
            == "lot_number=4dc3cfc2cdff448cad8d13107198d473&captcha_output=out%2Bput%2F%3D&pass_token=pass&gen_time=1796083199&sign_token=c99f3aa68104bdcd085f372dc6556a17a5a830a1a3d25125fb0010466977f3d8")
        let preview = try Self.verifier(ScriptedHTTPTransport()).signPreview(fields: ["lot_number": "4dc3cfc2cdff448cad8d13107198d473"])
        #expect(preview.signature == "c99f3aa68104bdcd085f372dc6556a17a5a830a1a3d25125fb0010466977f3d8")
        #expect(!preview.description.contains(Self.captchaKey))
        #expect(preview.stringToSign == "4dc3cfc2cdff448cad8d13107198d473")
        #expect(throws: GatewayError.self) { try Self.verifier(ScriptedHTTPTransport()).signPreview(fields: [:]) }
    }

    @Test(arguments: [
        (#"{"lot_number":"l","captcha_output":"o","pass_token":"p"}"#, #"no "gen_time""#),
        (#"{"lot_number":"l","captcha_output":"o","pass_token":"p","gen_time":"12a"}"#, #""gen_time" is not a timestamp"#),
        (#"{"lot_number":"l","captcha_output":"o","pass_token":"p","gen_time":"1","captcha_id":"other"}"#, #""captcha_id" is not this configuration's"#),
        ("lot_number=l", "not JSON"),
    ])
    func aMalformedTokenIsRefusedBeforeAnyRequest(token: String, words: String) async throws {
        let transport = ScriptedHTTPTransport()
        let error = await #expect(throws: CaptchaTokenError.self) { try await Self.verifier(transport).verify(Secret(token), context: SMSContext(session: .testSession)) }
        #expect(error?.description.contains(words) == true, "\(String(describing: error))")
        #expect(transport.requests.isEmpty)
    }

    @Test func aBadConfigurationFailsAtStartNamingTheField() throws {
        let noID = #expect(throws: GatewayError.self) { try GeeTestCaptchaVerifier(configuration: GeeTestConfiguration(captchaID: "", captchaKey: Secret("k")), transport: ScriptedHTTPTransport()) }
        #expect("\(String(describing: noID))".contains("captchaId"))
        let error = #expect(throws: GatewayError.self) { try Self.verifier(ScriptedHTTPTransport(), key: "s3cret key") }
        #expect("\(String(describing: error))".contains("captchaKey"))
        #expect(!"\(String(describing: error))".contains("s3cret"))
        let settings = try GatewayConfigurationFile(text: #"{"geetest": {"captchaId": "\#(Self.captchaID)", "captchaKey": {"env": "GT"}}}"#, file: "g.json", environment: { $0 == "GT" ? "k" : nil }).settings("geetest")
        #expect(try GeeTestConfiguration(settings: settings).description == "geetest captcha_id \(Self.captchaID), gcaptcha4.geetest.com/validate")
    }

    static func fake() async throws -> FakeServer {
        try await FakeServer.start("geetest_validate.py", arguments: ["--captcha-id", captchaID, "--captcha-key", captchaKey])
    }

    @Test func theFakeAnswersSolvedOnceAndFailOrErrorOtherwise() async throws {
        let server = try await Self.fake()
        defer { server.stop() }
        let verifier = try Self.verifier(URLSessionTransport(), url: server.url("/validate"))
        let lot = UUID().uuidString
        #expect(try await verifier.verify(Self.token(lot), context: SMSContext(session: .testSession)))
        let again = await #expect(throws: GatewayCodeError.self) { try await verifier.verify(Self.token(lot), context: SMSContext(session: .testSession)) }
        #expect(again?.code == "-50003")
        #expect(again?.isProviderFault == false)  // a repeat: the client's doing
        #expect(try await verifier.verify(Self.token("expired-\(UUID().uuidString)"), context: SMSContext(session: .testSession)) == false)
        // Another key signs another sign_token: not solved.
        #expect(try await Self.verifier(URLSessionTransport(), url: server.url("/validate"), key: "another-key").verify(Self.token(UUID().uuidString), context: SMSContext(session: .testSession)) == false)
    }

    @Test(arguments: [
        ("status-500", GatewayError.Kind.httpStatus(500)),
        ("truncated", .malformedBody("the answer was cut short (the connection closed mid-body)")),
        ("malformed", .malformedBody("the body is not JSON (32 bytes)")),
        ("html", .wrongContentType("text/html")),
    ])
    func everyBrokenAnswerIsATypedError(prefix: String, kind: GatewayError.Kind) async throws {
        let server = try await Self.fake()
        defer { server.stop() }
        let error = await #expect(throws: GatewayError.self) {
            try await Self.verifier(URLSessionTransport(), url: server.url("/validate")).verify(Self.token("\(prefix)-\(UUID().uuidString)"), context: SMSContext(session: .testSession))
        }
        #expect(error == GatewayError(gateway: "geetest", kind))
    }

    @Test func aSlowAnswerIsTimedOut() async throws {
        let server = try await Self.fake()
        defer { server.stop() }
        let error = await #expect(throws: GatewayError.self) {
            try await Self.verifier(URLSessionTransport(), url: server.url("/validate"), timeout: .milliseconds(700)).verify(Self.token("slow-\(UUID().uuidString)"), context: SMSContext(session: .testSession))
        }
        #expect(error == GatewayError(gateway: "geetest", .timedOut))
    }

    /// A configuration GeeTest refuses (another `captcha_id`, -50102) is a provider fault: no client's values cause it.
    @Test func aRefusedCaptchaIDIsTheConfigurationsFault() async throws {
        let server = try await FakeServer.start("geetest_validate.py", arguments: ["--captcha-id", "0000000000000000000000000000000a", "--captcha-key", "another"])
        defer { server.stop() }
        let error = await #expect(throws: GatewayCodeError.self) {
            try await Self.verifier(URLSessionTransport(), url: server.url("/validate")).verify(Self.token(UUID().uuidString), context: SMSContext(session: .testSession))
        }
        #expect(error?.code == "-50102" && error?.isProviderFault == true, "\(String(describing: error))")
    }
}
