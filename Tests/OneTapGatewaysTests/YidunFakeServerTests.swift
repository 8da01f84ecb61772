import Foundation
import OneTapTesting
import OneTap
@testable import OneTapGateways
import Testing
import OneTapTesting

/// Yidun's gateway over the URLSession transport against the fake written from Yidun's server demo
/// (Fakes/yidun_quickpass.py), which checks every parameter, the MD5 signature, the timestamp and the nonce.
@Suite(.timeLimit(.minutes(4))) struct YidunFakeServerTests {
    static let number = "13800138000"

    /// The fake with a 60 s timestamp window instead of the demo's 6 s: these tests are about the answers, and a
    /// loaded CI machine once took longer than 6 s from signing to arrival (AggregatorSharedTests keeps the 6 s rule).
    static func fake() async throws -> FakeServer {
        try await FakeServer.start("yidun_quickpass.py", arguments: [
            "--secret-id", "sid1", "--secret-key", "secretKey-9", "--business-id", "bid1", "--number", number, "--timestamp-window-ms", "60000",
        ])
    }

    static func gateway(_ server: FakeServer, secretKey: String = "secretKey-9", timeout: Duration = .seconds(30)) throws -> YidunGateway {
        var configuration = YidunConfiguration(secretID: "sid1", secretKey: Secret(secretKey), businessID: "bid1")
        configuration.url = server.url("/v1/oneclick/check")
        configuration.verifyURL = server.url("/v1/check")
        configuration.timeout = timeout
        return try YidunGateway(configuration: configuration, transport: URLSessionTransport())
    }

    static func tokens(_ prefix: String = "yd") -> YidunTokens {
        YidunTokens(token: Secret("\(prefix)-\(UUID().uuidString)"), accessToken: Secret("nm-\(UUID().uuidString)"))
    }

    @Test func anExchangeGetsTheNumberAndTheCarriersCodeComesThrough() async throws {
        let server = try await Self.fake()
        defer { server.stop() }
        let gateway = try Self.gateway(server)
        let tokens = Self.tokens()
        #expect(try await gateway.exchange(CarrierCredential(flow: .mobile, token: tokens.joined)) == ExchangeResponse(code: "200", phoneNumber: try PhoneNumber(Self.number)))
        #expect(try await gateway.exchange(CarrierCredential(flow: .mobile, token: tokens.joined)) == ExchangeResponse(code: "fake-token-invalid"))
        #expect(try await gateway.oneclickCheck(Self.tokens("carrier-103101")) == AggregatorAnswer(gateway: "yidun", code: "103101"))
        #expect(try await Self.gateway(server, secretKey: "wrong").oneclickCheck(Self.tokens()).code == "fake-signature")
    }

    @Test func checkGivesEachVerdict() async throws {
        let server = try await Self.fake()
        defer { server.stop() }
        let gateway = try Self.gateway(server)
        #expect(try await gateway.check(Self.tokens(), number: try PhoneNumber(Self.number)).verdict == .pass)
        #expect(try await gateway.check(Self.tokens(), number: try PhoneNumber("13900139000")).verdict == .reject)
        #expect(try await gateway.verify(CarrierCredential(flow: .unicom, token: Self.tokens("unknown").joined), number: try PhoneNumber(Self.number))
            == NumberVerificationResponse(code: "200", verdict: .unknown))
    }

    @Test func everyBrokenAnswerIsATypedErrorNamingTheGatewayAndNoSecret() async throws {
        let server = try await Self.fake()
        defer { server.stop() }
        let gateway = try Self.gateway(server)
        for (prefix, expected) in FaultTokens.cases("yidun") {
            let tokens = Self.tokens(prefix)
            let error = await #expect(throws: GatewayError.self) { try await gateway.exchange(CarrierCredential(flow: .tianyi, token: tokens.joined)) }
            #expect(error == expected)
            #expect(FaultTokens.holdsNoSecret(error, [tokens.token.reveal(), tokens.accessToken.reveal(), "secretKey-9", Self.number]))
        }
        let slow = await #expect(throws: GatewayError.self) { try await Self.gateway(server, timeout: .milliseconds(700)).oneclickCheck(Self.tokens("slow")) }
        #expect(slow == GatewayError(gateway: "yidun", .timedOut))
    }
}
