import Foundation
import OneTap

/// `onetap quota -`: replays login starts and paid exchanges against the login quotas, to try a quota
/// change on a day's traffic before shipping it.
package struct QuotaOptions: Hashable, Sendable {
    /// `--json` (NDJSON) and the tables: `--data` may hold `login-quotas.csv`, `--policy` is a replacement
    /// login quota policy.
    package var common: CommonOptions
}

/// `onetap quota -`: each start or exchange of standard input decided by the login quotas, in order, and
/// a summary.
enum QuotaCommand: CommandDescription {
    static let name = "quota"
    static let summary = "replay login starts and paid exchanges against the login quotas"
    static let help = """
        USAGE: onetap quota - [--json] [--policy FILE] [--data DIR]

        Replays login starts and paid exchanges against the login quotas (Data/login-quotas.csv,
        or --policy FILE), to try a quota change on a day's traffic before shipping it. One
        request per line:
          {"at":"2026-12-01T10:00:00Z","counts":"starts","ip":"203.0.113.7","device":"d1"}
        "counts" is starts (a login started) or exchanges (a success report sent to the carrier's
        paid exchange); optional "ip", "device" and "session" (the app session id). A request
        without one counts in the rule's one shared "(not given)" bucket, as the server counts it;
        an IPv6 address counts per /64, /56 and /48. Lines are decided in order, each at its own "at"; windows are
        sliding and exact to the second. --data DIR may hold login-quotas.csv.

        Prints one decision per line: admitted, or over-quota (the rule and the seconds until one
        more is admitted), then a summary line.
        JSON fields: line, decision, counts, rule, retryAfter, error; the last record is
        {"summary":true,"requests":N,"admitted":…,"overQuota":…,"malformed":…}.

        EXIT STATUS: 0 every line was read (a request over a quota is an answer, not an error);
        65 a line was malformed (an error record, and the replay goes on) or a replacement
        login-quotas.csv is malformed (its file and line named); 66 it cannot be read.

        EXAMPLE: printf '%s\\n' '{"at":"2026-12-01T10:00:00Z","counts":"starts","ip":"203.0.113.7"}' | onetap quota -
        """
    static let options: [OptionSpec] = [.flag("json"), .value("policy"), .value("data")]

    static func parse(_ arguments: ParsedArguments) throws(UsageError) -> QuotaOptions {
        guard arguments.operands == ["-"] else {
            throw UsageError(
                arguments.operands.isEmpty ? "quota needs -, to read login starts and exchanges (NDJSON) from standard input"
                    : "quota reads standard input: give - as the only operand, not \(quoted(arguments.operands.first { $0 != "-" } ?? "-"))",
                command: name)
        }
        return QuotaOptions(common: CommonOptions(arguments))
    }

    /// One request line, every key checked (an unknown key is a mistake in the input, not ignored).
    private struct Line: JSONReadable {
        static var skipsByteOrderMark: Bool { true }
        var at: String
        var counts: String
        var ip: String?
        var device: String?
        var session: String?

        init(reading reader: inout JSONReader) throws(JSONReadError) {
            var at: String?, counts: String?, ip: String??, device: String??, session: String??
            try reader.members { (key, reader) throws(JSONReadError) in
                switch key {
                case "at": try reader.member(&at, key)
                case "counts": try reader.member(&counts, key)
                case "ip": try reader.member(&ip, key)
                case "device": try reader.member(&device, key)
                case "session": try reader.member(&session, key)
                default: throw reader.invalid("unknown key; a request has at, counts, ip, device, session")
                }
            }
            self.at = try reader.required(at, "at")
            self.counts = try reader.required(counts, "counts")
            self.ip = ip ?? nil
            self.device = device ?? nil
            self.session = session ?? nil
        }
    }

    private struct Tally {
        var admitted = 0, overQuota = 0, malformed = 0
        var requests: Int { admitted + overQuota }
    }

    /// What one well-formed line asks.
    private struct Request {
        var at: Date
        var counts: LoginQuotaPolicy.Counts
        var keys: LoginQuotaPolicy.Request
    }

