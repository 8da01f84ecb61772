import Foundation
import OneTap
import OneTapTesting

/// Issue 21's SMS keys against the rules before them, same code, same run: the send decision and the
/// verify with the default policy (a code per number and session, the /56 and /48 and global rules, the
/// "(not given)" buckets, the guessing rules) beside the same with the policy as it was before issue 21
/// (per-number limits, one address per /64, a number-wide guess lock), so the rows show what the new
/// keys cost.
enum SMSKeyBenchmarks {
    /// `Data/sms-policy.csv` as it was before issue 21: the reference.
    static let before21 = """
        rule,key,counts,window_seconds,limit,over,lock_seconds,source
        number-minute,number,sends,60,1,limit,,before issue 21
        number-hour,number,sends,3600,5,limit,,before issue 21
        number-day,number,sends,86400,10,limit,,before issue 21
        ip-captcha,ip,sends,3600,1,captcha,,before issue 21
        ip-hour,ip,sends,3600,20,limit,,before issue 21
        device-day,device,sends,86400,10,limit,,before issue 21
        number-guesses,number,failed-verifies,86400,10,lock,86400,before issue 21

        """

    static func run(_ options: BenchmarkOptions, _ report: inout Report, repetitions: Int) async {
        guard options.wants("sms.keys") else { return }
        let now = Date(timeIntervalSince1970: 1_796_090_400)
        let key = ServerKey.random()
        let current = SMSCodeRules()
        let before: SMSCodeRules
        do {
            before = SMSCodeRules(policy: try SMSPolicy(csv: before21, file: "sms-policy-before-21.csv"))
        } catch {
            FileHandle.standardError.write(Data("sms.keys skipped: the reference policy does not load: \(error)\n".utf8))
            return
        }
        let batch = 500
        let calls = max(2, repetitions / 5) + repetitions + 1
        let numbers = (0..<(batch * calls)).map { try! PhoneNumber(value: 13_800_000_000 + UInt64($0)) }
        let contexts = crowd(numbers.count)

        /// The decisions' time, and how many were not `admit` (none, or the row times a refusal).
        func decisions(_ rules: SMSCodeRules) -> (BatchTiming, refused: Int) {
            let store = InMemorySMSStore()
            let (_, record) = rules.issue(to: numbers[0], session: nil, key: key, at: now)
            let cursor = Cursor()
            let refused = Cursor()
            let timing = measure(batch: batch, repetitions: repetitions) {
                for _ in 0..<batch {
                    let index = cursor.take() % numbers.count
                    let decision = decide(rules, store, record, contexts[index], numbers[index], at: now.addingTimeInterval(Double(index)))
                    if case .admit = decision {} else { _ = refused.take() }
                    blackHole(decision)
                }
            }
            return (timing, refused.taken)
        }
        let (ours, oursRefused) = decisions(current)
        let (reference, referenceRefused) = decisions(before)
        var row = Suites.row(
            "sms send decision, issue 21 keys", batch, ours, "the same, policy before issue 21", reference, target: "every send admitted",
            met: oursRefused == 0 && referenceRefused == 0)
        row.extra.append(("refused", "\(oursRefused)"))
        row.extra.append(("referenceRefused", "\(referenceRefused)"))
        report.add(row)

        func verifies(_ rules: SMSCodeRules) async -> BatchTiming {
            let store = InMemorySMSStore()
            let service = SMSCodeService(
                key: key, sender: DryRunSMSSender(), store: store, policy: rules.policy, events: DiscardingEventSink(),
                clock: FakeClock(now: now.addingTimeInterval(5)))
            let codes = seed(store, rules: rules, key: key, numbers: numbers, sessions: contexts.map(\.session), at: now)
            let cursor = Cursor()
            return await measureAsync(batch: batch, repetitions: repetitions) {
                for _ in 0..<batch {
                    let index = cursor.take() % codes.count
                    blackHole(try? await service.verify(codes[index], for: numbers[index], context: contexts[index]))
                }
            }
        }
        let verifyOurs = await verifies(current)
        let verifyReference = await verifies(before)
        report.add(Suites.row("sms verify, issue 21 keys", batch, verifyOurs, "the same, policy before issue 21", verifyReference,
                              target: nil, met: nil))
    }

    /// One send decision as every send makes it: the policy over the store's counters, in one atomic update, the code's
    /// record made beforehand.
    /// - Parameters:
    ///   - rules: The rules.
    ///   - store: The store.
    ///   - record: The code's record.
    ///   - context: Who asks.
    ///   - number: For which number.
    ///   - at: When.
    /// - Returns: The decision.
    static func decide(
        _ rules: SMSCodeRules, _ store: InMemorySMSStore, _ record: SMSCodeRecord, _ context: SMSContext, _ number: PhoneNumber, at: Date
    ) -> SMSPolicy.SendDecision {
        let request = context.request(for: number)
        return store.updateNow(counters: rules.sendCounters(for: request), code: SMSCodeKey(number: number, session: context.session), at: at) { state in
            rules.admit(&state, request, captchaPassed: false, record: record, at: at)
        }
    }

    /// A crowd's requests: each from an IPv6 /48 of its own (so its own /64 and /56), with a device id and a login session
    /// of its own. Sent a second apart, every send is admitted by the default policy: every counter is a new one but the
    /// global ones, which hold at most an hour of sends (3,600, under `global-hour-captcha`'s 4,000), as on a server
    /// sending a code a second.
    /// - Parameter count: How many (at most 2^28: the /48s of `3fff::/20`).
    /// - Returns: The contexts, the n-th to be sent at the n-th second.
    static func crowd(_ count: Int) -> [SMSContext] {
        (0..<count).map { index in
            SMSContext(
                ip: .v6(high: 0x3fff_0000_0000_0000 | UInt64(index) << 16, low: 1), device: try? DeviceID("device-\(index)"),
                session: LoginSessionID.random())
        }
    }

    /// Puts a code for each number (in its session) straight into the store, as admitted sends leave
    /// them, so a verify benchmark measures the verify alone: the default policy's global and
    /// "(not given)" rules would hold back this many sends at one instant.
    /// - Returns: The codes, in the numbers' order.
    static func seed(
        _ store: InMemorySMSStore, rules: SMSCodeRules, key: ServerKey, numbers: [PhoneNumber], sessions: [LoginSessionID?], at now: Date
    ) -> [Secret] {
        var generator = SystemRandomNumberGenerator()
        return zip(numbers, sessions).map { number, session in
            let (code, record) = rules.issue(to: number, session: session, key: key, at: now, using: &generator)
            store.updateNow(counters: [], code: SMSCodeKey(number: number, session: session), at: now) { state in
                state.code = record
                state.keepUntil = now.addingTimeInterval(600)
            }
            return code
        }
    }
}
