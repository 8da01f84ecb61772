import Foundation
import OneTap
@testable import OneTapGateways
import OneTapTesting
import Testing

/// What China Mobile's gateway sends, against values computed outside the project: the MD5 sign with python3's
/// `hashlib` (`MD5(appid+version+msgid+systemtime+strictcheck+token+secret)`, upper case), `systemtime` with
/// python3's `datetime` at UTC+8, the RSA sign checked with the key pair's public half.
@Suite struct ChinaMobileRequestTests {
    static let token = "STsid0000001517196594066OHmZvPMBwn2MkFxwvWkV12JixwuZuyDU"
    static let messageID = "0123456789abcdef0123456789abcdef"

    static func gateway(_ configuration: ChinaMobileConfiguration, _ transport: ScriptedHTTPTransport) throws -> ChinaMobileTokenExchange {
        try ChinaMobileTokenExchange(
            configuration: configuration, transport: transport, clock: FakeClock(now: FakeClock.epoch.addingTimeInterval(0.123)), messageIDs: { messageID })
    }

    static func sentFields(_ transport: ScriptedHTTPTransport) throws -> [String: JSONValue] {
        let request = try #require(transport.requests.last)
        return try #require(try JSONValue.parse(String(decoding: request.body, as: UTF8.self)).objectValue)
    }

    @Test func systemTimeIsSeventeenDigitsAtTheConfiguredOffset() {
        #expect(SystemTime17.format(FakeClock.epoch.addingTimeInterval(0.123), offset: .seconds(8 * 3600)) == "20261201080000123")
        #expect(SystemTime17.format(Date(timeIntervalSince1970: 951_782_399.999), offset: .seconds(8 * 3600)) == "20000229075959999")
        #expect(SystemTime17.format(FakeClock.epoch, offset: .zero) == "20261201000000000")
        #expect(SystemTime17.format(.distantFuture, offset: .seconds(8 * 3600)).count == 17)
        #expect(SystemTime17.format(.distantPast, offset: .seconds(8 * 3600)) == "19700101080000000")
    }

