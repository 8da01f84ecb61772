import Foundation
import OneTapChildProcess
import Testing

/// `onetap gate` end to end.
@Suite struct GateCommandTests {
    @Test func theIssuesExampleAsJSON() async throws {
        let run = try await Binary.run(["gate", "favourite", "share", "browse", "frobnicate", "--json"])
        #expect(run.status == 0 && run.stderr == "")
        #expect(run.lines == [
            #"{"action":"favourite","needs":"account","prompt":"登录后可进行收藏操作","default":false}"#,
            #"{"action":"share","needs":"never-prompt","prompt":null,"default":false}"#,
            #"{"action":"browse","needs":"guest","prompt":null,"default":false}"#,
            #"{"action":"frobnicate","needs":"account","prompt":"登录后继续","default":true}"#,
        ])
    }

    @Test func textAndEnglish() async throws {
        let run = try await Binary.run(["gate", "claim-invite-reward", "feedback", "--lang", "en"])
        #expect(run.status == 0)
        #expect(run.lines == [
            "claim-invite-reward: account: log in first (Log in to claim your invite reward)",
            "feedback: never-prompt: allowed, and never ask for a login",
        ])
    }

    @Test func aBadActionIsExit65AndTheRestGoOn() async throws {
        let run = try await Binary.run(["gate", "Bad Id", "comment", "--json"])
        #expect(run.status == 65)
        #expect(run.lines.count == 2)
        #expect(run.lines[0].hasPrefix(#"{"action":"Bad Id","error":"invalid action: \"Bad Id\" is not an action id"#))
        #expect(run.lines[1] == #"{"action":"comment","needs":"account","prompt":"登录后可发表评论","default":false}"#)
    }

    /// In text mode an invalid action's error goes to standard error as every command's does (it was printed
    /// on standard output, among the answers).
    @Test func aBadActionInTextIsAnErrorLineOnStandardError() async throws {
        let run = try await Binary.run(["gate", "Bad Id", "comment"])
        #expect(run.status == 65)
        #expect(run.lines == ["comment: account: log in first (登录后可发表评论)"], "\(run.stdout)")
        #expect(run.stderr.hasPrefix(#"onetap: error: invalid action: "Bad Id" is not an action id"#), "\(run.stderr)")
    }

    @Test func aReplacementTableFromDataAndItsErrors() async throws {
        let directory = try Package.temporaryDirectory()
        defer { removeTemporary(directory) }
        try "action,needs,prompt_zh,prompt_en,source\nfavourite,guest,,,ours\n*,account,请登录,Please log in,ours\n"
            .write(to: directory.appendingPathComponent("login-gate.csv"), atomically: true, encoding: .utf8)
        let run = try await Binary.run(["gate", "favourite", "comment", "--data", directory.path])
        #expect(run.lines == ["favourite: guest: allowed without a login", "comment: account: log in first (请登录) [the default: comment is not in the table]"])
        try "action,needs,prompt_zh,prompt_en,source\nfavourite,guest,,,ours\n".write(to: directory.appendingPathComponent("login-gate.csv"), atomically: true, encoding: .utf8)
        let bad = try await Binary.run(["gate", "favourite", "--data", directory.path])
        #expect(bad.status == 65 && bad.stdout == "")
        #expect(bad.stderr.contains("login-gate.csv: no * row"))
    }

    @Test func usage() async throws {
        let run = try await Binary.run(["gate"])
        #expect(run.status == 64 && run.stderr.contains("gate needs at least one action id"))
        let lang = try await Binary.run(["gate", "share", "--lang", "fr"])
        #expect(lang.status == 64 && lang.stderr.contains("--lang must be zh or en, not 'fr'"))
    }

    /// Results and error lines come out in the order of the operands when both streams go to one place (the error was
    /// written before the results buffered ahead of it).
    @Test func resultsAndErrorsStayInTheOperandsOrder() async throws {
        let outcome = try await ChildProcess.run(BuildProducts.path("onetap"), ["gate", "favourite", "BAD!", "share"], errors: .output)
        let lines = String(decoding: outcome.output, as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(outcome.termination.status == 65)
        #expect(lines.count == 3 && lines[0].hasPrefix("favourite: ") && lines[1].hasPrefix("onetap: error: invalid action") && lines[2].hasPrefix("share: "), "\(lines)")
    }
}
