import Foundation
import Testing

/// `onetap quota -` end to end: the built binary, its standard output, standard error and exit code. The
/// login quotas (`Data/login-quotas.csv`) are replaceable through `--data` and `--policy` like the other
/// tables, and a malformed replacement is named with its file, line and why.
@Suite struct QuotaCommandTests {
    /// Two starts per address a minute; one paid exchange per device an hour.
    static let policy = """
        rule,key,counts,window_seconds,limit,source
        ip-two,ip,starts,60,2,test
        device-exchange,device,exchanges,3600,1,test

        """

    static let day = """
        {"at":"2026-12-01T10:00:00Z","counts":"starts","ip":"203.0.113.7","device":"d1"}
        {"at":"2026-12-01T10:00:20Z","counts":"starts","ip":"203.0.113.7"}
        {"at":"2026-12-01T10:00:30Z","counts":"starts","ip":"203.0.113.7"}
        # one IPv6 /64 is one address
        {"at":"2026-12-01T10:00:30Z","counts":"starts","ip":"2409:8900:1:2::1"}
        {"at":"2026-12-01T10:00:31Z","counts":"starts","ip":"2409:8900:1:2:ffff::9"}
        {"at":"2026-12-01T10:00:32Z","counts":"starts","ip":"2409:8900:1:2::5"}

        {"at":"2026-12-01T10:01:00Z","counts":"starts","ip":"203.0.113.7"}
        {"at":"2026-12-01T10:02:00Z","counts":"exchanges"}
        {"at":"2026-12-01T10:03:00Z","counts":"exchanges","device":"d9"}
        {"at":"2026-12-01T10:04:00Z","counts":"exchanges"}

        """

    func policyFile() throws -> (directory: URL, file: String) {
        let directory = try Package.temporaryDirectory()
        let file = directory.appendingPathComponent("login-quotas.csv")
        try Self.policy.write(to: file, atomically: true, encoding: .utf8)
        return (directory, file.path)
    }

    /// Windows slide to the second (an event at 10:00:00 under a 60 s window no longer counts at 10:01:00);
    /// an IPv6 /64 is one address; exchanges without a device share the one `unknown` bucket.
    @Test func aDayOfRequestsAsTextWithAReplacementPolicy() async throws {
        let (directory, file) = try policyFile()
        defer { removeTemporary(directory) }
        let expected = [
            "line 1: starts: admitted",
            "line 2: starts: admitted",
            "line 3: starts: over-quota by ip-two, retry after 30 s",
            "line 5: starts: admitted",
            "line 6: starts: admitted",
            "line 7: starts: over-quota by ip-two, retry after 58 s",
            "line 9: starts: admitted",
            "line 10: exchanges: admitted",
            "line 11: exchanges: admitted",
            "line 12: exchanges: over-quota by device-exchange, retry after 3480 s",
            "10 requests: 7 admitted, 0 captcha required, 3 over quota",
        ]
        // The same table through --policy and through --data.
        for arguments in [["--policy", file], ["--data", directory.path]] {
            let run = try await Binary.run(["quota", "-"] + arguments, stdin: Array(Self.day.utf8))
            #expect(run.status == 0, "\(arguments)")
            #expect(run.stderr == "")
            #expect(run.lines == expected, "\(arguments)")
        }
    }

