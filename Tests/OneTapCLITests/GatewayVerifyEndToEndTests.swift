import Foundation
import OneTapTesting
import Testing

/// `onetap gateway verify` end to end: the built `onetap` runs the built `onetap-gateway` against the Python fakes of
/// China Mobile's `tokenValidate` (Fakes/cmcc_token_validate.py, which recomputes phoneNum and the HMAC-SHA256 sign)
/// and Aliyun PNVS `VerifyMobile` (Fakes/aliyun_pnvs.py, which recomputes the signature V3). The expected lines are
/// written from the command's help: pass exits 0; reject, unknown and a vendor's error code exit 1 (the verdict line
/// tells them apart); 65 a malformed answer, 69 unreachable, 64 usage. The number shows masked; no token, appKey or
/// secret is printed.
@Suite(.timeLimit(.minutes(2))) struct GatewayVerifyEndToEndTests {
    static let appID = "300011111111"
    static let appSecret = "cmcc-test-secret"
    static let appKey = "appKey-5a4b3c"
    static let keyID = "LTAI5tFakeKeyId"
    static let aliyunSecret = "fake-access-key-secret"
    static let secrets = [appSecret, appKey, aliyunSecret]
    static let environment = ["CMCC_SECRET": appSecret, "CMCC_APP_KEY": appKey, "ALIYUN_SECRET": aliyunSecret]
    static let tokenValidate = "/openapi/rs/tokenValidate"

    static func cmccFake() async throws -> FakeServer {
        try await FakeServer.start("cmcc_token_validate.py", arguments: ["--appid", appID, "--appkey", appKey, "--number", "13800138000"])
    }

    static func aliyunFake() async throws -> FakeServer {
        try await FakeServer.start("aliyun_pnvs.py", arguments: ["--access-key-id", keyID, "--secret", aliyunSecret, "--number", "13800138000"])
    }

    /// The cmcc object with verification (`appKey`, `tokenValidateUrl`), or without it (`appKey` nil).
    static func cmcc(_ url: String, appKey: Bool = true) throws -> String {
        let verification = appKey ? #", "appKey": {"env": "CMCC_APP_KEY"}, "tokenValidateUrl": "\#(url)""# : ""
        return try GatewayEndToEndTests.config(#"{"cmcc": {"appId": "\#(appID)", "appSecret": {"env": "CMCC_SECRET"}\#(verification)}}"#)
    }

    static func aliyun(_ url: String) throws -> String {
        try GatewayEndToEndTests.config(#"{"aliyun-pnvs": {"accessKeyId": "\#(keyID)", "accessKeySecret": {"env": "ALIYUN_SECRET"}, "url": "\#(url)"}}"#)
    }

    /// `onetap gateway verify GATEWAY --config FILE --token - --number N …` with the token on standard input.
    static func verify(_ gateway: String, _ file: String, token: String, number: String, _ extra: [String] = []) async throws -> Run {
        try await Binary.run(
            ["gateway", "verify", gateway, "--config", file, "--token", "-", "--number", number] + extra, stdin: Array((token + "\n").utf8),
            environment: environment)
    }

    /// Neither output holds the token, a secret, the number unmasked, or a redaction (onetap redacts the token from
    /// the tool's errors: the tool itself must not have written it).
    static func expectNothingSecret(_ run: Run, token: String, number: String = "13800138000") {
        for text in [run.stdout, run.stderr] {
            #expect(!text.contains(token), "the token was printed")
            for secret in secrets { #expect(!text.contains(secret), "a secret was printed") }
            #expect(!text.contains(number), "the number was printed unmasked")
            #expect(!text.contains("<redacted>"))
        }
    }

    // MARK: China Mobile tokenValidate

    @Test func cmccPassIsExit0WithTheNumberMasked() async throws {
        let server = try await Self.cmccFake()
        defer { server.stop() }
        let file = try Self.cmcc(server.url(Self.tokenValidate).absoluteString)
        let token = "STsid-pass-\(UUID().uuidString)"
        let text = try await Self.verify("cmcc", file, token: token, number: "13800138000")
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.lines == [
            "gateway  cmcc (mobile)", "code     000", "verdict  pass", "meaning  the number is the SIM's own (billed) (是本机号码（纳入计费次数）)",
            "number   138****8000",
        ])
        #expect(text.stderr.isEmpty)
        Self.expectNothingSecret(text, token: token)
        let jsonToken = "STsid-json-\(UUID().uuidString)"
        let json = try await Self.verify("cmcc", file, token: jsonToken, number: "13800138000", ["--json"])
        #expect(json.status == 0, "\(json.stderr)")
        #expect(json.lines == [
            #"{"gateway":"cmcc","flow":"mobile","code":"000","verdict":"pass","meaning":"the number is the SIM's own (billed)","meaningZh":"是本机号码（纳入计费次数）","number":"138****8000"}"#
        ])
        #expect(json.stderr.isEmpty)
        Self.expectNothingSecret(json, token: jsonToken)
    }

    /// 001 (非本机号码): the vendor answered, the number is not the SIM's: exit 1, the verdict says reject.
    @Test func cmccRejectIsExit1() async throws {
        let server = try await Self.cmccFake()
        defer { server.stop() }
        let file = try Self.cmcc(server.url(Self.tokenValidate).absoluteString)
        let token = "STsid-reject-\(UUID().uuidString)"
        let text = try await Self.verify("cmcc", file, token: token, number: "13900139000")
        #expect(text.status == 1, "\(text.stderr)")
        #expect(text.lines == [
            "gateway  cmcc (mobile)", "code     001", "verdict  reject",
            "meaning  the number is not the SIM's own (billed; SMS assist allowed) (非本机号码（纳入计费次数，允许使用短验辅助）)", "number   139****9000",
        ])
        #expect(text.stderr.isEmpty)
        Self.expectNothingSecret(text, token: token, number: "13900139000")
        let jsonToken = "STsid-reject-\(UUID().uuidString)"
        let json = try await Self.verify("cmcc", file, token: jsonToken, number: "13900139000", ["--json"])
        #expect(json.status == 1)
        #expect(json.lines == [
            #"{"gateway":"cmcc","flow":"mobile","code":"001","verdict":"reject","meaning":"the number is not the SIM's own (billed; SMS assist allowed)","meaningZh":"非本机号码（纳入计费次数，允许使用短验辅助）","number":"139****9000"}"#
        ])
        Self.expectNothingSecret(json, token: jsonToken, number: "13900139000")
    }

    /// A documented error code (606 验证Token失败 for an expired or reused token; 102315 as the fake answers it): the
    /// verdict is unknown, exit 1, the code as it came.
    @Test(arguments: [
        ("expired-", "606", "token check failed: a spent, expired or foreign token", "验证Token失败"),
        ("code-102315-", "102315", "the quota of checks is used up", "次数已用完"),
    ])
    func cmccVendorErrorIsExit1AndUnknown(prefix: String, code: String, meaning: String, meaningZh: String) async throws {
        let server = try await Self.cmccFake()
        defer { server.stop() }
        let file = try Self.cmcc(server.url(Self.tokenValidate).absoluteString)
        let token = prefix + UUID().uuidString
        let run = try await Self.verify("cmcc", file, token: token, number: "13800138000", ["--json"])
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.lines == [
            #"{"gateway":"cmcc","flow":"mobile","code":"\#(code)","verdict":"unknown","meaning":"\#(meaning)","meaningZh":"\#(meaningZh)","number":"138****8000"}"#
        ])
        #expect(run.stderr.isEmpty)
        Self.expectNothingSecret(run, token: token)
    }

    /// A token sent twice is 606 the second time: each call is one request, the fake sees the token once per call.
    @Test func cmccTokenReusedIs606() async throws {
        let server = try await Self.cmccFake()
        defer { server.stop() }
        let file = try Self.cmcc(server.url(Self.tokenValidate).absoluteString)
        let token = "STsid-twice-\(UUID().uuidString)"
        #expect(try await Self.verify("cmcc", file, token: token, number: "13800138000").status == 0)
        let again = try await Self.verify("cmcc", file, token: token, number: "13800138000")
        #expect(again.status == 1)
        #expect(again.lines == [
            "gateway  cmcc (mobile)", "code     606", "verdict  unknown", "meaning  token check failed: a spent, expired or foreign token (验证Token失败)",
            "number   138****8000",
        ])
    }

    /// An answer that is not a usable one is exit 65, one error line, nothing on standard output.
    @Test(arguments: [
        ("malformed-", "onetap: error: cmcc: malformed answer: "),
        ("html-", "onetap: error: cmcc: the answer's content type is 'text/html', not JSON\n"),
        ("status-503-", "onetap: error: cmcc: HTTP status 503\n"),
        ("truncated-", "onetap: error: cmcc: malformed answer: the answer was cut short (the connection closed mid-body)\n"),
    ])
    func cmccMalformedAnswerIsExit65(prefix: String, error: String) async throws {
        let server = try await Self.cmccFake()
        defer { server.stop() }
        let file = try Self.cmcc(server.url(Self.tokenValidate).absoluteString)
        let token = prefix + UUID().uuidString
        let run = try await Self.verify("cmcc", file, token: token, number: "13800138000", ["--json"])
        #expect(run.status == 65, "\(run.stdout) \(run.stderr)")
        #expect(run.stdout.isEmpty)
        #expect(error.hasSuffix("\n") ? run.stderr == error : run.stderr.hasPrefix(error), "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1)
        Self.expectNothingSecret(run, token: token)
    }

    @Test func cmccUnreachableIsExit69() async throws {
        // Loopback port 1: no fake listens there (a stopped fake's port could be taken by another suite's fake).
        let url = "http://127.0.0.1:1" + Self.tokenValidate
        let file = try Self.cmcc(url)
        let token = "STsid-unreachable-\(UUID().uuidString)"
        let run = try await Self.verify("cmcc", file, token: token, number: "13800138000")
        #expect(run.status == 69, "\(run.stdout) \(run.stderr)")
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.hasPrefix("onetap: error: cmcc: not sent (the connection was refused)"), "\(run.stderr)")
        Self.expectNothingSecret(run, token: token)
    }

    /// A token written on the command line is refused before anything runs (exit 64), and not repeated.
    @Test(arguments: [["--token", "STsid0000001517196594066OHmZv"], ["--token=STsid0000001517196594066OHmZv"]])
    func aLiteralTokenIsExit64(token: [String]) async throws {
        let file = try Self.cmcc("http://127.0.0.1:9/unused")
        let run = try await Binary.run(["gateway", "verify", "cmcc", "--config", file] + token + ["--number", "13800138000"], environment: Self.environment)
        #expect(run.status == 64)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr == "onetap: error: --token takes - and reads the token from standard input: a token on the command line can be read by every user of this machine "
            + "(printf '%s\\n' \"$TOKEN\" | onetap gateway verify cmcc --config FILE --token -) (see 'onetap gateway --help')\n")
        #expect(!run.stderr.contains("STsid0000001517196594066OHmZv"))
    }

    /// onetap-gateway run by hand (it is on the PATH beside onetap) refuses a token on its command line too, without
    /// repeating it: an unexpected argument is named by its option only, an operand not at all.
    @Test(arguments: [
        (["--token=STsid0000001517196594066OHmZv"], "onetap: error: onetap-gateway is run by 'onetap gateway'; unexpected --token=… (see 'onetap gateway --help')\n"),
        (["--token", "STsid0000001517196594066OHmZv"], "onetap: error: onetap-gateway is run by 'onetap gateway'; unexpected --token (see 'onetap gateway --help')\n"),
        (["STsid0000001517196594066OHmZv"], "onetap: error: onetap-gateway is run by 'onetap gateway'; unexpected operand (see 'onetap gateway --help')\n"),
    ])
    func theToolRefusesATokenWithoutRepeatingIt(token: [String], error: String) async throws {
        let file = try Self.cmcc("http://127.0.0.1:9/unused")
        let run = try await Binary.run(
            ["verify", "cmcc", "--config", file, "--number", "13800138000"] + token, environment: Self.environment, executable: "onetap-gateway")
        #expect(run.status == 64)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr == error, "\(run.stderr)")
        #expect(!run.stderr.contains("STsid0000001517196594066OHmZv"))
    }

    /// cmcc takes mobile tokens only: another --flow is exit 64 before anything is sent.
    @Test func cmccRefusesAnotherCarriersFlow() async throws {
        let file = try Self.cmcc("http://127.0.0.1:9/unused")
        let run = try await Self.verify("cmcc", file, token: "STsid-flow", number: "13800138000", ["--flow", "unicom"])
        #expect(run.status == 64)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr == "onetap: error: cmcc takes mobile tokens only; --flow unicom is for the aggregators (aliyun-pnvs, jverification, shanyan, yidun)\n")
    }

    /// No token on standard input, no --number, a number that is not 11 digits: exit 64 before any call.
    @Test(arguments: [
        (["--token", "-", "--number", "13800138000"], "", "onetap: error: --token - reads the token from standard input, which held none (see 'onetap gateway --help')\n"),
        (["--token", "-"], "STsid-x\n", "onetap: error: gateway verify needs --number N, the number to verify (see 'onetap gateway --help')\n"),
        (["--token", "-", "--number", "138001380001"], "STsid-x\n", "onetap: error: --number takes a mainland mobile number (13800138000): 12 digits after any country prefix; a mainland mobile number has 11 (see 'onetap gateway --help')\n"),
    ])
    func usageIsExit64(options: [String], stdin: String, error: String) async throws {
        let file = try Self.cmcc("http://127.0.0.1:9/unused")
        let run = try await Binary.run(["gateway", "verify", "cmcc", "--config", file] + options, stdin: Array(stdin.utf8), environment: Self.environment)
        #expect(run.status == 64)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr == error)
    }

    /// A cmcc object without appKey builds no verification: the error names what it does do, as configured.
    @Test func cmccWithoutAppKeySaysWhatItDoes() async throws {
        let file = try Self.cmcc("http://127.0.0.1:9/unused", appKey: false)
        let run = try await Self.verify("cmcc", file, token: "STsid-nokey", number: "13800138000")
        #expect(run.status == 64)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr == "onetap: error: cmcc does not verify numbers as configured (it does: exchange; see 'onetap gateway check')\n", "\(run.stderr)")
    }

    // MARK: Aliyun PNVS VerifyMobile

    @Test func aliyunPassRejectAndUnknown() async throws {
        let server = try await Self.aliyunFake()
        defer { server.stop() }
        let file = try Self.aliyun(server.url("").absoluteString)
        let pass = "tok-\(UUID().uuidString)"
        let passed = try await Self.verify("aliyun-pnvs", file, token: pass, number: "13800138000", ["--json"])
        #expect(passed.status == 0, "\(passed.stderr)")
        #expect(passed.lines == [
            #"{"gateway":"aliyun-pnvs","flow":"mobile","code":"OK","verdict":"pass","meaning":"the number is the SIM's own (VerifyResult PASS)","meaningZh":"一致","number":"138****8000"}"#
        ])
        #expect(passed.stderr.isEmpty)
        Self.expectNothingSecret(passed, token: pass)

        let reject = "tok-\(UUID().uuidString)"
        let rejected = try await Self.verify("aliyun-pnvs", file, token: reject, number: "13900139000", ["--flow", "unicom"])
        #expect(rejected.status == 1, "\(rejected.stderr)")
        #expect(rejected.lines == [
            "gateway  aliyun-pnvs (unicom)", "code     OK", "verdict  reject", "meaning  the number is not the SIM's own (VerifyResult REJECT) (不一致)",
            "number   139****9000",
        ])
        #expect(rejected.stderr.isEmpty)
        Self.expectNothingSecret(rejected, token: reject, number: "13900139000")

        let unknown = "unknown-\(UUID().uuidString)"
        let unknowns = try await Self.verify("aliyun-pnvs", file, token: unknown, number: "13800138000", ["--flow", "tianyi", "--json"])
        #expect(unknowns.status == 1)
        #expect(unknowns.lines == [
            #"{"gateway":"aliyun-pnvs","flow":"tianyi","code":"OK","verdict":"unknown","meaning":"Aliyun cannot tell (VerifyResult UNKNOWN)","meaningZh":"无法判断","number":"138****8000"}"#
        ])
        Self.expectNothingSecret(unknowns, token: unknown)
    }

    /// isv.TOKEN_INVALID (an expired token) is Aliyun's documented error: exit 1, the code as it came.
    @Test func aliyunVendorErrorIsExit1() async throws {
        let server = try await Self.aliyunFake()
        defer { server.stop() }
        let file = try Self.aliyun(server.url("").absoluteString)
        let token = "expired-\(UUID().uuidString)"
        let run = try await Self.verify("aliyun-pnvs", file, token: token, number: "13800138000")
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.lines == [
            "gateway  aliyun-pnvs (mobile)", "code     isv.TOKEN_INVALID", "verdict  unknown",
            "meaning  a Code other than OK (isv.TOKEN_INVALID, isv.PARAMETERS_MISMATCH, …): Aliyun could not tell", "number   138****8000",
        ])
        #expect(run.stderr.isEmpty)
        Self.expectNothingSecret(run, token: token)
    }

    @Test(arguments: [
        ("malformed-", "onetap: error: aliyun-pnvs: malformed answer: "),
        ("html-", "onetap: error: aliyun-pnvs: the answer's content type is 'text/html', not JSON\n"),
        ("status-500-", "onetap: error: aliyun-pnvs: HTTP status 500\n"),
        ("truncated-", "onetap: error: aliyun-pnvs: malformed answer: the answer was cut short (the connection closed mid-body)\n"),
    ])
    func aliyunMalformedAnswerIsExit65(prefix: String, error: String) async throws {
        let server = try await Self.aliyunFake()
        defer { server.stop() }
        let file = try Self.aliyun(server.url("").absoluteString)
        let token = prefix + UUID().uuidString
        let run = try await Self.verify("aliyun-pnvs", file, token: token, number: "13800138000", ["--json"])
        #expect(run.status == 65, "\(run.stdout) \(run.stderr)")
        #expect(run.stdout.isEmpty)
        #expect(error.hasSuffix("\n") ? run.stderr == error : run.stderr.hasPrefix(error), "\(run.stderr)")
        Self.expectNothingSecret(run, token: token)
    }

    @Test func aliyunUnreachableIsExit69() async throws {
        // Loopback port 1: no fake listens there (a stopped fake's port could be taken by another suite's fake).
        let url = "http://127.0.0.1:1" + ""
        let file = try Self.aliyun(url)
        let token = "tok-\(UUID().uuidString)"
        let run = try await Self.verify("aliyun-pnvs", file, token: token, number: "13800138000")
        #expect(run.status == 69, "\(run.stdout) \(run.stderr)")
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.hasPrefix("onetap: error: aliyun-pnvs: not sent (the connection was refused)"), "\(run.stderr)")
        Self.expectNothingSecret(run, token: token)
    }

    // MARK: JVerification verify

    /// 9000 (verify consistent) pass, 9001 reject, 9002 unknown, 9003 (an expired token) the documented error: the code
    /// as JiGuang answered it, exit 0 only on pass; the masterSecret in no output.
    @Test(arguments: [
        ("tok-", "13800138000", Int32(0), "9000", "pass", "verify consistent: the number is the SIM's own", "138****8000"),
        ("tok-", "13900139000", Int32(1), "9001", "reject", "verify not consistent: the number is not the SIM's own", "139****9000"),
        ("unknown-", "13800138000", Int32(1), "9002", "unknown", "unknown result", "138****8000"),
        (
            "expired-", "13800138000", Int32(1), "9003", "unknown", "a code this table does not list (9003 token expired or not exist, errors): JiGuang could not tell",
            "138****8000"
        ),
    ])
    func jverificationVerdicts(prefix: String, number: String, status: Int32, code: String, verdict: String, meaning: String, masked: String) async throws {
        let server = try await FakeServer.start("jverification_rest_api.py", arguments: [
            "--app-key", "7d431e42", "--master-secret", "jv-master-secret", "--public-key", FakeServer.fakes.appendingPathComponent("keys/app-public.pem").path,
            "--number", "13800138000",
        ])
        defer { server.stop() }
        let key = FakeServer.fakes.appendingPathComponent("keys/app-private-pkcs8.pem").path
        let file = try GatewayEndToEndTests.config(#"""
            {"jverification": {"appKey": "7d431e42", "masterSecret": {"env": "JV_SECRET"}, "privateKey": {"file": "\#(key)"},
                               "url": "\#(server.url("/v1/web/loginTokenVerify").absoluteString)", "verifyUrl": "\#(server.url("/v1/web/verify").absoluteString)"}}
            """#)
        let token = prefix + UUID().uuidString
        let run = try await Binary.run(
            ["gateway", "verify", "jverification", "--config", file, "--token", "-", "--number", number, "--json"], stdin: Array((token + "\n").utf8),
            environment: ["JV_SECRET": "jv-master-secret"])
        #expect(run.status == status, "\(run.stderr)")
        #expect(run.lines == [#"{"gateway":"jverification","flow":"mobile","code":"\#(code)","verdict":"\#(verdict)","meaning":"\#(meaning)","number":"\#(masked)"}"#])
        #expect(run.stderr.isEmpty)
        Self.expectNothingSecret(run, token: token, number: number)
        #expect(!run.stdout.contains("jv-master-secret") && !run.stderr.contains("jv-master-secret"))
    }
}
