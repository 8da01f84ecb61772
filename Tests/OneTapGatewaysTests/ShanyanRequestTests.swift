import Foundation
import OneTap
@testable import OneTapGateways
import OneTapTesting
import Testing

/// What Shanyan's gateway sends and how it reads answers, against values computed outside the project with
/// python3: `hmac.new(b"appKey-123", "".join(k + f[k] for k in sorted(f)).encode(), hashlib.sha256).hexdigest()` for
/// `sign`; `mobileName` = AES-CBC of "13800138000" (PKCS#7) with `d = hashlib.md5(b"appKey-123").hexdigest()`,
/// key `d[:16]`, IV `d[16:]` (python3-cryptography), hexadecimal.
@Suite struct ShanyanRequestTests {
    static let outID = "0123456789abcdef0123456789abcdef"

    static func gateway(_ transport: ScriptedHTTPTransport, configure: (inout ShanyanConfiguration) -> Void = { _ in }) throws -> ShanyanGateway {
        var configuration = ShanyanConfiguration(appID: "ZQZSp7C0", appKey: Secret("appKey-123"))
        configure(&configuration)
        return try ShanyanGateway(configuration: configuration, transport: transport, outIDs: { outID })
    }

    static func json(_ body: String) -> ScriptedHTTPTransport.Step {
        .answer(HTTPResponse(status: 200, headers: ["Content-Type": "application/json;charset=UTF-8"], body: Array(body.utf8)))
    }

