import Foundation
import OneTapTesting
@testable import OneTap
@testable import OneTapGateways
import Testing
import OneTapTesting

/// Tencent SMS over the URLSession transport against the fake written from Tencent's documents
/// (Fakes/tencent_sms_send_sms.py, which checks the TC3 signature with Fakes/tencent_tc3.py and every field): each of
/// the fake's answers maps to the SMS service's outcome or a typed error, and no error holds the code, the key or the
/// number.
@Suite(.timeLimit(.minutes(4))) struct TencentSMSFakeServerTests {
    static let secretKey = "onetap-fake-secret-key"

    static func fake() async throws -> FakeServer {
        try await FakeServer.start("tencent_sms_send_sms.py", arguments: [
            "--secret-id", "AKIDonetapFAKE", "--secret-key", secretKey, "--sdk-app-id", "1400006666", "--sign-name", "腾讯云", "--template-id", "1110",
        ])
    }

    static func sender(_ server: FakeServer, key: String = secretKey, templateID: String = "1110", timeout: Duration = .seconds(30)) throws -> TencentSMSSender {
        var configuration = TencentSMSConfiguration(secretID: "AKIDonetapFAKE", secretKey: Secret(key), sdkAppID: "1400006666", signName: "腾讯云", templateID: templateID)
        configuration.url = server.url("/")
        configuration.timeout = timeout
        return try TencentSMSSender(configuration: configuration, transport: URLSessionTransport())
    }

    static func message(_ number: String) throws -> SMSMessage {
        SMSMessage(number: try PhoneNumber(number), code: Secret("482913"), expiresAt: Date().addingTimeInterval(300), session: nil)
    }

    static func expectNothingSecret(_ error: (any Error)?) {
        let text = String(describing: error)
        #expect(!text.contains("482913"))
        #expect(!text.contains(secretKey))
        #expect(!text.contains("38000000"))
    }

    @Test func aSignedSendIsTakenByTheFake() async throws {
        let server = try await Self.fake()
        defer { server.stop() }
        try await Self.sender(server).send(try Self.message("13800138000"))
        // Two at once, each signed on its own.
        let sender = try Self.sender(server)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<4 { group.addTask { try await sender.send(try Self.message("13800138000")) } }
            try await group.waitForAll()
        }
    }

    @Test(arguments: [
        ("13800000001", "LimitExceeded.PhoneNumberDailyLimit", SMSDeliveryError.Reason.throttled),
        ("13800000002", "LimitExceeded.PhoneNumberThirtySecondLimit", .throttled),
        ("13800000003", "LimitExceeded.PhoneNumberOneHourLimit", .throttled),
        ("13800000004", "InvalidParameterValue.IncorrectPhoneNumber", .numberRejected),
        ("13800000005", "FailedOperation.PhoneNumberInBlacklist", .numberRejected),
        ("13800000006", "FailedOperation.InsufficientBalanceInSmsPackage", .failed),
        ("13800000007", "LimitExceeded.AppDailyLimit", .throttled),
    ])
    func eachDocumentedRefusalIsItsDeliveryError(number: String, code: String, reason: SMSDeliveryError.Reason) async throws {
        let server = try await Self.fake()
        defer { server.stop() }
        let error = await #expect(throws: SMSDeliveryError.self) { try await Self.sender(server).send(try Self.message(number)) }
        #expect(error?.code == code)
        #expect(error?.reason == reason)
        Self.expectNothingSecret(error)
    }

    @Test func aWrongKeyOrTemplateIsTheFakesDocumentedErrorAndFailed() async throws {
        let server = try await Self.fake()
        defer { server.stop() }
        let wrongKey = await #expect(throws: SMSDeliveryError.self) { try await Self.sender(server, key: "another-key").send(try Self.message("13800138000")) }
        #expect(wrongKey?.code == "AuthFailure.SignatureFailure")
        #expect(wrongKey?.reason == .failed)
        let wrongTemplate = await #expect(throws: SMSDeliveryError.self) { try await Self.sender(server, templateID: "999").send(try Self.message("13800138000")) }
        #expect(wrongTemplate?.code == "FailedOperation.TemplateIncorrectOrUnapproved")
    }

    @Test(arguments: [
        ("13900000002", GatewayError.Kind.httpStatus(500)),
        ("13900000003", .malformedBody("the answer was cut short (the connection closed mid-body)")),
        ("13900000004", .malformedBody("the body is not JSON (30 bytes)")),
        ("13900000005", .wrongContentType("text/html")),
    ])
    func everyBrokenAnswerIsATypedErrorNamingTheGateway(number: String, kind: GatewayError.Kind) async throws {
        let server = try await Self.fake()
        defer { server.stop() }
        let error = await #expect(throws: GatewayError.self) { try await Self.sender(server).send(try Self.message(number)) }
        #expect(error == GatewayError(gateway: "tencent-sms", kind))
        Self.expectNothingSecret(error)
    }

    @Test func aSlowAnswerPastTheTimeOutIsTimedOut() async throws {
        let server = try await Self.fake()
        defer { server.stop() }
        let error = await #expect(throws: GatewayError.self) { try await Self.sender(server, timeout: .milliseconds(700)).send(try Self.message("13900000001")) }
        #expect(error == GatewayError(gateway: "tencent-sms", .timedOut))
    }

    /// The fake holds requests to the documents: a stray signature, header or field gets Tencent's documented code, so
    /// a gateway that sent one could not pass the tests above.
    @Test func theFakeRefusesWhatTheDocumentsDoNotAllow() async throws {
        let server = try await Self.fake()
        defer { server.stop() }
        let sender = try Self.sender(server)
        let transport = URLSessionTransport()
        func send(_ change: (inout [HTTPHeader], inout [UInt8]) -> Void) async throws -> String? {
            let (request, _) = try sender.request(number: try PhoneNumber("13800138000"), code: Secret("123456"), expiresAt: Date().addingTimeInterval(300), now: Date())
            var headers = request.headers, body = request.body
            change(&headers, &body)
            let response = try await transport.send(HTTPRequest(gateway: "tencent-sms", method: "POST", url: request.url, headers: headers, body: body, timeout: .seconds(30)))
            guard case .error(let code, _) = try TencentCloudAnswer.read(response, gateway: "tencent-sms", contentTypes: ["application/json"]) else { return nil }
            return code
        }
        #expect(try await send { _, _ in } == nil)
        #expect(try await send { _, body in body = Array(String(decoding: body, as: UTF8.self).replacingOccurrences(of: "123456", with: "123457").utf8) } == "AuthFailure.SignatureFailure")
        #expect(try await send { headers, _ in headers.removeAll { $0.name == "X-TC-Region" } } == "MissingParameter")
        #expect(try await send { headers, _ in headers = headers.map { $0.name == "X-TC-Version" ? HTTPHeader("X-TC-Version", "2019-07-11") : $0 } } == "NoSuchVersion")
        #expect(try await send { headers, _ in headers = headers.map { $0.name == "X-TC-Timestamp" ? HTTPHeader("X-TC-Timestamp", "1551113065") : $0 } } == "AuthFailure.SignatureExpire")
        #expect(try await send { headers, _ in headers = headers.map { $0.name == "Authorization" ? HTTPHeader("Authorization", $0.value.replacingOccurrences(of: "AKIDonetapFAKE", with: "AKIDother")) : $0 } } == "AuthFailure.SecretIdNotFound")
    }
}
