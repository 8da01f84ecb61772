import Foundation
import OneTap
@testable import OneTapPostgres
import OneTapPostgresTestSupport
import OneTapTesting
import Testing

/// Issue 21: login quotas were kept only in each instance's memory, so a server of N instances admitted N
/// times each quota. `PostgresLoginQuotaStore` counts for every instance that opens the schema, and a
/// database that fails admits nothing.
@Suite(.connectionBudget) struct PostgresLoginQuotaStoreTests {
    let now = Date(timeIntervalSince1970: 1_796_083_200.125)
    static let counter = LoginQuotaPolicy.Counter(counts: .starts, key: .ip, value: "203.0.113.9")
    /// Five starts per address a minute.
    static let policy = try! LoginQuotaPolicy(csv: "rule,key,counts,window_seconds,limit,source\nip-five,ip,starts,60,5,test\n", file: "five.csv")
    static let address = try! IPAddress("203.0.113.7")

    func table(_ stores: PostgresStores) -> String { "\"\(stores.configuration.schema)\".login_quota_counters" }

    /// Admits `count` starts at once from one address, spread round-robin over `quotas` (one per
    /// instance), each from an app session of its own; returns how many were admitted.
    func race(_ count: Int, over quotas: [LoginQuotas], at now: Date) async throws -> Int {
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<count {
                let quotas = quotas[index % quotas.count]
                group.addTask {
                    do {
                        try await quotas.admit(
                            .starts, session: .random(), appSession: try AppSessionID("QuotaRaceSession" + String(100_000 + index)),
                            address: Self.address, device: try DeviceID("device-\(index)"), clock: FakeClock(now: now), events: DiscardingEventSink())
                        return true
                    } catch let rejection as LoginRejection where rejection.kind == .overQuota {
                        return false
                    }
                }
            }
            var admitted = 0
            for try await ok in group where ok { admitted += 1 }
            return admitted
        }
    }

    // MARK: The contract

    @Test func conformsToTheStoreContract() async throws {
        try await checkConformance(try await TestDatabase.url(), { $0.loginQuotaStore() }) { make in
            // 50 updates racing on one counter through a pool of 4: enough to lose an update if one could be
            // lost, few enough that none waits past the pool's connect timeout under ThreadSanitizer.
            try await LoginQuotaStoreConformance.check(concurrency: 50) { try await make() }
        }
    }

    /// An admitted start writes each counter's events (milliseconds) and keep-until; a pass that changes
    /// nothing writes nothing; a counter emptied is deleted; the cleanup removes what is no longer kept.
    @Test func rowsHoldTheEventsInMillisecondsAndExpiredOnesAreRemoved() async throws {
        try await TestDatabase.withStores { stores in
            let store = stores.loginQuotaStore()
            let quotas = LoginQuotas(policy: Self.policy, store: store)
            try await quotas.admit(.starts, session: .random(), appSession: try AppSessionID("QuotaRowsSession000000"), address: Self.address, device: nil, clock: FakeClock(now: now), events: DiscardingEventSink())
            let rows = try await stores.pool.execute("SELECT counter, events_ms, keep_until_ms, xmin::text FROM \(table(stores)) ORDER BY counter")
            // 1796083200.125 s is 1796083200125 ms; the rule's window is 60 s, so it is kept until 60 s later.
            #expect(rows.rows.map { [$0[0], $0[1], $0[2]] } == [[.text("starts:ip:203.0.113.7"), .int64Array([1_796_083_200_125]), .int64(1_796_083_260_125)]])

            // A read that changes nothing leaves the row as it is (its row version stays).
            let counter = LoginQuotaPolicy.Counter(counts: .starts, key: .ip, value: "203.0.113.7")
            let read = try await store.update(counters: [counter], at: now.addingTimeInterval(1)) { $0.events[counter] ?? [] }
            #expect(read.map(\.millisecondsSince1970) == [1_796_083_200_125])
            #expect(try await stores.pool.execute("SELECT counter, events_ms, keep_until_ms, xmin::text FROM \(table(stores)) ORDER BY counter").rows == rows.rows)

            // Emptied: the row goes.
            try await store.update(counters: [counter], at: now) { $0.events[counter] = [] }
            #expect(try await stores.pool.execute("SELECT count(*) FROM \(table(stores))").first == [.int64(0)])

            // Two counters kept until 60 s and 120 s from now: the cleanup removes each once its time passed, to the millisecond.
            for (value, seconds) in [("a", 60.0), ("b", 120.0)] {
                let kept = LoginQuotaPolicy.Counter(counts: .exchanges, key: .device, value: value)
                try await store.update(counters: [kept], at: now) { state in
                    state.events[kept] = [now]
                    state.keepUntil = now.addingTimeInterval(seconds)
                }
            }
            let early = try await stores.removeExpiredRows(before: now.addingTimeInterval(60))
            #expect(early.loginQuotaCounters == 0)
            let first = try await stores.removeExpiredRows(before: now.addingTimeInterval(60.001))
            #expect(first.loginQuotaCounters == 1 && first.description.contains(", 1 login quota counter, "))
            #expect(try await store.removeExpired(before: now.addingTimeInterval(121), limit: 10) == 1)
            #expect(try await stores.pool.execute("SELECT count(*) FROM \(table(stores))").first == [.int64(0)])
        }
    }

    /// A row OneTap did not write (a `NULL` among its events) fails the start closed: `StoreError`, nothing
    /// admitted, and the row left as it is.
    @Test func aRowOneTapDidNotWriteFailsClosed() async throws {
        try await TestDatabase.withStores { stores in
            try await stores.pool.execute(
                "INSERT INTO \(table(stores)) (counter, events_ms, keep_until_ms) VALUES ('starts:ip:203.0.113.7', '{NULL}', $1)",
                [.instant(now.addingTimeInterval(60))])
            let quotas = LoginQuotas(policy: Self.policy, store: stores.loginQuotaStore())
            await #expect {
                try await quotas.admit(.starts, session: .random(), appSession: try AppSessionID("QuotaCorruptSession000"), address: Self.address, device: nil, clock: FakeClock(now: now), events: DiscardingEventSink())
            } throws: { error in
                let error = error as! StoreError
                return error.message.contains("events_ms") && error.message.contains("nothing was written")
            }
            let left = try await stores.pool.execute("SELECT array_length(events_ms, 1), events_ms[1] IS NULL FROM \(table(stores))")
            #expect(left.rows == [[.int64(1), .bool(true)]])
        }
    }

    // MARK: Several instances

    /// Two instances (two pools on one schema) race 60 starts from one address under a quota of 5: exactly
    /// 5 are admitted in all. Two in-memory stores (what every instance had before) admit 10.
    @Test(.connections(16)) func twoInstancesAdmitTheQuotaOnceBetweenThem() async throws {
        let inMemory = [InMemoryLoginQuotaStore(), InMemoryLoginQuotaStore()].map { LoginQuotas(policy: Self.policy, store: $0) }
        #expect(try await race(60, over: inMemory, at: now) == 10, "each in-memory instance counts on its own")

        try await TestDatabase.withStores { first in
            let second = PostgresStores(configuration: try TestDatabase.configuration(try await TestDatabase.url(), schema: first.configuration.schema))
            let instances = [first, second].map { LoginQuotas(policy: Self.policy, store: $0.loginQuotaStore()) }
            #expect(try await race(60, over: instances, at: now) == 5)
            let events = try await first.pool.execute("SELECT cardinality(events_ms) FROM \(table(first)) WHERE counter = 'starts:ip:203.0.113.7'")
            #expect(events.first == [.int64(5)])
            // The minute passes: five more, from either instance.
            #expect(try await race(20, over: instances.reversed(), at: now.addingTimeInterval(60)) == 5)
            await second.close()
        }
    }

    // MARK: Faults: fail closed

    /// A database that cannot be reached refuses the start with `StoreError` `io`, stores no login
    /// session, and never quotes the password.
    @Test func anUnreachableDatabaseRefusesTheStart() async throws {
        let nowhere = try PostgresConfiguration(url: "postgresql://api:hunter2-pw@/onetap?host=/tmp/onetap-nowhere-\(UInt32.random(in: 0...UInt32.max))")
        let store = PostgresStores(configuration: nowhere).loginQuotaStore()
        let sessions = InMemoryLoginSessionStore()
        let server = LoginServer(
            store: sessions, quotas: LoginQuotas(policy: Self.policy, store: store), clock: FakeClock(), events: DiscardingEventSink())
        let keys = try ServerKeyRing([(try KeyID("test"), try ServerKey(bytes: [UInt8](repeating: 42, count: 32)))])
        let claims = keys.accessToken(
            session: try AppSessionID("QuotaDownSession000000"), identity: .guest(try GuestID("GuestOfTheTests000000A")), epoch: 0, issuedAt: now,
            expiresAt: now.addingTimeInterval(86_400)
        ).claims
        await #expect {
            try await server.start(DeviceSnapshot(sim: .present, plmn: try PLMN("46000")), for: claims, address: Self.address, device: try DeviceID("d1"))
        } throws: { error in
            let error = error as! StoreError
            return error.kind == .io && error.message.contains("connection-failed") && error.message.contains("nothing was written")
                && !error.description.contains("hunter2-pw")
        }
        #expect(sessions.count == 0)
        await #expect {
            _ = try await store.removeExpired(before: now, limit: 10)
        } throws: { error in
            (error as! StoreError).kind == .io
        }
    }

    /// The server stops while an admit waits to write (a foreign transaction holds the counter's row): the
    /// start is refused with `io`, nothing of it is stored, and once the server is back starts are admitted.
    @Test func theServerStoppingMidUpdateRefusesTheStartAndWritesNothing() async throws {
        let server = try await TestDatabase.privateServer()
        defer { server.remove() }
        let configuration = try TestDatabase.configuration(server.url(), connectTimeout: .seconds(30))
        let stores = try await PostgresStores.open(configuration)
        let quotas = LoginQuotas(policy: Self.policy, store: stores.loginQuotaStore())
        let now = self.now
        @Sendable func admit(_ index: Int) async throws {
            try await quotas.admit(
                .starts, session: .random(), appSession: try AppSessionID("QuotaStopSession" + String(100_000 + index)), address: Self.address,
                device: nil, clock: FakeClock(now: now.addingTimeInterval(Double(index))), events: DiscardingEventSink())
        }
        try await admit(0)
        let holder = try await HeldTransaction.begin(
            configuration, [("SELECT counter FROM \(table(stores)) WHERE counter = $1 FOR UPDATE", [.text("starts:ip:203.0.113.7")])])
        let admitting = Task { try await admit(1) }
        try await waitForLockWaiters(stores, running: "login_quota_counters (counter, events_ms")
        try await server.stop()
        await #expect {
            try await admitting.value
        } throws: { error in
            let error = error as! StoreError
            return error.kind == .io && error.message.contains("nothing was written")
        }
        await holder.release()
        try await server.start()
        let stored = try await stores.pool.execute("SELECT events_ms FROM \(table(stores))")
        #expect(stored.rows == [[.int64Array([1_796_083_200_125])]])
        try await admit(2)
        #expect(try await stores.pool.execute("SELECT events_ms FROM \(table(stores))").rows == [[.int64Array([1_796_083_200_125, 1_796_083_202_125])]])
        await stores.close()
    }

    /// An update held past the statement timeout (another instance's update stuck holding the counter's
    /// lock) fails with `timeout`: the start is not admitted, and nothing is written.
    @Test func anUpdateHeldPastTheStatementTimeoutIsNotAdmitted() async throws {
        let (stores, usual) = try await TestDatabase.timingOutStores(statementTimeout: .seconds(1))
        let keys = PostgresLoginQuotaStore.lockKeys(schema: stores.configuration.schema, counters: ["starts:ip:203.0.113.7"])
        let holder = try await HeldTransaction.begin(usual.configuration, [("SELECT pg_advisory_xact_lock(key) FROM unnest($1::bigint[]) AS key", [.int64Array(keys)])])
        let quotas = LoginQuotas(policy: Self.policy, store: stores.loginQuotaStore())
        await #expect {
            try await quotas.admit(.starts, session: .random(), appSession: try AppSessionID("QuotaHeldSession000000"), address: Self.address, device: nil, clock: FakeClock(now: now), events: DiscardingEventSink())
        } throws: { error in
            let error = error as! StoreError
            return error.kind == .timeout && error.message.contains("statement timeout") && error.message.contains("nothing was written")
        }
        await holder.release()
        #expect(try await usual.pool.execute("SELECT count(*) FROM \(table(usual))").first == [.int64(0)])
        await stores.close()
        await TestDatabase.dispose(usual)
    }

    /// Updates that wait for one counter's lock wait in this process, not on the pool's connections: each held a
    /// connection while PostgreSQL made it wait, so a flood on one key (a victim's number, a `global` rule) left no
    /// connection to any other store, on every instance (a review of the PostgreSQL adapter). Four updates wait
    /// behind a lock held from outside on a pool of two; the token store still gets a connection, and once the lock
    /// goes every update counts.
    @Test(.timeLimit(.minutes(4))) func updatesWaitingForOneCounterLeaveThePoolToOtherStores() async throws {
        let stores = PostgresStores(configuration: try TestDatabase.configuration(try await TestDatabase.url(), poolSize: 2, connectTimeout: .seconds(3)))
        try await stores.migrate()
        let store = stores.loginQuotaStore()
        let now = now
        let keys = PostgresLoginQuotaStore.lockKeys(schema: stores.configuration.schema, counters: PostgresCounterRows.Read([Self.counter]).ids)
        do {
            try await TestDatabase.withConnection { outside in
                try await outside.execute("SELECT pg_catalog.pg_advisory_lock(key) FROM pg_catalog.unnest($1::bigint[]) AS key", [.int64Array(keys)])
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for _ in 0..<4 {
                        group.addTask {
                            try await store.update(counters: [Self.counter], at: now) { state in
                                state.events[Self.counter, default: []].append(now)
                                state.keepUntil = now.addingTimeInterval(60)
                            }
                        }
                    }
                    // One update waits on the lock in the database; the others are on their way to their waits.
                    var waiting = 0
                    for _ in 0..<500 where waiting == 0 {
                        // This test's own keys (a bigint key is classid's 32 high bits and objid's low ones), in its database.
                        let rows = try await outside.execute(
                            """
                            SELECT count(*) FROM pg_catalog.pg_locks WHERE locktype = 'advisory' AND NOT granted AND objsubid = 1 \
                            AND database = (SELECT oid FROM pg_catalog.pg_database WHERE datname = pg_catalog.current_database()) \
                            AND ((classid::bigint << 32) | objid::bigint) = ANY($1::bigint[])
                            """, [.int64Array(keys)])
                        waiting = Int(rows.rows.first?.first?.int64 ?? 0)
                        if waiting == 0 { try await Task.sleep(for: .milliseconds(10)) }
                    }
                    #expect(waiting >= 1)
                    try await Task.sleep(for: .milliseconds(300))
                    let loaded = try await stores.tokenStore().load("nobody")
                    #expect(loaded == nil)
                    _ = try await outside.execute("SELECT pg_catalog.pg_advisory_unlock_all()")
                    try await group.waitForAll()
                }
            }
            let counted = try await store.update(counters: [Self.counter], at: now) { $0.events[Self.counter]?.count ?? 0 }
            #expect(counted == 4)
        } catch {
            await TestDatabase.dispose(stores)
            throw error
        }
        await TestDatabase.dispose(stores)
    }
}
