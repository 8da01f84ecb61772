import Foundation
import OneTap
@testable import OneTapGateways
import OneTapTesting
import Testing

/// What the Tianyi gateway sends, against values computed outside the project with python3 (the command beside each),
/// using the fake's independent XXTEA (Fakes/tianyi_xxtea.py), `hmac` and `urllib.parse`.
@Suite struct TianyiRequestTests {
    static let appID = "8013818507"
    static let secret = "S3cretS3cretS3cretS3cretS3cret12"
    static let json = ["Content-Type": "application/json;charset=UTF-8"]

    static func configuration(_ edit: (inout TianyiConfiguration) -> Void = { _ in }) -> TianyiConfiguration {
        var configuration = TianyiConfiguration(appID: appID, appSecret: Secret(secret))
        edit(&configuration)
        return configuration
    }

    static func sentFields(_ transport: ScriptedHTTPTransport) throws -> [(String, String)] {
        let body = String(decoding: try #require(transport.requests.last).body, as: UTF8.self)
        return try body.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? "" }
            return (parts[0], try #require(parts.last))
        }
    }

    /// python3 -c 'import tianyi_xxtea as x, hmac, hashlib; p = x.encrypt_hex("accessToken=AT-tianyi-0001&timeStamp=1796083200123",
    /// "S3cretS3cretS3cretS3cretS3cret12"); print(p, hmac.new(b"S3cretS3cretS3cretS3cretS3cret12", ("8013818507" "1" "json" "v1.5" + p).encode(),
    /// hashlib.sha1).hexdigest().upper())'
    @Test func theEncryptedFormSendsParasAndTheSignPythonComputes() async throws {
        let transport = ScriptedHTTPTransport([.answer(HTTPResponse(status: 200, headers: Self.json, body: Array(#"{"result":0,"msg":"success","mobileName":"18912345678"}"#.utf8)))])
        let gateway = try TianyiTokenExchange(configuration: Self.configuration(), transport: transport, clock: FakeClock(now: FakeClock.epoch.addingTimeInterval(0.123)))
        let response = try await gateway.exchange(CarrierCredential(flow: .tianyi, token: Secret("AT-tianyi-0001")))
        #expect(response == ExchangeResponse(code: "0", phoneNumber: try PhoneNumber("18912345678")))
        let paras = "2E370006996063F1C16BB6506913653650F3955A6624A6003D2973FB5FC57850F736F4203B5DE86386FD09B43EA450BB28FD9F16BB2A19BB"
        #expect(try Self.sentFields(transport).map { "\($0.0)=\($0.1)" } == [
            "appId=8013818507", "clientType=1", "format=json", "version=v1.5", "paras=\(paras)", "sign=D2228D1B0A1BF5D2EA0D188063AEA10F9709B070",
        ])
        let request = try #require(transport.requests.last)
        #expect(request.method == "POST")
        #expect(request.url == TianyiConfiguration.documentedURL)
        #expect(request.header("content-type") == "application/x-www-form-urlencoded;charset=UTF-8")
        #expect(request.timeout == .seconds(6))
        // No token in the clear anywhere in the body.
        #expect(!String(decoding: request.body, as: UTF8.self).contains("AT-tianyi-0001"))
    }

    /// python3: fields clientId=8013818507 clientType=1 format=json version=v1.5 refreshToken=RT-tianyi-0001
    /// grantType=refresh_token timeStamp=1796083200123 clientIp=203.0.113.7; "".join(v for k, v in sorted(fields)) ==
    /// "8013818507203.0.113.71jsonrefresh_tokenRT-tianyi-00011796083200123v1.5";
    /// hmac.new(b"SignSecret-42", that, hashlib.md5).hexdigest() == "8aa443bb70edc096bfe38ff829f65f5a"
    @Test func thePlainFormSignsTheValuesInTheOrderOfTheirNames() async throws {
        let transport = ScriptedHTTPTransport([.answer(HTTPResponse(status: 200, headers: Self.json, body: Array(#"{"result":0,"accessToken":"AT-2","refreshToken":"RT-2","expiresIn":"2592000"}"#.utf8)))])
        let configuration = Self.configuration {
            $0.mode = .plain
            $0.signDigest = .hmacMD5
            $0.uppercaseSign = false
            $0.signSecret = Secret("SignSecret-42")
            $0.clientIP = "203.0.113.7"
        }
        let clock = FakeClock(now: FakeClock.epoch.addingTimeInterval(0.123))
        let refresher = try TianyiTokenRefresher(configuration: configuration, transport: transport, clock: clock)
        let token = AccessToken(value: Secret("AT-1"), refreshToken: Secret("RT-tianyi-0001"), flow: .tianyi, account: "acct-1", issuedAt: clock.now(), expiresAt: clock.now())
        let response = try await refresher.refresh(token)
        #expect(response.accessToken == Secret("AT-2"))
        #expect(response.refreshToken == Secret("RT-2"))
        #expect(response.expiresIn?.seconds == 2_592_000)
        #expect(try Self.sentFields(transport).map { "\($0.0)=\($0.1)" } == [
            "clientId=8013818507", "clientType=1", "format=json", "version=v1.5", "refreshToken=RT-tianyi-0001", "grantType=refresh_token",
            "timeStamp=1796083200123", "clientIp=203.0.113.7", "sign=8aa443bb70edc096bfe38ff829f65f5a",
        ])
        #expect(transport.requests.last?.url == TianyiConfiguration.documentedRefreshURL)
        let preview = try refresher.signPreview(fields: ["refreshToken": "RT-tianyi-0001", "timeStamp": "1796083200123"])
        #expect(preview == SignPreview(
            stringToSign: "8013818507203.0.113.71jsonrefresh_tokenRT-tianyi-00011796083200123v1.5", signature: "8aa443bb70edc096bfe38ff829f65f5a",
            algorithm: "HMAC-MD5 with key <signSecret>"))
    }

    @Test func signPreviewShowsTheSignedTextWithoutTheSecretAndRefusesUnknownFields() throws {
        let gateway = try TianyiTokenExchange(configuration: Self.configuration(), transport: ScriptedHTTPTransport(), clock: FakeClock())
        let preview = try gateway.signPreview(fields: ["accessToken": "AT-tianyi-0001", "timeStamp": "1796083200123"])
        #expect(preview.signature == "D2228D1B0A1BF5D2EA0D188063AEA10F9709B070")
        #expect(preview.stringToSign == "80138185071jsonv1.5XXTEA(accessToken=AT-tianyi-0001&timeStamp=1796083200123, <appSecret>)")
        #expect(preview.algorithm == "HMAC-SHA1 with key <appSecret>")
        #expect(!preview.description.contains(Self.secret))
        let error = #expect(throws: GatewayError.self) { try gateway.signPreview(fields: ["token": "x"]) }
        #expect(error?.description.contains("--field token is not a field") == true)
    }

    @Test func aBadConfigurationFailsAtStartNamingTheFieldNeverTheSecret() {
        let cases: [(TianyiConfiguration, String)] = [
            (TianyiConfiguration(appID: "", appSecret: Secret("s3cret-value")), "appId"),
            (TianyiConfiguration(appID: "80138 18507", appSecret: Secret("s3cret-value")), "appId"),
            (TianyiConfiguration(appID: Self.appID, appSecret: Secret("")), "appSecret is empty"),
            (TianyiConfiguration(appID: Self.appID, appSecret: Secret("s3cret-value ")), "appSecret begins or ends with white space"),
            (Self.configuration { $0.signSecret = Secret(" s3cret-value") }, "signSecret begins or ends"),
            (Self.configuration { $0.clientType = "" }, "clientType must be"),
            (Self.configuration { $0.version = "v1.5&x=1" }, "version must be"),
        ]
        for (configuration, words) in cases {
            let transport = ScriptedHTTPTransport()
            for make in [{ try TianyiTokenExchange(configuration: configuration, transport: transport) as Any }, { try TianyiTokenRefresher(configuration: configuration, transport: transport) as Any }] {
                let error = #expect(throws: GatewayError.self) { try make() }
                #expect(error?.gateway == "tianyi")
                #expect(error?.mayHaveReachedVendor == false)
                #expect("\(String(describing: error))".contains(words), "\(String(describing: error))")
                #expect(!"\(String(describing: error))".contains("s3cret-value"))
            }
            #expect(!configuration.description.contains("s3cret-value"))
            #expect(transport.requests.isEmpty)
        }
    }

    @Test func descriptionsNameTheFormAndHostNeverASecret() throws {
        var configuration = Self.configuration()
        #expect(configuration.description == "tianyi appId 8013818507, XXTEA paras, HMAC-SHA1, open.e.189.cn/api/oauth2/account/userInfo.do")
        configuration.url = try #require(URL(string: "https://user:pa55@127.0.0.1:8443/api/oauth2/account/userInfo.do?k=\(Self.secret)"))
        configuration.signSecret = Secret("other")
        #expect(configuration.description == "tianyi appId 8013818507, XXTEA paras, HMAC-SHA1 with a sign secret, 127.0.0.1:8443/api/oauth2/account/userInfo.do")
        let refresher = try TianyiTokenRefresher(configuration: Self.configuration(), transport: ScriptedHTTPTransport())
        #expect(refresher.description == "tianyi refresh appId 8013818507, XXTEA paras, open.e.189.cn/api/oauth2/refreshToken.do")
    }

    /// `paras` carries values unescaped (as the samples do): a token holding `&` or `=` is refused before sending,
    /// as not sent (the guard records it failed), and the error does not quote it.
    @Test func aTokenTheParasTextCannotCarryIsNotSent() async throws {
        let transport = ScriptedHTTPTransport()
        let gateway = try TianyiTokenExchange(configuration: Self.configuration(), transport: transport)
        let error = await #expect(throws: ExchangeNotSentError.self) { try await gateway.exchange(CarrierCredential(flow: .tianyi, token: Secret("AT-1&timeStamp=0"))) }
        #expect("\(String(describing: error))".contains("accessToken holds '&', '=', '%' or a control character"))
        #expect(error?.refusedCredential == true, "the client's credential, not the way to the carrier")
        #expect(!"\(String(describing: error))".contains("AT-1"))
        #expect(transport.requests.isEmpty)
        // A gateway attacker's read: a token holding `%26clientIp%3D…` went out, and would be other fields if the
        // server percent-decodes `paras` before it splits it. Refused too, as a control character is.
        for token in ["AT-1%26clientIp%3D1.2.3.4", "AT-1\u{0}x", "AT-1\nx"] {
            await #expect(throws: ExchangeNotSentError.self) { try await gateway.exchange(CarrierCredential(flow: .tianyi, token: Secret(token))) }
        }
        #expect(transport.requests.isEmpty)
        // The plain form percent-encodes it in the body and signs the value as it is.
        let plain = try TianyiRequest(parameters: [("accessToken", "AT-1&x=1"), ("timeStamp", "1")], configuration: Self.configuration { $0.mode = .plain })
        #expect(String(decoding: plain.body, as: UTF8.self).contains("accessToken=AT-1%26x%3D1"))
    }

    /// A refresh token the `paras` text cannot carry never will be sent: the refresh is refused as final
    /// (`relogin-required`), not retried for ever with back-off as a failure that may pass, and not quoted.
    @Test func aRefreshTokenTheParasTextCannotCarryRequiresALogin() async throws {
        let transport = ScriptedHTTPTransport()
        let refresher = try TianyiTokenRefresher(configuration: Self.configuration(), transport: transport)
        let clock = FakeClock()
        let token = AccessToken(value: Secret("AT"), refreshToken: Secret("RT-1&grantType=x"), flow: .tianyi, account: "a", issuedAt: clock.now(), expiresAt: clock.now())
        let error = await #expect(throws: TokenError.self) { try await refresher.refresh(token) }
        #expect(error?.kind == .reloginRequired, "\(String(describing: error))")
        #expect(!"\(String(describing: error))".contains("RT-1"))
        #expect(transport.requests.isEmpty)
    }

    @Test func aCredentialOfAnotherFlowIsRefusedWithoutACall() async throws {
        let transport = ScriptedHTTPTransport()
        let gateway = try TianyiTokenExchange(configuration: Self.configuration(), transport: transport)
        await #expect(throws: ExchangeNotSentError.self) { try await gateway.exchange(CarrierCredential(flow: .mobile, token: Secret("STsid"))) }
        let refresher = try TianyiTokenRefresher(configuration: Self.configuration(), transport: transport)
        let clock = FakeClock()
        for token in [
            AccessToken(value: Secret("AT"), refreshToken: Secret("RT"), flow: .mobile, account: "a", issuedAt: clock.now(), expiresAt: clock.now()),
            AccessToken(value: Secret("AT"), refreshToken: nil, flow: .tianyi, account: "a", issuedAt: clock.now(), expiresAt: clock.now()),
        ] {
            let error = await #expect(throws: TokenError.self) { try await refresher.refresh(token) }
            #expect(error?.kind == .reloginRequired)
        }
        #expect(transport.requests.isEmpty)
    }
}
