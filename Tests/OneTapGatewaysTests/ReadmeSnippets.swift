import Foundation
import OneTap
import OneTapGateways
import OneTapTesting
import Testing

// The README's Gateways blocks, compiled and run here (ReadmeTests in OneTapTests checks them word for word).
@Suite struct GatewayReadmeSnippets {
    @Test func gateways() throws {
        setenv("CMCC_APP_SECRET", "readme-app-secret", 1)   // the server's environment holds it
        // README: gateways
        // One transport for the whole server: its URLSession reuses connections.
        let transport = URLSessionTransport()

        // The MD5 sign with the app's APPSecret (China Mobile's developer community, dev.10086.cn) …
        let secret = ProcessInfo.processInfo.environment["CMCC_APP_SECRET"] ?? ""   // an empty secret fails at start-up
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
}
