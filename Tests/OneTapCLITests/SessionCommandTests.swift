import Foundation
import Testing

/// `onetap session --events`: the logins of transcripts as the event stream, end to end.
@Suite struct SessionCommandTests {
    static let iosMobile = """
        {"sim":"present","plmn":"46000","platform":"ios","at":"2026-12-01T08:00:00Z"}
        {"flow":"mobile","code":"103000","token":"T-SECRET","uniqueId":"u","at":"2026-12-01T08:00:02.5Z"}
        {"exchange":"103000","phone":"13912345678","at":"2026-12-01T08:00:02.75Z"}

        """

    @Test func aTranscriptsEventsOnStandardInput() async throws {
        let run = try await Binary.run(["session", "--events", "-"], stdin: Array(Self.iosMobile.utf8))
        #expect(run.status == 0)
        #expect(run.stderr == "")
        #expect(run.lines.count == 5)
        let objects = try run.lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        #expect(objects.map { $0["event"] as? String } == ["planned", "flow-started", "result", "result", "succeeded"])
        #expect(objects.map { $0["elapsedMs"] as? Int } == [0, 0, 2500, 2750, 2750])
        for object in objects {
            #expect(object["v"] as? Int == 2)
            #expect(object["carrier"] as? String == "mobile")
            #expect(object["platform"] as? String == "ios")
            #expect(object["session"] as? String == objects[0]["session"] as? String)
        }
        #expect(objects[3]["code"] as? String == "exchange-103000")
        #expect(objects[4]["ending"] as? String == "success")
        #expect(!run.stdout.contains("T-SECRET"))
        #expect(!run.stdout.contains("13912345678"))
    }

