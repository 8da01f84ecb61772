import Foundation
import OneTap
@testable import OneTapPostgres
import OneTapPostgresTestSupport
import OneTapTesting
import Testing

@Suite(.connectionBudget) struct PostgresSMSStoreTests {
    let now = Date(timeIntervalSince1970: 1_796_083_200.125)
    static let number = try! PhoneNumber("13800138000")
    static let ipCounter = SMSPolicy.Counter(counts: .sends, key: .ip, value: "203.0.113.9")

    func counters(_ stores: PostgresStores) -> String { "\"\(stores.configuration.schema)\".sms_counters" }
    func codes(_ stores: PostgresStores) -> String { "\"\(stores.configuration.schema)\".sms_codes" }

    /// Stores one event in the IP counter, kept for an hour.
    func seed(_ store: any SMSStore) async throws {
        try await store.update(counters: [Self.ipCounter], code: Self.number, at: now) { state in
            state.events[Self.ipCounter] = [now]
            state.keepUntil = now.addingTimeInterval(3600)
        }
    }

    /// The stored IP counter's events, as offsets from `now`.
    func storedEvents(_ stores: PostgresStores) async throws -> [Double] {
        let rows = try await stores.pool.execute("SELECT events_ms FROM \(counters(stores)) WHERE counter = $1", [.text(Self.ipCounter.description)])
        return (rows.first?.first?.instants ?? []).map { ($0.timeIntervalSince(now) * 1000).rounded() / 1000 }
    }

    func codeCount(_ stores: PostgresStores) async throws -> Int64? {
        try await stores.pool.execute("SELECT count(*) FROM \(codes(stores))").first?.first?.int64
    }

    // MARK: Prepared statements

    /// An update one of whose prepared statements the server no longer has (a `DEALLOCATE`; a pooler's
    /// `DISCARD ALL` drops them all) is refused inside its transaction, before anything of it ran; the
    /// update runs again, whole, and is neither lost nor counted twice.
    @Test func anUpdateWhoseStatementTheServerDroppedRunsAgainOnce() async throws {
        let begins = LockedValue(0)
        try await TestDatabase.withStores(poolSize: 1, observer: { sql in if sql.hasPrefix("BEGIN") { begins.withLock { $0 += 1 } } }) { stores in
            let store = stores.smsStore()
            func append(_ offset: Double) async throws {
                try await store.update(counters: [Self.ipCounter], code: Self.number, at: now) { state in
                    state.events[Self.ipCounter, default: []].append(now.addingTimeInterval(offset))
                    state.keepUntil = now.addingTimeInterval(3600)
                }
            }
            for offset in [1.0, 2, 3] { try await append(offset) }  // prepared from their second run on
            // The counters' read, dropped on the pool's one connection: `BEGIN` and the lock still run by name.
            let dropped = try await stores.pool.execute(
                "SELECT name FROM pg_prepared_statements WHERE statement LIKE 'SELECT counter, events_ms%' AND statement LIKE '%sms_counters%'")
            #expect(dropped.rows.count == 1)
            for row in dropped.rows { try await stores.pool.execute("DEALLOCATE \"\(row[0].text ?? "")\"") }
            begins.withLock { $0 = 0 }
            try await append(4)
            #expect(begins.withLock { $0 } == 2, "refused in the first transaction, run again in a second")
            try await append(5)
            #expect(try await storedEvents(stores) == [1, 2, 3, 4, 5])
        }
    }

    // MARK: The contract

    @Test func conformsToTheStoreContract() async throws {
        try await checkConformance(try await TestDatabase.url(), { $0.smsStore() }) { make in
            // 50 updates racing on one number through a pool of 4: enough to lose an update if one could be
            // lost, few enough that none waits past the pool's connect timeout under ThreadSanitizer.
            try await SMSStoreConformance.check(concurrency: 50) { try await make() }
        }
    }

