import Foundation
import Testing

/// `onetap sms -` end to end: the built binary, its standard output, standard error and exit code.
@Suite struct SMSCommandTests {
    static let day = """
        {"at":"2026-12-01T10:00:00Z","number":"13800138000","ip":"203.0.113.7","device":"d1"}
        {"at":"2026-12-01T10:00:30Z","number":"13800138000","ip":"203.0.113.8","device":"d1"}
        {"at":"2026-12-01T10:00:59Z","number":"13900139000","ip":"203.0.113.7","device":"d1"}
        {"at":"2026-12-01T10:01:00Z","number":"13900139000","ip":"203.0.113.7","device":"d1","captcha":true}
        {"at":"2026-12-01T10:01:00Z","number":"14800000000"}
        # a comment, and a blank line

        {"at":"2026-12-01T10:01:00Z","number":"+1 650 555 0100"}
        {"at":"2026-12-01T10:01:01Z","number":"13800138000"}

        """

    @Test func aDayOfRequestsAsText() async throws {
        let run = try await Binary.run(["sms", "-"], stdin: Array(Self.day.utf8))
        #expect(run.status == 0)
        #expect(run.stderr == "")
        #expect(run.lines == [
            "line 1: sent (the next send from 60 s)",
            "line 2: limited by number-minute, retry after 30 s",
            "line 3: captcha required by ip-captcha",
            "line 4: sent (the next send from 60 s)",
            "line 5: refused (cannot-take-sms): 148****0000 is in 148, an IoT-only segment (物联网业务专用号段) that takes no ordinary SMS",
            #"line 8: refused (not-mainland-mobile): invalid phone number "+1 650 555 0100": the country code is not +86; only mainland China numbers have carrier segments here"#,
            "line 9: sent (the next send from 60 s)",
            "7 requests: 3 sent, 1 captcha, 1 limited, 2 refused",
        ])
    }

    @Test func aDayOfRequestsAsNDJSON() async throws {
        let run = try await Binary.run(["sms", "-", "--json"], stdin: Array(Self.day.utf8))
        #expect(run.status == 0)
        #expect(run.lines.first == #"{"line":1,"decision":"sent","resendAfter":60}"#)
        #expect(run.lines[1] == #"{"line":2,"decision":"limited","rule":"number-minute","retryAfter":30}"#)
        #expect(run.lines[2] == #"{"line":3,"decision":"captcha","rule":"ip-captcha"}"#)
        #expect(run.lines.last == #"{"summary":true,"requests":7,"sent":3,"captcha":1,"limited":1,"refused":2,"malformed":0}"#)
        for line in run.lines { #expect(try JSONSerialization.jsonObject(with: Data(line.utf8)) is [String: Any]) }
    }

    /// A stranger who solves captchas fills the number's lane (8 a day, after 3 without a captcha); a send marked
    /// `"returningOwner":true` (its app session logged in with the number) counts in a lane of its own and goes.
    @Test func aReturningOwnersSendsReplayInTheirOwnLane() async throws {
        var lines: [String] = []
        for index in 0..<9 {
            lines.append(#"{"at":"2026-12-01T1\#(index):00:00Z","number":"13800138000","ip":"198.51.100.\#(index + 1)","captcha":true}"#)
        }
        lines.append(#"{"at":"2026-12-01T19:30:00Z","number":"13800138000","ip":"203.0.113.7","captcha":true}"#)
        lines.append(#"{"at":"2026-12-01T19:30:00Z","number":"13800138000","ip":"203.0.113.7","captcha":true,"returningOwner":true}"#)
        let run = try await Binary.run(["sms", "-"], stdin: Array((lines.joined(separator: "\n") + "\n").utf8))
        #expect(run.status == 0)
        #expect(run.stderr == "")
        #expect(run.lines[7] == "line 8: sent (the next send from 61200 s)", "the lane is full until the first send is a day old")
        #expect(run.lines[8].hasPrefix("line 9: limited by number-day-cap, retry after "), "\(run.lines)")
        #expect(run.lines[9].hasPrefix("line 10: limited by number-day-cap, retry after "), "\(run.lines)")
        #expect(run.lines[10] == "line 11: sent (the next send from 60 s)", "\(run.lines)")
        #expect(run.lines.last == "11 requests: 9 sent, 0 captcha, 2 limited, 0 refused", "\(run.lines)")
    }

    @Test func aMalformedLineIsAnErrorRecordAndTheReplayGoesOn() async throws {
        let input = """
            {"at":"2026-12-01T10:00:00Z","number":"13800138000","captha":true}
            {"at":"yesterday","number":"13800138000"}
            {"at":"2026-12-01T10:00:00Z","number":"13800138000","ip":"300.1.1.1"}
            {"at":"2026-12-01T10:00:00Z","number":13800138000}
            not json
            {"at":"2026-12-01T10:00:00Z","number":"13800138000","device":"has space"}
            {"at":"2026-12-01T10:00:00Z","number":"13800138000"}

            """
        let run = try await Binary.run(["sms", "-", "--json"], stdin: Array(input.utf8))
        #expect(run.status == 65)
        #expect(run.lines.count == 8)
        #expect(run.lines[0] == #"{"line":1,"error":"key 'captha': unknown key; a request has at, number, ip, device, session, captcha, returningOwner"}"#)
        #expect(run.lines[1].hasPrefix(#"{"line":2,"error":"key 'at': invalid timestamp \"yesterday\""#))
        #expect(run.lines[2].hasPrefix(#"{"line":3,"error":"key 'ip': invalid IP address \"300.1.1.1\""#))
        #expect(run.lines[3] == #"{"line":4,"error":"key 'number': expected a string"}"#)
        #expect(run.lines[4].hasPrefix(#"{"line":5,"error":"not a JSON object"#))
        #expect(run.lines[5].hasPrefix(#"{"line":6,"error":"key 'device': invalid device id \"has space\""#))
        #expect(run.lines[6] == #"{"line":7,"decision":"sent","resendAfter":60}"#)
        #expect(run.lines[7] == #"{"summary":true,"requests":1,"sent":1,"captcha":0,"limited":0,"refused":0,"malformed":6}"#)
    }

    /// A key is input too: one holding a line feed printed raw forged a line of the report (`line 2: …`), and
    /// a key of a megabyte came back whole. Keys that are not plain names are quoted, escaped and cut.
    @Test func anOddKeyIsQuotedNotEchoed() async throws {
        let long = String(repeating: "k", count: 100_000)
        let input = "{\"\\nline 2: sent\":1}\n{\"\(long)\":1}\n"
        let run = try await Binary.run(["sms", "-"], stdin: Array(input.utf8))
        #expect(run.status == 65)
        let printed = run.stdout + run.stderr
        #expect(!printed.contains("\nline 2: sent"), "\(printed)")
        #expect(printed.contains(#"key '"\nline 2: sent"'"#), "\(printed)")
        #expect(printed.utf8.count < 2_000, "\(printed.prefix(300))")
    }

    @Test func aReplacementPolicyDecidesInstead() async throws {
        let directory = try Package.temporaryDirectory()
        defer { removeTemporary(directory) }
        let policy = directory.appendingPathComponent("strict.csv")
        try "rule,key,counts,window_seconds,limit,over,lock_seconds,source\nnumber-10m,number,sends,600,1,limit,,test\n"
            .write(to: policy, atomically: true, encoding: .utf8)
        let input = """
            {"at":"2026-12-01T10:00:00Z","number":"13800138000"}
            {"at":"2026-12-01T10:05:00Z","number":"13800138000"}
            {"at":"2026-12-01T10:10:00Z","number":"13800138000"}

            """
        let run = try await Binary.run(["sms", "-", "--policy", policy.path], stdin: Array(input.utf8))
        #expect(run.status == 0)
        #expect(run.lines == [
            "line 1: sent (the next send from 600 s)", "line 2: limited by number-10m, retry after 300 s", "line 3: sent (the next send from 600 s)",
            "3 requests: 2 sent, 0 captcha, 1 limited, 0 refused",
        ])
    }

    @Test func aBadPolicyNamesItsFileAndLine() async throws {
        let directory = try Package.temporaryDirectory()
        defer { removeTemporary(directory) }
        let policy = directory.appendingPathComponent("bad.csv")
        try "rule,key,counts,window_seconds,limit,over,lock_seconds,source\nr,number,sends,60,0,limit,,x\n".write(to: policy, atomically: true, encoding: .utf8)
        let run = try await Binary.run(["sms", "-", "--policy", policy.path], stdin: [])
        #expect(run.status == 65)
        #expect(run.stdout == "")
        #expect(run.stderr == "onetap: error: \(policy.path):2: column 'limit': \"0\" is not a limit from 1 to 100000\n")
    }

    @Test func usageErrors() async throws {
        let none = try await Binary.run(["sms"])
        #expect(none.status == 64)
        #expect(none.stderr.contains("sms needs -, to read send requests (NDJSON) from standard input"))
        let file = try await Binary.run(["sms", "requests.ndjson"])
        #expect(file.status == 64)
        #expect(file.stderr.contains("give - as the only operand, not 'requests.ndjson'"))
    }

    @Test func noCodeIsEverPrinted() async throws {
        let input = (0..<50).map { #"{"at":"2026-12-01T10:00:\#(String(format: "%02d", $0))Z","number":"1380013\#(String(format: "%04d", $0))"}"# }
            .joined(separator: "\n")
        let run = try await Binary.run(["sms", "-", "--json"], stdin: Array(input.utf8))
        #expect(run.status == 0)
        // Six digits in a row appear only inside the masked-free numbers' own digits, never alone.
        #expect(run.stdout.range(of: #""[0-9]{6}""#, options: .regularExpression) == nil)
        #expect(!run.stdout.contains("code"))
    }
}
