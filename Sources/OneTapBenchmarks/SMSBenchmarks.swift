import Foundation
import OneTap
import OneTapTesting

/// The SMS code service in memory (a send decision with its code, a verify), each beside its floor
/// (the HMAC and CSPRNG draw every send must make). HMAC-SHA-256 alone is in `DigestBenchmarks`.
enum SMSBenchmarks {
    static func run(_ options: BenchmarkOptions, _ report: inout Report, repetitions: Int) async {
        let now = Date(timeIntervalSince1970: 1_796_090_400)
        let key = ServerKey.random()
        let rules = SMSCodeRules()
        let batch = 500
        let calls = max(2, repetitions / 5) + repetitions + 1   // what measureAsync runs
        let numbers = (0..<(batch * calls)).map { try! PhoneNumber(value: 13_800_000_000 + UInt64($0)) }

        if options.wants("sms.send") {
            // The decision alone: the policy over the store's counters, in one atomic update (the code
            // made beforehand), as every send makes it.
            let (_, record) = rules.issue(to: numbers[0], session: nil, key: key, at: now)
            let store = InMemorySMSStore()
            let decisions = Cursor()
            let decision = measure(batch: batch, repetitions: repetitions) {
                for _ in 0..<batch {
                    let number = numbers[decisions.take() % numbers.count]
                    let request = SMSContext().request(for: number)
                    blackHole(store.updateNow(counters: rules.sendCounters(for: request), code: number, at: now) { state in
                        rules.admit(&state, request, captchaPassed: false, record: record, at: now)
                    })
                }
            }
            // The same policy the obvious way: every rule filters and sorts its counter's list, in a locked dictionary.
            let naive = NaiveSMSLimits(policy: rules.policy)
            let naiveCursor = Cursor()
            let reference = measure(batch: batch, repetitions: repetitions) {
                for _ in 0..<batch { blackHole(naive.admit(numbers[naiveCursor.take() % numbers.count].digits, at: now)) }
            }
            report.add(Suites.row("sms send decision (policy + store)", batch, decision, "filter-and-sort per rule", reference, target: "≤ 2 µs",
                                  met: decision.median <= 2000))
            // The whole send: the code drawn (CSPRNG) and its HMAC, the decision, the event (the sender does nothing).
            let service = SMSCodeService(key: key, sender: DryRunSMSSender(), store: InMemorySMSStore(), events: DiscardingEventSink(), clock: FakeClock(now: now))
            let next = Cursor()
            let send = await measureAsync(batch: batch, repetitions: repetitions) {
                for _ in 0..<batch { blackHole(try? await service.send(to: numbers[next.take()], context: SMSContext())) }
            }
            let floorCursor = Cursor()
            let floor = measure(batch: batch, repetitions: repetitions) {
                for _ in 0..<batch { blackHole(rules.issue(to: numbers[floorCursor.take() % numbers.count], session: nil, key: key, at: now)) }
            }
            report.add(Suites.row("sms.send whole (code, HMAC, decision)", batch, send, "the code's draw and HMAC alone", floor, target: nil, met: nil))
        }

        if options.wants("sms.verify") {
            // The codes go straight into the store (the default policy's global and "(not given)" rules
            // would hold back sends this many at one instant): the row measures the verify alone.
            let store = InMemorySMSStore()
            let service = SMSCodeService(key: key, sender: DryRunSMSSender(), store: store, events: DiscardingEventSink(), clock: FakeClock(now: now.addingTimeInterval(5)))
            let codes = SMSKeyBenchmarks.seed(store, rules: rules, key: key, numbers: numbers, sessions: numbers.map { _ in nil }, at: now)
            let next = Cursor()
            let verify = await measureAsync(batch: batch, repetitions: repetitions) {
                for _ in 0..<batch {
                    let index = next.take()
                    blackHole(try? await service.verify(codes[index], for: numbers[index], context: SMSContext()))
                }
            }
            let message = Array(repeating: UInt8(ascii: "7"), count: 40)
            let hmacKey = HMACSHA256.Key(Array(repeating: UInt8(7), count: 32))
            let floor = measure(batch: batch, repetitions: repetitions) {
                for _ in 0..<batch { blackHole(hmacKey.authenticationCode(for: message)) }
            }
            report.add(Suites.row("sms.verify (in memory, right code)", batch, verify, "its HMAC alone", floor, target: "≤ 2 µs", met: verify.median <= 2000))
        }
    }
}

/// The same work written the obvious way, as a reference: a locked dictionary of lists per number,
/// the lock rule and each send rule filtering and sorting its list, the code record replaced.
final class NaiveSMSLimits: @unchecked Sendable {
    private let lock = NSLock()
    private var sends: [String: [Date]] = [:]
    private var guesses: [String: [Date]] = [:]
    private var codes: [String: (digest: [UInt8], expires: Date)] = [:]
    private let rules: [(window: Double, limit: Int)]

    init(policy: SMSPolicy) {
        rules = policy.rules.filter { $0.key == .number && $0.counts == .sends }.map { ($0.window.seconds, $0.limit) }
    }

    func admit(_ number: String, at now: Date) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if (guesses[number] ?? []).filter({ $0 > now.addingTimeInterval(-86_400) }).sorted().count >= 10 { return false }
        let list = sends[number] ?? []
        for rule in rules where list.filter({ $0 > now.addingTimeInterval(-rule.window) }).sorted().count >= rule.limit { return false }
        sends[number] = (list + [now]).filter { $0 > now.addingTimeInterval(-86_400) }.sorted()
        codes[number] = ([UInt8](repeating: 1, count: 32), now.addingTimeInterval(300))
        return true
    }
}

/// An index shared by the iterations of one measured body.
final class Cursor: @unchecked Sendable {
    private var value = 0
    func take() -> Int {
        defer { value += 1 }
        return value
    }
}

