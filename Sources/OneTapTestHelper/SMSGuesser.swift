import Foundation
import OneTap
import OneTapPostgres

/// `postgres-sms-guess`: one instance of an attacker guessing one number's SMS codes from one address,
/// for issue 21's bound on the guesses a number takes in a day, across processes, under the built-in policy or the
/// one of POLICY-FILE (caps raised, say).
///
/// For each of SESSIONS login sessions (each its own device), one after another on its own clock (from
/// NOW-MS, 70 s per session, moved on to the retry time whenever a rule holds it back): sends a code to
/// NUMBER with a captcha, then tries wrong codes (each digit of the sent code moved by one) until the
/// code is dead or a rule holds the session back, solving every captcha asked for. Prints "wrong W sent
/// S" (W the wrong codes compared, S the sends admitted).
enum SMSGuesser {
    /// A clock the guesser moves.
    final class SteppingClock: WallClock, @unchecked Sendable {
        private let lock = NSLock()
        private var instant: Date

        init(_ instant: Date) { self.instant = instant }

        func now() -> Date { lock.withLock { instant } }

        func sleep(for duration: Duration) async throws { try await Task.sleep(for: duration) }

        func set(_ date: Date) { lock.withLock { instant = max(instant, date) } }
    }

    /// A gateway that sends nothing and keeps the last code (to make a surely wrong one from it).
    final class LastCodeSender: SMSSender, @unchecked Sendable {
        private let lock = NSLock()
        private var code: Secret?

        func send(_ message: SMSMessage) async throws { lock.withLock { code = message.code } }

        var last: Secret? { lock.withLock { code } }
    }

    /// A captcha verifier that accepts every token: the attacker solves every captcha.
    struct SolvingCaptcha: CaptchaVerifier {
        func verify(_ token: Secret, context: SMSContext) async throws -> Bool { true }
    }

    static func run(url: String, schema: String, number: PhoneNumber, ip: IPAddress, start: Date, sessions: Int, policy: SMSPolicy) async throws {
        let stores = try await PostgresStores.open(testing(try PostgresConfiguration(url: url, schema: schema, poolSize: 2)))
        let clock = SteppingClock(start)
        let sender = LastCodeSender()
        let service = SMSCodeService(
            key: ServerKey.random(), sender: sender, captcha: SolvingCaptcha(), store: stores.smsStore(), policy: policy, events: DiscardingEventSink(),
            clock: clock)
        waitForGo()
        var wrong = 0, sent = 0
        for index in 0..<sessions {
            clock.set(start.addingTimeInterval(Double(index) * 70))
            let context = SMSContext(ip: ip, device: try DeviceID("guesser-\(ip)-\(index)"), session: LoginSessionID.random(), captcha: Secret("solved"))
            guard case .sent = try await service.send(to: number, context: context), let code = sender.last else { continue }
            sent += 1
            let guess = Secret(String(decoding: code.reveal().utf8.map { UInt8(ascii: "0") + ($0 - UInt8(ascii: "0") + 1) % 10 }, as: UTF8.self))
            guessing: for _ in 0..<10 {
                clock.set(clock.now().addingTimeInterval(1))
                switch try await service.verify(guess, for: number, context: context) {
                case .wrong: wrong += 1
                case .throttled(_, let retryAfter): clock.set(retryAfter)
                case .verified: fail("a wrong code verified", 1)
                default: break guessing
                }
            }
        }
        print("wrong \(wrong) sent \(sent)")
        await stores.close()
    }
}
