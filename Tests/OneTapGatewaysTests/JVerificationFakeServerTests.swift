import Foundation
import OneTapTesting
import OneTap
@testable import OneTapGateways
import Testing
import OneTapTesting

/// JVerification's gateway over the URLSession transport against the fake written from JiGuang's documents
/// (Fakes/jverification_rest_api.py), which checks the Basic authentication, the fields and the content type.
@Suite(.timeLimit(.minutes(4))) struct JVerificationFakeServerTests {
    static let number = "13800138000"

    static func fake() async throws -> FakeServer {
        try await FakeServer.start("jverification_rest_api.py", arguments: [
            "--app-key", "7d431e42", "--master-secret", "master-1", "--public-key", FakeServer.fakes.appendingPathComponent("keys/app-public.pem").path, "--number", number,
        ])
    }

    static func gateway(_ server: FakeServer, masterSecret: String = "master-1", timeout: Duration = .seconds(30)) throws -> JVerificationGateway {
        var configuration = JVerificationConfiguration(appKey: "7d431e42", masterSecret: Secret(masterSecret), privateKey: Secret(try TestKeys.pem("app-private-pkcs1.pem")))
        configuration.url = server.url("/v1/web/loginTokenVerify")
        configuration.verifyURL = server.url("/v1/web/verify")
        configuration.timeout = timeout
        return try JVerificationGateway(configuration: configuration, transport: URLSessionTransport())
    }

    static func token(_ prefix: String = "STsid") -> String { "\(prefix)-\(UUID().uuidString)" }

    @Test func anExchangeGetsTheNumberOnceAndAReusedTokenIs9003() async throws {
        let server = try await Self.fake()
        defer { server.stop() }
        let gateway = try Self.gateway(server)
        let token = Self.token()
        for flow in [LoginFlow.mobile, .unicom, .tianyi] {
            #expect(try await gateway.exchange(CarrierCredential(flow: flow, token: Secret(Self.token()))) == ExchangeResponse(code: "8000", phoneNumber: try PhoneNumber(Self.number)))
        }
        let answer = try await gateway.loginTokenVerify(Secret(token))
        #expect(answer.serial?.hasPrefix("1172704656799825") == true)
        #expect(try await gateway.loginTokenVerify(Secret(token)).code == "9003")
        #expect(try await gateway.loginTokenVerify(Secret(Self.token("fail"))).code == "8001")
    }

    @Test func aWrongMasterSecretIs9011AndVerifyGivesEachVerdict() async throws {
        let server = try await Self.fake()
        defer { server.stop() }
        #expect(try await Self.gateway(server, masterSecret: "wrong").loginTokenVerify(Secret(Self.token())).code == "9011")
        let gateway = try Self.gateway(server)
        let own = try PhoneNumber(Self.number), other = try PhoneNumber("13900139000")
        #expect(try await gateway.verify(token: Secret(Self.token()), number: own).verdict == .pass)
        #expect(try await gateway.verify(token: Secret(Self.token()), number: other).verdict == .reject)
        #expect(try await gateway.verify(token: Secret(Self.token("unknown")), number: own).verificationResponse == NumberVerificationResponse(code: "9002", verdict: .unknown))
    }

    @Test func everyBrokenAnswerIsATypedErrorNamingTheGatewayAndNoSecret() async throws {
        let server = try await Self.fake()
        defer { server.stop() }
        let gateway = try Self.gateway(server)
        for (prefix, expected) in FaultTokens.cases("jverification") {
            let token = Self.token(prefix)
            let error = await #expect(throws: GatewayError.self) { try await gateway.exchange(CarrierCredential(flow: .mobile, token: Secret(token))) }
            #expect(error == expected)
            #expect(FaultTokens.holdsNoSecret(error, [token, "master-1", Self.number]))
        }
        let slow = await #expect(throws: GatewayError.self) { try await Self.gateway(server, timeout: .milliseconds(700)).loginTokenVerify(Secret(Self.token("slow"))) }
        #expect(slow == GatewayError(gateway: "jverification", .timedOut))
    }

    /// The fake holds requests to the documents: what strays gets the documented code.
    @Test func theFakeRefusesWhatTheDocumentsDoNotAllow() async throws {
        let server = try await Self.fake()
        defer { server.stop() }
        let transport = URLSessionTransport()
        func send(_ body: String, headers: [HTTPHeader]) async throws -> String? {
            let response = try await transport.send(HTTPRequest(gateway: "jverification", method: "POST", url: server.url("/v1/web/loginTokenVerify"), headers: headers, body: Array(body.utf8), timeout: .seconds(30)))
            return try GatewayAnswer.text(try GatewayAnswer.jsonObject(response, gateway: "jverification", contentTypes: ["application/json"]), "code", gateway: "jverification", acceptingNumbers: true)
        }
        let json = HTTPHeader("Content-Type", "application/json"), auth = HTTPHeader("Authorization", "Basic " + Data("7d431e42:master-1".utf8).base64EncodedString())
        #expect(try await send(#"{"loginToken":"t1"}"#, headers: [json]) == "9010")
        #expect(try await send(#"{"loginToken":"t2"}"#, headers: [HTTPHeader("Content-Type", "text/plain"), auth]) == "9015")
        #expect(try await send(#"{"loginToken":"t3","extra":"x"}"#, headers: [json, auth]) == "9012")
        #expect(try await send(#"{"token":"t4"}"#, headers: [json, auth]) == "9012")
    }
}
