import Foundation
import OneTap
import OneTapPostgres
import OneTapPostgresTestSupport
import OneTapTesting
import Testing

/// The rows today's stores wrote into a schema at version 6 (`Tests/Golden/postgres/schema-6.sql`, a
/// `pg_dump` of schema `onetap_golden` made with the code of commit 37018e5), loaded into a fresh schema
/// and read back through the stores' public API, every value checked against values written out by
/// hand. Opening the stores migrates the schema first: migration 7 turns every `timestamptz` column into
/// a `bigint` of milliseconds, and the JSON rows (seconds since 1970 in a session, since 2001 in what
/// `JSONEncoder` wrote) are read as they are.
///
/// Skipped, as the other PostgreSQL suites, when no server can be had (failed under
/// `ONETAP_REQUIRE_POSTGRES=1`).
@Suite(.connectionBudget) struct GoldenSchemaTests {
    // MARK: Loading the dump

    /// The dump's statements, one each, with its schema renamed: `psql`'s meta-commands (`\restrict`)
    /// and comments left out, statements split at semicolons outside quoted text (the rows' JSON holds
    /// semicolons).
    static func statements(schema: String) throws -> [String] {
        let path = Package.path("Tests/Golden/postgres/schema-6.sql")
        let sql = try String(contentsOfFile: path, encoding: .utf8).replacingOccurrences(of: "onetap_golden", with: schema)
        var statements: [String] = []
        var current = ""
        var quoted = false
        for line in sql.split(separator: "\n", omittingEmptySubsequences: false) {
            if !quoted && current.isEmpty && (line.isEmpty || line.hasPrefix("--") || line.hasPrefix("\\")) { continue }
            for character in line {
                if character == "'" { quoted.toggle() }
                current.append(character)
                if character == ";" && !quoted {
                    statements.append(current)
                    current = ""
                }
            }
            if !current.isEmpty { current.append("\n") }
        }
        #expect(current.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "the dump ends with a whole statement")
        return statements
    }

    /// Loads the dump into a schema of its own, opens the stores on it, runs `body`, drops the schema.
    static func withGoldenSchema(_ body: (PostgresStores) async throws -> Void) async throws {
        let url = try await TestDatabase.url()
        let schema = TestDatabase.schemaName()
        // The dump's `SET`s and its empty search path stay with the loader's one connection, closed after.
        let loader = PostgresStores(configuration: try TestDatabase.configuration(url, schema: schema, poolSize: 1))
        do {
            for statement in try Self.statements(schema: schema) { try await loader.pool.execute(statement) }
        } catch {
            await TestDatabase.dispose(loader)
            throw error
        }
        await loader.close()
        let stores: PostgresStores
        do {
            stores = try await PostgresStores.open(try TestDatabase.configuration(url, schema: schema))
        } catch {
            let cleaner = PostgresStores(configuration: try TestDatabase.configuration(url, schema: schema, poolSize: 1))
            await TestDatabase.dispose(cleaner)
            throw error
        }
        do {
            try await body(stores)
        } catch {
            await TestDatabase.dispose(stores)
            throw error
        }
        await TestDatabase.dispose(stores)
    }

    // MARK: Helpers

