import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import OneTapChildProcess
import Testing

/// `onetap stats` end to end: the built binary on a small stream written by hand and on the committed
/// sample.
@Suite struct StatsCommandTests {
    /// Three logins: a: one-tap at 2 s (iOS); b: cancelled at 5 s; c: telecom, Tianyi times out, SMS at
    /// 38 s. A token event and a line that is no event among them.
    static let small = [
        #"{"v":2,"at":"2026-12-01T08:00:00.000Z","area":"login","event":"planned","session":"a","carrier":"mobile","evidence":"plmn","platform":"ios","elapsedMs":0,"flows":["mobile","sms"],"reason":"policy","condition":"carrier:mobile"}"#,
        #"{"v":2,"at":"2026-12-01T08:00:00.000Z","area":"login","event":"flow-started","session":"a","carrier":"mobile","evidence":"plmn","platform":"ios","elapsedMs":0,"flow":"mobile","attempt":1}"#,
        #"{"v":2,"at":"2026-12-01T08:00:00.050Z","area":"login","event":"planned","session":"b","carrier":"mobile","evidence":"plmn","elapsedMs":0,"flows":["mobile","sms"],"reason":"policy","condition":"carrier:mobile"}"#,
        #"{"v":2,"at":"2026-12-01T08:00:00.050Z","area":"login","event":"flow-started","session":"b","carrier":"mobile","evidence":"plmn","elapsedMs":0,"flow":"mobile","attempt":1}"#,
        #"{"v":2,"at":"2026-12-01T08:00:00.100Z","area":"login","event":"planned","session":"c","carrier":"telecom","evidence":"plmn","elapsedMs":0,"flows":["tianyi","sms"],"reason":"policy","condition":"carrier:telecom"}"#,
        #"{"v":2,"at":"2026-12-01T08:00:00.100Z","area":"login","event":"flow-started","session":"c","carrier":"telecom","evidence":"plmn","elapsedMs":0,"flow":"tianyi","attempt":1}"#,
        #"{"v":2,"at":"2026-12-01T08:00:01.000Z","area":"token","event":"refreshed","account":"x"}"#,
        #"{"v":2,"at":"2026-12-01T08:00:02.000Z","area":"login","event":"result","session":"a","carrier":"mobile","evidence":"plmn","platform":"ios","elapsedMs":2000,"flow":"mobile","attempt":1,"code":"103000","action":"success","meaning":"success: token obtained","next":"finish success"}"#,
        #"{"v":2,"at":"2026-12-01T08:00:02.000Z","area":"login","event":"succeeded","session":"a","carrier":"mobile","evidence":"plmn","platform":"ios","elapsedMs":2000,"flow":"mobile","ending":"success"}"#,
        #"{"v":2,"at":"2026-12-01T08:00:05.050Z","area":"login","event":"result","session":"b","carrier":"mobile","evidence":"plmn","elapsedMs":5000,"flow":"mobile","attempt":1,"code":"200020","action":"cancelled","meaning":"user cancelled login","next":"finish cancelled"}"#,
        #"{"v":2,"at":"2026-12-01T08:00:05.050Z","area":"login","event":"cancelled","session":"b","carrier":"mobile","evidence":"plmn","elapsedMs":5000,"flow":"mobile","ending":"cancelled"}"#,
        #"{"v":2,"at":"2026-12-01T08:00:08.100Z","area":"login","event":"result","session":"c","carrier":"telecom","evidence":"plmn","elapsedMs":8000,"flow":"tianyi","attempt":1,"code":"timeout","action":"fallback","meaning":"no answer in time: fall back","next":"attempt sms"}"#,
        #"{"v":2,"at":"2026-12-01T08:00:08.100Z","area":"login","event":"flow-started","session":"c","carrier":"telecom","evidence":"plmn","elapsedMs":8000,"flow":"sms","attempt":1}"#,
        #"{"v":2,"at":"2026-12-01T08:00:38.100Z","area":"login","event":"result","session":"c","carrier":"telecom","evidence":"plmn","elapsedMs":38000,"flow":"sms","attempt":1,"code":"0","action":"success","meaning":"the SMS code was verified","next":"finish success"}"#,
        #"{"v":2,"at":"2026-12-01T08:00:38.100Z","area":"login","event":"succeeded","session":"c","carrier":"telecom","evidence":"plmn","elapsedMs":38000,"flow":"sms","ending":"success"}"#,
    ]

    static var input: [UInt8] { Array((small.joined(separator: "\n") + "\n").utf8) }

    static let samplePath = Package.path("Tests/Samples/login-events.ndjson")

