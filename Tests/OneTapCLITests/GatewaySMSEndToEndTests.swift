import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import OneTapTesting
import Testing

/// `onetap gateway sms` end to end: the built `onetap` runs the built `onetap-gateway` against the Python fakes of
/// Aliyun SMS `SendSms` (Fakes/aliyun_sms.py, signature V3 recomputed) and Tencent Cloud SMS `SendSms`
/// (Fakes/tencent_sms_send_sms.py, TC3-HMAC-SHA256 recomputed), whose destination number chooses the answer. The
/// expected lines are written from the command's help: sent exits 0; number-rejected, throttled and failed exit 1
/// with the vendor's code; 65 a malformed answer, 69 unreachable, 64 usage. The destination shows masked; neither the
/// code sent nor a secret is printed.
@Suite(.timeLimit(.minutes(2))) struct GatewaySMSEndToEndTests {
    static let keyID = "LTAI5tFakeKeyId"
    static let aliyunSecret = "fake-access-key-secret"
    static let tencentKey = "onetap-fake-secret-key"
    static let environment = ["ALIYUN_SECRET": aliyunSecret, "TENCENT_KEY": tencentKey]
    /// The code each send carries: a test code, in no output.
    static let code = "482913"

    static func aliyunFake() async throws -> FakeServer {
        try await FakeServer.start("aliyun_sms.py", arguments: [
            "--access-key-id", keyID, "--secret", aliyunSecret, "--sign-name", "阿里云短信测试", "--template-code", "SMS_154950909",
        ])
    }

    static func tencentFake() async throws -> FakeServer {
        try await FakeServer.start("tencent_sms_send_sms.py", arguments: [
            "--secret-id", "AKIDonetapFAKE", "--secret-key", tencentKey, "--sdk-app-id", "1400006666", "--sign-name", "腾讯云", "--template-id", "1110",
        ])
    }

    static func aliyun(_ url: String) throws -> String {
        try GatewayEndToEndTests.config(#"""
            {"aliyun-sms": {"accessKeyId": "\#(keyID)", "accessKeySecret": {"env": "ALIYUN_SECRET"}, "signName": "阿里云短信测试",
                            "templateCode": "SMS_154950909", "url": "\#(url)"}}
            """#)
    }

    static func tencent(_ url: String) throws -> String {
        try GatewayEndToEndTests.config(#"""
            {"tencent-sms": {"secretId": "AKIDonetapFAKE", "secretKey": {"env": "TENCENT_KEY"}, "sdkAppId": "1400006666", "signName": "腾讯云",
                             "templateId": "1110", "url": "\#(url)"}}
            """#)
    }

    /// `printf '%s\n' CODE | onetap gateway sms GATEWAY --config FILE --to N --param - …`.
    static func sms(_ gateway: String, _ file: String, to number: String, code: String = Self.code, _ extra: [String] = []) async throws -> Run {
        try await Binary.run(
            ["gateway", "sms", gateway, "--config", file, "--to", number, "--param", "-"] + extra, stdin: Array("\(code)\n".utf8), environment: environment)
    }

    /// Neither output holds the code sent, a secret, the number unmasked, or a redaction (onetap redacts the code from
    /// the tool's errors: the tool itself must not have written it).
    static func expectNothingSecret(_ run: Run, number: String) {
        for text in [run.stdout, run.stderr] {
            for secret in [code, aliyunSecret, tencentKey] { #expect(!text.contains(secret), "a secret was printed") }
            #expect(!text.contains(number), "the number was printed unmasked")
            #expect(!text.contains("<redacted>"))
        }
    }

    // MARK: Aliyun SMS

    /// Sent: exit 0, and the fake received the code in the template's variable.
    @Test func aliyunSentIsExit0() async throws {
        let server = try await Self.aliyunFake()
        defer { server.stop() }
        let file = try Self.aliyun(server.url("").absoluteString)
        let text = try await Self.sms("aliyun-sms", file, to: "13800138000")
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.lines == ["gateway  aliyun-sms", "outcome  sent", "code     none", "number   138****8000"])
        #expect(text.stderr.isEmpty)
        Self.expectNothingSecret(text, number: "13800138000")
        let (data, _) = try await URLSession.shared.data(from: server.url("/_sent?number=13800138000"))
        #expect(String(decoding: data, as: UTF8.self) == #"{"TemplateParam": "{\"code\":\"482913\"}"}"#)
        let json = try await Self.sms("aliyun-sms", file, to: "13800138000", ["--json"])
        #expect(json.status == 0, "\(json.stderr)")
        #expect(json.lines == [#"{"gateway":"aliyun-sms","outcome":"sent","number":"138****8000"}"#])
        Self.expectNothingSecret(json, number: "13800138000")
    }

    /// The vendor answered and did not take the message: exit 1, the outcome, Aliyun's code and its meaning (issue
    /// 22, item 7: "printing the code, its meaning and action") on standard output.
    @Test(arguments: [
        ("13800000011", "number-rejected", "isv.MOBILE_NUMBER_ILLEGAL", "Aliyun refuses the number (号码格式非法)", "138****0011"),
        ("13800000012", "throttled", "isv.BUSINESS_LIMIT_CONTROL", "Aliyun's sending-frequency limit for the number was reached (触发业务流控)", "138****0012"),
        ("13800000013", "throttled", "isv.DAY_LIMIT_CONTROL", "the account's daily sending limit set in Aliyun's console was reached (触发日发送限额)", "138****0013"),
        ("13800000014", "failed", "isv.OUT_OF_SERVICE", "Aliyun did not take the message", "138****0014"),
    ])
    func aliyunRefusedIsExit1(number: String, outcome: String, code: String, meaning: String, masked: String) async throws {
        let server = try await Self.aliyunFake()
        defer { server.stop() }
        let file = try Self.aliyun(server.url("").absoluteString)
        let text = try await Self.sms("aliyun-sms", file, to: number)
        #expect(text.status == 1, "\(text.stderr)")
        #expect(text.lines == ["gateway  aliyun-sms", "outcome  \(outcome)", "code     \(code)", "meaning  \(meaning)", "number   \(masked)"])
        #expect(text.stderr.isEmpty)
        Self.expectNothingSecret(text, number: number)
        let json = try await Self.sms("aliyun-sms", file, to: number, ["--json"])
        #expect(json.status == 1)
        #expect(json.lines == [#"{"gateway":"aliyun-sms","outcome":"\#(outcome)","code":"\#(code)","meaning":"\#(meaning)","number":"\#(masked)"}"#])
        Self.expectNothingSecret(json, number: number)
    }

    @Test(arguments: [
        ("13800000003", "onetap: error: aliyun-sms: malformed answer: "),
        ("13800000004", "onetap: error: aliyun-sms: the answer's content type is 'text/html', not JSON\n"),
        ("13800000500", "onetap: error: aliyun-sms: HTTP status 500\n"),
        ("13800000002", "onetap: error: aliyun-sms: malformed answer: the answer was cut short (the connection closed mid-body)\n"),
    ])
    func aliyunMalformedAnswerIsExit65(number: String, error: String) async throws {
        let server = try await Self.aliyunFake()
        defer { server.stop() }
        let file = try Self.aliyun(server.url("").absoluteString)
        let run = try await Self.sms("aliyun-sms", file, to: number, ["--json"])
        #expect(run.status == 65, "\(run.stdout) \(run.stderr)")
        #expect(run.stdout.isEmpty)
        #expect(error.hasSuffix("\n") ? run.stderr == error : run.stderr.hasPrefix(error), "\(run.stderr)")
        Self.expectNothingSecret(run, number: number)
    }

    @Test func aliyunUnreachableIsExit69() async throws {
        // Loopback port 1: no fake listens there (a stopped fake's port could be taken by another suite's fake).
        let url = "http://127.0.0.1:1" + ""
        let run = try await Self.sms("aliyun-sms", try Self.aliyun(url), to: "13800138000")
        #expect(run.status == 69, "\(run.stdout) \(run.stderr)")
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.hasPrefix("onetap: error: aliyun-sms: "), "\(run.stderr)")
        #expect(run.stderr.contains("the connection was refused"), "\(run.stderr)")
        Self.expectNothingSecret(run, number: "13800138000")
    }

    /// A short code corrupts an error line: onetap redacts the code wherever it occurs in the tool's errors, so
    /// `--param 503` turns "HTTP status 503" into "HTTP status <redacted>". The redaction is in
    /// Sources/OneTapCLI/Commands/GatewayCommand.swift (outside this change): a known issue until it is fixed there,
    /// when this test reports the known issue missing and the wrapper goes.
    /// The code is hidden only where it stands whole: a code that is part of a longer number in an error line
    /// (`50` in `503`) leaves the line as the tool wrote it (the old redaction printed `HTTP status <redacted>3`).
    @Test func aShortCodeDoesNotCorruptAnErrorLine() async throws {
        let server = try await Self.aliyunFake()
        defer { server.stop() }
        let file = try Self.aliyun(server.url("").absoluteString)
        let run = try await Self.sms("aliyun-sms", file, to: "13800000503", code: "50")
        #expect(run.status == 65)
        #expect(run.stderr == "onetap: error: aliyun-sms: HTTP status 503\n")
    }

    // MARK: Tencent Cloud SMS

    @Test func tencentSentIsExit0() async throws {
        let server = try await Self.tencentFake()
        defer { server.stop() }
        let file = try Self.tencent(server.url("/").absoluteString)
        let text = try await Self.sms("tencent-sms", file, to: "13800138000")
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.lines == ["gateway  tencent-sms", "outcome  sent", "code     none", "number   138****8000"])
        #expect(text.stderr.isEmpty)
        Self.expectNothingSecret(text, number: "13800138000")
        let json = try await Self.sms("tencent-sms", file, to: "13800138000", ["--json"])
        #expect(json.status == 0, "\(json.stderr)")
        #expect(json.lines == [#"{"gateway":"tencent-sms","outcome":"sent","number":"138****8000"}"#])
    }

    /// Each of SendStatusSet's codes and Response.Error's the fake answers: exit 1, the outcome the help names, the
    /// code's meaning with Tencent's RequestId (a fresh UUID each answer, shown here as X).
    @Test(arguments: [
        ("13800000004", "number-rejected", "InvalidParameterValue.IncorrectPhoneNumber", "the number's format is wrong", "138****0004"),
        ("13800000005", "number-rejected", "FailedOperation.PhoneNumberInBlacklist", "the number is on the do-not-disturb list (unsubscribed or the carrier's list)", "138****0005"),
        ("13800000002", "throttled", "LimitExceeded.PhoneNumberThirtySecondLimit", "the number's 30-second limit was reached", "138****0002"),
        ("13800000007", "throttled", "LimitExceeded.AppDailyLimit", "the application's daily limit was reached", "138****0007"),
        ("13800000006", "failed", "FailedOperation.InsufficientBalanceInSmsPackage", "the SMS package's balance is used up", "138****0006"),
    ])
    func tencentRefusedIsExit1(number: String, outcome: String, code: String, meaning: String, masked: String) async throws {
        let server = try await Self.tencentFake()
        defer { server.stop() }
        let file = try Self.tencent(server.url("/").absoluteString)
        let json = try await Self.sms("tencent-sms", file, to: number, ["--json"])
        #expect(json.status == 1, "\(json.stderr)")
        #expect(json.lines.map(Self.requestIDAsX) == [#"{"gateway":"tencent-sms","outcome":"\#(outcome)","code":"\#(code)","meaning":"\#(meaning) (RequestId X)","number":"\#(masked)"}"#])
        #expect(json.stderr.isEmpty)
        Self.expectNothingSecret(json, number: number)
        let text = try await Self.sms("tencent-sms", file, to: number)
        #expect(text.status == 1)
        #expect(text.lines.map(Self.requestIDAsX) == ["gateway  tencent-sms", "outcome  \(outcome)", "code     \(code)", "meaning  \(meaning) (RequestId X)", "number   \(masked)"])
    }

    /// `RequestId 6f0c…-…` as `RequestId X`.
    static func requestIDAsX(_ line: String) -> String {
        line.replacing(/RequestId [0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/, with: "RequestId X")
    }

    @Test(arguments: [
        ("13900000004", "onetap: error: tencent-sms: malformed answer: "),
        ("13900000005", "onetap: error: tencent-sms: the answer's content type is 'text/html', not JSON\n"),
        ("13900000002", "onetap: error: tencent-sms: HTTP status 500\n"),
        ("13900000003", "onetap: error: tencent-sms: malformed answer: the answer was cut short (the connection closed mid-body)\n"),
    ])
    func tencentMalformedAnswerIsExit65(number: String, error: String) async throws {
        let server = try await Self.tencentFake()
        defer { server.stop() }
        let file = try Self.tencent(server.url("/").absoluteString)
        let run = try await Self.sms("tencent-sms", file, to: number)
        #expect(run.status == 65, "\(run.stdout) \(run.stderr)")
        #expect(run.stdout.isEmpty)
        #expect(error.hasSuffix("\n") ? run.stderr == error : run.stderr.hasPrefix(error), "\(run.stderr)")
        Self.expectNothingSecret(run, number: number)
    }

    @Test func tencentUnreachableIsExit69() async throws {
        // Loopback port 1: no fake listens there (a stopped fake's port could be taken by another suite's fake).
        let url = "http://127.0.0.1:1" + "/"
        let run = try await Self.sms("tencent-sms", try Self.tencent(url), to: "13800138000")
        #expect(run.status == 69, "\(run.stdout) \(run.stderr)")
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.hasPrefix("onetap: error: tencent-sms: "), "\(run.stderr)")
        #expect(run.stderr.contains("the connection was refused"), "\(run.stderr)")
        Self.expectNothingSecret(run, number: "13800138000")
    }

    // MARK: usage

    /// Without --to or --param -, with a code on the command line, or with none on standard input, nothing runs:
    /// exit 64, the code never echoed.
    @Test(arguments: [
        (["--to", "13800138000"], "", "gateway sms needs --to N and the code the template gets on standard input: --param -"),
        (["--param", "-"], "482913\n", "gateway sms needs --to N and the code the template gets on standard input: --param -"),
        (["--to", "1380013800", "--param", "-"], "482913\n", "--to takes a mainland mobile number (13800138000): 10 digits after any country prefix; a mainland mobile number has 11"),
        (["--to", "13800138000", "--param", "482913"], "",
         "--param takes - and reads the code from standard input: a code on the command line can be read by every user of this machine "
            + "(printf '%s\\n' \"$CODE\" | onetap gateway sms tencent-sms --config FILE --to N --param -)"),
        (["--to", "13800138000", "--param", "-"], "", "--param - reads the code from standard input, which held none"),
    ])
    func missingToOrParamIsExit64(options: [String], stdin: String, message: String) async throws {
        let file = try Self.tencent("http://127.0.0.1:9/unused")
        let run = try await Binary.run(["gateway", "sms", "tencent-sms", "--config", file] + options, stdin: Array(stdin.utf8), environment: Self.environment)
        #expect(run.status == 64)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr == "onetap: error: \(message) (see 'onetap gateway --help')\n", "\(run.stderr)")
        #expect(!run.stderr.contains("482913"))
    }

    /// A gateway that does not send SMS: exit 64, naming what it does.
    @Test func aGatewayThatSendsNoSMSIsExit64() async throws {
        let file = try GatewayEndToEndTests.config(#"{"aliyun-pnvs": {"accessKeyId": "LTAI5tFakeKeyId", "accessKeySecret": {"env": "ALIYUN_SECRET"}}}"#)
        let run = try await Self.sms("aliyun-pnvs", file, to: "13800138000")
        #expect(run.status == 64)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr == "onetap: error: aliyun-pnvs does not send SMS (it does: exchange, verify)\n", "\(run.stderr)")
    }
}
