import Foundation
import OneTap
@testable import OneTapGateways
import OneTapTesting
import Testing

/// Tencent Captcha and GeeTest behind `SMSCodeService`, against their fakes: a send that the address's captcha rule
/// holds back goes out with a token the vendor solves, and not with an expired or a reused one.
@Suite(.timeLimit(.minutes(4))) struct CaptchaVerifiersUnderSMSCodeServiceTests {
    /// Sends to three numbers from one address: the second and third are held for a captcha.
    static func exercise(_ verifier: any CaptchaVerifier, solved: Secret, expired: Secret) async throws {
        let service = SMSCodeService(key: .random(), sender: ScriptedSMSSender(), captcha: verifier, events: RecordingEventSink())
        let ip = IPAddress.v4(0xC633_640A)  // 198.51.100.10
        #expect(try await service.send(to: "13800138000", context: SMSContext(ip: ip, session: .testSession)).name == "sent")
        #expect(try await service.send(to: "13900139000", context: SMSContext(ip: ip, session: .testSession)) == .captchaRequired(rule: "ip-captcha", rejected: false))
        #expect(try await service.send(to: "13900139000", context: SMSContext(ip: ip, session: .testSession, captcha: expired)) == .captchaRequired(rule: "ip-captcha", rejected: true))
        #expect(try await service.send(to: "13900139000", context: SMSContext(ip: ip, session: .testSession, captcha: solved)).name == "sent")
        // The same token again: the vendor says it was used.
        #expect(try await service.send(to: "13700137000", context: SMSContext(ip: ip, session: .testSession, captcha: solved)) == .captchaRequired(rule: "ip-captcha", rejected: true))
    }

    @Test func tencentCaptcha() async throws {
        let server = try await TencentCaptchaTests.fake()
        defer { server.stop() }
        try await Self.exercise(
            try TencentCaptchaTests.live(server), solved: TencentCaptchaTests.token("tr03-\(UUID().uuidString)"),
            expired: TencentCaptchaTests.token("expired-\(UUID().uuidString)"))
    }

    @Test func geeTest() async throws {
        let server = try await GeeTestTests.fake()
        defer { server.stop() }
        try await Self.exercise(
            try GeeTestTests.verifier(URLSessionTransport(), url: server.url("/validate")), solved: GeeTestTests.token(UUID().uuidString),
            expired: GeeTestTests.token("expired-\(UUID().uuidString)"))
    }

    /// An attacker's read: Tencent answering that it is busy (26), throttled or refusing the account's signature
    /// counted every user's check as a rejected captcha, so an outage put every address's checks behind
    /// `captcha-rejects`' wait. Such answers count against no one: fifteen "busy" answers to one address, and a solved
    /// ticket still goes straight through (which codes are such faults: `TencentCaptchaTests`).
    @Test func aTencentOutageCountsAgainstNoOne() async throws {
        let server = try await TencentCaptchaTests.fake()
        defer { server.stop() }
        let service = SMSCodeService(key: .random(), sender: ScriptedSMSSender(), captcha: try TencentCaptchaTests.live(server), events: RecordingEventSink())
        let ip = IPAddress.v4(0xC633_640B)  // 198.51.100.11
        #expect(try await service.send(to: "13800138000", context: SMSContext(ip: ip, session: .testSession)).name == "sent")
        for _ in 0..<15 {
            let busy = SMSContext(ip: ip, session: .testSession, captcha: TencentCaptchaTests.token("busy-\(UUID().uuidString)"))
            #expect(try await service.send(to: "13900139000", context: busy) == .captchaRequired(rule: "ip-captcha", rejected: true))
        }
        let solved = SMSContext(ip: ip, session: .testSession, captcha: TencentCaptchaTests.token("tr03-\(UUID().uuidString)"))
        #expect(try await service.send(to: "13900139000", context: solved).name == "sent")
    }
}
