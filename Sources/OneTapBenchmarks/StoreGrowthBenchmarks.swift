import Foundation
import OneTap
import OneTapPostgres
import OneTapPostgresTestSupport

/// How each store's operation cost grows with its table: the same operation timed with 10³, 10⁵ and 10⁶ rows
/// already stored (10³, 10⁴ and 10⁵ with `--quick`), in memory and on PostgreSQL, so a cost linear in the table
/// shows as a ratio near the growth of the table (×1000), a flat or logarithmic one near ×1.
///
/// - sessions: a login session read and advanced (`load`, then `replace(_:expecting:)`);
/// - sms: a send decision for a number not seen before (`SMSStore.update` running the real rules);
/// - ledger: a token claimed and settled (`claim`, then `settle`);
/// - app sessions: a refresh rotation (`AppSessions.refresh`: read, rules, compare-and-swap write).
///
/// In memory the rows are stored through each store's own API. On PostgreSQL a few hundred real rows are stored
/// through the API (the operations use only those) and the rest are copies of one of them under other keys
/// (`INSERT … SELECT … FROM generate_series`), so the tables and their indexes have the size named.
/// Each row's reference is the same operation at the smallest size, in the same run.
enum StoreGrowthBenchmarks {
    static let stores = ["sessions", "sms", "ledger", "app-sessions"]
    static let names = stores.flatMap { ["growth.\($0) (in memory)", "growth.\($0) (postgres)"] }

    /// One store's operation and how to grow its table.
    struct Case {
        let store: String
        /// Adds rows until the table holds `to` (it holds `from`).
        let grow: (_ from: Int, _ to: Int) async throws -> Void
        /// One operation; returns the nanoseconds of its timed part (set-up it needs, such as a new login in place
        /// of one that ended, is not timed).
        let operation: () async throws -> Double
    }

    static func run(_ options: BenchmarkOptions, _ report: inout Report) async {
        guard names.contains(where: options.wants) else { return }
        let sizes = options.quick ? [1_000, 10_000, 100_000] : [1_000, 100_000, 1_000_000]
        let operations = options.quick ? 300 : 2_000
        do {
            for growth in try await inMemoryCases() where options.wants("growth.\(growth.store) (in memory)") {
                report.add(try await measure(growth, backend: "in memory", sizes: sizes, operations: operations * 5))
            }
        } catch {
            report.fail("growth (in memory)", error)
        }
        guard names.contains(where: { $0.hasSuffix("(postgres)") && options.wants($0) }) else { return }
        await BenchmarkPostgres.run("growth (postgres)", schemaPrefix: "growth_", poolSize: 2, serverOptions: PostgresTestServer.Options(), &report) {
            stores, _, _, report in
            for growth in try await postgresCases(stores) where options.wants("growth.\(growth.store) (postgres)") {
                report.add(try await measure(growth, backend: "postgres", sizes: sizes, operations: operations))
            }
        }
    }

    /// Grows the table size by size and times the operation at each.
    private static func measure(_ growth: Case, backend: String, sizes: [Int], operations: Int) async throws -> Measurement {
        var medians: [(size: Int, timing: BatchTiming)] = []
        var stored = 0
        for size in sizes {
            try await growth.grow(stored, size)
            stored = size
            for _ in 0..<max(10, operations / 10) { _ = try await growth.operation() }   // warm up
            var samples: [Double] = []
            samples.reserveCapacity(operations)
            for _ in 0..<operations { samples.append(try await growth.operation()) }
            samples.sort()
            medians.append((size, (samples.percentile(0.5) ?? 0, samples.percentile(0.9) ?? 0, nil)))
        }
        let first = medians[0], last = medians[medians.count - 1]
        var row = Suites.row(
            "growth.\(growth.store) (\(backend))", 1, last.timing, "the same at \(first.size) rows", first.timing,
            target: "≤ 2× the cost at \(first.size) rows (flat or logarithmic)", met: last.timing.median <= 2 * first.timing.median)
        row.extra = medians.map { ("medianNsAt\($0.size)", format($0.timing.median)) }
        return row
    }

