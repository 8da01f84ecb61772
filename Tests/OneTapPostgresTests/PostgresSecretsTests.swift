import Foundation
import OneTap
@testable import OneTapPostgres
import OneTapTesting
import Testing

/// The Postgres stores for sessions, SMS codes and the exchange ledger, and every error they throw: no
/// textual form shows the URL's password, an SMS code or its HMAC, a token or its digest.
@Suite(.connectionBudget) struct PostgresSecretsTests {
    /// The app session the logins of these tests belong to.
    static let appSession: AccessClaims = {
        let ring = try! ServerKeyRing([(try! KeyID("test"), try! ServerKey(bytes: [UInt8](repeating: 42, count: 32)))])
        return ring.accessToken(
            session: try! AppSessionID("MyAppSession0000000000"), identity: .guest(try! GuestID("GuestOfTheTests000000A")), epoch: 0, issuedAt: Date(),
            expiresAt: Date().addingTimeInterval(3600)).claims
    }()

    static let password = "hunter2-pw"
    static let token = "SECRET-TOKEN-42"

    static func forms(_ value: Any) -> [String] {
        var dumped = ""
        dump(value, to: &dumped)
        // A dump prints object addresses (`pointerValue: 140369195109232`, `0x00007f…`): a six-digit SMS code can stand
        // inside one by chance (it did, once in some thousand runs). Only what a dump marks as an address is masked, so
        // a secret anywhere else (a digest's hex too, whatever digits it holds) is still found.
        dumped = dumped.replacing(/pointerValue: [0-9]+|0x[0-9a-fA-F]{8,16}\b/, with: "<address>")
        var forms = ["\(value)", String(reflecting: value), dumped]
        if let value = value as? any CustomStringConvertible { forms.append(value.description) }
        if let value = value as? any CustomDebugStringConvertible { forms.append(value.debugDescription) }
        return forms
    }

    /// Runs `work`, which must fail, and returns the error.
    func failure(_ work: () async throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) async -> (any Error)? {
        do {
            try await work()
            Issue.record("the call did not fail", sourceLocation: sourceLocation)
            return nil
        } catch {
            return error
        }
    }

    @Test func noStoreOrErrorShowsAPasswordACodeOrAToken() async throws {
        let url = try await TestDatabase.url()
        let configuration = try TestDatabase.configuration(url + (url.contains("?") ? "&" : "?") + "password=\(Self.password)")
        let stores = try await PostgresStores.open(configuration)
        let schema = "\"\(configuration.schema)\""
        let sessions = stores.loginSessionStore()
        let sms = stores.smsStore()
        let ledger = stores.exchangeLedger()
        let now = Date()

        // A code sent through the store, and a login whose token was exchanged through the ledger.
        let number = try PhoneNumber("13800138000")
        let sender = ScriptedSMSSender()
        let service = SMSServiceAt(key: ServerKey.random(), sender: sender, store: sms)
        _ = try await service.send(to: number, context: SMSContext(session: .testSession), at: now)
        let code = try #require(sender.lastCode(to: number)).reveal()
        let json = try #require(try await stores.pool.execute("SELECT record FROM \(schema).sms_codes").first?.first?.text)
        let hmac = try SMSCodeRecord(json: json).digest.hex
        let exchange = ExchangeGuard(provider: MockTokenExchange(number: number), ledger: ledger)
        let logins = LoginServer(store: sessions, exchange: exchange, events: DiscardingEventSink())
        let started = try await logins.start(DeviceSnapshot(sim: .present, plmn: try PLMN("46000")), for: Self.appSession)
        let credential = CarrierCredential(flow: .mobile, token: Secret(Self.token), uniqueID: "u")
        let done = try await logins.report(.result(.mobile, code: "103000", credential: credential), to: started.session.id, version: 1, from: Self.appSession)
        #expect(done.session.isOver)
        let digest = SHA256.hash(Array(Self.token.utf8))
        #expect(try await ledger.claim(digest, at: now) == .answered(ExchangeResponse(code: "103000", phoneNumber: number)))
        let secrets = [Self.password, code, hmac, Self.token, digest.hex]

        // Every store's calls failing on the server (their tables renamed away), and on corrupt rows.
        var errors: [(any Error)?] = []
        try await stores.pool.execute("UPDATE \(schema).login_sessions SET session = $1", [.text(Self.token + " " + digest.hex)])
        errors.append(await failure { _ = try await sessions.load(started.session.id) })
        try await stores.pool.execute("UPDATE \(schema).sms_codes SET record = $1", [.text(code + " " + hmac)])
        errors.append(await failure { _ = try await service.verify(Secret(code), for: number, context: SMSContext(session: .testSession), at: now) })
        try await stores.pool.execute("UPDATE \(schema).exchange_ledger SET state = $1", [.text(Self.token)])
        errors.append(await failure { _ = try await ledger.claim(digest, at: now) })
        for table in ["login_sessions", "sms_counters", "sms_codes", "exchange_ledger"] {
            try await stores.pool.execute("ALTER TABLE \(schema).\(table) RENAME TO \(table)_gone")
        }
        errors.append(await failure { try await sessions.replace(done.session, expecting: done.session.version) })
        errors.append(await failure { _ = try await service.verify(Secret(code), for: number, context: SMSContext(session: .testSession), at: now) })
        errors.append(await failure { _ = try await service.send(to: number, context: SMSContext(session: .testSession), at: now.addingTimeInterval(120)) })
        errors.append(await failure { _ = try await ledger.claim(digest, at: now) })
        errors.append(await failure { try await ledger.settle(digest, .unknown, at: now) })
        errors.append(await failure { _ = try await stores.removeExpiredRows(before: now) })
        let kinds = errors.compactMap { $0.map { "\(type(of: $0))" } }
        #expect(kinds == ["StoreError", "StoreError", "StoreError", "StoreError", "StoreError", "StoreError",
                          "StoreError", "StoreError", "PostgresError"])
        let values: [Any] = [stores, sessions, sms, ledger, PostgresCleanupReport(refreshLeases: 1, loginSessions: 2)] + errors.compactMap { $0 }
        for value in values {
            for form in Self.forms(value) {
                for secret in secrets {
                    #expect(!form.contains(secret), "\(type(of: value)) shows a secret: \(form)")
                }
            }
        }
        await TestDatabase.dispose(stores)
    }
}
