import Foundation
import OneTap
import OneTapGateways
import OneTapTesting
import Testing

// The README's Gateways blocks, compiled and run here (ReadmeTests in OneTapTests checks them word for word).
@Suite struct GatewayReadmeSnippets {
    @Test func gateways() throws {
        // The server's environment, as a value: a test never calls setenv (other suites spawn processes at the same
        // time, and Foundation's Process.run copies the environment while setenv may be reallocating it).
        let environment = ["CMCC_APP_SECRET": "readme-app-secret"]
        // README: gateways
        // One transport for the whole server: its URLSession reuses connections.
        let transport = URLSessionTransport()

        // The MD5 sign with the app's APPSecret (China Mobile's developer community, dev.10086.cn) …
        let secret = environment["CMCC_APP_SECRET"] ?? ""   // ProcessInfo.processInfo.environment; an empty secret fails at start-up
        var cmcc = ChinaMobileConfiguration(appID: "300011111111", signing: .md5(secret: Secret(secret)))
        // … or the RSA mode: your private key signs appid+token; msisdn comes back encrypted to your public key.
        // var cmcc = ChinaMobileConfiguration(appID: "300011111111", signing: .rsa(signingKey: Secret(pemText)))
        cmcc.strictCheck = "1"            // enforce the server-IP whitelist (the document's advice)

        let exchange = try ChinaMobileTokenExchange(configuration: cmcc, transport: transport)
        // Hand `exchange` to LoginServer/LoginCoordinator as the TokenExchangeProvider; ExchangeGuard keeps its
        // once-only, lifetime and reconciliation rules. `exchange.validate(token)` also gives `taskId` and `msgid`.
        // README: end
        #expect(exchange.description.hasPrefix("cmcc appid 300011111111"))
        _ = transport
    }

    @Test func scriptedTransport() async throws {
        let configuration = ChinaMobileConfiguration(appID: "300011111111", signing: .md5(secret: Secret("readme-app-secret")))
        // README: scripted transport
        let transport = ScriptedHTTPTransport([
            .answer(HTTPResponse(status: 200, headers: ["Content-Type": "application/json"],
                                 body: Array(#"{"resultCode":"104201"}"#.utf8))),
        ])
        let cmcc = try ChinaMobileTokenExchange(configuration: configuration, transport: transport, clock: FakeClock())
        // README: end
        let answer = try await cmcc.validate(Secret("STsid-readme"))
        #expect(answer.code == "104201")
        #expect(transport.requests.count == 1)
    }

    @Test func fromTheConfigurationFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("onetap-readme-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("gateways.json").path
        try Data("""
            {"cmcc": {"appId": "300011111111", "appSecret": {"env": "CMCC_APP_SECRET"}, "appKey": {"env": "CMCC_APP_KEY"}},
             "tencent-sms": {"secretId": "AKIDreadme", "secretKey": {"env": "TENCENT_SECRET_KEY"}, "sdkAppId": "1400006666",
                             "signName": "OneTap", "templateId": "1110"},
             "tencent-captcha": {"secretId": "AKIDreadme", "secretKey": {"env": "TENCENT_SECRET_KEY"}, "captchaAppId": "199999164",
                                 "appSecretKey": {"env": "TENCENT_CAPTCHA_KEY"}}}
            """.utf8).write(to: URL(fileURLWithPath: path))
        // The environment the file's {"env": …} secrets are read from (the process's by default); never setenv in a test.
        let variables = ["CMCC_APP_SECRET": "s1", "CMCC_APP_KEY": "k1", "TENCENT_SECRET_KEY": "s2", "TENCENT_CAPTCHA_KEY": "s3"]
        let environment: @Sendable (String) -> String? = { variables[$0] }
        let keys = try ServerKeyRing(parsing: Secret("k1:" + Data(repeating: 7, count: 32).base64EncodedString()))
        let stores = InMemoryStores()
        let ledger = stores.exchangeLedger()
        // README: gateways from the file
        let file = try GatewayConfigurationFile(contentsOf: path, environment: environment)   // checked at start-up: errors name gateway, field, fix
        let transport = URLSessionTransport()

        let exchange = try ChinaMobileTokenExchange(
            configuration: try ChinaMobileConfiguration(settings: try file.settings("cmcc")), transport: transport)
        // `stores`: every instance's shared stores (`PostgresStores`; `InMemoryStores()` for one instance).
        let sms = SMSCodeService(
            keys: keys,
            sender: try TencentSMSSender(configuration: try TencentSMSConfiguration(settings: try file.settings("tencent-sms")), transport: transport),
            captcha: try TencentCaptchaVerifier(
                configuration: try TencentCaptchaConfiguration(settings: try file.settings("tencent-captcha")), transport: transport),
            store: stores.smsStore())
        let server = LoginServer(
            store: stores.loginSessionStore(), exchange: ExchangeGuard(provider: exchange, ledger: ledger), sms: sms,
            quotas: LoginQuotas(store: stores.loginQuotaStore()))

        // Number verification (本机号码校验): each token sent once, never past its lifetime; billed as the table says.
        let verification = NumberVerificationService(
            provider: try ChinaMobileNumberVerification(
                configuration: try ChinaMobileNumberVerificationConfiguration(settings: try file.settings("cmcc")), transport: transport),
            ledger: ledger, quota: try NumberVerificationQuota(limit: 20, per: .seconds(3600), store: stores.loginQuotaStore()))
        // README: end
        _ = (server, verification)
        #expect(file.description == "gateways: cmcc, tencent-captcha, tencent-sms")
        try FileManager.default.removeItem(at: directory)
    }
}
