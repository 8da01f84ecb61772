import Foundation
import OneTapTesting
import Testing

/// `onetap gateway` end to end: the built `onetap` runs the built `onetap-gateway`, against China Mobile's Python fake
/// (Tests/OneTapGatewaysTests/Fakes/cmcc_login_token_validate.py, started through OneTapTesting's FakeServer).
@Suite(.timeLimit(.minutes(2))) struct GatewayEndToEndTests {
    static let appID = "300011111111"
    static let secret = "cmcc-test-secret"
    static let keys = Package.root.appendingPathComponent("Tests/OneTapGatewaysTests/Fakes/keys")
    static let path = "/unisdk/rsapi/loginTokenValidate"

    /// A configuration file in a fresh directory; returns its path.
    static func config(_ json: String) throws -> String {
        let file = try Package.temporaryDirectory().appendingPathComponent("gateways.json")
        try json.write(to: file, atomically: true, encoding: .utf8)
        return file.path
    }

    /// The cmcc object (MD5 sign, its secret in CMCC_SECRET) against a URL.
    static func cmcc(_ url: String) -> String {
        #"{"cmcc": {"appId": "\#(appID)", "appSecret": {"env": "CMCC_SECRET"}, "url": "\#(url)"}}"#
    }

    static let environment = ["CMCC_SECRET": secret, "TIANYI_SECRET": "tianyi-test-secret"]

    static func fake() async throws -> FakeServer {
        try await FakeServer.start("cmcc_login_token_validate.py", arguments: ["--appid", appID, "--number", "13800138000", "--secret", secret])
    }

    // MARK: check

    @Test func checkPrintsOneLinePerGatewayAndExits0() async throws {
        let file = try Self.config(#"""
            {"tianyi": {"appId": "8013818507", "appSecret": {"env": "TIANYI_SECRET"}},
             "cmcc": {"appId": "300011111111", "appSecret": {"env": "CMCC_SECRET"}}}
            """#)
        let run = try await Binary.run(["gateway", "check", "--config", file], environment: Self.environment)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.lines == [
            "cmcc    ok  appid 300011111111, MD5 sign, www.cmpassport.com/unisdk/rsapi/loginTokenValidate (exchange)",
            "tianyi  ok  appId 8013818507, XXTEA paras, HMAC-SHA1, open.e.189.cn/api/oauth2/account/userInfo.do (exchange, refresh)",
        ])
        #expect(run.stderr.isEmpty)
        let json = try await Binary.run(["gateway", "check", "--config", file, "--json"], environment: Self.environment)
        #expect(json.status == 0)
        #expect(json.lines == [
            #"{"config":"\#(file)","ok":true,"gateways":[{"gateway":"cmcc","ok":true,"does":["exchange"],"summary":"appid 300011111111, MD5 sign, www.cmpassport.com/unisdk/rsapi/loginTokenValidate"},"#
                + #"{"gateway":"tianyi","ok":true,"does":["exchange","refresh"],"summary":"appId 8013818507, XXTEA paras, HMAC-SHA1, open.e.189.cn/api/oauth2/account/userInfo.do"}]}"#,
        ])
        for output in [run.stdout, json.stdout] { #expect(!output.contains(Self.secret) && !output.contains("tianyi-test-secret")) }
    }

    /// Each bad gateway is one error line naming the gateway, the field and the fix; the good ones still print ok; exit 78.
    @Test(arguments: [
        (#""appSecret": "cmcc-test-secret""#, "appSecret is a secret and must not be written in the file: use {\"env\": \"NAME\"} or {\"file\": \"PATH\"}"),
        (#""appSecret": {"env": "CMCC_UNSET_SECRET"}"#, "appSecret names the environment variable CMCC_UNSET_SECRET, which is not set"),
        (#""privateKey": {"file": "\#(keys.path)/app-public.pem"}"#, "the key is a public key (X.509 SubjectPublicKeyInfo); needed:"),
        (#""privateKey": {"file": "\#(keys.path)/app-private-encrypted.pem"}"#, "the key is an encrypted PKCS#8 private key; needed:"),
        (#""appsecret": {"env": "CMCC_SECRET"}"#, "appsecret is not a field of cmcc"),
    ])
    func checkNamesTheGatewayFieldAndFix(cmccSecret: String, error: String) async throws {
        let file = try Self.config(#"""
            {"cmcc": {"appId": "300011111111", \#(cmccSecret)}, "tianyi": {"appId": "8013818507", "appSecret": {"env": "TIANYI_SECRET"}}}
            """#)
        let run = try await Binary.run(["gateway", "check", "--config", file], environment: Self.environment)
        #expect(run.status == 78, "\(run.stdout) \(run.stderr)")
        #expect(run.lines.count == 2)
        #expect(run.lines.first?.hasPrefix("cmcc    error  cmcc: misconfigured: ") == true, "\(run.lines)")
        #expect(run.lines.first?.contains(error) == true, "\(run.lines)")
        #expect(run.lines.last?.hasPrefix("tianyi  ok  appId 8013818507") == true)
        #expect(!run.stdout.contains(Self.secret) && !run.stderr.contains(Self.secret))
    }

    /// The vendors' gateways are registered too: each line says what it was built to do, or names the field.
    @Test func checkCoversTheRegisteredVendors() async throws {
        let file = try Self.config(#"""
            {"geetest": {"captchaId": "647f5ed2ed8acb4be36784e01556bb71", "captchaKey": {"env": "GEETEST_KEY"}},
             "tencent-sms": {"secretId": "AKIDexample", "secretKey": {"env": "TENCENT_KEY"}, "signName": "OneTap"}}
            """#)
        let run = try await Binary.run(["gateway", "check", "--config", file], environment: ["GEETEST_KEY": "geetest-test-key", "TENCENT_KEY": "tencent-test-key"])
        #expect(run.status == 78, "\(run.stderr)")
        #expect(run.lines.count == 2)
        #expect(run.lines.first?.hasPrefix("tencent-sms  error  tencent-sms: misconfigured: ") == true, "\(run.lines)")
        #expect(run.lines.last == "geetest      ok  captcha_id 647f5ed2ed8acb4be36784e01556bb71, gcaptcha4.geetest.com/validate (captcha)", "\(run.lines)")
        #expect(!run.stdout.contains("geetest-test-key") && !run.stdout.contains("tencent-test-key"))
    }

    /// A file that is not a configuration (not JSON, an unknown gateway, missing) is exit 78 with one error line.
    @Test(arguments: [
        ("{\"cmcc\": ", "is not JSON"),
        (#"{"cmcc-v2": {"appId": "1"}}"#, "\"cmcc-v2\" is not a gateway (known: cmcc, tianyi, aliyun-pnvs,"),
        (#"["cmcc"]"#, "must hold one JSON object keyed by gateway name"),
    ])
    func aFileThatIsNotAConfigurationIsExit78(text: String, error: String) async throws {
        let file = try Self.config(text)
        let run = try await Binary.run(["gateway", "check", "--config", file], environment: Self.environment)
        #expect(run.status == 78)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.hasPrefix("onetap: error: config: misconfigured: \(file)") && run.stderr.contains(error), "\(run.stderr)")
    }

    // MARK: sign

    /// The MD5 sign over appid+version+msgid+systemtime+strictcheck+token+APPSecret, pinned to python3:
    /// python3 -c "import hashlib; print(hashlib.md5(b'3000111111112.00123456789abcdef0123456789abcdef202612031030000000spent-token-1cmcc-test-secret').hexdigest().upper())"
    /// The token comes on standard input (`--field token=-`) and shows by its name, as the secret does.
    @Test func signShowsTheSignedStringWithTheSecretAsItsName() async throws {
        let file = try Self.config(Self.cmcc("https://www.cmpassport.com/unisdk/rsapi/loginTokenValidate"))
        let arguments = ["gateway", "sign", "cmcc", "--config", file, "--field", "msgid=0123456789abcdef0123456789abcdef",
                         "--field", "systemtime=20261203103000000", "--field", "token=-"]
        let token = Array("spent-token-1\n".utf8)
        let run = try await Binary.run(arguments, stdin: token, environment: Self.environment)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.lines == [
            "gateway    cmcc", "algorithm  MD5", "signed     3000111111112.00123456789abcdef0123456789abcdef202612031030000000<token><appSecret>",
            "signature  94B4281710428E1CF293FC88A6D0A9C0",
        ])
        let json = try await Binary.run(arguments + ["--json"], stdin: token, environment: Self.environment)
        #expect(json.lines == [
            #"{"gateway":"cmcc","algorithm":"MD5","stringToSign":"3000111111112.00123456789abcdef0123456789abcdef202612031030000000<token><appSecret>","signature":"94B4281710428E1CF293FC88A6D0A9C0"}"#,
        ])
        #expect(!run.stdout.contains(Self.secret) && !json.stdout.contains(Self.secret))
        #expect(!run.stdout.contains("spent-token-1") && !json.stdout.contains("spent-token-1"))
        let unknown = try await Binary.run(["gateway", "sign", "cmcc", "--config", file, "--field", "appid=1"], environment: Self.environment)
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains("--field appid is not a field of loginTokenValidate's sign (its fields: token, msgid, systemtime)"))
    }

    /// An attacker's read of the CLI: a token given as a field (`--field "$TOKEN"`, `token=-` forgotten) was split at its
    /// padding's `=`, and the tool's "not a field" error quoted the rest of it on standard error. A name that does not
    /// look like one is said by its length.
    @Test func aTokenGivenAsAFieldIsNotRepeated() async throws {
        let file = try Self.config(Self.cmcc("https://www.cmpassport.com/unisdk/rsapi/loginTokenValidate"))
        let token = "U0VDUkVUVE9LRU4xMjM0NTY3ODkw=="
        let run = try await Binary.run(["gateway", "sign", "cmcc", "--config", file, "--field", token], environment: Self.environment)
        #expect(run.status == 64)
        #expect(run.stderr.contains("(a name of 28 characters, not repeated: it may be a secret) is not a field of"), "\(run.stderr)")
        #expect(!run.stderr.contains("U0VDUkVUVE9LRU4") && run.stdout.isEmpty)
        let twice = try await Binary.run(["gateway", "sign", "cmcc", "--config", file, "--field", "\(token)=1", "--field", "\(token)=2"], environment: Self.environment)
        #expect(twice.status == 64 && twice.stderr.contains("is given twice") && !twice.stderr.contains("U0VDUkVUVE9LRU4"), "\(twice.stderr)")
    }

    /// Tianyi's sign covers `paras`, the access token encrypted (XXTEA, deterministic) under the app secret: shown, it
    /// is the request's body but for names anyone knows, replayable and open to whoever holds the secret (an attacker's
    /// read). It shows as how it is made, the token by its name. The signature, from python3 and the fakes' XXTEA:
    /// python3 -c "import tianyi_xxtea as x, hmac, hashlib; p = x.encrypt_hex('accessToken=AT-spent-0001&timeStamp=1796083200123',
    /// 'tianyi-test-secret'); print(p, hmac.new(b'tianyi-test-secret', ('80138185071jsonv1.5' + p).encode(), hashlib.sha1).hexdigest().upper())"
    @Test func tianyisEncryptedParasDoNotShow() async throws {
        let file = try Self.config(#"{"tianyi": {"appId": "8013818507", "appSecret": {"env": "TIANYI_SECRET"}}}"#)
        let arguments = ["gateway", "sign", "tianyi", "--config", file, "--field", "accessToken=-", "--field", "timeStamp=1796083200123"]
        let run = try await Binary.run(arguments, stdin: Array("AT-spent-0001\n".utf8), environment: Self.environment)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.lines == [
            "gateway    tianyi", "algorithm  HMAC-SHA1 with key <appSecret>",
            "signed     80138185071jsonv1.5XXTEA(accessToken=<accessToken>&timeStamp=1796083200123, <appSecret>)",
            "signature  5CAA17A397CDB769D888484B3D40AE2D9F28A6FB",
        ])
        let paras = "C7CC068F28BF7BAA60300CBB89AC33C211EA1F3F4636BAFAE5990462A0CAF3DEEE237378B255B7BED6AC4654EB933C65AEF976D03C709C1B"
        for hidden in [paras, String(paras.prefix(16)), "AT-spent-0001", "tianyi-test-secret"] {
            #expect(!run.stdout.contains(hidden) && !run.stderr.contains(hidden), "\(hidden)")
        }
    }

    /// Yidun signs two secrets, the SDK's token and access token: each given as `-`, one line each on standard input in
    /// the order given, and neither shows (a review: one `-` at most left Yidun's sign unusable). The signature pins the
    /// order, from python3:
    /// python3 -c "import hashlib; print(hashlib.md5(b'accessTokenyidun-access-654321businessIdbid1noncen0ncesecretIdsid1timestamp1796083200000tokenyidun-token-123456versionv1yidun-key-xyz').hexdigest())"
    @Test func signTakesTwoSecretsFromStandardInputInOrder() async throws {
        let file = try Self.config(#"{"yidun": {"secretId": "sid1", "secretKey": {"env": "YIDUN_SECRET_KEY"}, "businessId": "bid1"}}"#)
        let arguments = ["gateway", "sign", "yidun", "--config", file, "--field", "token=-", "--field", "accessToken=-",
                         "--field", "timestamp=1796083200000", "--field", "nonce=n0nce", "--json"]
        let run = try await Binary.run(arguments, stdin: Array("yidun-token-123456\nyidun-access-654321\n".utf8), environment: ["YIDUN_SECRET_KEY": "yidun-key-xyz"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.lines == [
            #"{"gateway":"yidun","algorithm":"MD5","stringToSign":"accessToken<accessToken>businessIdbid1noncen0ncesecretIdsid1timestamp1796083200000token<token>versionv1<secretKey>","signature":"04fd1d28d0ebf3f6e1da1abfeb93d173"}"#,
        ])
        for secret in ["yidun-token-123456", "yidun-access-654321", "yidun-key-xyz"] { #expect(!run.stdout.contains(secret) && !run.stderr.contains(secret)) }
        let short = try await Binary.run(arguments, stdin: Array("yidun-token-123456\n".utf8), environment: ["YIDUN_SECRET_KEY": "yidun-key-xyz"])
        #expect(short.status == 64)
        #expect(short.stderr.hasPrefix("onetap: error: --field accessToken=- reads its value from standard input"), "\(short.stderr)")
    }

    /// `onetap-gateway` itself, run by hand with a secret field on its command line, refuses it as `onetap gateway`
    /// does: before (an attacker's read), it signed and printed the token, which sat in its argv the while.
    @Test func theGatewayToolRefusesASecretFieldOnItsCommandLine() async throws {
        let file = try Self.config(#"{"cmcc": {"appId": "300011", "appSecret": {"env": "CMCC_APP_SECRET"}}}"#)
        let run = try await Binary.run(
            ["sign", "cmcc", "--config", file, "--field", "token=STsid-hunter2-token"], environment: ["CMCC_APP_SECRET": "s"], executable: "onetap-gateway")
        #expect(run.status == 64 && run.stdout.isEmpty)
        #expect(run.stderr == "onetap: error: --field token takes its value from standard input only: --field token=- (see 'onetap gateway --help')\n", "\(run.stderr)")
    }

    // MARK: exchange

    @Test func exchangeSucceedsAndMasksTheNumber() async throws {
        let server = try await Self.fake()
        defer { server.stop() }
        let file = try Self.config(Self.cmcc(server.url(Self.path).absoluteString))
        let token = "STsid-success-\(UUID().uuidString)"
        let run = try await Binary.run(["gateway", "exchange", "cmcc", "--config", file, "--token", "-", "--json"], stdin: Array((token + "\n").utf8), environment: Self.environment)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.lines == [#"{"gateway":"cmcc","flow":"mobile","code":"103000","action":"success","alert":false,"meaning":"number returned","meaningZh":"返回成功","number":"138****8000"}"#])
        #expect(run.stderr.isEmpty)
        #expect(!run.stdout.contains(token) && !run.stdout.contains("13800138000"))
        let text = try await Binary.run(["gateway", "exchange", "cmcc", "--config", file, "--token", "-"], stdin: Array("STsid-text-\(UUID().uuidString)\n".utf8), environment: Self.environment)
        #expect(text.status == 0)
        #expect(text.lines == ["gateway  cmcc (mobile)", "code     103000", "action   success", "meaning  number returned (返回成功)", "number   138****8000"])
    }

    /// 1 a vendor error code, 65 a malformed answer, 69 unreachable; the token in no output.
    @Test(arguments: [
        ("expired-", Int32(1), "", "104201"),
        ("malformed-", Int32(65), "onetap: error: cmcc: malformed answer", ""),
        ("html-", Int32(65), "onetap: error: cmcc: the answer's content type is 'text/html'", ""),
        ("status-503-", Int32(65), "onetap: error: cmcc: HTTP status 503", ""),
    ])
    func exchangeFailuresHaveTheirExitStatus(prefix: String, status: Int32, error: String, code: String) async throws {
        let server = try await Self.fake()
        defer { server.stop() }
        let file = try Self.config(Self.cmcc(server.url(Self.path).absoluteString))
        let token = prefix + UUID().uuidString
        let run = try await Binary.run(["gateway", "exchange", "cmcc", "--config", file, "--token", "-", "--json"], stdin: Array((token + "\n").utf8), environment: Self.environment)
        #expect(run.status == status, "\(run.stdout) \(run.stderr)")
        if code.isEmpty {
            #expect(run.stdout.isEmpty)
            #expect(run.stderr.hasPrefix(error), "\(run.stderr)")
        } else {
            #expect(run.stdout.contains(#""code":"\#(code)""#) && !run.stdout.contains(#""action":"success""#), "\(run.stdout)")
            #expect(!run.stdout.contains(#""number""#))
        }
        #expect(!run.stdout.contains(token) && !run.stderr.contains(token) && !run.stderr.contains(Self.secret))
    }

    /// An aggregator takes each carrier's token (`--flow`), its code read from that flow's rows; a carrier's own
    /// gateway refuses another carrier's flow before anything is sent.
    @Test func flowNamesTheCarrierOfAnAggregatorsToken() async throws {
        let server = try await FakeServer.start("shanyan_flashsdk.py", arguments: ["--app-id", "ZQZSp7C0", "--app-key", "appKey-123", "--number", "13800138000"])
        defer { server.stop() }
        let file = try Self.config(#"{"shanyan": {"appId": "ZQZSp7C0", "appKey": {"env": "SHANYAN_KEY"}, "url": "\#(server.url("/open/flashsdk/mobile-query").absoluteString)"}}"#)
        let run = try await Binary.run(
            ["gateway", "exchange", "shanyan", "--config", file, "--token", "-", "--flow", "unicom", "--json"], stdin: Array("A2-\(UUID().uuidString)\n".utf8),
            environment: ["SHANYAN_KEY": "appKey-123"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains(#""gateway":"shanyan","flow":"unicom","code":"200000","action":"success""#), "\(run.stdout)")
        #expect(run.stdout.contains(#""number":"138****8000""#))

        let cmcc = try Self.config(Self.cmcc("http://127.0.0.1:9/unused"))
        let refused = try await Binary.run(
            ["gateway", "exchange", "cmcc", "--config", cmcc, "--token", "-", "--flow", "tianyi"], stdin: Array("STsid-flow\n".utf8), environment: Self.environment)
        #expect(refused.status == 64)
        #expect(refused.stdout.isEmpty)
        #expect(refused.stderr == "onetap: error: cmcc takes mobile tokens only; --flow tianyi is for the aggregators (aliyun-pnvs, jverification, shanyan, yidun)\n")
    }

    @Test func anUnreachableGatewayIsExit69() async throws {
        // A port nothing listens on: the fake's, once it has stopped.
        // Loopback port 1: no fake listens there (a stopped fake's port could be taken by another suite's fake).
        let url = "http://127.0.0.1:1" + Self.path
        let file = try Self.config(Self.cmcc(url))
        let run = try await Binary.run(["gateway", "exchange", "cmcc", "--config", file, "--token", "-"], stdin: Array("STsid-unreachable\n".utf8), environment: Self.environment)
        #expect(run.status == 69, "\(run.stdout) \(run.stderr)")
        #expect(run.stderr.hasPrefix("onetap: error: cmcc: not sent (the connection was refused)"), "\(run.stderr)")
        #expect(!run.stderr.contains("STsid-unreachable"))
    }

    /// While a call is under way (the fake answers a slow- token after 3 s), no process's command line holds the token:
    /// neither onetap's nor onetap-gateway's.
    @Test func theTokenIsOnNoCommandLine() async throws {
        let server = try await Self.fake()
        defer { server.stop() }
        let file = try Self.config(Self.cmcc(server.url(Self.path).absoluteString))
        let token = "slow-" + UUID().uuidString
        let started = ContinuousClock.now
        // The look runs until the run ends, however late a loaded machine starts the run (a run queued behind a full
        // test run once started after a look bounded at 90 s had ended), so it covers the whole call, before and after
        // the tool has read the token: every look checks that no command line holds it. Once started the tool lives at
        // least the fake's 3 s, so looking every 100 ms sees it.
        enum Outcome: Sendable { case seen, unseen, finished(Run, Duration) }
        var sawTheTool = false
        var finished: (run: Run, after: Duration)?
        try await withThrowingTaskGroup(of: Outcome.self) { group in
            group.addTask {
                let run = try await Binary.run(
                    ["gateway", "exchange", "cmcc", "--config", file, "--token", "-"], stdin: Array((token + "\n").utf8), environment: Self.environment)
                return .finished(run, ContinuousClock.now - started)
            }
            group.addTask {
                var seen = false
                while !Task.isCancelled {
                    let commandLines = try FileManager.default.contentsOfDirectory(atPath: "/proc").compactMap { entry -> String? in
                        guard Int(entry) != nil, let data = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline") else { return nil }
                        return String(decoding: data.map { $0 == 0 ? UInt8(ascii: " ") : $0 }, as: UTF8.self)
                    }
                    #expect(!commandLines.contains { $0.contains(token) })
                    if commandLines.contains(where: { $0.contains("onetap-gateway exchange cmcc --config \(file) --token -") }) { seen = true }
                    do { try await Task.sleep(for: .milliseconds(100)) } catch { break }
                }
                return seen ? .seen : .unseen
            }
            while let outcome = try await group.next() {
                switch outcome {
                case .seen: sawTheTool = true
                case .unseen: break
                case .finished(let run, let after):
                    finished = (run, after)
                    group.cancelAll()
                }
            }
        }
        let run = try #require(finished)
        #expect(sawTheTool, "the tool ran and ended \(run.after) after the start unseen: \(run.run.stderr)")
        #expect(run.run.status == 0, "\(run.run.stderr)")
        #expect(!run.run.stdout.contains(token))
    }
}
