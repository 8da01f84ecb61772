import Foundation
import OneTap

/// `onetap sms -`: replays SMS send requests against the policy, to try a policy change on a day's
/// traffic before shipping it.
package struct SMSOptions: Hashable, Sendable {
    /// `--json` (NDJSON) and the tables: `--data` may hold `sms-policy.csv` and `number-segments.csv`,
    /// `--policy` is a replacement SMS policy.
    package var common: CommonOptions
}

/// `onetap sms -`: each send request of standard input decided by the SMS rules, in order, and a summary.
enum SMSCommand: CommandDescription {
    static let name = "sms"
    static let summary = "replay SMS send requests against the SMS policy"
    static let help = """
        USAGE: onetap sms - [--json] [--policy FILE] [--data DIR]

        Replays SMS send requests against the SMS policy (Data/sms-policy.csv, or --policy FILE),
        to try a policy change on a day's traffic before shipping it. One request per line:
          {"at":"2026-12-01T10:00:00Z","number":"13800138000","ip":"203.0.113.7","device":"d1"}
        with optional "session" (a login session id) and "captcha":true (a valid captcha came
        with it). Lines are decided in order, each at its own "at"; windows are sliding and exact
        to the second. --data DIR may hold sms-policy.csv and number-segments.csv.

        Prints one decision per line: sent, captcha (the rule that wants one), limited (the rule
        and the seconds until a send is admitted again) or refused (not a mainland mobile number,
        or an IoT-only segment), then a summary line. No code is made visible.
        JSON fields: line, decision, rule, retryAfter, resendAfter, reason, message, error; the
        last record is {"summary":true,"requests":N,"sent":…,"captcha":…,"limited":…,
        "refused":…,"malformed":…}.

        EXIT STATUS: 0 every line was read (a limited send is an answer, not an error);
        65 a line was malformed (an error record, and the replay goes on).

        EXAMPLE: printf '%s\\n' '{"at":"2026-12-01T10:00:00Z","number":"13800138000","ip":"203.0.113.7"}' | onetap sms -
        """
    static let options: [OptionSpec] = [.flag("json"), .value("policy"), .value("data")]

    static func parse(_ arguments: ParsedArguments) throws(UsageError) -> SMSOptions {
        guard arguments.operands == ["-"] else {
            throw UsageError(
                arguments.operands.isEmpty ? "sms needs -, to read send requests (NDJSON) from standard input"
                    : "sms reads standard input: give - as the only operand, not \(quoted(arguments.operands.first { $0 != "-" } ?? "-"))",
                command: name)
        }
        return SMSOptions(common: CommonOptions(arguments))
    }

    /// One request line, every key checked (an unknown key is a mistake in the input, not ignored).
    private struct Line: JSONReadable {
        static var skipsByteOrderMark: Bool { true }
        var at: String
        var number: String
        var ip: String?
        var device: String?
        var session: String?
        var captcha: Bool?

        init(reading reader: inout JSONReader) throws(JSONReadError) {
            var at: String?, number: String?, ip: String??, device: String??, session: String??, captcha: Bool??
            try reader.members { (key, reader) throws(JSONReadError) in
                switch key {
                case "at": try reader.member(&at, key)
                case "number": try reader.member(&number, key)
                case "ip": try reader.member(&ip, key)
                case "device": try reader.member(&device, key)
                case "session": try reader.member(&session, key)
                case "captcha": try reader.member(&captcha, key)
                default: throw reader.invalid("unknown key; a request has at, number, ip, device, session, captcha")
                }
            }
            self.at = try reader.required(at, "at")
            self.number = try reader.required(number, "number")
            self.ip = ip ?? nil
            self.device = device ?? nil
            self.session = session ?? nil
            self.captcha = captcha ?? nil
        }
    }

    private struct Tally {
        var sent = 0, captcha = 0, limited = 0, refused = 0, malformed = 0
        var requests: Int { sent + captcha + limited + refused }
    }

