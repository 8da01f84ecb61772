import Foundation
import OneTap
import OneTapPostgres

/// `postgres.sms-send (1 / 8 conn)`: an admitted SMS send decision through `stores.smsStore()` with the real
/// rules (`SMSCodeRules.admit` inside `PostgresSMSStore.update`: the advisory locks, the read of every counter
/// the policy keeps for the send and of the code record, the write of the counters and the record, the
/// commit), beside `pgbench` replaying the statements the store sent for such a send.
///
/// Each send is a realistic one, as a server admits it:
/// - from a client of its own: its own address (a distinct IPv6 /48 in `3fff::/20`, RFC 9637's documentation
///   block, so the send's `ip`, `ip56` and `ip48` counters are all fresh), device id and login session, to a
///   number not seen before. A request without an address, device or session counts in the rules' one shared
///   `(not given)` bucket (limits fail closed), which would hold the second send back (`ip-captcha`);
/// - with `captchaPassed: false`, as `SMSCodeService` always asks first: a server passes `true` only on the
///   retry after a captcha rule held the send back and the client's token was verified. A fresh client meets
///   no captcha rule, so every send here must be admitted at once; one that is not fails the row;
/// - at a synthetic instant that advances one second per send (a counter shared by every lane: the base plus
///   n seconds for the n-th send), whatever the wall clock: one send a second is the busiest steady rate the
///   default policy's global rules take without holding a send back (`global-minute`: 300 a minute → at most
///   60 in any minute; `global-hour-captcha`: 4,000 an hour and `global-hour`: 6,000 → at most 3,600 in any
///   hour), so the global counter
///   holds what a server at that rate holds (up to an hour of events, 3,600) and no send is refused.
///   Timing many sends a real second would put thousands in one synthetic minute and hit `global-minute`.
///
/// Every send reads and rewrites the one global counter row (under its advisory lock): concurrent sends
/// queue on it. That is the policy's real cost (a global ceiling needs one shared count), kept here and in
/// the reference alike.
///
/// The reference: two sends are captured through a second set of stores whose pool's values observer keeps
/// the statements (``ObservedStatement``); the first one's statements become a pgbench script
/// (``PgbenchReplay``), so it cannot drift from what the store sends. What is per send in ours is unique per
/// pgbench transaction too: the counter ids of every non-global counter and the code record's key (suffixed
/// with the client and run) and their advisory-lock keys (the keys the two captured sends do not share; the
/// shared ones, the global counter's, stay shared, and the benchmark checks that only those are shared). The
/// global counter's events are written as captured (after our lanes ran, so as many as ours held at the end).
enum PostgresSMSSendBenchmark {
    static let names = [1, 8].map { "postgres.sms-send (\($0) conn)" }

    /// One send's inputs and the statements a captured send sent.
    private struct Sends: Sendable {
        let rules = SMSCodeRules()
        let key = ServerKey.random()
        /// The synthetic clock's start.
        let base: Date
        /// How many sends have been made: the next send's n.
        let count = LockedValue(0)

        /// The n-th send's number, context and instant.
        func next() throws -> (number: PhoneNumber, context: SMSContext, at: Date) {
            let n = count.withLock { value in
                defer { value += 1 }
                return value
            }
            guard n < 1 << 28 else { throw PostgresBenchmarks.BenchmarkFailure("more than 2^28 sends: no fresh /48 left in 3fff::/20") }
            let context = SMSContext(
                ip: .v6(high: 0x3fff_0000_0000_0000 | UInt64(n) << 16, low: 1), device: try DeviceID("bench-sms-\(n)"), session: .random())
            return (try PhoneNumber(value: 13_000_000_000 + UInt64(n)), context, base.addingTimeInterval(Double(n)))
        }