    // MARK: In memory

    private static func inMemoryCases() async throws -> [Case] {
        let now = Date()
        let machine = LoginSessionMachine()
        let snapshot = DeviceSnapshot(sim: .present, plmn: try PLMN("46000"))

        let sessionStore = InMemoryLoginSessionStore()
        let touched = LockedValue([LoginSession]())
        let sessions = Case(store: "sessions", grow: { from, to in
            for _ in from..<to {
                let session = machine.start(snapshot, at: now, id: .random()).session
                try await sessionStore.create(session)
                if touched.withLock({ $0.count }) < 256 { touched.withLock { $0.append(session) } }
            }
        }, operation: { try await advance(sessionStore, touched, machine, now) })

        let smsStore = InMemorySMSStore()
        let nextNumber = LockedValue(UInt64(13_000_000_000))
        let sms = Case(store: "sms", grow: { from, to in
            for _ in from..<to { try await sendToANewNumber(smsStore, nextNumber, now) }
        }, operation: { try await timed { try await sendToANewNumber(smsStore, nextNumber, now) } })

        let ledger = InMemoryExchangeLedger(retention: .seconds(86_400 * 365))
        let exchanges = Case(store: "ledger", grow: { from, to in
            for _ in from..<to { try await claimAndSettle(ledger, now) }
        }, operation: { try await timed { try await claimAndSettle(ledger, now) } })

        let appSessions = try appSessionCase(InMemoryAppSessionStore()) { from, to, sessions in
            for _ in from..<to { _ = try await sessions.open() }
        }
        return [sessions, sms, exchanges, appSessions]
    }

    // MARK: PostgreSQL

    private static func postgresCases(_ stores: PostgresStores) async throws -> [Case] {
        let now = Date()
        let machine = LoginSessionMachine()
        let snapshot = DeviceSnapshot(sim: .present, plmn: try PLMN("46000"))
        let schema = "\"\(stores.configuration.schema)\""

        let sessionStore = stores.loginSessionStore()
        let touched = LockedValue([LoginSession]())
        let sessions = Case(store: "sessions", grow: { from, to in
            let real = min(to, 256) - from
            for _ in 0..<max(0, real) {
                let session = machine.start(snapshot, at: now, id: .random()).session
                try await sessionStore.create(session)
                touched.withLock { $0.append(session) }
            }
            try await copyRows(stores.pool, schema, "login_sessions", key: "id", template: .text(touched.withLock { $0[0].id.text }),
                               replacing: ["id": "'fill-' || g"], from: max(from, 256), to: to)
        }, operation: { try await advance(sessionStore, touched, machine, now) })

        let smsStore = stores.smsStore()
        let nextNumber = LockedValue(UInt64(13_000_000_000))
        let sms = Case(store: "sms", grow: { from, to in
            let real = min(to, 256) - from
            for _ in 0..<max(0, real) { try await sendToANewNumber(smsStore, nextNumber, now) }
            // Each send stores a counter and a code record: both tables grow.
            try await copyRows(stores.pool, schema, "sms_counters", key: "counter", template: .text("sends:number:13000000000"),
                               replacing: ["counter": "'fill:' || g"], from: max(from, 256), to: to)
            try await copyRows(stores.pool, schema, "sms_codes", key: "number", template: .text("13000000000"),
                               replacing: ["number": "'fill' || g"], from: max(from, 256), to: to)
        }, operation: { try await timed { try await sendToANewNumber(smsStore, nextNumber, now) } })

        let ledger = stores.exchangeLedger()
        let first = LockedValue<SHA256Digest?>(nil)
        let exchanges = Case(store: "ledger", grow: { from, to in
            let real = min(to, 256) - from
            for _ in 0..<max(0, real) {
                let token = try await claimAndSettle(ledger, now)
                first.withLock { if $0 == nil { $0 = token } }
            }
            guard let template = first.withLock({ $0 }) else { return }
            try await copyRows(stores.pool, schema, "exchange_ledger", key: "token", template: .bytes(template.bytes),
                               replacing: ["token": "sha256(convert_to('fill-' || g, 'UTF8'))"], from: max(from, 256), to: to)
        }, operation: { try await timed { try await claimAndSettle(ledger, now) } })

        let appTemplate = LockedValue<String?>(nil)
        let appSessions = try appSessionCase(stores.appSessionStore()) { from, to, sessions in
            let real = min(to, 256) - from
            for _ in 0..<max(0, real) {
                let grant = try await sessions.open()
                appTemplate.withLock { if $0 == nil { $0 = grant.session.text } }
            }
            guard let template = appTemplate.withLock({ $0 }) else { return }
            try await copyRows(stores.pool, schema, "app_sessions", key: "id", template: .text(template),
                               replacing: ["id": "'fill-' || g", "account": "'fill-' || g"], from: max(from, 256), to: to)
        }
        return [sessions, sms, exchanges, appSessions]
    }