    @Test func aSmallStreamAsText() async throws {
        let run = try await Binary.run(["stats", "-"], stdin: Self.input)
        #expect(run.status == 0)
        #expect(run.stderr == "")
        #expect(run.lines == [
            "3 logins from 14 events in standard input, 2026-12-01T08:00:00.000Z to 2026-12-01T08:00:38.100Z",
            "(1 other event skipped)",
            "",
            "carrier  first flow  logins  one-tap  SMS  cancelled  failed  unfinished  one-tap share (95% Wilson)  success p50     p95  alerts",
            "mobile   mobile           2        1    0          1       0           0           50.0% (9.5–90.5%)        2.0 s   2.0 s       0",
            "telecom  tianyi           1        0    1          0       0           0            0.0% (0.0–79.3%)       38.0 s  38.0 s       0",
            "",
            "mobile · mobile: 2 logins, 2 results; the most frequent besides success (share of the results):",
            "  flow    code    count  share  action     meaning",
            "  mobile  200020      1  50.0%  cancelled  user cancelled login",
            "",
            "telecom · tianyi: 1 login, 2 results; the most frequent besides success (share of the results):",
            "  flow    code     count  share  action    meaning",
            "  tianyi  timeout      1  50.0%  fallback  no answer in time: fall back",
        ])
    }

    /// A meaning in the stream that holds a terminal's escape sequences (a client's fault text, written by a
    /// version that kept it as it came) is shown with U+FFFD in their place: no byte below 0x20 but the line
    /// breaks reaches the terminal (an attacker's read: raw ESC and OSC bytes reached it).
    @Test func escapeSequencesInAStreamNeverReachTheTerminal() async throws {
        let hostile = Self.small.map {
            $0.replacingOccurrences(of: "no answer in time: fall back", with: #"owned\u001b]0;title\u0007\u001b[2J\u009b31m\u202e"#)
        }
        let run = try await Binary.run(["stats", "-"], stdin: Array((hostile.joined(separator: "\n") + "\n").utf8))
        #expect(run.status == 0)
        #expect(!run.stdoutBytes.contains { $0 < 0x20 && $0 != 0x0A })
        #expect(!run.stdout.unicodeScalars.contains { $0 == "\u{9B}" || $0 == "\u{202E}" })
        #expect(run.stdout.contains("owned\u{FFFD}]0;title\u{FFFD}\u{FFFD}[2J\u{FFFD}31m\u{FFFD}"), "\(run.stdout)")
    }

    /// A code or meaning in the stream is one cell of the report: one holding a line break printed it raw
    /// and forged a row of the table (`  tianyi  103000  9,999  99.9%`), and one of megabytes came back whole.
    /// Cells are cut and their line breaks and tabs replaced like any unsafe character.
    @Test func aCellFromTheStreamCannotForgeARow() async throws {
        let plain = try await Binary.run(["stats", "-"], stdin: Self.input)
        let forged = #"x\n  tianyi  103000  9,999  99.9%"#
        let hostile = Self.small.map {
            $0.replacingOccurrences(of: "user cancelled login", with: forged + String(repeating: "m", count: 10_000))
                .replacingOccurrences(of: #""code":"200020""#, with: #""code":"200\n020""#)
        }
        let run = try await Binary.run(["stats", "-"], stdin: Array((hostile.joined(separator: "\n") + "\n").utf8))
        #expect(run.status == 0)
        #expect(run.lines.count == plain.lines.count, "\(run.stdout)")
        #expect(!run.lines.contains { $0.hasPrefix("  tianyi  103000") })
        #expect(run.stdout.utf8.count < plain.stdout.utf8.count + 1_000)
    }

    @Test func aSmallStreamAsNDJSON() async throws {
        let run = try await Binary.run(["stats", "-", "--json"], stdin: Self.input)
        #expect(run.status == 0)
        let objects = try run.lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        #expect(objects.count == 3)
        let mobile = objects[0]
        #expect(mobile["carrier"] as? String == "mobile")
        #expect(mobile["firstFlow"] as? String == "mobile")
        #expect([mobile["logins"], mobile["oneTap"], mobile["sms"], mobile["cancelled"], mobile["failed"], mobile["unfinished"]].map { $0 as? Int } == [2, 1, 0, 1, 0, 0])
        #expect(mobile["oneTapShare"] as? Double == 0.5)
        #expect(mobile["oneTapShareLow"] as? Double == 0.094531)  // Wilson, 1 of 2
        #expect(mobile["successP50Ms"] as? Int == 2000)
        let codes = try #require(mobile["topCodes"] as? [[String: Any]])
        #expect(codes.map { $0["code"] as? String } == ["103000", "200020"])
        #expect(codes.first?["meaning"] as? String == "success: token obtained")
        #expect((mobile["topFailures"] as? [[String: Any]])?.map { $0["code"] as? String } == ["200020"])
        #expect(objects[1]["successP95Ms"] as? Int == 38000)
        #expect(objects[2]["summary"] as? Bool == true)
        #expect([objects[2]["lines"], objects[2]["logins"], objects[2]["ignored"], objects[2]["malformed"]].map { $0 as? Int } == [15, 3, 1, 0])
    }

    @Test func aMalformedLineIsAnErrorRecordAndTheCountGoesOn() async throws {
        var lines = Self.small
        lines.insert("this line is no event", at: 3)
        lines.insert(#"{"v":2,"at":"2026-12-01T08:00:00Z","area":"login","event":"planned","session":"d","carrier":"mobil","flows":["sms"],"condition":"sim-absent"}"#, at: 5)
        let input = Array((lines.joined(separator: "\n") + "\n").utf8)
        let text = try await Binary.run(["stats", "-"], stdin: input)
        #expect(text.status == 65)
        #expect(text.lines[0] == "line 4: error: not a JSON object: an event is one object per line")
        #expect(text.lines[1].hasPrefix(#"line 6: error: key 'carrier': unknown carrier "mobil"; the carriers are"#))
        #expect(text.lines[2].hasPrefix("3 logins from 14 events"))
        #expect(text.lines[3] == "(1 other event skipped; 2 malformed lines)")
        let json = try await Binary.run(["stats", "-", "--json"], stdin: input)
        #expect(json.status == 65)
        #expect(json.lines[0] == #"{"line":4,"error":"not a JSON object: an event is one object per line"}"#)
        #expect(json.lines.last?.contains(#""malformed":2"#) == true)
    }

    @Test func theCommittedSample() async throws {
        let run = try await Binary.run(["stats", Self.samplePath, "--json", "--by", "carrier"])
        #expect(run.status == 0)
        let objects = try run.lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        let summary = try #require(objects.last)
        #expect(summary["logins"] as? Int == 500)
        #expect(summary["lines"] as? Int == 2706)
        #expect(summary["malformed"] as? Int == 0)
        let rows = objects.dropLast()
        #expect(rows.map { $0["carrier"] as? String } == ["mobile", "unicom", "telecom", "unknown", "broadnet"])
        // Every login ends one way, and the rows add up to the logins.
        var total = 0
        for row in rows {
            let endings = ["oneTap", "sms", "cancelled", "failed", "unfinished"].map { row[$0] as? Int ?? -1 }
            #expect(endings.reduce(0, +) == row["logins"] as? Int)
            #expect(row["firstFlow"] == nil, "not split by first flow")
            total += row["logins"] as? Int ?? 0
        }
        #expect(total == 500)
    }

    @Test func theChartIsWrittenAndReadsAsSVG() async throws {
        let directory = try Package.temporaryDirectory()
        defer { removeTemporary(directory) }
        let chart = directory.appendingPathComponent("funnel.svg").path
        let run = try await Binary.run(["stats", Self.samplePath, "--svg", chart, "--sms-price", "0.05"])
        #expect(run.status == 0)
        let document = try XMLDocument(contentsOf: URL(fileURLWithPath: chart))
        let bars = try document.nodes(forXPath: "//*[local-name()='g'][@class='bar']")
        #expect(bars.count == 5)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["funnel.svg"], "no temporary file left beside it")
    }

    /// An attacker's read of the CLI: `--svg` naming the events file itself (or a link to it) read the events, then
    /// renamed the chart over them: exit 0, and the event log was gone. Refused before anything is read (exit 64),
    /// the file as it was.
    @Test func aChartThatWouldReplaceTheEventsIsRefused() async throws {
        let directory = try Package.temporaryDirectory()
        defer { removeTemporary(directory) }
        let events = directory.appendingPathComponent("events.ndjson").path
        let original = try String(contentsOfFile: Self.samplePath, encoding: .utf8)
        try original.write(toFile: events, atomically: true, encoding: .utf8)
        let link = directory.appendingPathComponent("chart.svg").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: events)
        for chart in [events, link, directory.path + "/./events.ndjson"] {
            let run = try await Binary.run(["stats", events, "--svg", chart])
            #expect(run.status == 64 && run.stdout.isEmpty, "\(chart)")
            #expect(run.stderr == "onetap: error: --svg '\(chart)' is '\(events)', which this command reads: the output would replace it; nothing was read or written\n")
            #expect(try String(contentsOfFile: events, encoding: .utf8) == original)
        }
        // Standard input read from the file the chart would replace (an attacker's read of the fix).
        let piped = try await ChildProcess.run("/bin/sh", ["-c", "exec \"$0\" stats - --svg \"$1\" < \"$1\"", BuildProducts.path("onetap"), events])
        #expect(piped.termination.status == 64)
        #expect(String(decoding: piped.errors, as: UTF8.self)
            == "onetap: error: --svg '\(events)' is standard input, which this command reads: the output would replace it; nothing was read or written\n")
        #expect(try String(contentsOfFile: events, encoding: .utf8) == original)
    }

    /// An attacker's read of the CLI: `--svg` naming a symbolic link, a FIFO or a device replaced that entry with a
    /// regular file (`--svg /dev/null` as root replaced the system's `/dev/null`; a link to a published chart was
    /// replaced, not followed). What is not a regular file is refused before anything is read (exit 64), and stays.
    @Test func aChartThatWouldReplaceALinkAFIFOOrADeviceIsRefused() async throws {
        let directory = try Package.temporaryDirectory()
        defer { removeTemporary(directory) }
        let published = directory.appendingPathComponent("published.svg").path
        try "<svg/>".write(toFile: published, atomically: true, encoding: .utf8)
        let link = directory.appendingPathComponent("chart.svg").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: published)
        let device = directory.appendingPathComponent("null.svg").path
        try FileManager.default.createSymbolicLink(atPath: device, withDestinationPath: "/dev/null")
        let fifo = directory.appendingPathComponent("fifo.svg").path
        #expect(mkfifo(fifo, 0o600) == 0)
        // `/dev/null` itself only when not root: a regression would replace the machine's own as root (CI runs as root).
        let system = geteuid() == 0 ? [] : [("/dev/null", "a character device")]
        for (chart, kind) in [(link, "a symbolic link"), (device, "a symbolic link"), (fifo, "a FIFO")] + system {
            let run = try await Binary.run(["stats", "-", "--svg", chart], stdin: Self.input)
            #expect(run.status == 64 && run.stdout.isEmpty, "\(chart): \(run.status) \(run.stdout)")
            #expect(run.stderr == "onetap: error: --svg '\(chart)' is \(kind), not a regular file: the output would replace it; name a regular file or a new path; nothing was read or written\n")
        }
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == published)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: device) == "/dev/null")
        #expect(try String(contentsOfFile: published, encoding: .utf8) == "<svg/>")
        var info = stat()
        #expect(lstat(fifo, &info) == 0 && (info.st_mode & S_IFMT) == S_IFIFO)
        #expect(stat("/dev/null", &info) == 0 && (info.st_mode & S_IFMT) == S_IFCHR)
    }

    @Test func whatCannotBeReadOrWrittenIsSaid() async throws {
        let missing = try await Binary.run(["stats", "/nonexistent/events.ndjson"])
        #expect(missing.status == 66)
        #expect(missing.stderr == "onetap: error: cannot read '/nonexistent/events.ndjson': No such file or directory\n")
        let directory = try await Binary.run(["stats", "/tmp"])
        #expect(directory.status == 66)
        #expect(directory.stderr.contains("it is a directory"))
        let unwritable = try await Binary.run(["stats", "-", "--svg", "/nonexistent/dir/chart.svg"], stdin: Self.input)
        #expect(unwritable.status == 74)
        #expect(unwritable.stderr.hasPrefix("onetap: error: cannot write the chart to '/nonexistent/dir/chart.svg': No such file or directory"))
        #expect(unwritable.lines.first?.hasPrefix("3 logins") == true, "the table is printed before")
    }

    @Test func usageErrorsExit64WithTheCommandsHelpNamed() async throws {
        let run = try await Binary.run(["stats"])
        #expect(run.status == 64)
        #expect(run.stderr == "onetap: error: stats needs an events file, or - to read events from standard input (see 'onetap stats --help')\n")
        let help = try await Binary.run(["stats", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.hasPrefix("USAGE: onetap stats FILE|-"))
    }

    @Test func anEmptyStreamHasNoLogins() async throws {
        let run = try await Binary.run(["stats", "-"], stdin: [])
        #expect(run.status == 0)
        #expect(run.lines == ["0 logins from 0 events in standard input", "no logins"])
    }

    /// A price is plain decimals: Swift's `Double` also reads hexadecimal (`0x1p4` is 16), which the option took.
    @Test(arguments: ["0x1p4", "0x10", "nan", "inf"])
    func aPriceInAnotherNotationIsAUsageError(_ text: String) async throws {
        let run = try await Binary.run(["stats", "-", "--sms-price", text], stdin: [])
        #expect(run.status == 64, "\(run.stdout)\(run.stderr)")
        #expect(run.stderr.contains("--sms-price"), "\(run.stderr)")
    }
}