    /// A number is taken only from an answer bound to this request: a `103000` that echoes no `inresponseto` (a
    /// cached or replayed answer) is malformed.
    @Test func aSuccessWithoutTheEchoedMsgidIsMalformed() async throws {
        let transport = ScriptedHTTPTransport([.answer(HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: Array(#"{"resultCode":"103000","msisdn":"13800138000"}"#.utf8)))])
        let gateway = try Self.gateway(ChinaMobileConfiguration(appID: "300011111111", signing: .md5(secret: Secret("appSecret-123"))), transport)
        let error = await #expect(throws: GatewayError.self) { try await gateway.validate(Secret(Self.token)) }
        #expect(error == GatewayError(gateway: "cmcc", .malformedBody("103000 without inresponseto")))
    }

    /// A gateway attacker's read: the number and the echoed msgid, which China Mobile's document gives as strings, were
    /// read from JSON numbers too (`"msisdn":1.38001380e10` logged the user in as 13800138000). An answer that is not the
    /// document's is refused, never read into one: each as a number is malformed, naming it.
    @Test(arguments: [
        (#"{"resultCode":"103000","msisdn":1.38001380e10,"inresponseto":"0123456789abcdef0123456789abcdef"}"#, "msisdn"),
        (#"{"resultCode":"103000","msisdn":13800138000,"inresponseto":"0123456789abcdef0123456789abcdef"}"#, "msisdn"),
        (#"{"resultCode":"103000","msisdn":"13800138000","inresponseto":123456789}"#, "inresponseto"),
    ])
    func aNumberOrEchoSentAsAJSONNumberIsMalformed(body: String, member: String) async throws {
        let transport = ScriptedHTTPTransport([.answer(HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: Array(body.utf8)))])
        let gateway = try Self.gateway(ChinaMobileConfiguration(appID: "300011111111", signing: .md5(secret: Secret("appSecret-123"))), transport)
        let error = await #expect(throws: GatewayError.self) { try await gateway.validate(Secret(Self.token)) }
        #expect(error == GatewayError(gateway: "cmcc", .malformedBody("'\(member)' is not a string")))
    }

    /// Another code that carries a number (one a replacement table may call a success) brings it only when bound to
    /// this request: without the echoed msgid it comes back without the number, the code as it came (a review).
    @Test func anotherCodeCarryingANumberWithoutTheEchoedMsgidBringsNoNumber() async throws {
        let transport = ScriptedHTTPTransport([.answer(HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: Array(#"{"resultCode":"103001","msisdn":"13800138000"}"#.utf8)))])
        let gateway = try Self.gateway(ChinaMobileConfiguration(appID: "300011111111", signing: .md5(secret: Secret("appSecret-123"))), transport)
        let answer = try await gateway.validate(Secret(Self.token))
        #expect(answer.code == "103001" && answer.phoneNumber == nil)
    }

    @Test func theMD5ModeSendsEveryDocumentedFieldAsAStringWithTheSignPythonComputes() async throws {
        let transport = ScriptedHTTPTransport([.answer(HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: Array(#"{"resultCode":"103000","msisdn":"13800138000","inresponseto":"0123456789abcdef0123456789abcdef","taskId":"t-1"}"#.utf8)))])
        let gateway = try Self.gateway(ChinaMobileConfiguration(appID: "300011111111", signing: .md5(secret: Secret("appSecret-123"))), transport)
        let answer = try await gateway.validate(Secret(Self.token))
        #expect(answer == ChinaMobileAnswer(code: "103000", phoneNumber: try PhoneNumber("13800138000"), taskID: "t-1", messageID: Self.messageID))
        let fields = try Self.sentFields(transport)
        #expect(fields == [
            "version": "2.0", "msgid": .string(Self.messageID), "systemtime": "20261201080000123", "strictcheck": "0", "appid": "300011111111",
            "token": .string(Self.token), "sign": "D2A8CDBF82455F406519F368CF44DC4B",
        ])
        let request = try #require(transport.requests.last)
        #expect(request.method == "POST")
        #expect(request.url == ChinaMobileConfiguration.documentedURL)
        #expect(request.header("content-type") == "application/json")
        #expect(request.timeout == .seconds(6))
    }

    /// A gateway attacker's read: `taskId`, an id kept for support only, was read strictly, so a 103000 whose `taskId`
    /// came as a number past 10^15 (a 64-bit id), a flag or an object was thrown away as malformed: the exchange, billed,
    /// stayed unknown and its number was lost. An id that does not read is left out; the number stands.
    @Test(arguments: ["117270465679982592", "true", "{}", "1.5"])
    func aSuccessWhoseTaskIdDoesNotReadStillGivesItsNumber(_ taskID: String) async throws {
        let body = #"{"resultCode":"103000","msisdn":"13800138000","inresponseto":"0123456789abcdef0123456789abcdef","taskId":"# + taskID + "}"
        let transport = ScriptedHTTPTransport([.answer(HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: Array(body.utf8)))])
        let gateway = try Self.gateway(ChinaMobileConfiguration(appID: "300011111111", signing: .md5(secret: Secret("appSecret-123"))), transport)
        let answer = try await gateway.validate(Secret(Self.token))
        #expect(answer == ChinaMobileAnswer(code: "103000", phoneNumber: try PhoneNumber("13800138000"), taskID: nil, messageID: Self.messageID))
    }

    @Test func theRSAModeSignsAppIDAndTokenAndSaysSo() async throws {
        let transport = ScriptedHTTPTransport([.answer(HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: Array(#"{"resultCode":"104201"}"#.utf8)))])
        var configuration = ChinaMobileConfiguration(appID: "300011111111", signing: .rsa(signingKey: Secret(try TestKeys.pem("app-private-pkcs1.pem"))))
        configuration.signType = "RSA-test"
        configuration.strictCheck = "1"
        let gateway = try Self.gateway(configuration, transport)
        #expect(try await gateway.validate(Secret(Self.token)).code == "104201")
        let fields = try Self.sentFields(transport)
        #expect(fields["encryptionalgorithm"] == "RSA")
        #expect(fields["signType"] == "RSA-test")
        #expect(fields["strictcheck"] == "1")
        let sign = try #require(fields["sign"]?.stringValue)
        #expect(sign == sign.uppercased() && sign.count == 512)
        let publicKey = try RSAPublicKey(pem: try TestKeys.pem("app-public.pem"))
        #expect(publicKey.verify(try #require(Hex.decode(sign)), of: Array("300011111111\(Self.token)".utf8), digest: .sha256))
        // The pinned openssl signature of the same text: PKCS#1 v1.5 is deterministic.
        #expect(sign == Hex.encode(TestKeys.bytes(hex: try TestKeys.pem("signature-sha256.hex").trimmingCharacters(in: .whitespacesAndNewlines)), uppercase: true))
    }

    @Test func aBadConfigurationFailsAtStartNamingTheFieldNeverTheSecret() throws {
        let transport = ScriptedHTTPTransport()
        let cases: [(ChinaMobileConfiguration, String)] = [
            (ChinaMobileConfiguration(appID: "", signing: .md5(secret: Secret("s3cret-value"))), "appId"),
            (ChinaMobileConfiguration(appID: "300011111111", signing: .md5(secret: Secret(""))), "appSecret is empty"),
            (ChinaMobileConfiguration(appID: "300011111111", signing: .md5(secret: Secret("s3cret-value "))), "appSecret begins or ends with white space"),
            (ChinaMobileConfiguration(appID: "300011111111", signing: .rsa(signingKey: Secret(try TestKeys.pem("app-public.pem")))), "signingKey: the key is a public key"),
            (ChinaMobileConfiguration(appID: "300011111111", signing: .rsa(signingKey: Secret(try TestKeys.pem("app-private-pkcs8.pem")), msisdnKey: Secret(try TestKeys.pem("app-private-encrypted.pem")))), "msisdnKey: the key is an encrypted PKCS#8 private key"),
        ]
        for (configuration, words) in cases {
            let error = #expect(throws: GatewayError.self) { try Self.gateway(configuration, transport) }
            #expect(error?.gateway == "cmcc")
            #expect(error?.mayHaveReachedVendor == false)
            let text = "\(String(describing: error))"
            #expect(text.contains(words), "\(text)")
            #expect(!text.contains("s3cret-value"))
            #expect(!text.contains("MII"))
            #expect(!"\(configuration)".contains("s3cret-value"))
        }
        #expect(transport.requests.isEmpty)
    }

    @Test func descriptionsNameTheModeAndHostNeverASecretOrTheURLsCredentials() throws {
        var md5 = ChinaMobileConfiguration(appID: "300011111111", signing: .md5(secret: Secret("s3cret-value")))
        #expect(md5.description == "cmcc appid 300011111111, MD5 sign, www.cmpassport.com/unisdk/rsapi/loginTokenValidate")
        md5.url = try #require(URL(string: "https://user:pa55word@127.0.0.1:8443/unisdk/rsapi/loginTokenValidate?key=s3cret-value"))
        #expect(md5.description == "cmcc appid 300011111111, MD5 sign, 127.0.0.1:8443/unisdk/rsapi/loginTokenValidate")
        let rsa = ChinaMobileConfiguration(appID: "300011111111", signing: .rsa(signingKey: Secret(try TestKeys.pem("app-private-pkcs8.pem")), msisdnKey: Secret("second")))
        #expect(rsa.description == "cmcc appid 300011111111, RSA sign (SHA256withRSA, upper-case hex, a second key for msisdn), www.cmpassport.com/unisdk/rsapi/loginTokenValidate")
        #expect(try Self.gateway(md5, ScriptedHTTPTransport()).description == md5.description)
    }

    @Test func aCredentialOfAnotherFlowIsRefusedWithoutACall() async throws {
        let transport = ScriptedHTTPTransport()
        let gateway = try Self.gateway(ChinaMobileConfiguration(appID: "300011111111", signing: .md5(secret: Secret("k"))), transport)
        // Nothing was sent: `ExchangeNotSentError`, which the exchange guard records `failed`, never `unknown`.
        await #expect(throws: ExchangeNotSentError.self) { try await gateway.exchange(CarrierCredential(flow: .tianyi, token: Secret("tianyi-token"))) }
        #expect(transport.requests.isEmpty)
    }
}