    /// A device attacker's read: on standard input a line too long to read, or one that is not UTF-8, was reported
    /// but the run still exited 0 (or 1), where a file with such a line exits 65 as the help says; the bytes that are
    /// not UTF-8 were read as U+FFFD replacements. Both are malformed lines now: reported, skipped, exit 65.
    @Test func aMalformedLineOnStandardInputExitsAsDataError() async throws {
        let lines = Self.iosMobile.split(separator: "\n").map { Array($0.utf8) }
        let tooLong = Array(repeating: UInt8(ascii: "x"), count: 5 << 20)
        let long = try await Binary.run(["session", "-"], stdin: lines[0] + [10] + tooLong + [10] + lines[1] + [10] + lines[2] + [10])
        #expect(long.status == 65)
        #expect(long.stdout.contains("line 2 is too long to be a report"), "\(long.stdout)")
        let notUTF8: [UInt8] = Array(#"{"flow":"mobile","code":"102101","at":"2026-12-01T08:00:01Z","x":""#.utf8) + [0xFF, 0xFE] + Array(#""}"#.utf8)
        let bad = try await Binary.run(["session", "-"], stdin: lines[0] + [10] + notUTF8 + [10] + lines[1] + [10] + lines[2] + [10])
        #expect(bad.status == 65)
        #expect(bad.stdout.contains("line 2 is not UTF-8 text"), "\(bad.stdout)")
    }

    /// An attacker's read of the CLI: the help's own example (`onetap session` on a `.transcript` of the decision
    /// tables) exited 65, each `=> {…}` expectation line replayed as a malformed report. A replay skips them, as the
    /// README's transcript format has them.
    @Test func theHelpsExampleReplaysATranscriptWithItsExpectations() async throws {
        let run = try await Binary.run(["session", Package.path("Tests/OneTapCLITests/DecisionTables/mobile-exchange.transcript")])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stderr.isEmpty)
        #expect(!run.stdout.contains("error"), "\(run.stdout)")
        #expect(run.lines == [
            "line 3: run mobile (attempt 1) · version 1 · policy", "line 5: run mobile (attempt 1) · version 1 · progress 200087: keep waiting",
            "line 7: exchange the mobile token · version 2 · success: token obtained: exchange the token",
            "line 9: done: success via mobile · version 3 · number returned",
        ])
    }

    @Test func theSameTranscriptsMakeTheSameEventsAndEachLoginItsOwnSession() async throws {
        let directory = try Package.temporaryDirectory()
        defer { removeTemporary(directory) }
        let file = directory.appendingPathComponent("a.transcript").path
        try Self.iosMobile.write(toFile: file, atomically: true, encoding: .utf8)
        let first = try await Binary.run(["session", "--events", file, file])
        let second = try await Binary.run(["session", "--events", file, file])
        #expect(first.status == 0)
        #expect(first.stdout == second.stdout)
        let sessions = try Set(first.lines.map { line in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON object: \(line)")
            return try #require(object["session"] as? String, "an event without a session: \(line)")
        })
        #expect(sessions.count == 2)
    }

    @Test func whatIsNoEventGoesToStandardError() async throws {
        let input = """
            {"sim":"present","plmn":"46011"}
            {"flow":"tianyi","cod":"0"}
            {"flow":"mobile","code":"0"}

            """
        let run = try await Binary.run(["session", "--events", "-"], stdin: Array(input.utf8))
        #expect(run.status == 65)
        #expect(run.lines.count == 2)  // planned, flow-started
        let errors = run.stderr.split(separator: "\n").map(String.init)
        #expect(errors.count == 3)
        #expect(errors[0].hasPrefix("onetap: standard input: line 2: error:"))
        #expect(errors[1].hasPrefix("onetap: standard input: line 3: rejected (wrong-flow):"))
        #expect(errors[2] == "onetap: standard input: the login did not end (waiting: run)")
    }

    @Test func eventsAndJSONTogetherAreAUsageError() async throws {
        let run = try await Binary.run(["session", "--events", "--json", "-"])
        #expect(run.status == 64)
        #expect(run.stderr.contains("give --json or --events, not both"))
    }

    /// The JSON fields are the ones the help names (it named `stage` and `kind`, which never appear, and
    /// left out `flow`, `attempt`, `ending` and `reason`).
    @Test func theJSONFieldsAreTheOnesTheHelpNames() async throws {
        let input = Self.iosMobile + "{\"flow\":\"tianyi\",\"code\":\"0\"}\nnot json\n"
        let run = try await Binary.run(["session", "--json", "-"], stdin: Array(input.utf8))
        let objects = try run.lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        let keys = Set(objects.flatMap(\.keys))
        #expect(keys == ["line", "next", "flow", "attempt", "ending", "reason", "version", "rejected", "error"], "\(run.stdout)")
        let help = try await Binary.run(["session", "--help"])
        let words = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(words.contains("JSON fields: line, next, flow, attempt, ending, reason, version; a rejected report: line, rejected, reason; a malformed line: line, error"))
    }

    /// A transcript file with CRLF line ends replays as the same bytes on standard input do (a CLI attacker's read:
    /// Swift reads "\r\n" as one character, so the file was one line, "text after the JSON value", exit 65).
    @Test func aCRLFFileReplaysAsStandardInputDoes() async throws {
        let directory = try Package.temporaryDirectory()
        defer { removeTemporary(directory) }
        let file = directory.appendingPathComponent("crlf.transcript").path
        let crlf = Self.iosMobile.replacingOccurrences(of: "\n", with: "\r\n")
        try crlf.write(toFile: file, atomically: true, encoding: .utf8)
        let fromFile = try await Binary.run(["session", file])
        let fromInput = try await Binary.run(["session", "-"], stdin: Array(crlf.utf8))
        #expect(fromFile.status == 0 && fromFile.stderr == "", "\(fromFile.stdout)\(fromFile.stderr)")
        #expect(fromFile.stdout == fromInput.stdout && fromInput.status == 0)
    }

    /// A report member written twice is malformed, as in every other JSON input (a CLI attacker's read: the last one
    /// was kept, so `"code":"200020","code":"103000"` replayed as a success and a reviewer reading the first saw a failure).
    @Test func aReportMemberWrittenTwiceIsMalformed() async throws {
        let lines = Self.iosMobile.split(separator: "\n").map(String.init)
        let twice = #"{"flow":"mobile","code":"200020","code":"103000","token":"T","at":"2026-12-01T08:00:02Z"}"#
        let run = try await Binary.run(["session", "-"], stdin: Array((lines[0] + "\n" + twice + "\n" + lines[2] + "\n").utf8))
        #expect(run.status == 65, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains(#""code" appears twice"#), "\(run.stdout)")
    }
}
