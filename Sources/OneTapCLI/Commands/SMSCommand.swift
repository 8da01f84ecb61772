import Foundation
import OneTap

/// `onetap sms -`: each send request of standard input decided by the SMS rules, in order, and a summary.
enum SMSCommand: CounterReplayCommand {
    static let name = "sms"
    static let summary = "replay SMS send requests against the SMS policy"
    static let help = """
        USAGE: onetap sms - [--json] [--policy FILE] [--data DIR]

        Replays SMS send requests against the SMS policy (Data/sms-policy.csv, or --policy FILE),
        to try a policy change on a day's traffic before shipping it. One request per line:
          {"at":"2026-12-01T10:00:00Z","number":"13800138000","ip":"203.0.113.7","device":"d1"}
        with optional "session" (a login session id), "captcha":true (a valid captcha came
        with it) and "returningOwner":true (the sender's app session logged in with the number in
        the last 30 days: its sends count in a lane of their own on number-lane and global-lane). Lines are
        decided in order, each at its own "at"; windows are sliding and exact to the second. Sort a
        log merged from several servers by "at" first: what a line's window no longer holds may be
        swept before an earlier "at" comes.
        --data DIR may hold sms-policy.csv and number-segments.csv.

        Prints one decision per line, as a server with a captcha verifier decides (a server
        without one answers a captcha as limited, until the named rule's side frees a place): sent,
        captcha (the rule that wants one), limited (the rule and the seconds until a send is
        admitted again) or refused (not a mainland mobile number,
        or an IoT-only segment), then a summary line. No code is made visible.
        JSON fields: line, decision, rule, retryAfter, resendAfter, reason, message, error; the
        last record is {"summary":true,"requests":N,"sent":…,"captcha":…,"limited":…,
        "refused":…,"malformed":…}.

        EXIT STATUS: 0 every line was read (a limited send is an answer, not an error);
        65 a line was malformed (an error record, and the replay goes on).

        EXAMPLE: printf '%s\\n' '{"at":"2026-12-01T10:00:00Z","number":"13800138000","ip":"203.0.113.7"}' | onetap sms -
        """
    /// A line names the number it sends to, and may say a captcha came with it and that its sender is the number's
    /// returning owner.
    static let subject: StaticString = "number"
    static let takesCaptcha = true
    static let takesReturningOwner = true
    static let lines = "send requests (NDJSON)"

    /// Replays every line of standard input.
    /// - Returns: 0 when every line was read (a limited send is an answer, not an error); 65 when a
    ///   line was malformed (its error record is printed and the replay goes on).
    static func run(_ options: CounterReplayOptions, output: OutputBuffer, io: any CommandIO) throws(CommandFailure) -> ExitCode {
        let tables = TableLoader(options: options.common.tables)
        let rules = SMSCodeRules(policy: try tables.table(SMSPolicy.builtIn, file: options.common.tables.policyFile), segments: try tables.table(NumberSegmentTable.builtIn))
        let store = InMemorySMSStore()
        let key = ServerKey.random()
        let outcomes = [("sent", "sent"), ("captcha", "captcha"), ("limited", "limited"), ("refused", "refused")]
        return CounterReplay.run(Self.self, outcomes: outcomes, json: options.common.json, output: output, io: io) { (line, object) throws(CounterReplay.Malformed) in
            let (at, ip, device, session) = try request(line)
            switch rules.recipient(line.subject) {
            case .failure(let refusal):
                object.add("decision", "refused")
                object.add("reason", refusal.kind.id)
                object.add("message", refusal.message)
                return (3, "refused (\(refusal.kind)): \(refusal.message)")
            case .success(let phone):
                let keys = SMSContext.request(for: phone, ip: ip, device: device, session: session, returningOwner: line.returningOwner ?? false)
                let (_, code) = rules.issue(to: phone, session: session, key: key, at: at)
                let decision = store.updateNow(counters: rules.sendCounters(for: keys), code: phone, at: at) { state in
                    rules.admit(&state, keys, captchaPassed: line.captcha ?? false, record: code, at: at)
                }
                return record(decision, at: at, &object)
            }
        }
    }

    /// A line's instant, and who sent: the address, device and session, each optional (a log may hold sends of
    /// no session; they count as the number's "no session" sender).
    private static func request(
        _ line: CounterReplayLine<Self>
    ) throws(CounterReplay.Malformed) -> (at: Date, ip: IPAddress?, device: DeviceID?, session: LoginSessionID?) {
        let at = try line.instant()
        let ip = try line.parsed(line.ip, "ip") { (text) throws(ParseError) in try IPAddress(text) }
        let device = try line.parsed(line.device, "device") { (text) throws(ParseError) in try DeviceID(text) }
        let session = try line.parsed(line.session, "session") { (text) throws(ParseError) in try LoginSessionID(text) }
        return (at, ip, device, session)
    }

    /// A decided send's members and text.
    private static func record(_ decision: SMSPolicy.SendDecision, at: Date, _ object: inout JSONObject) -> CounterReplay.Decided {
        func seconds(_ date: Date) -> Int64 { Int64(max(0, date.timeIntervalSince(at)).rounded(.up)) }
        switch decision {
        case .admit(let resendAfter):
            object.add("decision", "sent")
            object.add("resendAfter", seconds(resendAfter))
            return (0, "sent (the next send from \(seconds(resendAfter)) s)")
        case .captcha(let rule, _):
            object.add("decision", "captcha")
            object.add("rule", rule)
            return (1, "captcha required by \(rule)")
        case .limited(let rule, let retryAfter):
            object.add("decision", "limited")
            object.add("rule", rule)
            object.add("retryAfter", seconds(retryAfter))
            return (2, "limited by \(rule), retry after \(seconds(retryAfter)) s")
        }
    }
}
