import Foundation
import OneTap
@testable import OneTapGateways
import Testing
import OneTapTesting

/// The Tianyi gateway and refresher over the URLSession transport against the fake written from the public sources
/// (Fakes/tianyi_open_api.py), which decrypts `paras` with its own XXTEA and recomputes `sign`: each of the fake's
/// answers maps to the right ExchangeResponse, RefreshResponse or error, and no error's words hold a token, the
/// secret or the number.
@Suite(.timeLimit(.minutes(4))) struct TianyiFakeServerTests {
    static let appID = "8013818507"
    static let secret = "S3cretS3cretS3cretS3cretS3cret12"
    static let number = "18912345678"

    static func fake(_ arguments: [String] = []) async throws -> FakeServer {
        try await FakeServer.start("tianyi_open_api.py", arguments: ["--app-id", appID, "--app-secret", secret, "--number", number] + arguments)
    }

    static func configuration(_ server: FakeServer, secret: String = secret, timeout: Duration = .seconds(30), _ edit: (inout TianyiConfiguration) -> Void = { _ in }) -> TianyiConfiguration {
        var configuration = TianyiConfiguration(appID: appID, appSecret: Secret(secret))
        configuration.url = server.url("/api/oauth2/account/userInfo.do")
        configuration.refreshURL = server.url("/api/oauth2/refreshToken.do")
        configuration.timeout = timeout
        edit(&configuration)
        return configuration
    }

    static func gateway(_ configuration: TianyiConfiguration) throws -> TianyiTokenExchange {
        try TianyiTokenExchange(configuration: configuration, transport: URLSessionTransport())
    }

    static func credential(_ prefix: String = "AT") -> CarrierCredential { CarrierCredential(flow: .tianyi, token: Secret("\(prefix)-\(UUID().uuidString)")) }

    static func token(refresh: String) throws -> AccessToken {
        AccessToken(value: Secret("AT-old"), refreshToken: Secret(refresh), flow: .tianyi, account: "acct-1", issuedAt: Date(), expiresAt: Date())
    }

    static func expectNothingSecret(_ error: (any Error)?, token: String) {
        let text = "\(String(describing: error))"
        #expect(!text.contains(token))
        #expect(!text.contains(secret))
        #expect(!text.contains(number))
    }

    @Test func bothFormsAndEverySignSettingGetTheNumber() async throws {
        let cases: [([String], (inout TianyiConfiguration) -> Void)] = [
            ([], { _ in }),
            ([], { $0.mode = .plain }),
            (["--sign-digest", "md5", "--sign-case", "lower", "--sign-secret", "SignSecret-42"], {
                $0.signDigest = .hmacMD5
                $0.uppercaseSign = false
                $0.signSecret = Secret("SignSecret-42")
            }),
            ([], { $0.clientIP = "203.0.113.7" }),
        ]
        for (arguments, edit) in cases {
            let server = try await Self.fake(arguments)
            defer { server.stop() }
            let response = try await Self.gateway(Self.configuration(server, edit)).exchange(Self.credential())
            #expect(response == ExchangeResponse(code: "0", phoneNumber: try PhoneNumber(Self.number)))
        }
    }

    @Test func aWrongSecretIsTheFakesSignErrorPassedOnAsTheCode() async throws {
        let server = try await Self.fake()
        defer { server.stop() }
        #expect(try await Self.gateway(Self.configuration(server, secret: "S3cretS3cretS3cretS3cretS3cret13")).exchange(Self.credential()).code == "FAKE_SIGN_ERROR")
        // A sign over the right text in lower case where the fake wants upper case is refused too.
        #expect(try await Self.gateway(Self.configuration(server) { $0.uppercaseSign = false }).exchange(Self.credential()).code == "FAKE_SIGN_ERROR")
        #expect(try await Self.gateway(Self.configuration(server) { $0.mode = .plain; $0.signDigest = .hmacMD5 }).exchange(Self.credential()).code == "FAKE_SIGN_ERROR")
        #expect(try await Self.gateway(Self.configuration(server, secret: Self.secret) { _ in }).exchange(Self.credential("expired")).code == "FAKE_TOKEN_INVALID")
    }

    @Test func aSlowAnswerPastTheTimeOutIsTimedOut() async throws {
        let server = try await Self.fake()
        defer { server.stop() }
        let credential = Self.credential("slow")
        let error = await #expect(throws: GatewayError.self) { try await Self.gateway(Self.configuration(server, timeout: .milliseconds(700))).exchange(credential) }
        #expect(error == GatewayError(gateway: "tianyi", .timedOut))
        Self.expectNothingSecret(error, token: credential.token.reveal())
    }

    @Test(arguments: [
        ("status-500", GatewayError.Kind.httpStatus(500)),
        ("status-503", .httpStatus(503)),
        ("truncated", .malformedBody("the answer was cut short (the connection closed mid-body)")),
        ("malformed", .malformedBody("the body is not JSON (38 bytes)")),
        ("html", .wrongContentType("text/html")),
    ])
    func everyBrokenAnswerIsATypedErrorNamingTheGatewayAndNoSecret(prefix: String, kind: GatewayError.Kind) async throws {
        let server = try await Self.fake()
        defer { server.stop() }
        let credential = Self.credential(prefix)
        let error = await #expect(throws: GatewayError.self) { try await Self.gateway(Self.configuration(server)).exchange(credential) }
        #expect(error == GatewayError(gateway: "tianyi", kind))
        Self.expectNothingSecret(error, token: credential.token.reveal())
        // The same answer to a refresh is a transient failure: the stored token is kept.
        let refresher = try TianyiTokenRefresher(configuration: Self.configuration(server), transport: URLSessionTransport())
        let refreshToken = "\(prefix)-\(UUID().uuidString)"
        let refreshError = await #expect(throws: TokenError.self) { try await refresher.refresh(try Self.token(refresh: refreshToken)) }
        #expect(refreshError?.kind == .refreshFailed)
        #expect(refreshError?.message == GatewayError(gateway: "tianyi", kind).description)
        Self.expectNothingSecret(refreshError, token: refreshToken)
    }

    @Test func theRefreshRotatesBothTokensForAMonthAndARefusalIsFinal() async throws {
        for mode in [TianyiConfiguration.ParameterMode.encrypted, .plain] {
            let server = try await Self.fake()
            defer { server.stop() }
            let refresher = try TianyiTokenRefresher(configuration: Self.configuration(server) { $0.mode = mode }, transport: URLSessionTransport())
            let response = try await refresher.refresh(try Self.token(refresh: "RT-\(UUID().uuidString)"))
            #expect(response.accessToken.reveal().hasPrefix("AT-"))
            #expect(response.refreshToken?.reveal().hasPrefix("RT-") == true)
            #expect(response.expiresIn?.seconds == 2_592_000)
            let refusal = await #expect(throws: TokenError.self) { try await refresher.refresh(try Self.token(refresh: "revoked-1")) }
            #expect(refusal?.kind == .reloginRequired)
            #expect(refusal?.message.contains("FAKE_REFRESH_REFUSED") == true)
        }
    }

    /// The fake holds requests to the sources too: a request that strays from them is refused, so a gateway that sent
    /// one could not pass the tests above.
    @Test func theFakeRefusesWhatTheSourcesDoNotShow() async throws {
        let server = try await Self.fake()
        defer { server.stop() }
        let transport = URLSessionTransport()
        func send(_ fields: [(name: String, value: String)], contentType: String = "application/x-www-form-urlencoded") async throws -> String? {
            let response = try await transport.send(HTTPRequest(
                gateway: "tianyi", method: "POST", url: server.url("/api/oauth2/account/userInfo.do"), headers: [HTTPHeader("Content-Type", contentType)],
                body: FormEncoding.body(fields), timeout: .seconds(30)))
            return try GatewayAnswer.text(try GatewayAnswer.jsonObject(response, gateway: "tianyi", contentTypes: ["application/json"]), "result", gateway: "tianyi", acceptingNumbers: true)
        }
        let now = TianyiRequest.timeStamp(Date())
        let good = try TianyiRequest(parameters: [("accessToken", "AT-x"), ("timeStamp", now)], configuration: TianyiConfiguration(appID: Self.appID, appSecret: Secret(Self.secret)))
        #expect(try await send(good.fields) == "0")
        #expect(try await send(good.fields, contentType: "application/json") == "FAKE_BAD_REQUEST")
        #expect(try await send(good.fields + [("extra", "1")]) == "FAKE_BAD_REQUEST")
        #expect(try await send(good.fields.filter { $0.name != "sign" }) == "FAKE_BAD_REQUEST")
        #expect(try await send(good.fields.map { $0.name == "appId" ? (name: "appId", value: "8000000000") : $0 }) == "FAKE_APP_UNKNOWN")
        let stale = try TianyiRequest(parameters: [("accessToken", "AT-x"), ("timeStamp", "1500000000000")], configuration: TianyiConfiguration(appID: Self.appID, appSecret: Secret(Self.secret)))
        #expect(try await send(stale.fields) == "FAKE_BAD_REQUEST")
        let noToken = try TianyiRequest(parameters: [("timeStamp", now)], configuration: TianyiConfiguration(appID: Self.appID, appSecret: Secret(Self.secret)))
        #expect(try await send(noToken.fields) == "FAKE_BAD_REQUEST")
    }
}