    /// A send writes its counters' events and the code's record (its HMAC, never the code); a pass that
    /// changes nothing writes nothing; a verify removes the record.
    @Test func rowsHoldWhatTheServiceWroteAndAReadWritesNothing() async throws {
        try await TestDatabase.withStores { stores in
            let store = stores.smsStore()
            let sender = ScriptedSMSSender()
            let service = SMSServiceAt(key: ServerKey.random(), sender: sender, store: store)
            let session = LoginSessionID.random()
            let context = SMSContext(ip: try IPAddress("203.0.113.7"), device: try DeviceID("d1"), session: session)
            guard case .sent = try await service.send(to: Self.number, context: context, at: now) else {
                Issue.record("the send was not admitted")
                return
            }
            let rows = try await stores.pool.execute("SELECT counter, cardinality(events_ms), keep_until_ms, xmin::text FROM \(counters(stores)) ORDER BY counter")
            // Every key of the default policy (issue 21): an IPv4 address is its own /56 and /48; the code is the session's.
            #expect(rows.rows.compactMap { $0[0].text } == [
                "sends:device:d1 at 203.0.113.7", "sends:global-lane:all", "sends:ip48:203.0.113.7", "sends:ip56:203.0.113.7", "sends:ip:203.0.113.7",
                "sends:number-lane:13800138000", "sends:number-session:13800138000/\(session.text)", "sends:number:13800138000",
            ])
            #expect(rows.rows.allSatisfy { $0[1] == .int64(1) })
            let keepUntil = try #require(rows.first?[2].instant)
            #expect(keepUntil > now.addingTimeInterval(86_400))
            let code = try #require(sender.lastCode(to: Self.number)).reveal()
            let record = try #require(try await stores.pool.execute("SELECT record, xmin::text FROM \(codes(stores)) WHERE number = $1", [.text("13800138000/" + session.text)]).first)
            let json = try #require(record[0].text)
            #expect(json.contains("\"digest\"") && !json.contains("\"\(code)\""))

            // A pass that changes nothing writes no row (their row versions stay).
            try await store.update(
                counters: [SMSPolicy.Counter(counts: .sends, key: .device, value: "d1")], code: SMSCodeKey(number: Self.number, session: session),
                at: now.addingTimeInterval(1)) { _ in }
            let again = try await stores.pool.execute("SELECT counter, cardinality(events_ms), keep_until_ms, xmin::text FROM \(counters(stores)) ORDER BY counter")
            #expect(again.rows == rows.rows)
            #expect(try await stores.pool.execute("SELECT record, xmin::text FROM \(codes(stores))").first == record)