    /// Replays every line of standard input.
    /// - Returns: 0 when every line was read (a request over a quota is an answer, not an error); 65 when
    ///   a line was malformed (its error record is printed and the replay goes on).
    static func run(_ options: QuotaOptions, output: OutputBuffer, io: any CommandIO) throws(CommandFailure) -> ExitCode {
        let policy = try TableLoader(options: options.common.tables).table(LoginQuotaPolicy.builtIn, file: options.common.tables.policyFile)
        // Each counter's events, as a store keeps them (``LoginQuotas`` over one instance's memory).
        var events: [LoginQuotaPolicy.Counter: [Date]] = [:]
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
                case .success(let request):
                    let decision = policy.decide(request.keys, counting: request.counts, events: events, at: request.at)
                    if decision == .admit {
                        for counter in policy.counters(for: request.keys, counting: request.counts) {
                            events[counter] = policy.keep(counter, (events[counter] ?? []) + [request.at], at: request.at)
                        }
                    }
                    answer = .decided(decision, request.counts, at: request.at)
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
            object.add("admitted", Int64(tally.admitted))
            object.add("overQuota", Int64(tally.overQuota))
            object.add("malformed", Int64(tally.malformed))
            output.line(object.json)
        } else {
            output.line("\(tally.requests) request\(tally.requests == 1 ? "" : "s"): \(tally.admitted) admitted, \(tally.overQuota) over quota"
                + (tally.malformed > 0 ? "; \(tally.malformed) malformed line\(tally.malformed == 1 ? "" : "s")" : ""))
        }
        return tally.malformed > 0 ? .dataError : .success
    }

    private struct Malformed: Error {
        let message: String
        init(_ message: String) { self.message = message }
    }

    private static func request(_ text: String) -> Result<Request, Malformed> {
        let line: Line
        do {
            line = try Line(json: text)
        } catch {
            return .failure(Malformed(RouteCommand.describe(error)))
        }
        let at: Date
        do {
            at = try Timestamp.parse(line.at)
        } catch {
            return .failure(Malformed("key 'at': \(error)"))
        }
        guard let counts = LoginQuotaPolicy.Counts(rawValue: line.counts) else {
            return .failure(Malformed("key 'counts': \(quoted(line.counts)) is not starts or exchanges"))
        }
        var keys = LoginQuotaPolicy.Request(address: nil, device: nil, session: SMSPolicy.notGiven)
        do { keys.address = try line.ip.map { (text) throws(ParseError) in try IPAddress(text) } } catch { return .failure(Malformed("key 'ip': \(error)")) }
        do { keys.device = try line.device.map { (text) throws(ParseError) in try DeviceID(text).rawValue } } catch { return .failure(Malformed("key 'device': \(error)")) }
        do {
            if let session = line.session { keys.session = try AppSessionID(session).text }
        } catch {
            return .failure(Malformed("key 'session': \(error)"))
        }
        return .success(Request(at: at, counts: counts, keys: keys))
    }

    /// What one line came to.
    private enum Answer {
        case decided(LoginQuotaPolicy.Decision, LoginQuotaPolicy.Counts, at: Date)
        case malformed(String)
    }

    private static func emit(_ answer: Answer, line: Int, _ tally: inout Tally, json: Bool, _ output: OutputBuffer) {
        var object = JSONObject()
        object.add("line", Int64(line))
        let text: String
        switch answer {
        case .decided(let decision, let counts, let at):
            object.add("counts", counts.rawValue)
            switch decision {
            case .admit:
                tally.admitted += 1
                object.add("decision", "admitted")
                text = "\(counts): admitted"
            case .over(let rule, let retryAfter):
                tally.overQuota += 1
                let seconds = Int64(max(0, retryAfter.timeIntervalSince(at)).rounded(.up))
                object.add("decision", "over-quota")
                object.add("rule", rule)
                object.add("retryAfter", seconds)
                text = "\(counts): over-quota by \(rule), retry after \(seconds) s"
            }
        case .malformed(let message):
            tally.malformed += 1
            object.add("error", message)
            text = "error: \(message)"
        }
        output.line(json ? object.json : "line \(line): \(text)")
    }
}
