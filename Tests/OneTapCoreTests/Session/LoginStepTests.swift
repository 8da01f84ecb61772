import Foundation
import Testing
@testable import OneTapCore

/// `LoginStep.Answer`'s written code: every answer has its own text, so a trace read back from a store
/// names the same results. A code whose text is a fixed result's (`timeout`), starts `exchange-`, or
/// starts with the mark `code:` is written after the mark; carrier codes are written as they are.
@Suite struct LoginStepTests {
    typealias Answer = LoginStep.Answer

    static func code(_ text: String) -> ResultCode { try! ResultCode(text) }

    /// Results and the text each is written as, worked out by hand from the rule above.
    static let written: [(Answer, String)] = [
        (.code(code("103000")), "103000"),
        (.code(code("-8100")), "-8100"),
        (.code(code("Timeout")), "Timeout"),
        (.code(code("timeouts")), "timeouts"),
        (.code(code("timeout")), "code:timeout"),
        (.code(code("switch")), "code:switch"),
        (.code(code("exchange-timeout")), "code:exchange-timeout"),
        (.code(code("exchange-1")), "code:exchange-1"),
        (.code(code("exchange-")), "code:exchange-"),
        (.code(code("code:7")), "code:code:7"),
        (.code(code("code:")), "code:code:"),
        (.code(code("codes")), "codes"),
        (.incomplete(code: code("103000"), missing: "token"), "103000"),
        (.incomplete(code: code("cancelled"), missing: "token"), "code:cancelled"),
        (.exchangeCode(code("103000")), "exchange-103000"),
        (.exchangeCode(code("timeout")), "exchange-code:timeout"),
        (.exchangeCode(code("failed")), "exchange-code:failed"),
        (.exchangeCode(code("code:1")), "exchange-code:code:1"),
        (.exchangeCode(code("exchange-1")), "exchange-exchange-1"),
        (.exchangeCode(code("switch")), "exchange-switch"),
        (.exchangeCode(code("\u{301}timeout")), "exchange-\u{301}timeout"),
        (.timeout, "timeout"),
        (.providerError("SDK crashed"), "provider-error"),
        (.switched, "switch"),
        (.abandoned(.user), "cancelled"),
        (.abandoned(.noPhoneNumber), "no-phone-number"),
        (.abandoned(.caller), "caller-cancelled"),
        (.circuitOpen, "circuit-open"),
        (.unavailable, "unavailable"),
        (.exchangeTimeout, "exchange-timeout"),
        (.exchangeFailed("connection reset"), "exchange-failed"),
        (.tokenExpired, "token-expired"),
        (.tokenReplayed, "token-replayed"),
    ]

    @Test(arguments: written)
    func eachResultIsWrittenAsItsOwnText(result: Answer, text: String) {
        #expect(result.code == text)
        #expect(Answer(code: text, detail: result.detail) == result, "read back")
    }

    /// Through a whole session and a store's round trip: the machine records an SDK code `timeout`
    /// as that code (the engine's table does not know it), and both readers read it back so, from
    /// either writer.
    @Test(arguments: ["timeout", "exchange-timeout", "code:1", "cancelled"])
    func anSDKCodeThatLooksLikeAResultSurvivesTheStore(sdkCode: String) throws {
        let session = LoginSessionTests.mobile([.result(.mobile, code: Self.code(sdkCode))])
        let step = try #require(session.trace.first)
        #expect(step.result == .code(Self.code(sdkCode)))
        let text = try session.json()
        #expect(text.contains(#""code":"code:\#(sdkCode)""#))
        #expect(try LoginSession(json: text) == session)
        #expect(try LoginSession(json: Array(text.utf8)) == session)
    }

    /// Texts no writer of ours writes, read as the rule says (a code is trimmed as `ResultCode` trims it).
    @Test(arguments: [
        (" timeout", nil, Answer.code(code("timeout"))),
        ("code: timeout", nil, .code(code("timeout"))),
        ("code:timeout", "token", .incomplete(code: code("timeout"), missing: "token")),
        ("timeout", "ignored", .timeout),
        ("provider-error", nil, .providerError("")),
        ("code:", nil, .code(code("code:"))),
        ("code: ", nil, .code(code("code:"))),
        ("exchange-", nil, .code(code("exchange-"))),
        ("exchange- 7", nil, .exchangeCode(code("7"))),
        ("exchange-code:", nil, .exchangeCode(code("code:"))),
        (" exchange-1", nil, .code(code("exchange-1"))),
    ] as [(String, String?, Answer)])
    func readsOtherSpellings(text: String, detail: String?, expected: Answer) {
        #expect(Answer(code: text, detail: detail) == expected)
        #expect(Answer(code: expected.code, detail: expected.detail) == expected, "and its own text reads back")
    }

    @Test(arguments: ["", " ", "exchange-code:" + String(repeating: "1", count: 65), String(repeating: "9", count: 65)])
    func refusesTextThatNamesNoResult(text: String) {
        #expect(Answer(code: text, detail: nil) == nil)
    }

    /// Codes built from the pieces the rule turns on, every pair and triple: each kind of result holding
    /// such a code reads back from its text as itself.
    @Test func everyCodeOfThePiecesReadsBack() {
        let pieces = ["code:", "exchange-", "timeout", "failed", "switch", "1", "-", " ", "\u{301}", "x", ":"]
        var checked = 0
        for first in pieces {
            for second in pieces {
                for third in [""] + pieces {
                    guard let value = ResultCode(parsing: first + second + third) else { continue }
                    for result in [Answer.code(value), .incomplete(code: value, missing: "uniqueid"), .exchangeCode(value)] {
                        #expect(Answer(code: result.code, detail: result.detail) == result, "\(result) written \(result.code)")
                        checked += 1
                    }
                }
            }
        }
        #expect(checked > 3000)
    }
}