            guard case .verified = try await service.verify(Secret(code), for: Self.number, context: context, at: now.addingTimeInterval(5)) else {
                Issue.record("the right code did not verify")
                return
            }
            #expect(try await codeCount(stores) == 0)
        }
    }

    /// A deadlock with a foreign transaction (it holds the counter's row and then asks for the update's
    /// lock): the server fails the update, which runs again (its body twice, only the last run written),
    /// or, allowed one run only, fails with `io` having written nothing.
    ///
    /// The server breaks a deadlock in the backend whose wait first outlasts its `deadlock_timeout`: the
    /// foreign transaction's is an hour and the update's (one connection, so the setting holds for it)
    /// 5 s, so the update is the one failed however slowly the test's steps run under load.
    @Test(arguments: [4, 1])
    func aDeadlockIsRetriedAndOnlyTheLastRunIsWritten(attempts: Int) async throws {
        try await TestDatabase.withStores { stores in
            let single = PostgresStores(configuration: try TestDatabase.configuration(try await TestDatabase.url(), schema: stores.configuration.schema, poolSize: 1))
            do {
                try await deadlock(stores, single, attempts: attempts)
            } catch {
                await single.close()
                throw error
            }
            await single.close()
        }
    }

    private func deadlock(_ stores: PostgresStores, _ single: PostgresStores, attempts: Int) async throws {
        try await single.pool.execute("SET deadlock_timeout = '5s'")
        let store = single.smsStore(attempts: attempts)
        try await seed(store)
        let holder = try await HeldTransaction.begin(
            stores.configuration,
            [("SET deadlock_timeout = '1h'", []), ("SELECT counter FROM \(counters(stores)) WHERE counter = $1 FOR UPDATE", [.text(Self.ipCounter.description)])])
        let runs = LockedValue(0)
        let now = self.now
        let updating = Task {
            try await store.update(counters: [Self.ipCounter], code: Self.number, at: now) { state in
                let run = runs.withLock { runs -> Int in
                    runs += 1
                    return runs
                }
                state.events[Self.ipCounter, default: []].append(now.addingTimeInterval(Double(run)))
                return run
            }
        }
        try await waitForLockWaiters(stores, running: "sms_counters (counter, events")
        let keys = PostgresSMSStore.lockKeys(schema: stores.configuration.schema, counters: [Self.ipCounter.description], number: SMSCodeKey(number: Self.number, session: nil))
        try await holder.execute("SELECT pg_advisory_xact_lock(key) FROM unnest($1::bigint[]) AS key", [.int64Array(keys)])
        await holder.release()
        if attempts > 1 {
            #expect(try await updating.value == 2)
            #expect(runs.withLock { $0 } == 2)
            #expect(try await storedEvents(stores) == [0, 2])
        } else {
            await #expect {
                _ = try await updating.value
            } throws: { error in
                let error = error as! StoreError
                return error.kind == .io && error.message.contains("deadlock") && error.message.contains("nothing was written")
            }
            #expect(runs.withLock { $0 } == 1)
            #expect(try await storedEvents(stores) == [0])
        }
    }

    @Test(arguments: [
        ("set record = 'garbage'", true), ("set record = '{\"id\":\"x\"}'", true), ("set keep_until_ms = keep_until_ms - 172800000", false),
    ])
    func aRecordOneTapDidNotWriteIsReportedCorruptUnlessItsTimeHasPassed(change: String, corrupt: Bool) async throws {
        try await TestDatabase.withStores { stores in
            let store = stores.smsStore()
            let sender = ScriptedSMSSender()
            let service = SMSServiceAt(key: ServerKey.random(), sender: sender, store: store)
            _ = try await service.send(to: Self.number, context: SMSContext(session: .testSession), at: now)
            try await stores.pool.execute("UPDATE \(codes(stores)) \(change)")
            if corrupt {
                await #expect {
                    _ = try await service.verify(Secret("123456"), for: Self.number, context: SMSContext(session: .testSession), at: now.addingTimeInterval(1))
                } throws: { error in
                    let error = error as! StoreError
                    return error.kind == .corrupt && error.message.contains("138****8000") && error.message.contains("left as it is")
                        && !error.message.contains("garbage") && !error.message.contains("13800138000")
                }
            } else {
                // Its keep-until passed: it reads as absent, and the pass removes it.
                #expect(try await service.verify(Secret("123456"), for: Self.number, context: SMSContext(session: .testSession), at: now.addingTimeInterval(1)) == .noCode)
                #expect(try await codeCount(stores) == 0)
            }
        }
    }

    /// An attacker's read: a counter row whose events hold a NULL (not one OneTap wrote) failed every update touching
    /// it as `io`, "a value OneTap does not read", pointing the operator at the database, not the row; a row OneTap
    /// did not write is `corrupt`, left as it is, as every store says of one.
    @Test func aCounterRowOneTapDidNotWriteIsCorruptNotAnIOFailure() async throws {
        try await TestDatabase.withStores { stores in
            let service = SMSServiceAt(key: ServerKey.random(), sender: ScriptedSMSSender(), store: stores.smsStore())
            _ = try await service.send(to: Self.number, context: SMSContext(session: .testSession), at: now)
            try await stores.pool.execute("UPDATE \(counters(stores)) SET events_ms = ARRAY[NULL::bigint]")
            await #expect {
                _ = try await service.send(to: Self.number, context: SMSContext(session: .testSession), at: now.addingTimeInterval(120))
            } throws: { error in
                let error = error as! StoreError
                #expect(error.kind == .corrupt && error.message.contains("left as it is"), "\(error)")
                return error.kind == .corrupt
            }
        }
    }

    // MARK: Faults

    /// The server stops while an update waits to write (a foreign transaction holds the counter's row):
    /// the caller gets `io`, nothing of the update is stored, and once the server is back updates work.
    @Test func theServerStoppingMidUpdateFailsTheCallerAndWritesNothing() async throws {
        let server = try await TestDatabase.privateServer()
        defer { server.remove() }
        let configuration = try TestDatabase.configuration(server.url(), connectTimeout: .seconds(30))
        let stores = try await PostgresStores.open(configuration)
        let store = stores.smsStore()
        try await seed(store)
        let (_, record) = SMSCodeRules().issue(to: Self.number, session: nil, key: ServerKey.random(), at: now)
        let holder = try await HeldTransaction.begin(
            configuration, [("SELECT counter FROM \(counters(stores)) WHERE counter = $1 FOR UPDATE", [.text(Self.ipCounter.description)])])
        let now = self.now
        let change: @Sendable (inout SMSState) -> Void = { state in
            state.events[Self.ipCounter, default: []].append(now.addingTimeInterval(1))
            state.code = record
            state.keepUntil = now.addingTimeInterval(7200)
        }
        let updating = Task { try await store.update(counters: [Self.ipCounter], code: Self.number, at: now, change) }
        try await waitForLockWaiters(stores, running: "sms_counters (counter, events")
        try await server.stop()
        await #expect {
            try await updating.value
        } throws: { error in
            let error = error as! StoreError
            return error.kind == .io && error.message.contains("nothing was written") && error.message.contains("138****8000")
        }
        await holder.release()
        try await server.start()
        #expect(try await storedEvents(stores) == [0])
        #expect(try await codeCount(stores) == 0)
        try await store.update(counters: [Self.ipCounter], code: Self.number, at: now, change)
        #expect(try await storedEvents(stores) == [0, 1])
        #expect(try await codeCount(stores) == 1)
        await stores.close()
    }

    /// An update held past the statement timeout, on a counter's row or on its lock (another update
    /// stuck mid-way), fails with `timeout` and writes nothing.
    @Test(arguments: ["row", "lock"])
    func anUpdateHeldPastTheStatementTimeoutTimesOut(on held: String) async throws {
        let (stores, usual) = try await TestDatabase.timingOutStores(statementTimeout: .seconds(1))
        let store = stores.smsStore()
        try await seed(usual.smsStore())
        let keys = PostgresSMSStore.lockKeys(schema: stores.configuration.schema, counters: [Self.ipCounter.description], number: SMSCodeKey(number: Self.number, session: nil))
        let holder = try await HeldTransaction.begin(
            usual.configuration,
            held == "row"
                ? [("SELECT counter FROM \(counters(stores)) WHERE counter = $1 FOR UPDATE", [.text(Self.ipCounter.description)])]
                : [("SELECT pg_advisory_xact_lock(key) FROM unnest($1::bigint[]) AS key", [.int64Array(keys)])])
        let now = self.now
        let append: @Sendable (inout SMSState) -> Void = { state in state.events[Self.ipCounter, default: []].append(now.addingTimeInterval(1)) }
        await #expect {
            try await store.update(counters: [Self.ipCounter], code: Self.number, at: now, append)
        } throws: { error in
            let error = error as! StoreError
            return error.kind == .timeout && error.message.contains("statement timeout") && error.message.contains("nothing was written")
        }
        await holder.release()
        #expect(try await storedEvents(usual) == [0])
        try await usual.smsStore().update(counters: [Self.ipCounter], code: Self.number, at: now, append)
        #expect(try await storedEvents(usual) == [0, 1])
        await stores.close()
        await TestDatabase.dispose(usual)
    }

    /// The global counters every send shares are locked only by an update that writes them: a send the
    /// rules refuse (by a counter of its own) while another instance's transaction holds the global lock
    /// is answered at once, rather than queueing every refused send of the cluster on one lock (what a
    /// flood of refused sends would otherwise do to every honest send). One that writes them waits for
    /// the lock as before, and reads them again under it: no send it admits is lost. The same for each global key:
    /// every request's, and every request's in its lane (the built-in send rules').
    @Test(arguments: [SMSPolicy.Key.global, .globalLane])
    func aSendThatWritesNoGlobalCounterTakesNoGlobalLock(key: SMSPolicy.Key) async throws {
        let (stores, usual) = try await TestDatabase.timingOutStores(statementTimeout: .seconds(2))
        let store = stores.smsStore()
        let global = SMSPolicy.Counter(counts: .sends, key: key, value: "all")
        let keys = PostgresSMSStore.lockKeys(schema: stores.configuration.schema, counters: [global.description], number: nil)
        let now = self.now
        // What a send does: a refused one changes nothing; an admitted one appends to both counters.
        func send(admitted: Bool) -> @Sendable (inout SMSState) -> Int {
            { state in
                guard admitted else { return state.events[global]?.count ?? 0 }
                state.events[Self.ipCounter, default: []].append(now)
                state.events[global, default: []].append(now)
                state.keepUntil = now.addingTimeInterval(3600)
                return state.events[global]?.count ?? 0
            }
        }
        #expect(try await store.update(counters: [Self.ipCounter, global], code: Self.number, at: now, send(admitted: true)) == 1)
        // A counter of its own kept later than the global one (a wrong verify's, say): the refused send's
        // state keeps everything until then, which is no reason to rewrite the global counter.
        try await store.update(counters: [Self.ipCounter], code: Self.number, at: now) { state in
            state.events[Self.ipCounter, default: []].append(now.addingTimeInterval(1))
            state.keepUntil = now.addingTimeInterval(7200)
        }
        let holder = try await HeldTransaction.begin(usual.configuration, [("SELECT pg_advisory_xact_lock(key) FROM unnest($1::bigint[]) AS key", [.int64Array(keys)])])
        let refused = try await store.update(counters: [Self.ipCounter, global], code: Self.number, at: now, send(admitted: false))
        #expect(refused == 1, "the refusal reads the global counter as it stands")
        await #expect {
            try await store.update(counters: [Self.ipCounter, global], code: Self.number, at: now, send(admitted: true))
        } throws: { error in
            (error as? StoreError)?.kind == .timeout
        }
        await holder.release()
        #expect(try await store.update(counters: [Self.ipCounter, global], code: Self.number, at: now, send(admitted: true)) == 2)
        await stores.close()
        await TestDatabase.dispose(usual)
    }

    /// An SMS attacker's read: requests that change nothing (verifies from a session that holds no code for the number,
    /// sends its rules refuse) queued on the number's rows in this process, first come first served, behind any update
    /// of them: a flood of them at a few hundred a second held an owner's verify past the line's limit, and it failed.
    /// Once a line has formed on the rows, a decision that writes nothing is answered from one unlocked read without
    /// joining it. Here another instance holds the rows' locks, so this process's writing update waits on them inside
    /// the line until the statement time-out; the decision that writes nothing is answered meanwhile (it timed out
    /// behind it before). (That one that writes still joins the line is `PostgresCounterGateTests`': a third update here,
    /// meant to time out on the held locks, went through in a fresh clone's ThreadSanitizer run, the holder's transaction
    /// having ended first.)
    @Test func aDecisionThatWritesNothingDoesNotQueueBehindAnUpdateOfItsRows() async throws {
        // 5 s: the writing update holds the line that long, however long this test is held up between its steps.
        let (stores, usual) = try await TestDatabase.timingOutStores(statementTimeout: .seconds(5))
        let store = stores.smsStore()
        let now = self.now
        try await seed(store)
        let slot = SMSCodeKey(number: Self.number, session: nil)
        let keys = PostgresSMSStore.lockKeys(schema: stores.configuration.schema, counters: [Self.ipCounter.description], number: slot)
        let holder = try await HeldTransaction.begin(usual.configuration, [("SELECT pg_advisory_xact_lock(key) FROM unnest($1::bigint[]) AS key", [.int64Array(keys)])])
        let writing = Task {
            try await store.update(counters: [Self.ipCounter], code: Self.number, at: now) { state in
                state.events[Self.ipCounter, default: []].append(now)
            }
        }
        var waited = 0
        while !PostgresCounterRows.answersWithoutLocks(stores.pool, keys), waited < 500 {
            try await Task.sleep(for: .milliseconds(10))
            waited += 1
        }
        try #require(PostgresCounterRows.answersWithoutLocks(stores.pool, keys), "the writing update never entered the gate")
        let seen = try await store.update(counters: [Self.ipCounter], code: Self.number, at: now) { state in state.events[Self.ipCounter]?.count ?? 0 }
        #expect(seen == 1, "the decision read the rows as they stand")
        await holder.release()
        _ = await writing.result  // timed out on the held locks, or went through once they were let go
        await stores.close()
        await TestDatabase.dispose(usual)
    }

    @Test func updatesAndCleanupFailWithIOWhileTheDatabaseIsUnreachable() async throws {
        let nowhere = try PostgresConfiguration(url: "postgresql://api:hunter2-pw@/onetap?host=/tmp/onetap-nowhere-\(UInt32.random(in: 0...UInt32.max))")
        let store = PostgresStores(configuration: nowhere).smsStore()
        let service = SMSServiceAt(key: ServerKey.random(), sender: ScriptedSMSSender(), store: store)
        await #expect {
            _ = try await service.send(to: Self.number, context: SMSContext(session: .testSession), at: now)
        } throws: { error in
            let error = error as! StoreError
            return error.kind == .io && error.message.contains("connection-failed") && error.message.contains("nothing was written")
                && !error.description.contains("hunter2-pw") && !error.description.contains("13800138000")
        }
        await #expect {
            _ = try await store.removeExpired(before: now, limit: 10)
        } throws: { error in
            (error as! StoreError).kind == .io
        }
    }

    // MARK: Across processes

    /// Four processes send codes from one address at once, under a limit of 5 per address an hour:
    /// exactly 5 go out in all.
    @Test(.connections(24)) func fourProcessesSendingFromOneAddressSendFiveInAll() async throws {
        let url = try await TestDatabase.url()
        let policy = "/tmp/onetap-pg-policy-\(UUID().uuidString).csv"
        try "rule,key,counts,window_seconds,limit,over,lock_seconds,source\nip-hour,ip,sends,3600,5,limit,,test\n".write(toFile: policy, atomically: true, encoding: .utf8)
        defer { removeTemporary(policy) }
        try await TestDatabase.withStores { stores in
            let schema = stores.configuration.schema
            let senders = try (0..<4).map { index in
                try HelperProcess("postgres-sms-send", url: url, [schema, policy, "198.51.100.20", String(13_900_000_000 + index * 100), "10"])
            }
            for sender in senders { #expect(await sender.line() == "ready") }
            for sender in senders { sender.send("go") }
            var lines: [String] = []
            for sender in senders { lines.append(await sender.line() ?? "nothing") }
            for sender in senders { #expect(await sender.finish() == 0) }
            let sent = lines.compactMap { $0.hasPrefix("sent ") ? Int($0.dropFirst(5)) : nil }
            #expect(sent.count == 4 && sent.reduce(0, +) == 5, "\(lines)")
            let events = try await stores.pool.execute("SELECT cardinality(events_ms) FROM \(counters(stores)) WHERE counter = 'sends:ip:198.51.100.20'")
            #expect(events.first == [.int64(5)])
            #expect(try await codeCount(stores) == 5)
        }
    }
}
