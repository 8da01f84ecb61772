import Foundation
import OneTap

/// `onetap quota -`: each start or exchange of standard input decided by the login quotas, in order, and
/// a summary.
enum QuotaCommand: CounterReplayCommand {
    static let name = "quota"
    static let summary = "replay login starts and paid exchanges against the login quotas"
    static let help = """
        USAGE: onetap quota - [--json] [--policy FILE] [--data DIR]

        Replays login starts and paid exchanges against the login quotas (Data/login-quotas.csv,
        or --policy FILE), to try a quota change on a day's traffic before shipping it. One
        request per line:
          {"at":"2026-12-01T10:00:00Z","counts":"starts","ip":"203.0.113.7","device":"d1"}
        "counts" is starts (a login started) or exchanges (a success report sent to the carrier's
        paid exchange); optional "ip", "device", "session" (the app session id) and "captcha":true
        (a start came with a captcha its provider took, or an exchange's login or report did:
        captcha rules let it through; a start past a captcha rule on exchanges is
        captcha-required too), as a server with a CaptchaVerifier decides (without one, a start
        reads no exchange counter and an exchange past a captcha rule is over-quota). A request
        without one counts in the rule's one shared "(not given)" bucket, as the server counts it;
        an IPv6 address counts per /64, /56 and /48. Lines are decided in order, each at its own "at"; windows are
        sliding and exact to the second. Sort a log merged from several servers by "at" first: what a
        line's window no longer holds may be swept before an earlier "at" comes. --data DIR may hold
        login-quotas.csv.

        Prints one decision per line: admitted, captcha-required (a captcha rule's; the seconds until
        one more is admitted without a captcha), or over-quota (the rule and the seconds until one
        more is admitted), then a summary line.
        JSON fields: line, decision, counts, rule, retryAfter, error; the last record is
        {"summary":true,"requests":N,"admitted":…,"captchaRequired":…,"overQuota":…,"malformed":…}.

        EXIT STATUS: 0 every line was read (a request over a quota is an answer, not an error);
        65 a line was malformed (an error record, and the replay goes on) or a replacement
        login-quotas.csv is malformed (its file and line named); 66 it cannot be read.

        EXAMPLE: printf '%s\\n' '{"at":"2026-12-01T10:00:00Z","counts":"starts","ip":"203.0.113.7"}' | onetap quota -
        """
    /// A line names what it counts: starts or exchanges, and may say a captcha came with it.
    static let subject: StaticString = "counts"
    static let takesCaptcha = true
    static let lines = "login starts and exchanges (NDJSON)"

    /// Replays every line of standard input.
    /// - Returns: 0 when every line was read (a request over a quota is an answer, not an error); 65 when
    ///   a line was malformed (its error record is printed and the replay goes on).
    static func run(_ options: CounterReplayOptions, output: OutputBuffer, io: any CommandIO) throws(CommandFailure) -> ExitCode {
        let policy = try TableLoader(options: options.common.tables).table(LoginQuotaPolicy.builtIn, file: options.common.tables.policyFile)
        // Each counter's events, in the store one instance keeps them in (swept as it goes: a long log's keys seen
        // once do not stay for the whole replay).
        let store = InMemoryLoginQuotaStore()
        let outcomes = [("admitted", "admitted"), ("captchaRequired", "captcha required"), ("overQuota", "over quota")]
        return CounterReplay.run(Self.self, outcomes: outcomes, json: options.common.json, output: output, io: io) { (line, object) throws(CounterReplay.Malformed) in
            let (at, counts, keys) = try request(line)
            // As a server with a captcha verifier reads them: a start reads the captcha rules on exchanges too.
            let counters = policy.counters(toDecide: keys, counting: counts, captchasChecked: true)
            let decision = store.updateNow(counters: counters, at: at) { state in
                state.admit(keys, counting: counts, in: counters, policy: policy, at: at, captchaPassed: line.captcha ?? false)
            }
            object.add("counts", counts.rawValue)
            let (outcome, name, rule, retryAfter): (Int, String, String, Date)
            switch decision {
            case .admit:
                object.add("decision", "admitted")
                return (0, "\(counts): admitted")
            case .captcha(let id, let until): (outcome, name, rule, retryAfter) = (1, "captcha-required", id, until)
            case .over(let id, let until): (outcome, name, rule, retryAfter) = (2, "over-quota", id, until)
            }
            let seconds = Int64(max(0, retryAfter.timeIntervalSince(at)).rounded(.up))
            object.add("decision", name)
            object.add("rule", rule)
            object.add("retryAfter", seconds)
            return (outcome, "\(counts): \(name) by \(rule), retry after \(seconds) s")
        }
    }

    private static func request(
        _ line: CounterReplayLine<Self>
    ) throws(CounterReplay.Malformed) -> (Date, LoginQuotaPolicy.Counts, LoginQuotaPolicy.Request) {
        let at = try line.instant()
        guard let counts = LoginQuotaPolicy.Counts(rawValue: line.subject) else {
            throw CounterReplay.Malformed("key 'counts': \(quoted(line.subject)) is not starts or exchanges")
        }
        var keys = LoginQuotaPolicy.Request(address: nil, device: nil, session: SMSPolicy.notGiven)
        keys.address = try line.parsed(line.ip, "ip") { (text) throws(ParseError) in try IPAddress(text) }
        keys.device = try line.parsed(line.device, "device") { (text) throws(ParseError) in try DeviceID(text).rawValue }
        keys.session = try line.parsed(line.session, "session") { (text) throws(ParseError) in try AppSessionID(text).text } ?? keys.session
        return (at, counts, keys)
    }
}
