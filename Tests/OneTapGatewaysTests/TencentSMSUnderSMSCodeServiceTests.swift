import Foundation
import OneTap
@testable import OneTapGateways
import OneTapTesting
import Testing

/// The Tencent SMS gateway behind `SMSCodeService`, against the fake written from Tencent's documents: Tencent's own
/// answer becomes the service's (sent, limited by rule `gateway`, refused for the number, sender failed), so the SMS
/// service's limits and the gateway's agree, and no event holds the code or the key.
@Suite(.timeLimit(.minutes(4))) struct TencentSMSUnderSMSCodeServiceTests {
    @Test func eachOfTencentsAnswersIsTheServicesAnswer() async throws {
        let server = try await TencentSMSFakeServerTests.fake()
        defer { server.stop() }
        let events = RecordingEventSink()
        let service = SMSCodeService(key: .random(), sender: try TencentSMSFakeServerTests.sender(server), events: events)
        var address: UInt32 = 0xC633_6401  // 198.51.100.1, one address per send: no address rule holds a send back
        func send(_ number: String) async throws -> SMSSendResult {
            address += 1
            return try await service.send(to: number, context: SMSContext(ip: .v4(address), session: .testSession))
        }
        #expect(try await send("13800138000").name == "sent")
        guard case .limited(let rule, _) = try await send("13800000002") else { Issue.record("a 30-second limit is not limited"); return }
        #expect(rule == "gateway")
        guard case .refused(let refusal) = try await send("13800000004") else { Issue.record("an incorrect number is not refused"); return }
        #expect(refusal.kind == .gatewayRejected)
        #expect(refusal.message.contains("InvalidParameterValue.IncorrectPhoneNumber"))
        #expect(try await send("13800000006").name == "sender-failed")
        #expect(try await send("13900000002").name == "sender-failed")  // HTTP 500
        let recorded = "\(events.recorded)"
        #expect(!recorded.contains(TencentSMSFakeServerTests.secretKey))
    }
}
