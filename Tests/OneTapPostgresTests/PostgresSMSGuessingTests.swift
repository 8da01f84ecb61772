import Foundation
import OneTap
@testable import OneTapPostgres
import OneTapPostgresTestSupport
import OneTapTesting
import Testing

/// Issue 21 on PostgreSQL: four processes (OneTapTestHelper `postgres-sms-guess`), each an attacker
/// instance on its own address that solves every captcha, guess one number at once in many login
/// sessions. However they race, the number's lane takes its daily cap of codes and the number at most its bound
/// of wrong codes (NIST SP 800-63B §5.2.2: 100), every wrong code compared is counted once in the shared counter,
/// and the returning owner (its own lane) still gets a code that verifies. Under the built-in caps (8 a lane)
/// the guessers get 8 codes, five tries each; under caps raised for a gateway that allows more (20 a lane, 40
/// in all) they reach the single-try bound past 60.
@Suite struct PostgresSMSGuessingTests {
    static let number = try! PhoneNumber("13800138000")
    static let start = Date(timeIntervalSince1970: 1_796_083_200.125)

    /// `Data/sms-policy.csv` with `number-day-cap` 20 and `number-day-total` 40, in a file of its own.
    static func raisedCapsFile() throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        var text = try String(contentsOf: root.appendingPathComponent("Data/sms-policy.csv"), encoding: .utf8)
        for (from, to) in [("number-day-cap,number-lane,sends,86400,8,", "number-day-cap,number-lane,sends,86400,20,"), ("number-day-total,number,sends,86400,10,", "number-day-total,number,sends,86400,40,")] {
            let row = try #require(text.range(of: from))
            text.replaceSubrange(row, with: to)
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("onetap-raised-caps-\(UUID().uuidString).csv").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test(arguments: [false, true])
    func fourProcessesGuessingOneNumberFromFourAddressesStayWithinTheBound(raisedCaps: Bool) async throws {
        let url = try await TestDatabase.url()
        let policyFile = raisedCaps ? try Self.raisedCapsFile() : nil
        defer {
            if let policyFile {
                do { try FileManager.default.removeItem(atPath: policyFile) } catch { Issue.record("the raised caps' file stayed: \(error)") }
            }
        }
        let policy = try policyFile.map { try SMSPolicy(csv: try String(contentsOfFile: $0, encoding: .utf8), file: $0) } ?? .builtIn
        try await TestDatabase.withStores { stores in
            let schema = stores.configuration.schema
            let startMs = String(Int64((Self.start.timeIntervalSince1970 * 1000).rounded()))
            let guessers = try (0..<4).map { index in
                try HelperProcess("postgres-sms-guess", url: url, [schema, Self.number.digits, "198.51.100.\(10 + index)", startMs, "30"] + (policyFile.map { [$0] } ?? []))
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
            if raisedCaps {
                #expect(sent <= 20, "number-day-cap: \(lines)")
                #expect(wrong <= 80, "\(wrong) wrong codes compared for one number: 60, then one for each of the lane's 20 codes: \(lines)")
                #expect(wrong >= 60, "the guessers reached the daily bound: \(lines)")
            } else {
                // The number's lane takes 8 codes a day, however many processes race for it, and each code its five tries.
                #expect(sent == 8, "number-day-cap: \(lines)")
                #expect(wrong == 5 * sent, "every code the guessers got took its five wrong tries, no more: \(lines)")
            }
            // Every compared wrong code is in the number's shared counter, once.
            let stored = try await stores.pool.execute(
                "SELECT cardinality(events_ms) FROM \"\(schema)\".sms_counters WHERE counter = $1", [.text("failed-verifies:number:" + Self.number.digits)])
            #expect(stored.first == [.int64(Int64(wrong))], "\(lines)")

            // The returning owner (what LoginServer marks when the caller's app session logged in with the number),
            // in their own session with a captcha: a fresh code in its own lane, which verifies past the guessers.
            let sender = ScriptedSMSSender()
            let clock = FakeClock(now: Self.start.addingTimeInterval(3600))
            let service = SMSCodeService(
                key: ServerKey.random(), sender: sender, captcha: ScriptedCaptchaVerifier(accepting: ["solved"]), store: stores.smsStore(), policy: policy,
                events: DiscardingEventSink(), clock: clock)
            var owner = SMSContext(ip: try IPAddress("203.0.113.7"), device: try DeviceID("owner"), session: LoginSessionID.random(), captcha: Secret("solved"))
            owner.returningOwner = true
            let answer = try await service.send(to: Self.number, context: owner)
            guard case .sent = answer else { Issue.record("the returning owner's send past the guessers: \(answer)"); return }
            let code = try #require(sender.lastCode(to: Self.number))
            guard case .verified = try await service.verify(code, for: Self.number, context: owner) else {
                Issue.record("the owner's fresh code with a captcha did not verify"); return
            }
            let lane = try await stores.pool.execute(
                "SELECT cardinality(events_ms) FROM \"\(schema)\".sms_counters WHERE counter = $1",
                [.text("sends:number-lane:" + Self.number.digits + " (returning owner)")])
            #expect(lane.first == [.int64(1)], "the owner's send is in its own lane")
        }
    }
}