        /// Makes the next send through `store`; the time of `store.update` alone, and what made it unique.
        func send(_ store: any SMSStore) async throws -> (nanoseconds: Double, unique: Set<String>) {
            let (number, context, now) = try next()
            let request = context.request(for: number)
            let counters = rules.sendCounters(for: request)
            let slot = SMSCodeKey(number: number, session: context.session)
            let (_, record) = rules.issue(to: number, session: context.session, key: key, at: now)
            let rules = self.rules
            let before = nanoseconds()
            let decision = try await store.update(counters: counters, code: slot, at: now) { state in
                rules.admit(&state, request, captchaPassed: false, record: record, at: now)
            }
            let elapsed = Double(nanoseconds() - before)
            guard case .admit = decision else { throw PostgresBenchmarks.BenchmarkFailure("a send from a fresh client to a new number was not admitted: \(decision)") }
            return (elapsed, Set(counters.filter { !$0.key.countsEveryRequest }.map(\.description) + [slot.id]))
        }
    }

    /// Measures the rows it is asked for; a row that fails is reported as failed and the next one runs.
    static func measure(
        _ stores: PostgresStores, url: String, pgbench: String, directory: String, seconds: Int, _ options: BenchmarkOptions, _ report: inout Report
    ) async {
        guard names.contains(where: options.wants) else { return }
        let capture = LockedValue((on: false, seen: [ObservedStatement]()))
        let observed = PostgresStores(
            configuration: stores.configuration,
            valuesObserver: { sql, values in capture.withLock { if $0.on { $0.seen.append(ObservedStatement(sql: sql, values: values)) } } })
        let sends = Sends(base: Date())
        let store = stores.smsStore()
        let global = "\"\(stores.configuration.schema)\".sms_counters"
        for (connections, name) in zip([1, 8], names) where options.wants(name) {
            do {
                let ours = try await PostgresBenchmarks.measureLanes(connections: connections, seconds: seconds) { _, until in
                    var samples: [Double] = []
                    samples.reserveCapacity(100_000)
                    while nanoseconds() < until { samples.append(try await sends.send(store).nanoseconds) }
                    return samples
                }
                let held = try await stores.pool.execute("SELECT max(cardinality(events_ms))::bigint FROM \(global) WHERE counter LIKE 'sends:global%'")
                let globalEvents = held.rows.first?.first?.int64 ?? 0
                let script = try await replay(observed.smsStore(), capture, sends)
                let path = directory + "/sms-\(connections).sql"
                try script.write(toFile: path, atomically: true, encoding: .utf8)
                let reference = await PostgresBenchmarks.runPgbench(pgbench, url: url, script: path, clients: connections, seconds: seconds)
                PostgresBenchmarks.add(
                    name, connections: connections, ours: ours, reference: reference,
                    extra: [("sends", String(sends.count.withLock { $0 })), ("globalEvents", String(globalEvents))], &report)
            } catch {
                report.fail(name, error)
            }
        }
        await observed.close()
    }

    /// The pgbench script replaying one captured send, per-send values unique per transaction.
    private static func replay(_ store: any SMSStore, _ capture: LockedValue<(on: Bool, seen: [ObservedStatement])>, _ sends: Sends) async throws -> String {
        func captured() async throws -> (statements: [ObservedStatement], unique: Set<String>) {
            capture.withLock { $0 = (true, []) }
            let unique = try await sends.send(store).unique
            return (capture.withLock { $0.on = false; return $0.seen }, unique)
        }
        let first = try await captured()
        let second = try await captured()
        func lockKeys(_ statements: [ObservedStatement]) -> Set<Int64> {
            var keys = Set<Int64>()
            for statement in statements where statement.sql.contains("pg_advisory_xact_lock") {
                for case .int64Array(let values) in statement.values { keys.formUnion(values) }
            }
            return keys
        }
        let (mine, theirs) = (lockKeys(first.statements), lockKeys(second.statements))
        // Only the global counter's lock is shared between two sends from different clients to different numbers.
        guard !mine.isEmpty, mine.intersection(theirs).count == 1 else {
            throw PostgresBenchmarks.BenchmarkFailure("two sends from different clients share \(mine.intersection(theirs).count) of \(mine.count) advisory locks (expected only the global counter's)")
        }
        return try PgbenchReplay.script(first.statements, keys: [], suffixed: first.unique, lockKeys: mine.subtracting(theirs))
    }
}