    @Test func mobileQuerySendsTheSignedFormAndDecryptsMobileName() async throws {
        let transport = ScriptedHTTPTransport([Self.json(#"{"code":"200000","message":"成功","data":{"mobileName":"616609e9069e77dba841ab2294be6364","tradeNo":"tr-1"}}"#)])
        let answer = try await Self.gateway(transport).mobileQuery(Secret("A2-token"))
        #expect(answer == AggregatorAnswer(gateway: "shanyan", code: "200000", phoneNumber: try PhoneNumber("13800138000"), serial: "tr-1"))
        let request = try #require(transport.requests.last)
        #expect(request.url.absoluteString == "https://api.253.com/open/flashsdk/mobile-query")
        #expect(request.header("Content-Type") == "application/x-www-form-urlencoded")
        #expect(String(decoding: request.body, as: UTF8.self)
            == "appId=ZQZSp7C0&token=A2-token&outId=\(Self.outID)&encryptType=0&sign=e893358b498680c1fd3d7b8ab66b83e3b6e714a48f805b7329117b00da8fa556")
    }

    @Test func theUpperCaseDigestSettingCutsKeyAndIVFromUpperCaseHex() async throws {
        // python3: the same with d.upper().
        let transport = ScriptedHTTPTransport([Self.json(#"{"code":"200000","data":{"mobileName":"590b041a6ef3e44cc2e265ff27777151"}}"#)])
        let answer = try await Self.gateway(transport) { $0.aesKeyFromUppercaseDigest = true }.mobileQuery(Secret("A2-token"))
        #expect(answer.phoneNumber == (try PhoneNumber("13800138000")))
    }

    @Test func mobileValidateSendsMobileAndMapsIsVerify() async throws {
        let transport = ScriptedHTTPTransport([
            Self.json(#"{"code":"200000","data":{"isVerify":"1","tradeNo":"t"}}"#), Self.json(#"{"code":"200000","data":{"isVerify":0}}"#),
            Self.json(#"{"code":"400001","message":"x"}"#), Self.json(#"{"code":"200000","data":{}}"#),
        ])
        let gateway = try Self.gateway(transport)
        let number = try PhoneNumber("13800138000")
        let credential = CarrierCredential(flow: .tianyi, token: Secret("A2-token"))
        #expect(try await gateway.verify(credential, number: number) == NumberVerificationResponse(code: "200000", verdict: .pass))
        #expect(try await gateway.verify(credential, number: number) == NumberVerificationResponse(code: "200000", verdict: .reject))
        #expect(try await gateway.verify(credential, number: number) == NumberVerificationResponse(code: "400001", verdict: .unknown))
        let error = await #expect(throws: GatewayError.self) { try await gateway.verify(credential, number: number) }
        #expect(error == GatewayError(gateway: "shanyan", .malformedBody("200000 without data.isVerify 0 or 1")))
        #expect(String(decoding: try #require(transport.requests.first).body, as: UTF8.self)
            == "appId=ZQZSp7C0&token=A2-token&mobile=13800138000&outId=\(Self.outID)&sign=dcdf95e16d7a3007318265f0854bfec1014dc270bca6e85c0e776f93ce75a6b4")
    }

    @Test func aMobileNameThatDoesNotDecryptOrIsMissingIsMalformedAndQuotesNothing() async throws {
        let transport = ScriptedHTTPTransport([
            Self.json(#"{"code":"200000","data":{"mobileName":"00112233445566778899aabbccddeeff"}}"#), Self.json(#"{"code":"200000","data":{}}"#),
            Self.json(#"{"code":"200000","data":{"mobileName":"zz"}}"#),
        ])
        let gateway = try Self.gateway(transport)
        let first = await #expect(throws: GatewayError.self) { try await gateway.mobileQuery(Secret("A2-token")) }
        #expect(first?.description.contains("does not decrypt to a mainland mobile number with the key and IV from MD5(appKey)") == true)
        #expect(!String(describing: first).contains("00112233445566778899aabbccddeeff"))
        let second = await #expect(throws: GatewayError.self) { try await gateway.mobileQuery(Secret("A2-token")) }
        #expect(second == GatewayError(gateway: "shanyan", .malformedBody("200000 without data.mobileName")))
        let third = await #expect(throws: GatewayError.self) { try await gateway.mobileQuery(Secret("A2-token")) }
        #expect(third == GatewayError(gateway: "shanyan", .malformedBody("'mobileName' is not hexadecimal")))
    }

    /// The attacker's read of the gateways: a `mobileName` whose padding is wrong and one that decrypts to "x"
    /// were told apart in the error (which reaches the login's trace), a padding oracle for whoever can inject
    /// answers. Both now give one error. Ciphertexts by python3-cryptography: AES-128-CBC under MD5("appKey-123")'s
    /// halves of "x" with PKCS#7 padding, and of "0123456789abcde\0" with none.
    @Test func aBadPaddingAndAPlaintextThatIsNoNumberGiveOneError() async throws {
        let transport = ScriptedHTTPTransport([
            Self.json(#"{"code":"200000","data":{"mobileName":"838c392500c1c375194f89cb1fdf2820"}}"#),
            Self.json(#"{"code":"200000","data":{"mobileName":"e93e7d344f0f425404ab23a3bb2581a7"}}"#),
        ])
        let gateway = try Self.gateway(transport)
        let notANumber = await #expect(throws: GatewayError.self) { try await gateway.mobileQuery(Secret("A2-token")) }
        let badPadding = await #expect(throws: GatewayError.self) { try await gateway.mobileQuery(Secret("A2-token")) }
        #expect(notANumber != nil && notANumber == badPadding, "\(String(describing: notANumber)) / \(String(describing: badPadding))")
    }

    @Test func misconfigurationSettingsAndSignPreview() throws {
        let transport = ScriptedHTTPTransport([])
        let empty = #expect(throws: GatewayError.self) { try ShanyanGateway(configuration: ShanyanConfiguration(appID: "ZQZSp7C0", appKey: Secret("")), transport: transport) }
        #expect(empty?.description.contains("appKey is empty") == true)
        let cert = #expect(throws: GatewayError.self) {
            var configuration = ShanyanConfiguration(appID: "ZQZSp7C0", appKey: Secret("appKey-123"))
            configuration.privateKey = Secret(try TestKeys.pem("app-certificate.pem"))
            return try ShanyanGateway(configuration: configuration, transport: transport)
        }
        #expect(cert?.description.contains("privateKey: the key is an X.509 certificate") == true)
        let settings = GatewaySettings(
            gateway: "shanyan", fields: ["appId": "ZQZSp7C0", "appKey": ["env": "SY_KEY"], "url": "http://127.0.0.1:1/q"], environment: { $0 == "SY_KEY" ? "appKey-123" : nil },
            readFile: { _ in Data() })
        let configuration = try ShanyanConfiguration(settings: settings)
        #expect(configuration.appID == "ZQZSp7C0" && configuration.privateKey == nil && configuration.url.absoluteString == "http://127.0.0.1:1/q")
        #expect(!configuration.description.contains("appKey-123"))
        let preview = try Self.gateway(transport).signPreview(fields: ["token": "A2-token", "outId": Self.outID])
        #expect(preview.stringToSign == "appIdZQZSp7C0encryptType0outId0123456789abcdef0123456789abcdeftokenA2-token")
        #expect(preview.signature == "e893358b498680c1fd3d7b8ab66b83e3b6e714a48f805b7329117b00da8fa556")
        #expect(throws: GatewayError.self) { try Self.gateway(transport).signPreview(fields: [:]) }
    }

    /// `dump()` of the gateway shows neither the appKey nor the AES key and IV cut from MD5(appKey) (whoever holds
    /// those decrypts every `mobileName`). MD5("appKey-123") = 9a1e1d3f9568c3c6e8306b5bbc78061d (Python's hashlib);
    /// a dump writes a byte array one element a line, so the dump's text without white space is searched for each
    /// half's bytes as `-57-97-…`.
    @Test func aDumpOfTheGatewayShowsNoKey() throws {
        var text = ""
        dump(try Self.gateway(ScriptedHTTPTransport([])), to: &text)
        let squeezed = text.filter { !$0.isWhitespace }
        #expect(!text.contains("appKey-123"), "\(text)")
        #expect(!text.contains("9a1e1d3f9568c3c6") && !text.contains("e8306b5bbc78061d"))
        #expect(!squeezed.contains("-57-97-49-101-49-100-51-102-57-53-54-56-99-51-99-54"), "the AES key: \(text)")
        #expect(!squeezed.contains("-101-56-51-48-54-98-53-98-98-99-55-56-48-54-49-100"), "the AES IV: \(text)")
    }
}
