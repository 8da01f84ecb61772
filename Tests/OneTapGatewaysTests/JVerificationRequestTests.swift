import Foundation
import OneTap
@testable import OneTapGateways
import OneTapTesting
import Testing

/// What JVerification's gateway sends and how it reads answers, against values computed outside the project: the
/// Authorization header is the worked example of JiGuang's REST overview (appKey 7d431e42dfa6a6d693ac2d04,
/// masterSecret 5e987ac6d2e04d95a9d8f0d1); `phone` was encrypted with python3-cryptography to Fakes/keys/app-public.pem:
/// `base64.b64encode(pub.encrypt(b"13800138000", padding.PKCS1v15()))`.
@Suite struct JVerificationRequestTests {
    static let exID = "0123456789abcdef0123456789abcdef"
    static let phone =
        "RxBhEsiVdSU0xsll89daJ2TzM0EiIrv8O8mHcNpPgQGGIgnHiGmCc2sROgRnFFSvBcVa1FtSK3jUI3NIdlY0BKZBS20Y4jLTJ0AengwKgASUoo1kC94QuO18/+UUNJOCFuh62qpAzWRkjOAtlnZ8LYZjMM03Gi1cx5eKuNsUrNyRta+q1juzBOZfj8Z5+NhB8WU5bXrrHjRWFzaOYsRRJnGS1SXQULgsRL/Q0utbWCHhTqNII2k1HsIAM2GiF2gPl8ys3CUd10om7KTxsCOXGqpnqgOEMM0p0XTiWhWkfTvWlDOruUHXywWTM58tvx77EqYkDkziQJaMlhEdQLNCqA=="

    static func configuration(key: String = "app-private-pkcs8.pem") throws -> JVerificationConfiguration {
        JVerificationConfiguration(appKey: "7d431e42dfa6a6d693ac2d04", masterSecret: Secret("5e987ac6d2e04d95a9d8f0d1"), privateKey: Secret(try TestKeys.pem(key)))
    }

    static func gateway(_ transport: ScriptedHTTPTransport, key: String = "app-private-pkcs8.pem") throws -> JVerificationGateway {
        try JVerificationGateway(configuration: try configuration(key: key), transport: transport, exIDs: { exID })
    }