    /// The built-in table (Data/login-quotas.csv: past 60 starts per address a minute, a captcha) when none is given;
    /// a start that says a captcha came with it passes the captcha rule.
    @Test func theBuiltInQuotasByDefault() async throws {
        let starts = (0..<61).map { #"{"at":"2026-12-01T10:00:\#(String(format: "%02d", $0 / 2)).\#($0 % 2 == 0 ? "000" : "500")Z","counts":"starts","ip":"198.51.100.1","device":"d\#($0)","session":"QuotaCliSession\#(1_000_000 + $0)"}"# }
        let run = try await Binary.run(["quota", "-", "--json"], stdin: Array((starts.joined(separator: "\n") + "\n").utf8))
        #expect(run.status == 0 && run.stderr == "")
        #expect(run.lines.count == 62)
        // The 61st start, at 10:00:30.000, waits for the first (10:00:00.000) to leave at 10:01:00.000: 30 s.
        #expect(run.lines[60] == #"{"line":61,"counts":"starts","decision":"captcha-required","rule":"ip-starts-minute","retryAfter":30}"#)
        #expect(run.lines[61] == #"{"summary":true,"requests":61,"admitted":60,"captchaRequired":1,"overQuota":0,"malformed":0}"#)
        let solved = starts + [#"{"at":"2026-12-01T10:00:30.500Z","counts":"starts","ip":"198.51.100.1","device":"d61","captcha":true}"#]
        let again = try await Binary.run(["quota", "-"], stdin: Array((solved.joined(separator: "\n") + "\n").utf8))
        #expect(again.status == 0 && again.stderr == "")
        #expect(again.lines.suffix(2) == ["line 62: starts: admitted", "62 requests: 61 admitted, 1 captcha required, 0 over quota"])
    }

    /// An attacker's read of the CLI: `quota` read only the counters a start counts, where a server with a captcha
    /// verifier (which its help says it decides as) reads the captcha rules on exchanges too: after ten exchanges from
    /// one device, the server asks the device's next start for a captcha (`device-exchanges-hour`), and `quota` said
    /// admitted. Both take the counters from the policy's one choice now.
    @Test func aStartPastACaptchaRuleOnExchangesNeedsACaptchaAsOnTheServer() async throws {
        let exchanges = (0..<10).map { #"{"at":"2026-12-01T10:00:0\#($0)Z","counts":"exchanges","ip":"198.51.100.1","device":"d1"}"# }
        let start = #"{"at":"2026-12-01T10:01:00Z","counts":"starts","ip":"198.51.100.1","device":"d1"}"#
        let run = try await Binary.run(["quota", "-", "--json"], stdin: Array(((exchanges + [start]).joined(separator: "\n") + "\n").utf8))
        #expect(run.status == 0 && run.stderr == "")
        // The first exchange (10:00:00) leaves the hour at 11:00:00: 3,540 s after the start.
        #expect(run.lines[10] == #"{"line":11,"counts":"starts","decision":"captcha-required","rule":"device-exchanges-hour","retryAfter":3540}"#)
    }

    /// A malformed line is an error record, the replay goes on, and the exit is 65.
    @Test func malformedLinesAreNamedAndTheReplayGoesOn() async throws {
        let input = """
            {"at":"2026-12-01T10:00:00Z","counts":"logins"}
            {"at":"2026-12-01T10:00:00Z","counts":"starts","ip":"300.1.1.1"}
            {"at":"2026-12-01T10:00:00Z","counts":"starts","session":"short"}
            {"at":"yesterday","counts":"starts"}
            {"at":"2026-12-01T10:00:00Z","counts":"starts","colour":"blue"}
            {"at":"2026-12-01T10:00:00Z","counts":"starts","returningOwner":true}
            {"at":"2026-12-01T10:00:00Z","counts":"starts"}

            """
        let run = try await Binary.run(["quota", "-"], stdin: Array(input.utf8))
        #expect(run.status == 65)
        #expect(run.stderr == "")
        #expect(run.lines.count == 8)
        #expect(run.lines[0] == "line 1: error: key 'counts': 'logins' is not starts or exchanges")
        #expect(run.lines[1].hasPrefix("line 2: error: key 'ip': "))
        #expect(run.lines[2].hasPrefix("line 3: error: key 'session': "))
        #expect(run.lines[3].hasPrefix("line 4: error: key 'at': "))
        #expect(run.lines[4].hasPrefix("line 5: error: ") && run.lines[4].contains("colour"))
        // A login start has no returning owner: that key is an SMS send's.
        #expect(run.lines[5] == "line 6: error: key 'returningOwner': unknown key; a request has at, counts, ip, device, session, captcha")
        #expect(run.lines[6] == "line 7: starts: admitted")
        #expect(run.lines[7] == "1 request: 1 admitted, 0 captcha required, 0 over quota; 6 malformed lines")
    }

    /// A malformed replacement login-quotas.csv in --data (or given as --policy) stops the command before
    /// any line is read: nothing on standard output, the file, its line and why on standard error, exit 65.
    @Test func aMalformedReplacementNamesTheFileTheLineAndWhy() async throws {
        let directory = try Package.temporaryDirectory()
        defer { removeTemporary(directory) }
        let file = directory.appendingPathComponent("login-quotas.csv")
        let request = Array(#"{"at":"2026-12-01T10:00:00Z","counts":"starts"}"#.utf8) + [10]
        let cases: [(table: String, problem: String)] = [
            ("rule,key,counts,window_seconds,limit,source\nip-ok,ip,starts,60,5,ours\nip-zero,ip,starts,60,0,ours\n",
             #"3: column 'limit': "0" is not a limit from 1 to 1000000"#),
            ("rule,key,counts,window_seconds,limit,source\nip-ok,ip,starts,60,5,ours\nip-ok,device,starts,60,5,ours\n", "3: column 'rule': "),
            ("rule,key,counts,window_seconds,limit,source\nip-week,ip,starts,1.5,5,ours\n",
             #"2: column 'window_seconds': "1.5" is not 1 to 31536000 whole seconds"#),
        ]
        for (table, problem) in cases {
            try table.write(to: file, atomically: true, encoding: .utf8)
            for arguments in [["--data", directory.path], ["--policy", file.path]] {
                let run = try await Binary.run(["quota", "-"] + arguments, stdin: request)
                #expect(run.status == 65, "\(arguments) \(run.stderr)")
                #expect(run.stdout == "")
                #expect(run.stderr.hasPrefix("onetap: error: \(file.path):\(problem)"), "\(run.stderr)")
                #expect(run.stderr.hasSuffix("\n") && run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
            }
        }
        // No rule at all: the file is named, and why.
        try "rule,key,counts,window_seconds,limit,source\n".write(to: file, atomically: true, encoding: .utf8)
        let empty = try await Binary.run(["quota", "-", "--data", directory.path], stdin: request)
        #expect(empty.status == 65 && empty.stdout == "")
        #expect(empty.stderr == "onetap: error: \(file.path): the policy has no rule; an empty policy would let every login through\n")
    }

    @Test func usage() async throws {
        let none = try await Binary.run(["quota"])
        #expect(none.status == 64 && none.stderr.contains("quota needs -, to read login starts and exchanges (NDJSON) from standard input"))
        let file = try await Binary.run(["quota", "requests.ndjson"])
        #expect(file.status == 64 && file.stderr.contains("quota reads standard input: give - as the only operand, not 'requests.ndjson'"))
    }
}