    /// Copies the row whose `key` is `template` under the keys `from..<to` (as `g`), the columns named in
    /// `replacing` set by their SQL expressions, every other column as the template has it.
    private static func copyRows(
        _ pool: PostgresPool, _ schema: String, _ table: String, key: String, template: PostgresValue, replacing: [String: String], from: Int, to: Int
    ) async throws {
        guard to > from else { return }
        let columns = try await pool.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 ORDER BY ordinal_position",
            [.text(String(schema.dropFirst().dropLast())), .text(table)]
        ).rows.compactMap { $0.first?.text }
        guard columns.contains(key) else { throw PostgresBenchmarks.BenchmarkFailure("\(table) has no column \(key)") }
        let selected = columns.map { replacing[$0] ?? "t.\($0)" }.joined(separator: ", ")
        // In statements of 50,000 rows, each well within the pool's statement time-out (10 s).
        for start in stride(from: from, to: to, by: 50_000) {
            let end = min(start + 50_000, to)
            let inserted = try await pool.execute(
                "INSERT INTO \(schema).\(table) (\(columns.joined(separator: ", "))) SELECT \(selected) FROM \(schema).\(table) AS t, generate_series($2::bigint, $3::bigint) AS g WHERE t.\(key) = $1",
                [template, .int64(Int64(start)), .int64(Int64(end - 1))])
            guard inserted.affected == end - start else {
                throw PostgresBenchmarks.BenchmarkFailure("\(table): \(inserted.affected) rows copied, not \(end - start)")
            }
        }
        try await pool.execute("ANALYZE \(schema).\(table)")
    }

    // MARK: The operations

    /// The nanoseconds `body` takes.
    private static func timed(_ body: () async throws -> Void) async throws -> Double {
        let before = nanoseconds()
        try await body()
        return Double(nanoseconds() - before)
    }

    /// Loads one of the sessions the operations use (at random) and advances it by a report, writing it back;
    /// a session that has ended is replaced by a new one (not timed).
    private static func advance(
        _ store: any LoginSessionStore, _ touched: LockedValue<[LoginSession]>, _ machine: LoginSessionMachine, _ now: Date
    ) async throws -> Double {
        let (index, id) = touched.withLock { list in
            let index = Int.random(in: 0..<list.count)
            return (index, list[index].id)
        }
        let before = nanoseconds()
        guard let session = try await store.load(id) else { throw PostgresBenchmarks.BenchmarkFailure("a stored session is gone") }
        var elapsed = Double(nanoseconds() - before)
        if let flow = session.flow, !session.isOver {
            let report: LoginReport = flow == .mobile ? .result(.mobile, code: "200023") : .fault(flow, "benchmark")
            let next = try machine.advance(session, report, version: session.version, at: now).session
            let write = nanoseconds()
            try await store.replace(next, expecting: session.version)
            elapsed += Double(nanoseconds() - write)
            guard next.isOver || next.flow == nil else { return elapsed }
        }
        let fresh = machine.start(DeviceSnapshot(sim: .present, plmn: try PLMN("46000")), at: now, id: .random()).session
        try await store.create(fresh)
        touched.withLock { $0[index] = fresh }
        return elapsed
    }

    /// The built-in SMS policy without its `global` rules: those count every send in one counter per lane (the
    /// deployment's whole traffic), which a run of a million sends at one instant would trip; the table's growth is
    /// what is measured here, and the per-number, per-address and per-device rules all still apply.
    private static let growthRules: SMSCodeRules = {
        guard let embedded = EmbeddedTable.named(SMSPolicy.fileName) else { return SMSCodeRules() }
        let kept = embedded.text.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("global-") }.joined(separator: "\n")
        do {
            return SMSCodeRules(policy: try SMSPolicy(csv: kept, file: embedded.path))
        } catch {
            print("growth.sms: the built-in policy without its global rules is refused (\(error)); the whole policy is used")
            return SMSCodeRules()
        }
    }()

    /// An SMS send decision for a number not seen before.
    private static func sendToANewNumber(_ store: any SMSStore, _ next: LockedValue<UInt64>, _ now: Date) async throws {
        let rules = growthRules
        let value = next.withLock { value -> UInt64 in
            value += 1
            return value - 1
        }
        let number = try PhoneNumber(value: value)
        // A client of its own for each (an address spread over the whole space, a device), so no per-address or
        // per-device rule asks for a captcha: every send is admitted, and every one adds rows.
        let spread = UInt32(truncatingIfNeeded: value &* 2_654_435_761)
        let request = SMSContext.request(
            for: number, ip: try IPAddress("11.\(spread >> 16 & 255).\(spread >> 8 & 255).\(spread & 255)"), device: try DeviceID("growth-\(value)"),
            session: nil)
        let (_, record) = rules.issue(to: number, session: nil, key: growthKey, at: now)
        let decision = try await store.update(counters: rules.sendCounters(for: request), code: number, at: now) { state in
            rules.admit(&state, request, captchaPassed: false, record: record, at: now)
        }
        guard case .admit = decision else { throw PostgresBenchmarks.BenchmarkFailure("a send to a new number was not admitted: \(decision)") }
    }

    private static let growthKey = ServerKey.random()

    /// Claims a new token and settles it answered.
    @discardableResult
    private static func claimAndSettle(_ ledger: any ExchangeLedger, _ now: Date) async throws -> SHA256Digest {
        let token = SHA256.hash((0..<32).map { _ in UInt8.random(in: 0...255) })
        guard try await ledger.claim(token, for: .random(), at: now) == nil else { throw PostgresBenchmarks.BenchmarkFailure("a new token was claimed before") }
        try await ledger.settle(token, .answered(ExchangeResponse(code: "103000")), at: now)
        return token
    }

    /// App sessions over `store`: the table grows by `grow`; the operation rotates one family's refresh token.
    private static func appSessionCase(
        _ store: any AppSessionStore, grow: @escaping (_ from: Int, _ to: Int, _ sessions: AppSessions) async throws -> Void
    ) throws -> Case {
        let keys = try ServerKeyRing([(try KeyID("growth"), try ServerKey(bytes: [UInt8](repeating: 5, count: 32)))])
        let sessions = AppSessions(keys: keys, store: store, events: DiscardingEventSink())
        let current = LockedValue<Secret?>(nil)
        return Case(store: "app-sessions", grow: { from, to in try await grow(from, to, sessions) }, operation: {
            let token: Secret
            if let held = current.withLock({ $0 }) { token = held } else { token = try await sessions.open().refreshToken }
            let before = nanoseconds()
            let grant = try await sessions.refresh(token)
            let elapsed = Double(nanoseconds() - before)
            current.withLock { $0 = grant.refreshToken }
            return elapsed
        })
    }
}