    /// Replays every line of standard input.
    /// - Returns: 0 when every line was read (a limited send is an answer, not an error); 65 when a
    ///   line was malformed (its error record is printed and the replay goes on).
    static func run(_ options: SMSOptions, output: OutputBuffer, io: any CommandIO) throws(CommandFailure) -> ExitCode {
        let tables = TableLoader(options: options.common.tables)
        let rules = SMSCodeRules(policy: try tables.table(SMSPolicy.builtIn, file: options.common.tables.policyFile), segments: try tables.table(NumberSegmentTable.builtIn))
        let store = InMemorySMSStore()
        let key = ServerKey.random()
        var tally = Tally()
        let ending = LineReader(io: io).forEachLine { bytes, number, cut in
            let text = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: " \t\r")
            if text.isEmpty || text.hasPrefix("#") { return true }
            let answer: Answer
            if cut {
                answer = .malformed("the line is too long to be a request; it was skipped")
            } else {
                switch request(text) {
                case .failure(let problem):
                    answer = .malformed(problem.message)
                case .success(let (at, recipient, context, captcha)):
                    switch rules.recipient(recipient) {
                    case .failure(let refusal):
                        answer = .refused(refusal)
                    case .success(let phone):
                        let keys = context.request(for: phone)
                        let (_, code) = rules.issue(to: phone, session: context.session, key: key, at: at)
                        let decision = store.updateNow(counters: rules.sendCounters(for: keys), code: phone, at: at) { state in
                            rules.admit(&state, keys, captchaPassed: captcha, record: code, at: at)
                        }
                        answer = .decided(decision, at: at)
                    }
                }
            }
            emit(answer, line: number, &tally, json: options.common.json, output)
            return !output.failed
        }
        if let failure = ending.failure(output: output, io: io) { return failure }
        if options.common.json {
            var object = JSONObject()
            object.add("summary", true)
            object.add("requests", Int64(tally.requests))
            object.add("sent", Int64(tally.sent))
            object.add("captcha", Int64(tally.captcha))
            object.add("limited", Int64(tally.limited))
            object.add("refused", Int64(tally.refused))
            object.add("malformed", Int64(tally.malformed))
            output.line(object.json)
        } else {
            output.line("\(tally.requests) request\(tally.requests == 1 ? "" : "s"): \(tally.sent) sent, \(tally.captcha) captcha, \(tally.limited) limited, \(tally.refused) refused"
                + (tally.malformed > 0 ? "; \(tally.malformed) malformed line\(tally.malformed == 1 ? "" : "s")" : ""))
        }
        return tally.malformed > 0 ? .dataError : .success
    }

    private struct Malformed: Error {
        let message: String
        init(_ message: String) { self.message = message }
    }

    private static func request(_ text: String) -> Result<(Date, String, SMSContext, Bool), Malformed> {
        let line: Line
        do {
            line = try Line(json: text)
        } catch {
            return .failure(Malformed(RouteCommand.describe(error)))
        }
        do {
            let at = try Timestamp.parse(line.at)
            var context = SMSContext()
            do { context.ip = try line.ip.map { (text) throws(ParseError) in try IPAddress(text) } } catch { return .failure(Malformed("key 'ip': \(error)")) }
            do { context.device = try line.device.map { (text) throws(ParseError) in try DeviceID(text) } } catch { return .failure(Malformed("key 'device': \(error)")) }
            do { context.session = try line.session.map { (text) throws(ParseError) in try LoginSessionID(text) } } catch { return .failure(Malformed("key 'session': \(error)")) }
            return .success((at, line.number, context, line.captcha ?? false))
        } catch {
            return .failure(Malformed("key 'at': \(error)"))
        }
    }

    /// What one line came to.
    private enum Answer {
        case decided(SMSPolicy.SendDecision, at: Date)
        case refused(SMSRefusal)
        case malformed(String)
    }

    private static func emit(_ answer: Answer, line: Int, _ tally: inout Tally, json: Bool, _ output: OutputBuffer) {
        var object = JSONObject()
        object.add("line", Int64(line))
        let text: String
        switch answer {
        case .decided(let decision, let at):
            func seconds(_ date: Date) -> Int64 { Int64(max(0, date.timeIntervalSince(at)).rounded(.up)) }
            switch decision {
            case .admit(let resendAfter):
                tally.sent += 1
                object.add("decision", "sent")
                object.add("resendAfter", seconds(resendAfter))
                text = "sent (the next send from \(seconds(resendAfter)) s)"
            case .captcha(let rule):
                tally.captcha += 1
                object.add("decision", "captcha")
                object.add("rule", rule)
                text = "captcha required by \(rule)"
            case .limited(let rule, let retryAfter):
                tally.limited += 1
                object.add("decision", "limited")
                object.add("rule", rule)
                object.add("retryAfter", seconds(retryAfter))
                text = "limited by \(rule), retry after \(seconds(retryAfter)) s"
            }
        case .refused(let refusal):
            tally.refused += 1
            object.add("decision", "refused")
            object.add("reason", refusal.kind.id)
            object.add("message", refusal.message)
            text = "refused (\(refusal.kind)): \(refusal.message)"
        case .malformed(let message):
            tally.malformed += 1
            object.add("error", message)
            text = "error: \(message)"
        }
        output.line(json ? object.json : "line \(line): \(text)")
    }
}