    /// Milliseconds since 1970 of an instant.
    static func ms(_ date: Date?) -> Int64? {
        date.map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) }
    }

    /// Milliseconds since 1970 of ISO 8601 text, read by Foundation.
    static func ms(_ iso: String) -> Int64? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return ms(formatter.date(from: iso))
    }

    /// The instant of ISO 8601 text, to the millisecond.
    static func instant(_ iso: String) throws -> Date {
        Date(timeIntervalSince1970: Double(try #require(ms(iso))) / 1000)
    }

    static func digest(_ hex: String) throws -> SHA256.Digest { try #require(SHA256.Digest(hex: hex)) }

    // MARK: The schema

    @Test func theDumpLoadsAndOpensAtVersion6OrLater() async throws {
        try await Self.withGoldenSchema { stores in
            let report = try await stores.migrate()
            #expect(report.version >= 6)
            #expect(report.applied.allSatisfy { $0 > 6 }, "nothing before 6 is applied again")
        }
    }

    /// The dump migrated to 7 has the columns, types, defaults, indexes and constraints of a schema
    /// made at 7 from nothing.
    @Test func theMigratedDumpHasTheColumnsOfAFreshSchema() async throws {
        try await Self.withGoldenSchema { stores in
            let fresh = PostgresStores(configuration: try TestDatabase.configuration(try await TestDatabase.url()))
            _ = try await fresh.migrate()
            let migrated = try await PostgresMigration7Tests.columns(stores.pool, stores.configuration.schema)
            #expect(!migrated.isEmpty)
            #expect(migrated == (try await PostgresMigration7Tests.columns(fresh.pool, fresh.configuration.schema)))
            #expect(try await PostgresMigration7Tests.definitions(stores.pool, stores.configuration.schema)
                == (try await PostgresMigration7Tests.definitions(fresh.pool, fresh.configuration.schema)))
            await TestDatabase.dispose(fresh)
        }
    }

    // MARK: Tokens

    @Test func tokens() async throws {
        try await Self.withGoldenSchema { stores in
            let store = stores.tokenStore()
            let rotated = try #require(try await store.load("acct-golden-tianyi-1"))
            #expect(rotated.version == TokenVersion(3), "saved, then replaced: the third value of token_versions")
            #expect(rotated.token.value.reveal() == "fake-access-token-A1-rotated")
            #expect(rotated.token.refreshToken?.reveal() == "fake-refresh-token-R1-rotated")
            #expect(rotated.token.flow == .tianyi)
            #expect(rotated.token.account == "acct-golden-tianyi-1")
            #expect(Self.ms(rotated.token.issuedAt) == Self.ms("2026-12-01T08:11:40.456Z"))
            #expect(Self.ms(rotated.token.expiresAt) == Self.ms("2026-12-31T08:11:40.456Z"))

            let plain = try #require(try await store.load("acct-golden-tianyi-2"))
            #expect(plain.version == TokenVersion(2))
            #expect(plain.token.value.reveal() == "fake-access-token-A2")
            #expect(plain.token.refreshToken == nil)
            #expect(plain.token.flow == .tianyi)
            #expect(Self.ms(plain.token.issuedAt) == Self.ms("2026-12-01T08:11:00.999Z"))
            #expect(Self.ms(plain.token.expiresAt) == Self.ms("2026-12-01T09:11:00.999Z"))

            let utf8 = try #require(try await store.load("账户-golden-3"))
            #expect(utf8.version == TokenVersion(4))
            #expect(utf8.token.value.reveal() == "fake-access-token-A3")
            #expect(utf8.token.refreshToken == nil)
            #expect(utf8.token.flow == .mobile)
            #expect(Self.ms(utf8.token.issuedAt) == Self.ms("2026-12-01T08:12:00.500Z"))
            #expect(Self.ms(utf8.token.expiresAt) == Self.ms("2026-12-02T08:12:00.500Z"))

            #expect(try await store.load("acct-golden-absent") == nil)

            // Due times: 2026-12-01T09:01:00.999Z, 2026-12-02T07:12:00.500Z, 2026-12-30T08:11:40.456Z.
            #expect(try await store.accounts(dueBefore: try Self.instant("2026-12-01T09:01:00.999Z"), limit: 10).isEmpty)
            #expect(try await store.accounts(dueBefore: try Self.instant("2026-12-01T09:01:01.000Z"), limit: 10) == ["acct-golden-tianyi-2"])
            #expect(try await store.accounts(dueBefore: try Self.instant("2026-12-02T07:12:00.501Z"), limit: 10) == ["acct-golden-tianyi-2", "账户-golden-3"])
            #expect(try await store.accounts(dueBefore: try Self.instant("2026-12-30T08:11:40.457Z"), limit: 10) == [
                "acct-golden-tianyi-2", "账户-golden-3", "acct-golden-tianyi-1",
            ])

            // The version sequence goes on from where the dump left it.
            let next = try await store.save(rotated.token, replacing: rotated.version, dueAt: try Self.instant("2026-12-30T09:00:00.000Z"))
            #expect(next == TokenVersion(5))
            await #expect(throws: StoreError.self) {
                try await store.save(plain.token, replacing: TokenVersion(1), dueAt: try Self.instant("2026-12-01T09:00:00.000Z"))
            }
            // No refresh lease was left in the dump: a refresh takes the lease at once.
            #expect(try await store.withRefreshLock(for: "acct-golden-tianyi-1") { 42 } == 42)
        }
    }

    // MARK: Login sessions

    static let mobileOnly = LoginPlan(carrier: .mobile, evidence: .plmn, flows: [.mobile, .sms], reason: .policy, condition: .carrier(.mobile))
    static let fourFlows = LoginPlan(carrier: .mobile, evidence: .plmn, flows: [.mobile, .tianyi, .unicom, .sms], reason: .policy, condition: .carrier(.mobile))

    /// Every stored session: the same session as its golden JSON file (`Tests/Golden/session/`, whose
    /// every value `GoldenRecordTests` checks), and its version, stage and instants as written here.
    @Test func loginSessions() async throws {
        try await Self.withGoldenSchema { stores in
            let store = stores.loginSessionStore()
            struct Expected {
                let file, id: String
                let version: Int
                let stage: LoginSession.Stage?
                let plan: LoginPlan
                let created, expires: String
                let trace: Int
            }
            let expected = [
                Expected(
                    file: "flow-stage", id: "Golden-flow-stage-0001", version: 2, stage: .flow(.mobile, attempt: 2), plan: Self.mobileOnly,
                    created: "2026-12-01T08:00:01.250Z", expires: "2026-12-01T08:10:01.250Z", trace: 1),
                Expected(
                    file: "exchange-stage", id: "Golden-exchange-000002", version: 2, stage: nil, plan: Self.mobileOnly, created: "2026-12-01T08:01:00.125Z",
                    expires: "2026-12-01T08:11:00.125Z", trace: 1),
                Expected(
                    file: "ended-success-verified", id: "Golden-verified-000003", version: 3, stage: .ended(.success, flow: .mobile), plan: Self.mobileOnly,
                    created: "2026-12-01T08:02:00.500Z", expires: "2026-12-01T08:12:00.500Z", trace: 2),
                Expected(
                    file: "pending-action", id: "Golden-pending-0000004", version: 1, stage: .flow(.mobile, attempt: 1), plan: Self.mobileOnly,
                    created: "2026-12-01T08:03:00.250Z", expires: "2026-12-01T08:13:00.250Z", trace: 0),
                Expected(
                    file: "unknown-exchanges", id: "Golden-unknown-0000005", version: 3, stage: .flow(.sms, attempt: 1), plan: Self.mobileOnly,
                    created: "2026-12-01T08:04:00.125Z", expires: "2026-12-01T08:14:00.125Z", trace: 2),
                Expected(
                    file: "alerts", id: "Golden-alerts-00000006", version: 4, stage: .flow(.unicom, attempt: 1), plan: Self.fourFlows,
                    created: "2026-12-01T08:06:00.625Z", expires: "2026-12-01T08:16:00.625Z", trace: 3),
                Expected(
                    file: "trace-with-marks", id: "Golden-trace-000000007", version: 6, stage: .flow(.sms, attempt: 1), plan: Self.fourFlows,
                    created: "2026-12-01T08:07:00.100Z", expires: "2026-12-01T08:17:00.100Z", trace: 5),
                Expected(
                    file: "ended-failed-no-flow", id: "Golden-failed-00000008", version: 1, stage: .ended(.failed, flow: nil), plan: Self.fourFlows,
                    created: "2026-12-01T08:09:00.999Z", expires: "2026-12-01T08:19:00.999Z", trace: 0),
                Expected(
                    file: "ended-cancelled", id: "Golden-cancel-00000009", version: 2, stage: .ended(.cancelled, flow: .mobile), plan: Self.mobileOnly,
                    created: "2026-12-01T08:10:00.750Z", expires: "2026-12-01T08:20:00.750Z", trace: 1),
            ]
            for entry in expected {
                let session = try #require(try await store.load(try LoginSessionID(entry.id)), "\(entry.id)")
                let golden = try LoginSession(json: try Data(contentsOf: URL(fileURLWithPath: Package.path("Tests/Golden/session/\(entry.file).json"))))
                #expect(session == golden, "\(entry.id) as its golden file")
                #expect(session.version == entry.version, "\(entry.id)")
                if let stage = entry.stage { #expect(session.stage == stage, "\(entry.id)") }
                #expect(session.plan == entry.plan, "\(entry.id)")
                #expect(Self.ms(session.createdAt) == Self.ms(entry.created), "\(entry.id)")
                #expect(Self.ms(session.expiresAt) == Self.ms(entry.expires), "\(entry.id)")
                #expect(session.trace.count == entry.trace, "\(entry.id)")
            }

            let exchange = try #require(try await store.load(try LoginSessionID("Golden-exchange-000002")))
            guard case .exchange(.mobile, 1, let token, let receivedAt) = exchange.stage else {
                Issue.record("not at the exchange: \(exchange.stage)")
                return
            }
            #expect(token == (try Self.digest("4f905de4876e79e9fc8ad1b69bbe01bdedf4b0ab0021175751d133f0fd3c1370")))
            #expect(Self.ms(receivedAt) == Self.ms("2026-12-01T08:01:02.375Z"))
            let verified = try #require(try await store.load(try LoginSessionID("Golden-verified-000003")))
            #expect(verified.verified == VerifiedLogin(phoneNumber: try PhoneNumber("13800138000"), account: "acct-golden-3"))
            let pending = try #require(try await store.load(try LoginSessionID("Golden-pending-0000004")).flatMap(\.pending))
            #expect(pending.key == "43Pp0nQVUUoBrU4r_5jZ0w" && pending.action == "favourite")
            #expect(pending.payload == .object(["item": .string("article-42"), "note": .null, "score": .number(4.5), "tags": .array([.string("新闻"), .string("tech")])]))
            let unknown = try #require(try await store.load(try LoginSessionID("Golden-unknown-0000005")))
            #expect(unknown.unknownExchanges.map(\.token) == [try Self.digest("5d8a2758731002dd0ceaa5af44e8335c9080f896ab43c73b98dff03357d3128c")])
            #expect(Self.ms(unknown.unknownExchanges.first?.at) == Self.ms("2026-12-01T08:04:09.375Z"))
            let alerts = try #require(try await store.load(try LoginSessionID("Golden-alerts-00000006")))
            #expect(alerts.alerts.map(\.code) == ["103101", "exchange-51002"])
            let marks = try #require(try await store.load(try LoginSessionID("Golden-trace-000000007")))
            #expect(marks.trace.map(\.result) == [
                .code("200023"), .code("timeout"), .providerError("SDK \"crashed\"\tcode 7"), .code("0"), .exchangeCode("failed"),
            ])

            // A stored session goes on: a report is applied and the result replaces it.
            let flow = try #require(try await store.load(try LoginSessionID("Golden-flow-stage-0001")))
            let next = try LoginSessionMachine().advance(flow, .timeout(.mobile), version: 2, at: try Self.instant("2026-12-01T08:00:05.000Z")).session
            try await store.replace(next, expecting: 2)
            let reloaded = try #require(try await store.load(try LoginSessionID("Golden-flow-stage-0001")))
            #expect(reloaded.version == 3 && reloaded.stage == .flow(.sms, attempt: 1))
            #expect(Self.ms(reloaded.createdAt) == Self.ms("2026-12-01T08:00:01.250Z"))

            // Expiry, read from the rows' own column: the first two expired before 08:12:00.500.
            #expect(try await store.removeExpired(before: try Self.instant("2026-12-01T08:12:00.500Z"), limit: 100) == 2)
            #expect(try await store.load(try LoginSessionID("Golden-exchange-000002")) == nil)
            #expect(try await store.load(try LoginSessionID("Golden-verified-000003")) != nil, "expires at 08:12:00.500 itself")
        }
    }

    // MARK: SMS

    static let smsKey = try! ServerKey(bytes: Array("golden-sms-key-not-a-secret-0001".utf8))

    @Test func smsCountersAndCodeRecords() async throws {
        try await Self.withGoldenSchema { stores in
            let store = stores.smsStore()
            let number = try PhoneNumber("13800138000")
            func counter(_ counts: SMSPolicy.Counts, _ key: SMSPolicy.Key, _ value: String) -> SMSPolicy.Counter {
                SMSPolicy.Counter(counts: counts, key: key, value: value)
            }
            let counters = [
                counter(.sends, .number, "13800138000"), counter(.sends, .ip, "203.0.113.7"), counter(.sends, .device, "golden-device-1"),
                counter(.failedVerifies, .number, "13800138000"), counter(.sends, .number, "13900139000"), counter(.sends, .ip, "2001:db8:1234:5678::/64"),
                counter(.sends, .device, "golden-device-2"), counter(.sends, .session, "nobody"),
            ]
            // A read that changes nothing (and so writes nothing). Migration 11 moved the session-bound
            // record to its number and session.
            let slot = SMSCodeKey(number: number, session: try LoginSessionID("Golden-unknown-0000005"))
            let state = try await store.update(counters: counters, code: slot, at: try Self.instant("2026-12-01T08:21:40.000Z")) { $0 }
            func events(_ counter: SMSPolicy.Counter) -> [Int64?] { (state.events[counter] ?? []).map { Self.ms($0) } }
            #expect(events(counters[0]) == [Self.ms("2026-12-01T08:20:00.250Z")])
            #expect(events(counters[1]) == [Self.ms("2026-12-01T08:20:00.250Z")])
            #expect(events(counters[2]) == [Self.ms("2026-12-01T08:20:00.250Z")])
            #expect(events(counters[3]) == [Self.ms("2026-12-01T08:20:30.500Z"), Self.ms("2026-12-01T08:20:45.750Z")])
            #expect(events(counters[4]) == [Self.ms("2026-12-01T08:21:00.125Z")])
            #expect(events(counters[5]) == [Self.ms("2026-12-01T08:21:00.125Z")])
            #expect(events(counters[6]) == [Self.ms("2026-12-01T08:21:00.125Z")])
            #expect(events(counters[7]).isEmpty)
            #expect(Self.ms(state.keepUntil) == Self.ms("2026-12-03T08:21:00.125Z"))
            let record = try #require(state.code)
            #expect(record.id == "4c4d36476fce4d70")
            #expect(record.number == number)
            #expect(record.digest == (try Self.digest("326d76ffb7669b2adc9eedd4211a4401d1aaeda111b98be11aca1b8908ec9619")))
            #expect(record.session?.text == "Golden-unknown-0000005")
            #expect(Self.ms(record.issuedAt) == Self.ms("2026-12-01T08:20:00.250Z"))
            #expect(Self.ms(record.expiresAt) == Self.ms("2026-12-01T08:25:00.250Z"))
            #expect(record.wrongAttempts == 2)

            let other = try PhoneNumber("13900139000")
            let fresh = try #require(try await store.update(counters: [], code: other, at: try Self.instant("2026-12-01T08:21:40.000Z")) { $0.code })
            #expect(fresh.id == "1182203f78ee234d")
            #expect(fresh.digest == (try Self.digest("17bf4ff4375d5523e4243e17a2349244cfd3e88dc3bcd45473fcc955468d06ff")))
            #expect(fresh.session == nil && fresh.wrongAttempts == 0)
            #expect(Self.ms(fresh.issuedAt) == Self.ms("2026-12-01T08:21:00.125Z"))
            #expect(Self.ms(fresh.expiresAt) == Self.ms("2026-12-01T08:26:00.125Z"))

            // The service goes on from the stored rows: the limits count the stored sends, and the codes
            // that were sent verify.
            let sender = ScriptedSMSSender()
            let service = SMSServiceAt(key: Self.smsKey, sender: sender, store: store)
            let now = try Self.instant("2026-12-01T08:21:40.000Z")
            // The stored send counts in the number-wide rules (issue 21: the per-minute limit is per login
            // session now, and the stored sends name none), so another session's send goes out and the
            // number's counter holds both.
            let again = try await service.send(to: other, context: SMSContext(ip: try IPAddress("198.51.100.1"), session: LoginSessionID.random()), at: now)
            guard case .sent = again else {
                Issue.record("another session's send was not admitted: \(again)")
                return
            }
            let numberWide = try await store.update(counters: [counter(.sends, .number, "13900139000")], code: other, at: now) { $0.events.values.first ?? [] }
            #expect(numberWide.map { Self.ms($0) } == [Self.ms("2026-12-01T08:21:00.125Z"), Self.ms(now)])
            let fromSameIP = try await service.send(to: try PhoneNumber("13700137000"), context: SMSContext(ip: try IPAddress("203.0.113.7"), session: .testSession), at: now)
            // This service checks no captcha: the address's captcha rule is a wait, an hour after its stored send.
            #expect(fromSameIP == .limited(rule: "ip-captcha", retryAfter: try Self.instant("2026-12-01T09:20:00.250Z")))
            #expect(sender.delivered.count == 1)
            let boundContext = SMSContext(session: try LoginSessionID("Golden-unknown-0000005"))
            #expect(try await service.verify(Secret("474453"), for: number, context: SMSContext(session: .testSession), at: now) == .noCode, "bound to its session")
            guard case .verified(let verdict) = try await service.verify(Secret("474453"), for: number, context: boundContext, at: now) else {
                Issue.record("the code sent to 13800138000 did not verify")
                return
            }
            #expect(verdict.phoneNumber == number && verdict.session?.text == "Golden-unknown-0000005")
            // The code sent to 13900139000 without a session is read, but no request can spend it: a verify now
            // always names a session (an attacker's read: requests without one shared one code per number), and
            // its own code is the one it verifies. Such codes lived five minutes; the user asks for a new one.
            #expect(try await service.verify(Secret("335552"), for: other, context: SMSContext(session: .testSession), at: now) == .noCode)
        }
    }

    // MARK: The exchange ledger

    @Test func exchangeLedger() async throws {
        try await Self.withGoldenSchema { stores in
            let ledger = stores.exchangeLedger()
            let pending = try Self.digest("9efa1008b9cdf8923793556846f18876edfb1faa7c973fd8270005dff6eb219b")  // fake-ledger-token-pending
            let answered = try Self.digest("73e961ecdb47f3d74a1812622cb750bddb571fc4e629c9086f23cc9e3235f079")  // fake-ledger-token-answered
            let unknown = try Self.digest("b1e63907cc7025a188f1de1345f2fce2a3fab71dcf85e663574ba351e8577c21")  // fake-ledger-token-unknown
            let failed = try Self.digest("d18d4e3ee8b5403d7046aa25a54a38ed52749e09ff575e1f69117c3b6fcedced")  // fake-ledger-token-failed
            let now = try Self.instant("2026-12-01T09:00:00.000Z")
            // A claim of a token the ledger remembers answers its state and claims nothing.
            #expect(try await ledger.claim(pending, at: now) == .pending)
            #expect(try await ledger.claim(answered, at: now) == .answered(ExchangeResponse(code: "103000")))
            // Rows from before migration 10 have no session: no login may resend them, every login's report is a replay.
            #expect(try await ledger.claim(unknown, for: OneSession.id, at: now)?.session == nil)
            #expect(try await ledger.resend(unknown, for: OneSession.id, at: now) == false)
            #expect(try await ledger.claim(unknown, at: now) == .unknown)
            #expect(try await ledger.claim(failed, at: now) == .failed)

            let unknowns = try await ledger.unknownExchanges(since: try Self.instant("2026-12-01T08:00:00.000Z"))
            #expect(unknowns.map(\.token) == [unknown])
            #expect(unknowns.map { Self.ms($0.at) } == [Self.ms("2026-12-01T08:30:10.625Z")])
            #expect(try await ledger.unknownExchanges(since: try Self.instant("2026-12-01T08:30:10.626Z")).isEmpty)

            // Remembered for a day from the claim (2026-12-01T08:30:00.125Z): after that the token is new.
            #expect(try await ledger.claim(pending, at: try Self.instant("2026-12-02T08:30:00.125Z")) == .pending, "forgotten only after")
            #expect(try await ledger.claim(pending, at: try Self.instant("2026-12-02T08:30:00.126Z")) == nil)
        }
    }

    // MARK: Guests

    /// `guest_devices` (migration 6) stays as shipped history: nothing reads it any more (guests are
    /// random per app session, and the last-login hint lives in the app session), but a schema migrated
    /// from an earlier version keeps its rows as they were, their hints still readable.
    @Test func guestDevicesStayAsShippedHistory() async throws {
        try await Self.withGoldenSchema { stores in
            let rows = try await stores.pool.execute(
                "SELECT key, generation, account, last_login FROM \"\(stores.configuration.schema)\".guest_devices ORDER BY key COLLATE \"C\"").rows
            #expect(rows.map { Array($0.prefix(3)) } == [
                [.text("_n_XG23phDf464TkynBVcQ"), .int64(2), .null],
                [.text("yzgg6tsmEB9w9ymfT3VcKw"), .int64(1), .null],
                [.text("zUKCJVMPiK8n6mhmq1MgAg"), .int64(0), .text("acct-golden-3")],
            ])
            func hint(_ row: Int) throws -> LastLoginHint? {
                guard rows.count > row, case .text(let json) = rows[row][3] else { return nil }
                return try LastLoginHint(json: json)
            }
            let sms = try #require(try hint(0))
            #expect(sms.flow == .sms && sms.maskedNumber == nil && Self.ms(sms.at) == Self.ms("2026-12-01T08:21:00.999Z"))
            #expect(rows.count == 3 && rows[1][3] == .null)
            let oneTap = try #require(try hint(2))
            #expect(oneTap.flow == .mobile && oneTap.maskedNumber == "138****8000" && Self.ms(oneTap.at) == Self.ms("2026-12-01T08:20:00.125Z"))
        }
    }

    /// The golden rows' guests (ids an earlier version derived from the devices `golden-device-1` and
    /// `golden-device-2`; to a store they are guest ids like any other).
    static let guest1 = try! GuestID("Eye6gz0mNNjO9p89jesOWA")
    static let guest2 = try! GuestID("Rnb1r_39ChokD62rk4QDoA")

    static let cart: JSONValue = .array([.object(["item": .string("sku-9"), "qty": .number(99)])])
    static let drafts: JSONValue = .array([.string("第一稿 \"quoted\"\nsecond line")])
    static let mergedFavourites: JSONValue = .array([.string("article-2"), .string("article-3"), .string("article-1")])
    static let mergedHistory: JSONValue = .array([
        .object(["item": .string("article-9"), "at": .string("2026-12-01T08:51:30.5Z")]),
        .object(["item": .string("article-1"), "at": .string("2026-12-01T08:50:00.125Z")]),
    ])
    static let mergedSettings: JSONValue = .object(["fontSize": .number(16), "theme": .string("light"), "ratio": .number(0.1)])

    @Test func guestDataAndMergeJournals() async throws {
        try await Self.withGoldenSchema { stores in
            let data = stores.guestDataStore()
            let scores: JSONValue = .array([
                .number(0.1), .number(-2.5), .number(1e15), .number(1e-7), .number(123_456_789_012_345), .number(1e300), .bool(true), .null, .string("x"),
            ])
            #expect(try await data.data(of: .guest(Self.guest1)) == [
                "favourites": .array([.string("article-1"), .string("article-2")]),
                "history": .array([
                    .object(["item": .string("article-1"), "at": .string("2026-12-01T08:50:00.125Z")]),
                    .object(["item": .string("article-9"), "at": .string("2026-12-01T08:51:30.5Z")]),
                ]),
                "cart": .array([.object(["item": .string("sku-9"), "qty": .number(2), "price": .number(12.5)])]),
                "settings": .object(["fontSize": .number(16), "theme": .string("dark"), "ratio": .number(0.1)]),
                "drafts": Self.drafts,
                "scores": scores,
            ])
            #expect(try await data.data(of: .account("acct-golden-3")) == [
                "favourites": .array([.string("article-2"), .string("article-3")]), "settings": .object(["theme": .string("light")]),
                "cart": Self.cart, "drafts": Self.drafts,
            ], "the account's own data and the two steps the interrupted merge wrote")
            #expect(try await data.data(of: .account("acct-golden-7")) == [
                "favourites": .array([.string("article-7")]),
                "history": .array([.object(["item": .string("article-7"), "at": .string("2026-12-01T09:00:00Z")])]),
            ])
            #expect(try await data.data(of: .guest(Self.guest2)).isEmpty, "merged away")

            let interrupted = try #require(try await data.journal(for: Self.guest1))
            #expect(interrupted.account == "acct-golden-3")
            #expect(Self.ms(interrupted.startedAt) == Self.ms("2026-12-01T08:25:00.250Z"))
            #expect(interrupted.completed == 2 && !interrupted.done && interrupted.finishedAt == nil)
            #expect(interrupted.holder == "WTnGN3kUVvfHjyF87V9oIw")
            #expect(Self.ms(interrupted.leaseUntil) == Self.ms("2026-12-01T08:25:30.750Z"))
            #expect(interrupted.version == 4)
            #expect(interrupted.plan.steps.count == 10)
            #expect(interrupted.plan.steps.first == .write(kind: "cart", value: Self.cart))
            #expect(interrupted.plan.kept == ["scores"])

            let finished = try #require(try await data.journal(for: Self.guest2))
            #expect(finished.account == "acct-golden-7")
            #expect(Self.ms(finished.startedAt) == Self.ms("2026-12-01T08:35:00.500Z"))
            #expect(Self.ms(finished.finishedAt) == Self.ms("2026-12-01T08:35:02.000Z"))
            #expect(finished.completed == 4 && finished.done && finished.holder == nil && finished.leaseUntil == nil)
            #expect(finished.version == 6)

            // The interrupted merge resumes from its journal once its lease has run out, and finishes.
            let clock = FakeClock(now: try Self.instant("2026-12-01T08:26:00.000Z"))
            let resumed = try await GuestMerger(store: data, clock: clock).merge(Self.guest1, into: "acct-golden-3")
            #expect(resumed.done && resumed.completed == 10)
            #expect(
                resumed.version == 11,
                "taken over (5), each of its five kinds recorded as it merges, in the same atomic change (6 to 10), then done (11)")
            #expect(Self.ms(resumed.finishedAt) == Self.ms("2026-12-01T08:26:00.000Z"))
            #expect(try await data.data(of: .account("acct-golden-3")) == [
                "favourites": Self.mergedFavourites, "history": Self.mergedHistory, "cart": Self.cart, "drafts": Self.drafts, "settings": Self.mergedSettings,
            ])
            #expect(try await data.data(of: .guest(Self.guest1)) == ["scores": scores], "the kind without a rule stays with the guest")
            let done = try #require(try await data.journal(for: Self.guest1))
            #expect(done.version == 11 && done.done)
        }
    }

    // MARK: Cleanup reads every expiry column

    @Test func removeExpiredRowsReadsTheStoredInstants() async throws {
        try await Self.withGoldenSchema { stores in
            // Merge journals go 30 days after they finished (2026-12-01T08:35:02.000Z); everything else
            // expired long before.
            let first = try await stores.removeExpiredRows(before: try Self.instant("2026-12-31T08:35:02.000Z"))
            #expect(first.refreshLeases == 0)
            #expect(first.loginSessions == 9)
            #expect(first.smsCounters == 7)
            #expect(first.smsCodes == 2)
            #expect(first.exchangeLedgerRows == 4)
            #expect(first.mergeJournals == 0)
            #expect(first.appSessions == 0, "migration 8 adds an empty app_sessions")
            let second = try await stores.removeExpiredRows(before: try Self.instant("2026-12-31T08:35:02.001Z"))
            #expect(second.mergeJournals == 1)
            #expect(second.loginSessions == 0 && second.smsCounters == 0 && second.smsCodes == 0 && second.exchangeLedgerRows == 0)
            #expect(try await stores.guestDataStore().journal(for: Self.guest1) != nil, "an unfinished journal stays")
        }
        // Boundaries to the millisecond, in a fresh copy: the last session expires at
        // 2026-12-01T08:20:00.750Z; the exchange ledger forgets the last claim (2026-12-01T08:30:03.750Z)
        // a day later; the SMS rows kept longest are kept until 2026-12-03T08:21:00.125Z.
        try await Self.withGoldenSchema { stores in
            let before = try await stores.removeExpiredRows(before: try Self.instant("2026-12-01T08:20:00.750Z"))
            #expect(before.loginSessions == 8)
            let after = try await stores.removeExpiredRows(before: try Self.instant("2026-12-01T08:20:00.751Z"))
            #expect(after.loginSessions == 1)
            let ledgerBefore = try await stores.removeExpiredRows(before: try Self.instant("2026-12-02T08:30:03.750Z"))
            #expect(ledgerBefore.exchangeLedgerRows == 3)
            let ledgerAfter = try await stores.removeExpiredRows(before: try Self.instant("2026-12-02T08:30:03.751Z"))
            #expect(ledgerAfter.exchangeLedgerRows == 1)
            let smsBefore = try await stores.removeExpiredRows(before: try Self.instant("2026-12-03T08:21:00.125Z"))
            #expect(smsBefore.smsCodes == 1 && smsBefore.smsCounters == 4)
            let smsAfter = try await stores.removeExpiredRows(before: try Self.instant("2026-12-03T08:21:00.126Z"))
            #expect(smsAfter.smsCodes == 1 && smsAfter.smsCounters == 3)
        }
    }
}

/// Where the package's files are, found from this source file.
enum Package {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }
}