    static func json(_ body: String) -> ScriptedHTTPTransport.Step {
        .answer(HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: Array(body.utf8)))
    }

    @Test(arguments: ["app-private-pkcs8.pem", "app-private-pkcs1.pem"])
    func theExchangeSendsTheDocumentedRequestAndDecryptsPhone(key: String) async throws {
        let transport = ScriptedHTTPTransport([Self.json(#"{"id":117270465679982592,"code":8000,"content":"get phone success","exID":"\#(Self.exID)","phone":"\#(Self.phone)"}"#)])
        let answer = try await Self.gateway(transport, key: key).loginTokenVerify(Secret("STsid0000001542695429579Ob28vB7b0cYTI9w0GGZrv8ujUu05qZvw"))
        #expect(answer == AggregatorAnswer(gateway: "jverification", code: "8000", phoneNumber: try PhoneNumber("13800138000"), serial: "117270465679982592"))
        let request = try #require(transport.requests.last)
        #expect(request.method == "POST")
        #expect(request.url.absoluteString == "https://api.verification.jpush.cn/v1/web/loginTokenVerify")
        #expect(request.header("Authorization") == "Basic N2Q0MzFlNDJkZmE2YTZkNjkzYWMyZDA0OjVlOTg3YWM2ZDJlMDRkOTVhOWQ4ZjBkMQ==")
        #expect(request.header("Content-Type") == "application/json")
        #expect(try JSONValue.parse(String(decoding: request.body, as: UTF8.self)) == .object(["loginToken": "STsid0000001542695429579Ob28vB7b0cYTI9w0GGZrv8ujUu05qZvw", "exID": .string(Self.exID)]))
        #expect(!answer.description.contains("13800138000"))
    }

    @Test func verifySendsTokenPhoneAndExIDAndMapsTheDocumentedCodes() async throws {
        let transport = ScriptedHTTPTransport([
            Self.json(#"{"id":1,"code":9000,"content":"verify consistent","exID":"\#(Self.exID)"}"#), Self.json(#"{"code":9001,"content":"verify not consistent"}"#),
            Self.json(#"{"code":9002,"content":"unknown result"}"#), Self.json(#"{"code":9011,"content":"auth failed"}"#),
        ])
        let gateway = try Self.gateway(transport)
        let number = try PhoneNumber("13800138000")
        let credential = CarrierCredential(flow: .unicom, token: Secret("token-1"))
        #expect(try await gateway.verify(credential, number: number) == NumberVerificationResponse(code: "9000", verdict: .pass))
        #expect(try await gateway.verify(credential, number: number) == NumberVerificationResponse(code: "9001", verdict: .reject))
        #expect(try await gateway.verify(credential, number: number) == NumberVerificationResponse(code: "9002", verdict: .unknown))
        #expect(try await gateway.verify(credential, number: number) == NumberVerificationResponse(code: "9011", verdict: .unknown))
        let request = try #require(transport.requests.first)
        #expect(request.url.absoluteString == "https://api.verification.jpush.cn/v1/web/verify")
        #expect(try JSONValue.parse(String(decoding: request.body, as: UTF8.self)) == .object(["token": "token-1", "phone": "13800138000", "exID": .string(Self.exID)]))
    }

    /// An answer bound to another request, or to none (no `exID` echoed: a cached or replayed answer), gives no number.
    @Test func anAnswerForAnotherExIDOrAPhoneThatDoesNotDecryptIsMalformed() async throws {
        let transport = ScriptedHTTPTransport([
            Self.json(#"{"code":8000,"exID":"another","phone":"\#(Self.phone)"}"#), Self.json(#"{"code":8000,"phone":"\#(Self.phone)"}"#),
            Self.json(#"{"code":8000,"exID":"\#(Self.exID)","phone":"not base64!"}"#), Self.json(#"{"code":8000,"exID":"\#(Self.exID)"}"#),
        ])
        // A key of another pair: the phone does not decrypt, and the error says what the key must be.
        let other = try JVerificationGateway(
            configuration: JVerificationConfiguration(appKey: "7d431e42dfa6a6d693ac2d04", masterSecret: Secret("m"), privateKey: Secret(try await Self.otherKey())),
            transport: ScriptedHTTPTransport([Self.json(#"{"code":8000,"exID":"\#(Self.exID)","phone":"\#(Self.phone)"}"#)]), exIDs: { Self.exID })
        let gateway = try Self.gateway(transport)
        for expected in [
            "exID is not this request's", "8000 without this request's exID", "'phone' is neither Base64 nor hexadecimal of 2048-bit RSA blocks",
            "8000 without phone",
        ] {
            let error = await #expect(throws: GatewayError.self) { try await gateway.loginTokenVerify(Secret("t")) }
            #expect(error == GatewayError(gateway: "jverification", .malformedBody(expected)))
        }
        let error = await #expect(throws: GatewayError.self) { try await other.loginTokenVerify(Secret("t")) }
        #expect(error?.description.contains("must be the private half of the public key configured at the vendor") == true)
    }

    /// No padding oracle on the RSA path either: a `phone` that decrypts to "x" and one whose padding is wrong (block
    /// type 7) give one error. Both made with python3-cryptography to Fakes/keys/app-public.pem: `pub.encrypt(b"x",
    /// padding.PKCS1v15())`, and `pow(m, e, n)` of m = 00 07 11…11.
    @Test func aBadPaddingAndAPlaintextThatIsNoNumberGiveOneError() async throws {
        let notANumber = "I3sLRUVxC8+79f5c8iNBe6uZMDuWcNBX4PoAIY6vsZf7rKmd0JHcKXMGeTmk39L4kCDAM5SWiDvBnXGRK67h6FC05HVvuj44zKQaagu9/h8r4nE92fQcAokciQprTqHELzfSQSNWFfN3Bpi0ehHW46u0XvkXREiywDIg/3MiFqJP0ckLXLNDjOplfYr6bl8stZDoE7tdI/VdC5uB1bXLsfmJKL0FbzW6EgdPV4hmAdfiTntC1RIDDyXGhLjchItQ5F1hc2NScOsEiI4/Z3GolqQ210R6Qhv2aWXMSlCcugnkfKr/jXq8rfOpXUR875RQV9nF/heaLKtnASxf1bPNtw=="
        let badPadding = "U49b3FdQ3wXz8/a8CEkJTCbV+X5E9D5OZ+yMpJQLU9J8/RdrRPpiHaqO6RrCZ1+czQ+pII0zZtID7L6gvEYA7BJRFOOpWgHHnDkzbM3acHxnv9YEt5MnuZYDnlN1xDUdHq6QXZ9eEkwQksolRzxzAR5XqatUAdZu5OsEzVv16nyxZty8ZNx+riXSOmjOzIm0yn8tGMd22DbNrFqxYAQiQ4rEoZ6FzFeY2BKddqtTvgQJHGmhMFTUWI7XyaqjOfqf6fierqcmD80oNe/ei0APW8BDClXHtKaYu14z+8kQAMPhXBPao09gmOkc/5B2xasWVi3P1x7AdTiLvJlmCzRwig=="
        let transport = ScriptedHTTPTransport([
            Self.json(#"{"code":8000,"exID":"\#(Self.exID)","phone":"\#(notANumber)"}"#), Self.json(#"{"code":8000,"exID":"\#(Self.exID)","phone":"\#(badPadding)"}"#),
        ])
        let gateway = try Self.gateway(transport)
        let first = await #expect(throws: GatewayError.self) { try await gateway.loginTokenVerify(Secret("t")) }
        let second = await #expect(throws: GatewayError.self) { try await gateway.loginTokenVerify(Secret("t")) }
        #expect(first != nil && first == second, "\(String(describing: first)) / \(String(describing: second))")
    }

    /// A fresh 2048-bit key of another pair, made with python3-cryptography (not the pair the fake encrypts to).
    static func otherKey() async throws -> String {
        try await PythonScript.run(
            code: "from cryptography.hazmat.primitives.asymmetric import rsa; from cryptography.hazmat.primitives import serialization as s; print(rsa.generate_private_key(65537, 2048).private_bytes(s.Encoding.PEM, s.PrivateFormat.PKCS8, s.NoEncryption()).decode())")
    }

    @Test func misconfigurationNamesTheFieldAndTheFixAndNoSecret() throws {
        let transport = ScriptedHTTPTransport([])
        func error(_ configuration: JVerificationConfiguration) -> GatewayError? {
            #expect(throws: GatewayError.self) { try JVerificationGateway(configuration: configuration, transport: transport) }
        }
        let publicKey = error(JVerificationConfiguration(appKey: "k1", masterSecret: Secret("topsecret"), privateKey: Secret(try TestKeys.pem("app-public.pem"))))
        #expect(publicKey?.description.contains("privateKey: the key is a public key") == true)
        #expect(publicKey?.mayHaveReachedVendor == false)
        #expect(error(JVerificationConfiguration(appKey: "k 1", masterSecret: Secret("topsecret"), privateKey: Secret(try TestKeys.pem("app-private-pkcs8.pem"))))?.description.contains("appKey must be") == true)
        #expect(error(JVerificationConfiguration(appKey: "k1", masterSecret: Secret(""), privateKey: Secret(try TestKeys.pem("app-private-pkcs8.pem"))))?.description.contains("masterSecret is empty") == true)
        #expect(!String(describing: publicKey).contains("topsecret"))
        #expect(!(try Self.configuration()).description.contains("5e987ac6d2e04d95a9d8f0d1"))
    }

    @Test func theSettingsReadTheVendorsFieldsAndRefuseOthers() throws {
        let pem = try TestKeys.pem("app-private-pkcs8.pem")
        let environment: @Sendable (String) -> String? = { ["JV_SECRET": "ms-1", "JV_KEY": pem][$0] }
        func settings(_ fields: [String: JSONValue]) -> GatewaySettings {
            GatewaySettings(gateway: "jverification", fields: fields, environment: environment, readFile: { _ in Data() })
        }
        let configuration = try JVerificationConfiguration(settings: settings([
            "appKey": "7d431e42", "masterSecret": ["env": "JV_SECRET"], "privateKey": ["env": "JV_KEY"], "verifyUrl": "http://127.0.0.1:9/v",
        ]))
        #expect(configuration.appKey == "7d431e42" && configuration.masterSecret.reveal() == "ms-1")
        #expect(configuration.verifyURL.absoluteString == "http://127.0.0.1:9/v")
        #expect(configuration.url == JVerificationConfiguration.documentedURL)
        let literal = #expect(throws: GatewayError.self) { try JVerificationConfiguration(settings: settings(["appKey": "k", "masterSecret": "ms-1", "privateKey": ["env": "JV_KEY"]])) }
        #expect(literal?.description.contains("masterSecret is a secret and must not be written in the file") == true)
        let unknown = #expect(throws: GatewayError.self) { try JVerificationConfiguration(settings: settings(["appKey": "k", "masterSecret": ["env": "JV_SECRET"], "privateKey": ["env": "JV_KEY"], "appSecret": "x"])) }
        #expect(unknown?.description.contains("appSecret is not a field of jverification") == true)
    }

    @Test func aCredentialOfSMSIsNotSentAndTheSignPreviewShowsNoSecret() async throws {
        let transport = ScriptedHTTPTransport([])
        let gateway = try Self.gateway(transport)
        await #expect(throws: ExchangeNotSentError.self) { try await gateway.exchange(CarrierCredential(flow: .sms, token: Secret("t"))) }
        #expect(transport.requests.isEmpty)
        let preview = try gateway.signPreview(fields: [:])
        #expect(preview.stringToSign == "7d431e42dfa6a6d693ac2d04:<masterSecret>")
        #expect(!preview.description.contains("5e987ac6d2e04d95a9d8f0d1") && !preview.description.contains("N2Q0MzFl"))
    }

    /// `dump()` of the gateway (what a crash report or a debugger prints) shows neither the masterSecret nor the
    /// Basic header made from it (a gateway attacker's read found the header held as plain text).
    @Test func aDumpOfTheGatewayShowsNoMasterSecret() throws {
        var text = ""
        dump(try Self.gateway(ScriptedHTTPTransport([])), to: &text)
        // base64("7d431e42dfa6a6d693ac2d04:5e987ac6d2e04d95a9d8f0d1"), computed with `printf %s … | base64 -w0`.
        #expect(!text.contains("N2Q0MzFlNDJkZmE2YTZkNjkzYWMyZDA0OjVlOTg3YWM2ZDJlMDRkOTVhOWQ4ZjBkMQ=="), "\(text)")
        #expect(!text.contains("5e987ac6d2e04d95a9d8f0d1"))
    }
}
