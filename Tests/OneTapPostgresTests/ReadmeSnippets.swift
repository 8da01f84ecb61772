import Foundation
import OneTap
import OneTapPostgres

// The README's PostgreSQL block, compiled (ReadmeTests in OneTapTests checks the README against it).
struct MyTianyiRefresher: TokenRefresher {
    func refresh(_ token: AccessToken) async throws -> RefreshResponse {
        RefreshResponse(accessToken: Secret("new"), refreshToken: nil, expiresIn: nil)
    }
}

struct MyCarrierExchange: TokenExchangeProvider {
    func exchange(_ credential: CarrierCredential) async throws -> ExchangeResponse {
        ExchangeResponse(code: "0", phoneNumber: try PhoneNumber("13800138000"))
    }
}

struct MyCaptcha: CaptchaVerifier {
    func verify(_ token: Secret, context: SMSContext) async throws -> Bool { token.reveal() == "solved" }
}

struct AliyunSMS: SMSSender {
    func send(_ message: SMSMessage) async throws {}
}

/// The token-sealing key the README's example reads from a secrets manager.
func myTokenSealingKey() -> [UInt8] { [UInt8](repeating: 7, count: 32) }

func postgresReadmeSnippet() async throws {
    // README: postgres
    // The URL and the keys from the environment or a secrets manager, never from the source.
    let stores = try await PostgresStores.open(
        try PostgresConfiguration(url: ProcessInfo.processInfo.environment["ONETAP_POSTGRES_URL"] ?? "", poolSize: 8))
    let keys = try ServerKeyRing(parsing: Secret(ProcessInfo.processInfo.environment["ONETAP_SERVER_KEYS"] ?? ""))
    let sealing = try PostgresTokenKeyring(currentKeyID: "2026-12", keys: ["2026-12": myTokenSealingKey()])  // 32 random bytes
    let vault = TokenVault(store: stores.tokenStore(keyring: sealing), refresher: MyTianyiRefresher())
    let logins = LoginServer(
        store: stores.loginSessionStore(),
        exchange: ExchangeGuard(provider: MyCarrierExchange(), ledger: stores.exchangeLedger()),
        sms: SMSCodeService(keys: keys, sender: AliyunSMS(), captcha: MyCaptcha(), store: stores.smsStore()),
        quotas: LoginQuotas(store: stores.loginQuotaStore()))
    let sessions = AppSessions(keys: keys, store: stores.appSessionStore())
    let merger = GuestMerger(store: stores.guestDataStore())
    // run() it beside vault.run() in your server's task group: every minute, what expired goes
    let sweeper = ExpiredRecordSweeper(stores: stores.sweptStores())
    // at shutdown:
    await stores.close()
    // README: end
    _ = (vault, logins, sessions, merger, sweeper)
}
