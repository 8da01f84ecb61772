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
            // The decision alone: the policy over the store's counters, in one atomic update (the code made beforehand), as
            // every send makes it; a crowd's sends, a second apart, each admitted (a refused one is counted and fails the row).
            let (_, record) = rules.issue(to: numbers[0], session: nil, key: key, at: now)
            let store = InMemorySMSStore()
            let crowd = SMSKeyBenchmarks.crowd(numbers.count)
            let decisions = Cursor()
            let refused = Cursor()
            // The same rules the obvious way: every rule filters and sorts its counter's list, in a locked dictionary.
            let naive = NaiveSMSLimits(policy: rules.policy, key: HMACSHA256.Key(Array(repeating: UInt8(7), count: 32)))
            let naiveCursor = Cursor()
            let naiveRefused = Cursor()
            let naiveDigest = naive.digest("123456", numbers[0].digits)   // made beforehand, as ours is
            let (decision, reference) = measurePair(batch: batch, repetitions: repetitions) {
                for _ in 0..<batch {
                    let index = decisions.take() % numbers.count
                    let decision = SMSKeyBenchmarks.decide(rules, store, record, crowd[index], numbers[index], at: now.addingTimeInterval(Double(index)))
                    if case .admit = decision {} else { _ = refused.take() }
                    blackHole(decision)
                }
            } reference: {
                for _ in 0..<batch {
                    let index = naiveCursor.take() % numbers.count
                    let answer = naive.send(numbers[index].digits, from: String(index), digest: naiveDigest, at: now.addingTimeInterval(Double(index)))
                    if answer != .admit { _ = naiveRefused.take() }
                }
            }
            var row = Suites.row(
                "sms send decision (policy + store)", batch, decision, "filter-and-sort per rule", reference,
                target: "≤ 2 µs, ≥ 1× the obvious rules, every send admitted",
                met: decision.median <= 2000 && decision.median <= reference.median && refused.taken == 0 && naiveRefused.taken == 0)
            row.extra.append(("refused", "\(refused.taken)"))
            row.extra.append(("referenceRefused", "\(naiveRefused.taken)"))
            report.add(row)
            // The whole send: the code drawn (CSPRNG) and its HMAC, the decision, the event (the sender does nothing); the
            // crowd again, on a clock a second further at each reading, every send sent.
            let service = SMSCodeService(
                key: key, sender: DryRunSMSSender(), store: InMemorySMSStore(), events: DiscardingEventSink(), clock: TickingClock(start: now))
            let next = Cursor()
            let unsent = Cursor()
            let send = await measureAsync(batch: batch, repetitions: repetitions) {
                for _ in 0..<batch {
                    let index = next.take() % numbers.count
                    let result = try? await service.send(to: numbers[index], context: crowd[index])
                    if case .sent? = result {} else { _ = unsent.take() }
                    blackHole(result)
                }
            }
            let floorCursor = Cursor()
            let floor = measure(batch: batch, repetitions: repetitions) {
                for _ in 0..<batch { blackHole(rules.issue(to: numbers[floorCursor.take() % numbers.count], session: nil, key: key, at: now)) }
            }
            var whole = Suites.row(
                "sms.send whole (code, HMAC, decision)", batch, send, "the code's draw and HMAC alone", floor, target: "every send sent",
                met: unsent.taken == 0)
            whole.extra.append(("unsent", "\(unsent.taken)"))
            report.add(whole)
        }

        if options.wants("sms.verify") {
            // The codes go straight into the store (the default policy's global and "(not given)" rules
            // would hold back sends this many at one instant): the row measures the verify alone.
            let store = InMemorySMSStore()
            let service = SMSCodeService(key: key, sender: DryRunSMSSender(), store: store, events: DiscardingEventSink(), clock: FakeClock(now: now.addingTimeInterval(5)))
            let session = LoginSessionID.random()
            let codes = SMSKeyBenchmarks.seed(store, rules: rules, key: key, numbers: numbers, sessions: numbers.map { _ in session }, at: now)
            let next = Cursor()
            // The same rules the obvious way, over as many kept codes, each verified once with its right code.
            let naive = NaiveSMSLimits(policy: rules.policy, key: HMACSHA256.Key(Array(repeating: UInt8(7), count: 32)))
            for (index, number) in numbers.enumerated() { naive.seed(number.digits, code: String(100_000 + index % 900_000), at: now) }
            let naiveCursor = Cursor()
            let (verify, reference) = await measurePairAsync(batch: batch, repetitions: repetitions) {
                for _ in 0..<batch {
                    let index = next.take()
                    blackHole(try? await service.verify(codes[index], for: numbers[index], context: SMSContext(session: session)))
                }
            } reference: {
                for _ in 0..<batch {
                    let index = naiveCursor.take()
                    blackHole(naive.verify(numbers[index].digits, code: String(100_000 + index % 900_000), at: now.addingTimeInterval(5)))
                }
            }
            let message = Array(repeating: UInt8(ascii: "7"), count: 40)
            let hmacKey = HMACSHA256.Key(Array(repeating: UInt8(7), count: 32))
            let floor = measure(batch: batch, repetitions: repetitions) {
                for _ in 0..<batch { blackHole(hmacKey.authenticationCode(for: message)) }
            }
            var row = Suites.row(
                "sms.verify (in memory, right code)", batch, verify, "filter-and-sort per rule, then the HMAC", reference, target: "≤ 2 µs, ≥ 1× the obvious rules",
                met: verify.median <= 2000 && verify.median <= reference.median)
            row.extra.append(("hmacAloneNs", format(floor.median)))
            report.add(row)
        }
    }
}

