import Foundation
import OneTap
@testable import OneTapPostgres
import OneTapPostgresTestSupport
import OneTapTesting
import Testing

/// Issue 21 on PostgreSQL: four processes (OneTapTestHelper `postgres-sms-guess`), each an attacker
/// instance on its own address that solves every captcha, guess one number at once in many login
/// sessions. The number's lane takes 7 codes in the day and at most 74 wrong codes (NIST SP 800-63B §5.2.2: 100),
/// every wrong code compared is counted once in the shared counter, and the owner's code verifies, or only the
/// lane's daily cap refused its send (a returning owner has a lane of its own: `ReturningOwnerTests`).
@Suite struct PostgresSMSGuessingTests {
    static let number = try! PhoneNumber("13800138000")
    static let start = Date(timeIntervalSince1970: 1_796_083_200.125)

    @Test func fourProcessesGuessingOneNumberFromFourAddressesStayWithinTheBound() async throws {
        let url = try await TestDatabase.url()
        try await TestDatabase.withStores { stores in
            let schema = stores.configuration.schema
            let startMs = String(Int64((Self.start.timeIntervalSince1970 * 1000).rounded()))
            let guessers = try (0..<4).map { index in
                try HelperProcess("postgres-sms-guess", url: url, [schema, Self.number.digits, "198.51.100.\(10 + index)", startMs, "30"])
            }
            for guesser in guessers { #expect(await guesser.line() == "ready") }
            for guesser in guessers { guesser.send("go") }
            var lines: [String] = []
            for guesser in guessers { lines.append(await guesser.line() ?? "nothing") }
            for guesser in guessers { #expect(await guesser.finish() == 0) }
            let counts = lines.map { line in line.split(separator: " ").compactMap { Int($0) } }
            #expect(counts.allSatisfy { $0.count == 2 }, "\(lines)")
            let wrong = counts.map { $0.first ?? 0 }.reduce(0, +)
            let sent = counts.map { $0.last ?? 0 }.reduce(0, +)
            #expect(wrong <= 74, "\(wrong) wrong codes compared for one number: \(lines)")
            // The number's lane takes 7 codes a day, however many processes race for it, and each code its five tries.
            #expect(sent == 7, "number-day-cap: \(lines)")
            #expect(wrong == 5 * sent, "every code the guessers got took its five wrong tries, no more: \(lines)")
            // Every compared wrong code is in the number's shared counter, once.
            let stored = try await stores.pool.execute(
                "SELECT cardinality(events_ms) FROM \"\(schema)\".sms_counters WHERE counter = $1", [.text("failed-verifies:number:" + Self.number.digits)])
            #expect(stored.first == [.int64(Int64(wrong))], "\(lines)")

            // The owner, past the bound, in their own session with a captcha: a fresh code verifies
            // (a send may be refused only by number-day-cap, which the guessers may have spent).
            let sender = ScriptedSMSSender()
            let clock = FakeClock(now: Self.start.addingTimeInterval(3600))
            let service = SMSCodeService(
                key: ServerKey.random(), sender: sender, captcha: ScriptedCaptchaVerifier(accepting: ["solved"]), store: stores.smsStore(),
                events: DiscardingEventSink(), clock: clock)
            let owner = SMSContext(ip: try IPAddress("203.0.113.7"), device: try DeviceID("owner"), session: LoginSessionID.random(), captcha: Secret("solved"))
            let answer = try await service.send(to: Self.number, context: owner)
            if case .sent = answer {
                let code = try #require(sender.lastCode(to: Self.number))
                guard case .verified = try await service.verify(code, for: Self.number, context: owner) else {
                    Issue.record("the owner's fresh code with a captcha did not verify"); return
                }
            } else {
                #expect(answer.name == "limited" && sent == 7, "only the day's cap may refuse the owner's send: \(answer)")
            }
        }
    }
}
