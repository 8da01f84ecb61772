import Foundation
import OneTapTesting
import OneTap
@testable import OneTapGateways
import Testing
import OneTapTesting

/// Shanyan's gateway over the URLSession transport against the fake written from 创蓝's document
/// (Fakes/shanyan_flashsdk.py), which checks the form, the HMAC-SHA256 sign and encrypts mobileName itself.
@Suite(.timeLimit(.minutes(4))) struct ShanyanFakeServerTests {
    static let number = "13800138000"

    static func fake(_ more: [String] = []) async throws -> FakeServer {
        try await FakeServer.start("shanyan_flashsdk.py", arguments: ["--app-id", "ZQZSp7C0", "--app-key", "appKey-123", "--number", number] + more)
    }

    static func gateway(_ server: FakeServer, appKey: String = "appKey-123", privateKey: String? = nil, timeout: Duration = .seconds(30)) throws -> ShanyanGateway {
        var configuration = ShanyanConfiguration(appID: "ZQZSp7C0", appKey: Secret(appKey))
        configuration.privateKey = try privateKey.map { Secret(try TestKeys.pem($0)) }
        configuration.url = server.url("/open/flashsdk/mobile-query")
        configuration.verifyURL = server.url("/open/flashsdk/mobile-validate")
        configuration.timeout = timeout
        return try ShanyanGateway(configuration: configuration, transport: URLSessionTransport())
    }

    static func token(_ prefix: String = "A2") -> String { "\(prefix)-\(UUID().uuidString)" }

    @Test func theAESModeGetsTheNumberAndAReusedTokenIsRefused() async throws {
        let server = try await Self.fake()
        defer { server.stop() }
        let gateway = try Self.gateway(server)
        let token = Self.token()
        let answer = try await gateway.mobileQuery(Secret(token))
        let number = try PhoneNumber(Self.number)
        #expect(answer.code == "200000" && answer.phoneNumber == number && answer.serial?.hasPrefix("trade-") == true)
        #expect(try await gateway.exchange(CarrierCredential(flow: .mobile, token: Secret(token))).code == "fake-token-invalid")
        #expect(try await Self.gateway(server, appKey: "appKey-wrong").mobileQuery(Secret(Self.token())).code == "fake-sign")
    }

    @Test(arguments: ["hex", "base64"])
    func theRSAModeDecryptsWithThePrivateKey(encoding: String) async throws {
        let server = try await Self.fake(["--public-key", FakeServer.fakes.appendingPathComponent("keys/app-public.pem").path, "--rsa-encoding", encoding])
        defer { server.stop() }
        let answer = try await Self.gateway(server, privateKey: "app-private-pkcs8.pem").exchange(CarrierCredential(flow: .unicom, token: Secret(Self.token())))
        #expect(answer == ExchangeResponse(code: "200000", phoneNumber: try PhoneNumber(Self.number)))
    }

    @Test func mobileValidateGivesPassAndReject() async throws {
        let server = try await Self.fake()
        defer { server.stop() }
        let gateway = try Self.gateway(server)
        #expect(try await gateway.verify(CarrierCredential(flow: .tianyi, token: Secret(Self.token())), number: try PhoneNumber(Self.number)) == NumberVerificationResponse(code: "200000", verdict: .pass))
        #expect(try await gateway.verify(CarrierCredential(flow: .tianyi, token: Secret(Self.token())), number: try PhoneNumber("13900139000")) == NumberVerificationResponse(code: "200000", verdict: .reject))
    }

    @Test func everyBrokenAnswerIsATypedErrorNamingTheGatewayAndNoSecret() async throws {
        let server = try await Self.fake()
        defer { server.stop() }
        let gateway = try Self.gateway(server)
        for (prefix, expected) in FaultTokens.cases("shanyan") {
            let token = Self.token(prefix)
            let error = await #expect(throws: GatewayError.self) { try await gateway.exchange(CarrierCredential(flow: .mobile, token: Secret(token))) }
            #expect(error == expected)
            #expect(FaultTokens.holdsNoSecret(error, [token, "appKey-123", Self.number]))
        }
        let slow = await #expect(throws: GatewayError.self) { try await Self.gateway(server, timeout: .milliseconds(700)).mobileQuery(Secret(Self.token("slow"))) }
        #expect(slow == GatewayError(gateway: "shanyan", .timedOut))
    }
}