/// The same policy written the obvious way, as a reference: a locked dictionary from a counter's id
/// (`sends:ip:7/64`) to the instants it holds, every rule of the policy filtering and sorting its counter's list (kept
/// for the longest window of the rules that read it), the code's record replaced; a verify the same over the wrong-code
/// rules, then the code's HMAC. A send names its address (the crowd's n-th /48, so its /64 and /56 too) and its device
/// (counted at that address, as ours) and its login session, and its code's digest made beforehand (as ours is); a
/// verify names none of them (the shared `(not given)` bucket, as ours).
final class NaiveSMSLimits: @unchecked Sendable {
    enum Answer: Equatable { case admit, captcha, wait, wrong, verified }

    private let lock = NSLock()
    private var events: [String: [Date]] = [:]
    private var codes: [String: (digest: SHA256Digest, expires: Date)] = [:]
    private let sendRules: [SMSPolicy.Rule]
    private let verifyRules: [SMSPolicy.Rule]
    private let key: HMACSHA256.Key

    init(policy: SMSPolicy, key: HMACSHA256.Key) {
        sendRules = policy.rules.filter { $0.counts == .sends }
        verifyRules = policy.rules.filter { $0.counts != .sends }
        self.key = key
    }

    private func counter(_ rule: SMSPolicy.Rule, _ number: String, _ address: String?) -> String {
        let value: String
        switch rule.key {
        case .number, .numberLane: value = number  // no returning owner here
        case .numberSession: value = number + "/" + (address.map { "session-\($0)" } ?? "(not given)")
        case .global, .globalLane: value = "all"  // no returning owner here
        case .ip: value = address.map { $0 + "/64" } ?? "(not given)"
        case .ip56: value = address.map { $0 + "/56" } ?? "(not given)"
        case .ip48: value = address.map { $0 + "/48" } ?? "(not given)"
        case .device: value = address.map { "device-\($0)@\($0)/64" } ?? "(not given)"
        case .session: value = address.map { "session-\($0)" } ?? "(not given)"
        }
        return "\(rule.counts):\(rule.key):\(value)"
    }

    /// What every rule over the limit says: `wait` beats `captcha`.
    private func over(_ rules: [SMSPolicy.Rule], _ number: String, _ address: String?, at now: Date) -> Answer? {
        var answer: Answer? = nil
        for rule in rules {
            let start = now.addingTimeInterval(-rule.window.seconds)
            let held = (events[counter(rule, number, address)] ?? []).filter { $0 > start }.sorted()
            guard held.count >= rule.limit else { continue }
            answer = rule.over == .captcha ? (answer ?? .captcha) : .wait
        }
        return answer
    }

    private func count(_ rules: [SMSPolicy.Rule], _ number: String, _ address: String?, at now: Date) {
        var horizons: [String: TimeInterval] = [:]
        for rule in rules {
            let id = counter(rule, number, address)
            horizons[id] = max(horizons[id] ?? 0, rule.window.seconds)
        }
        for (id, horizon) in horizons {
            let start = now.addingTimeInterval(-horizon)
            events[id] = ((events[id] ?? []) + [now]).filter { $0 > start }.sorted()
        }
    }

    /// A code's digest for a number, as the reference keeps it.
    func digest(_ code: String, _ number: String) -> SHA256Digest {
        key.authenticationCode(for: Array((number + ":" + code).utf8))
    }

    /// A send: admitted (counted, its code kept), or the captcha or wait the rules ask for.
    func send(_ number: String, from address: String?, digest: SHA256Digest, at now: Date) -> Answer {
        lock.lock()
        defer { lock.unlock() }
        if let answer = over(sendRules, number, address, at: now) { return answer }
        count(sendRules, number, address, at: now)
        codes[number] = (digest, now.addingTimeInterval(300))
        return .admit
    }

    /// A code kept for a number without a send's rules (what the benchmark's verify starts from).
    func seed(_ number: String, code: String, at now: Date) {
        lock.lock()
        defer { lock.unlock() }
        codes[number] = (digest(code, number), now.addingTimeInterval(300))
    }

    /// A verify: the wrong-code rules first, then the code's HMAC against the kept one; a wrong code counted.
    func verify(_ number: String, code: String, at now: Date) -> Answer {
        lock.lock()
        defer { lock.unlock() }
        if let answer = over(verifyRules, number, nil, at: now) { return answer }
        guard let kept = codes[number], kept.expires > now else { return .wrong }
        guard digest(code, number) == kept.digest else {
            count(verifyRules, number, nil, at: now)
            return .wrong
        }
        codes[number] = nil
        return .verified
    }
}

/// An index shared by the iterations of one measured body.
final class Cursor: @unchecked Sendable {
    private var value = 0
    func take() -> Int {
        defer { value += 1 }
        return value
    }

    /// How many were taken.
    var taken: Int { value }
}

