import Foundation
import OneTap
import OneTapChildProcess
@testable import OneTapPostgres
import OneTapPostgresTestSupport
import OneTapTesting
import Testing

@Suite(.connectionBudget) struct PostgresTokenStoreTests {
    let now = Tokens.now

    func token(_ account: AccountID = "u1", value: String = "A0", refresh: String? = "R0", age: Double = 0) -> AccessToken {
        Tokens.make(account, value, refresh: refresh, issued: now.addingTimeInterval(-age))
    }

    /// Runs `work` and returns what it returned or threw.
    func outcome<T: Sendable>(_ work: () async throws -> T) async -> Result<T, any Error> {
        do { return .success(try await work()) } catch { return .failure(error) }
    }

    func leaseHolder(_ stores: PostgresStores, _ account: String) async throws -> String? {
        let rows = try await stores.pool.execute(
            "SELECT holder FROM \"\(stores.configuration.schema)\".refresh_leases WHERE account = $1", [.text(account)])
        return rows.first?.first?.text
    }

    // MARK: The contract

    /// A save the client gave up on (its own deadline passed with no answer: a `timeout` with no SQLSTATE) may have
    /// committed: the error says so, as for a broken connection, never "nothing was written"; and it quotes no token.
    @Test(arguments: [PostgresError.noAnswer("no answer within 12.0 s (tok-new-γ)"), PostgresError(.connectionLost, message: "server closed the connection")])
    func aSaveWhoseAnswerNeverCameSaysItsOutcomeIsUnknown(_ cause: PostgresError) {
        let error = PostgresTokenStore.failure(cause, account: "u1", doing: "save the token", write: true, secrets: [Secret("tok-new-γ")]) as! StoreError
        #expect(error.kind == .io && error.message.contains("may or may not have been committed"), "\(error)")
        #expect(!error.message.contains("nothing was") && !error.message.contains("tok-new-γ"), "\(error)")
        let refused = PostgresTokenStore.failure(PostgresError(.server, sqlState: "42P01", message: "relation does not exist"), account: "u1", doing: "save the token", write: true)
        #expect("\(refused)".contains("nothing was written"))
        // A time limit that passed before anything was sent (the pool had no connection free): nothing unknown.
        let unsent = PostgresTokenStore.failure(
            PostgresError(.timeout, message: "no connection came free within the connect timeout of 5.0 s"), account: "u1", doing: "save the token", write: true)
        #expect("\(unsent)".contains("nothing was written") && !"\(unsent)".contains("may or may not"), "\(unsent)")
    }

    /// A lease of any length is taken in milliseconds without trapping (`.seconds(Int64.max)` read as "never
    /// expires" overflowed the nanoseconds).
    @Test func aDurationOfAnyLengthIsCountedWithoutTrapping() {
        #expect(PostgresTokenStore.milliseconds(of: .seconds(Int64.max)) == 18_446_744_073_709)  // 584 years, the most a UInt64 of nanoseconds holds
        #expect(Monotonic.nanoseconds(.seconds(Int64.max)) == UInt64.max)
        #expect(Monotonic.nanoseconds(.seconds(18_446_744_074)) == UInt64.max)
        #expect(Monotonic.nanoseconds(.milliseconds(1500)) == 1_500_000_000)
        #expect(Monotonic.nanoseconds(.seconds(-1)) == 0)
    }

    @Test func conformsToTheStoreContract() async throws {
        let url = try await TestDatabase.url()
        var opened: [PostgresStores] = []
        let result = await outcome {
            try await StoreConformance.check {
                let stores = try await PostgresStores.open(try TestDatabase.configuration(url))
                opened.append(stores)
                return stores.tokenStore()
            }
        }
        for stores in opened { await TestDatabase.dispose(stores) }
        try result.get()
    }

    @Test func aTokenOverTheRecordLimitIsRefusedAndNothingIsStored() async throws {
        try await TestDatabase.withStores { stores async throws in
            let store = stores.tokenStore()
            let huge = token("big", value: String(repeating: "x", count: TokenRecordLimit.bytes))
            await #expect {
                _ = try await store.save(huge, replacing: nil, dueAt: now)
            } throws: { error in
                let error = error as! StoreError
                return error.kind == .tooLarge && error.entry == .account("big") && !error.message.contains("xxxx")
            }
            #expect(try await store.load("big") == nil)
        }
    }

    @Test func versionsNeverRepeatAcrossInstancesAfterARemoval() async throws {
        try await TestDatabase.withStores { one in
            let other = PostgresStores(configuration: one.configuration)
            let a = one.tokenStore()
            let b = other.tokenStore()
            let v1 = try await a.save(token(), replacing: nil, dueAt: now)
            #expect(try await b.remove("u1", replacing: v1))
            let v2 = try await b.save(token(value: "after logout"), replacing: nil, dueAt: now)
            #expect(v2 > v1)
            await #expect {
                _ = try await a.save(token(value: "stale"), replacing: v1, dueAt: now)
            } throws: { error in
                let error = error as! StoreError
                return error.kind == .conflict && error.message == "expected \(v1), found \(v2)"
            }
            #expect(try await a.load("u1")?.token.value.reveal() == "after logout")
            await other.close()
        }
    }

    /// A row OneTap did not write is `corrupt`, left as it is, and the account is still listed when due. An attacker's
    /// read: a row with an empty access token, or instants outside 1970 … 9999 (written by hand, or by something else),
    /// was handed to the vault as a token, where the file store refuses the same record as corrupt: the two stores
    /// disagreed on the same damaged data.
    @Test(arguments: [
        ("flow = 'telecom'", "unknown flow \"telecom\""),
        ("access_token = ''::bytea", "the access token is empty"),
        ("expires_at_ms = 9223372036854775807", "expires_at_ms 9223372036854775807 is outside 1970-01-01 … 9999-12-31"),
        ("issued_at_ms = -1", "issued_at_ms -1 is outside 1970-01-01 … 9999-12-31"),
        ("version = 4611686018427387904", "version 4611686018427387904 is past any version a store writes"),
    ])
    func aRowNoStoreWritesIsCorruptAsInTheFileStore(change: String, reason: String) async throws {
        try await TestDatabase.withStores { stores in
            let store = stores.tokenStore()
            _ = try await store.save(token(), replacing: nil, dueAt: now)
            try await stores.pool.execute("UPDATE \"\(stores.configuration.schema)\".tokens SET \(change) WHERE account = $1", [.text("u1")])
            await #expect {
                _ = try await store.load("u1")
            } throws: { error in
                let error = error as! StoreError
                let matches = error.kind == .corrupt && error.message.contains(reason) && error.message.contains("left as it is")
                #expect(matches, "\(error)")
                return matches
            }
            #expect(try await store.accounts(dueBefore: now.addingTimeInterval(1), limit: 10) == ["u1"])
        }
    }

    /// The review of the fix that reads a row holding a value OneTap does not read as `corrupt`: a write whose answer
    /// could not be read (its `RETURNING version`, a column changed under OneTap) had run, and was reported `corrupt`,
    /// "nothing was written", so no caller read the row back. It is `io` with the outcome unknown, as a lost answer is.
    @Test func aWriteWhoseAnswerCannotBeReadMayHaveGoneIn() async throws {
        try await TestDatabase.withStores { stores in
            let store = stores.tokenStore()
            let v1 = try await store.save(token(), replacing: nil, dueAt: now)
            try await stores.pool.execute("ALTER TABLE \"\(stores.configuration.schema)\".tokens ALTER COLUMN version TYPE numeric")
            await #expect {
                _ = try await store.save(token(value: "second"), replacing: v1, dueAt: now)
            } throws: { error in
                let error = error as! StoreError
                #expect(error.writeMayHaveGoneIn && error.message.contains("may or may not"), "\(error)")
                return error.writeMayHaveGoneIn
            }
        }
    }

    /// Rows whose account is no account id (an empty one, one with a control character: written by hand), due soonest,
    /// take no place in the due listing: the accounts after them are listed up to the limit (a review: the listing read
    /// `limit` rows and dropped the bad ones, so that many bad rows at the head of the index kept every other account
    /// from its background refresh).
    @Test func rowsThatAreNoAccountTakeNoPlaceInTheDueListing() async throws {
        try await TestDatabase.withStores { stores in
            let store = stores.tokenStore()
            for (index, account) in ["good-1", "good-2", "good-3"].enumerated() {
                _ = try await store.save(token(AccountID(account)), replacing: nil, dueAt: now.addingTimeInterval(Double(60 + index)))
            }
            let table = "\"\(stores.configuration.schema)\".tokens"
            for (index, bad) in ["", "bad\u{1}1", "bad\u{7}2", "bad\n3"].enumerated() {
                try await stores.pool.execute(
                    """
                    INSERT INTO \(table) (account, version, flow, access_token, refresh_token, issued_at_ms, expires_at_ms, due_at_ms, key_id)
                    SELECT $1, version + \(index + 10), flow, access_token, refresh_token, issued_at_ms, expires_at_ms, $2, key_id FROM \(table) WHERE account = 'good-1'
                    """, [.text(bad), .int64(now.millisecondsSince1970 + Int64(index))])
            }
            let later = now.addingTimeInterval(3600)
            #expect(try await store.accounts(dueBefore: later, limit: 2) == ["good-1", "good-2"])
            #expect(try await store.accounts(dueBefore: later, limit: 1) == ["good-1"])
            #expect(try await store.accounts(dueBefore: later, limit: 10) == ["good-1", "good-2", "good-3"])
            #expect(try await store.accounts(dueBefore: now.addingTimeInterval(30), limit: 10) == [])
        }
    }

    /// A version that is not positive (the table's check dropped, the row written by hand) is reported, never trapped
    /// on: the conflict that reads it names it (a review: `UInt64(version)` trapped on it, where `load` already
    /// refused such a row as corrupt).
    @Test func aVersionThatIsNotPositiveIsReportedNotTrappedOn() async throws {
        try await TestDatabase.withStores { stores in
            let store = stores.tokenStore()
            let saved = try await store.save(token(), replacing: nil, dueAt: now)
            let table = "\"\(stores.configuration.schema)\".tokens"
            try await stores.pool.execute("ALTER TABLE \(table) DROP CONSTRAINT tokens_version_check")
            try await stores.pool.execute("UPDATE \(table) SET version = -3 WHERE account = $1", [.text("u1")])
            await #expect {
                _ = try await store.save(token(), replacing: saved, dueAt: now)
            } throws: { error in
                let error = error as! StoreError
                return error.kind == .conflict && error.message.contains("a version that is not positive (-3)")
            }
            await #expect { _ = try await store.load("u1") } throws: { ($0 as! StoreError).kind == .corrupt }
        }
    }

    // MARK: Values are bound

    static let hostileAccounts: [String] = [
        "'; DROP TABLE tokens; --", "\"; DROP SCHEMA public CASCADE; --", "O'Brien", "back\\slash\\", "$1", "$2::text", "%s %d %n",
        "用户", "🙂‍↔️", "caf\u{E9}", "cafe\u{301}", "\u{202E}right-to-left", " spaced ", "a/../b", "-- comment", "/* block */",
        String(repeating: "长", count: 33),
    ]

    /// Hostile account ids round-trip through save, load, the due listing and removal; none of them
    /// ever appears in a statement's text.
    @Test func hostileAccountIdsRoundTripAsBoundValues() async throws {
        let log = StatementLog()
        try await TestDatabase.withStores(observer: log.observer) { stores in
            let store = stores.tokenStore()
            let accounts = try Self.hostileAccounts.map { try AccountID($0) }
            for account in accounts {
                _ = try await store.save(token(account, value: "value of \(account.rawValue)"), replacing: nil, dueAt: now)
            }
            for account in accounts {
                let stored = try await store.load(account)
                #expect(stored?.token.account == account)
                #expect(stored?.token.value.reveal() == "value of \(account.rawValue)")
            }
            // One due time for all: the listing breaks ties by the ids' bytes, as AccountID orders them.
            let listed = try await store.accounts(dueBefore: now.addingTimeInterval(1), limit: 100)
            #expect(listed == accounts.sorted())
            #expect(listed.firstIndex(of: "caf\u{E9}") != listed.firstIndex(of: "cafe\u{301}"))
            for account in accounts {
                #expect(try await store.remove(account, replacing: nil))
            }
            #expect(try await store.accounts(dueBefore: now.addingTimeInterval(1), limit: 100).isEmpty)
            let tables = try await stores.pool.execute(
                "SELECT count(*) FROM pg_catalog.pg_tables WHERE schemaname IN ($1, 'public')", [.text(stores.configuration.schema)])
            #expect(tables.first == [.int64(13)])  // schema_migrations and the stores' twelve (login_quota_counters the last): none dropped, none made in public
        }
        // (Ids that are placeholders themselves, `$1`, cannot be told apart from the statements' own.)
        for account in Self.hostileAccounts where !account.hasPrefix("$") {
            #expect(log.statements.allSatisfy { !$0.contains(account) }, "\(account) was put into a statement")
        }
    }

    // MARK: Secrets

    @Test func errorsAndDescriptionsNeverHoldThePasswordOrAToken() async throws {
        let secrets = ["hunter2-pw", "tok-secret-α", "ref-secret-β", "tok-new-γ"]
        func clean(_ text: String) -> Bool { secrets.allSatisfy { !text.contains($0) } }
        let secret = token("u1", value: "tok-secret-α", refresh: "ref-secret-β")

        // A server with trust authentication ignores the password, so the stores work with it given.
        let url = try await TestDatabase.url()
        let configuration = try TestDatabase.configuration(url + (url.contains("?") ? "&" : "?") + "password=hunter2-pw")
        let stores = try await PostgresStores.open(configuration)
        let store = stores.tokenStore()
        let version = try await store.save(secret, replacing: nil, dueAt: now)
        for text in [configuration.description, String(reflecting: configuration), stores.description, stores.pool.description, String(describing: store)] {
            #expect(clean(text), "\(text)")
        }
        // Conflicts name versions, not tokens.
        await #expect {
            _ = try await store.save(token("u1", value: "tok-new-γ"), replacing: TokenVersion(version.value + 100), dueAt: now)
        } throws: { error in
            clean("\(error)") && (error as! StoreError).kind == .conflict
        }
        // A server error while a token is on its way.
        try await stores.pool.execute("ALTER TABLE \"\(configuration.schema)\".tokens RENAME TO gone")
        await #expect {
            _ = try await store.save(token("u1", value: "tok-new-γ", refresh: "ref-secret-β"), replacing: version, dueAt: now)
        } throws: { error in
            let error = error as! StoreError
            return error.kind == .io && error.message.contains("does not exist") && error.message.contains("nothing was written") && clean(error.description)
        }
        await TestDatabase.dispose(stores)

        // No server at all, with a password in the URL.
        let nowhere = try PostgresConfiguration(url: "postgresql://api:hunter2-pw@/onetap?host=/tmp/onetap-nowhere-\(UInt32.random(in: 0...UInt32.max))")
        let unreachable = PostgresStores(configuration: nowhere).tokenStore()
        var messages: [String] = []
        for attempt in 0..<4 {
            let result: Result<Void, any Error> = await outcome {
                switch attempt {
                case 0: _ = try await unreachable.save(secret, replacing: nil, dueAt: now)
                case 1: _ = try await unreachable.load("u1")
                case 2: _ = try await unreachable.remove("u1", replacing: nil)
                default: _ = try await unreachable.withRefreshLock(for: "u1") { 1 }
                }
            }
            guard case .failure(let error) = result, let error = error as? StoreError else {
                Issue.record("attempt \(attempt) did not fail with a store error")
                continue
            }
            #expect(error.kind == .io)
            messages.append(error.description)
        }
        #expect(messages.count == 4)
        for message in messages {
            #expect(clean(message), "\(message)")
            #expect(message.contains("connection-failed"))
        }
    }

    // MARK: The refresh lease

    /// Two instances refreshing one account take turns.
    @Test func twoInstancesNeverRefreshOneAccountAtOnce() async throws {
        try await TestDatabase.withStores { one in
            let other = PostgresStores(configuration: one.configuration)
            let stores = [one.tokenStore(), other.tokenStore()]
            let active = LockedValue((now: 0, most: 0, runs: 0))
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<6 {
                    group.addTask {
                        try await stores[index % 2].withRefreshLock(for: "shared") {
                            active.withLock { $0.now += 1; $0.most = max($0.most, $0.now); $0.runs += 1 }
                            try await Task.sleep(for: .milliseconds(40))
                            active.withLock { $0.now -= 1 }
                        }
                    }
                }
                try await group.waitForAll()
            }
            let seen = active.withLock { $0 }
            #expect(seen.most == 1 && seen.runs == 6)
            #expect(try await leaseHolder(one, "shared") == nil)  // released after each refresh
            await other.close()
        }
    }

    /// A refresh keeps its lease by renewing it every third of the lease, on the injected clock: a lease
    /// whose time ran out (set so on the database's clock) is renewed, and another instance cannot take it.
    @Test func aLongRefreshRenewsItsLease() async throws {
        let clock = FakeClock()
        try await TestDatabase.withStores(clock: clock) { one in
            let other = PostgresStores(configuration: one.configuration)
            let first = one.tokenStore(leaseDuration: .seconds(60))
            let second = other.tokenStore(lockTimeout: .zero)
            let leases = "\"\(one.configuration.schema)\".refresh_leases"
            let gate = Gate()
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await first.withRefreshLock(for: "slow") { await gate.wait() } }
                try await waitUntil { try await leaseHolder(one, "slow") != nil }
                let holder = try await leaseHolder(one, "slow")
                // As if the refresh had outlived its lease: without a renewal, anyone could take it now.
                try await one.pool.execute("UPDATE \(leases) SET expires_at_ms = (extract(epoch FROM now()) * 1000)::bigint - 1000")
                await clock.waitForSleepers(1)
                clock.advance(by: .seconds(20))
                try await waitUntil {
                    try await one.pool.execute("SELECT count(*) FROM \(leases) WHERE expires_at_ms > (extract(epoch FROM clock_timestamp()) * 1000)::bigint + 50000").first == [.int64(1)]
                }
                // Another instance (lock time-out zero) cannot take it: its refresh does not run.
                await #expect(throws: StoreError.self) { try await second.withRefreshLock(for: "slow") { Issue.record("ran without the lease") } }
                #expect(try await leaseHolder(other, "slow") == holder)
                gate.open()
                try await group.waitForAll()
            }
            #expect(try await leaseHolder(one, "slow") == nil)
            await other.close()
        }
    }

    /// Holds account `account`'s refresh lease in a refresh that waits, does `meanwhile` to the lease's row
    /// (`stores`, the table's quoted name, the holder), then moves the clock to the next renewal and runs
    /// `renewed` before the refresh ends; returns the events.
    func leaseChangedDuringARefresh(
        _ account: AccountID, meanwhile: (PostgresStores, String, String?) async throws -> Void,
        renewed: (PostgresStores, RecordingEventSink, FakeClock, String?) async throws -> Void
    ) async throws -> (stores: PostgresStores, events: RecordingEventSink, result: Result<Void, any Error>) {
        let clock = FakeClock()
        let events = RecordingEventSink()
        let stores = PostgresStores(configuration: try TestDatabase.configuration(try await TestDatabase.url()), clock: clock, events: events)
        let result = await outcome {
            try await stores.migrate()
            let store = stores.tokenStore(leaseDuration: .seconds(60))
            let gate = Gate()
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await store.withRefreshLock(for: account) { await gate.wait() } }
                try await waitUntil { try await leaseHolder(stores, account.rawValue) != nil }
                let holder = try await leaseHolder(stores, account.rawValue)
                try await meanwhile(stores, "\"\(stores.configuration.schema)\".refresh_leases", holder)
                await clock.waitForSleepers(1)
                clock.advance(by: .seconds(20))
                try await renewed(stores, events, clock, holder)
                gate.open()
                try await group.waitForAll()
            }
        }
        return (stores, events, result)
    }

    /// A refresh whose lease another instance took (its renewals failed for longer than the lease, or its
    /// process stood still) is told: a `refresh-lease-lost` event names the account, the renewals stop and
    /// the other instance's lease is left alone. The refresh itself goes on: its answer is the carrier's
    /// newest token, which the compare-and-swap write keeps or refuses, never a lost one.
    @Test func aRefreshWhoseLeaseAnotherInstanceTookIsTold() async throws {
        let (stores, events, result) = try await leaseChangedDuringARefresh("taken") { stores, leases, _ in
            try await stores.pool.execute("UPDATE \(leases) SET holder = 'elsewhere'")
        } renewed: { _, events, _, _ in
            #expect(await events.wait(for: "refresh-lease-lost", limit: .seconds(30)))
            let event = try #require(events.recorded.first { $0.name == "refresh-lease-lost" })
            #expect(event.description.contains("account taken") && event.description.contains("another instance"), "\(event)")
        }
        let holder = await outcome { try await leaseHolder(stores, "taken") }
        await TestDatabase.dispose(stores)
        try result.get()
        #expect(try holder.get() == "elsewhere")
        #expect(events.names.filter { $0 == "refresh-lease-lost" }.count == 1)
    }

    /// A refresh whose lease expired and was swept while its renewals failed takes it again at the next
    /// renewal, when nobody else has, and tells: another instance may have taken it, refreshed and let it go
    /// meanwhile.
    @Test func aRefreshWhoseSweptLeaseIsFreeTakesItAgain() async throws {
        let (stores, events, result) = try await leaseChangedDuringARefresh("swept") { stores, leases, _ in
            try await stores.pool.execute("DELETE FROM \(leases)")
        } renewed: { stores, _, clock, holder in
            try await waitUntil { try await leaseHolder(stores, "swept") == holder }
            await clock.waitForSleepers(1)  // renewing still
        }
        let holder = await outcome { try await leaseHolder(stores, "swept") }
        await TestDatabase.dispose(stores)
        try result.get()
        #expect(try holder.get() == nil)
        #expect(events.names.filter { $0 == "refresh-lease-lost" }.count == 1)
    }

    /// Another instance holds the account's refresh lease for the next hour (on the database's clock).
    static func holdLeaseElsewhere(_ stores: PostgresStores, _ account: AccountID) async throws {
        try await stores.pool.execute(
            "INSERT INTO \"\(stores.configuration.schema)\".refresh_leases VALUES ($1, 'elsewhere', (extract(epoch FROM now()) * 1000)::bigint + 3600000)",
            [.text(account.rawValue)])
    }

    /// The lock time-out is the time that passed, not the pauses alone: with each lease statement taking a second,
    /// a 5 s time-out polled 250 times (250 × 20 ms of pauses, four minutes of statements) before it gave up.
    @Test func theLockTimeoutCountsTheTimeTheStatementsTookToo() async throws {
        let clock = TickingClock()   // each lease statement as slow as a loaded database: a second
        try await TestDatabase.withStores(clock: clock) { stores in
            try await Self.holdLeaseElsewhere(stores, "u1")
            let store = try concrete(stores.tokenStore(lockTimeout: .seconds(5)), as: PostgresTokenStore.self)
            await #expect {
                try await store.withRefreshLock(for: "u1") {}
            } throws: { error in
                (error as? StoreError)?.kind == .timeout
            }
            #expect(clock.pauses <= 6, "\(clock.pauses) pauses")
        }
    }

    /// One refresh at a time: a lease held elsewhere for longer than the lock time-out fails the refresh, after
    /// polling on the injected clock, and the refresh does not run (before, it went ahead with the same refresh
    /// token as the holder's call).
    @Test func aLeaseHeldPastTheLockTimeoutFailsAndTheRefreshDoesNotRun() async throws {
        let clock = FakeClock()
        try await TestDatabase.withStores(clock: clock) { stores in
            try await Self.holdLeaseElsewhere(stores, "u1")
            let store = stores.tokenStore(lockTimeout: .milliseconds(100))
            let ran = LockedValue(false)
            try await withThrowingTaskGroup(of: StoreError?.self) { group async throws in
                group.addTask {
                    do {
                        try await store.withRefreshLock(for: "u1") { ran.withLock { $0 = true } }
                        return nil
                    } catch let error as StoreError {
                        return error
                    }
                }
                for _ in 0..<5 {
                    await clock.waitForSleepers(1)
                    clock.advance(by: .milliseconds(20))
                }
                let error = try await group.next() ?? nil
                #expect(error?.kind == .timeout && error?.message.contains("the refresh did not run") == true, "\(String(describing: error))")
            }
            #expect(ran.withLock { $0 } == false)
            #expect(clock.totalSleeps == 5)
            #expect(try await leaseHolder(stores, "u1") == "elsewhere")
        }
    }

    /// A refresh cancelled (the vault stopping) while every connection is busy still releases its lease (a review: the
    /// release ran in the cancelled task, whose wait for a connection ended at once, so the lease stayed its whole 60 s
    /// and every other instance's refresh of the account timed out meanwhile).
    @Test func aCancelledRefreshReleasesItsLeaseWhileThePoolIsBusy() async throws {
        try await TestDatabase.withStores(poolSize: 1) { stores in
            let store = stores.tokenStore()
            let (taken, lease) = AsyncStream<Void>.makeStream()
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    // The pool's one connection, busy from the moment the refresh holds its lease until after it ends.
                    for await _ in taken { break }
                    _ = try await stores.pool.execute("SELECT pg_sleep(1.0)")
                }
                group.addTask {
                    try await store.withRefreshLock(for: "u-cancelled") {
                        lease.yield()
                        try await Task.sleep(for: .milliseconds(300))
                        withUnsafeCurrentTask { $0?.cancel() }
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await leaseHolder(stores, "u-cancelled") == nil)
        }
    }

    @Test func noLeaseCanBeAskedForWhileTheDatabaseIsDownAndTheRefreshDoesNotRun() async throws {
        let nowhere = try PostgresConfiguration(url: "postgresql:///onetap?host=/tmp/onetap-nowhere-\(UInt32.random(in: 0...UInt32.max))")
        let stores = PostgresStores(configuration: nowhere)
        let ran = LockedValue(false)
        await #expect {
            try await stores.tokenStore().withRefreshLock(for: "u1") { ran.withLock { $0 = true } }
        } throws: { error in
            let error = error as! StoreError
            return error.kind == .io && error.message.contains("take the refresh lease (the refresh did not run)")
        }
        #expect(ran.withLock { $0 } == false)
    }

    /// A token-vault attacker's read: a refresh whose task is cancelled (the vault abandons a call past its late-answer
    /// limit) while its call runs on, deaf to the cancellation, stopped renewing its lease with the cancellation; the
    /// lease lapsed, and another instance took it and sent the same refresh token while the first call was still out.
    /// The lease is held, and renewed, until the call returns, as the in-memory store's lock and the file store's are.
    @Test func aCancelledRefreshThatRunsOnKeepsItsLease() async throws {
        try await TestDatabase.withStores { stores in
            // A lease of 6 s, renewed every 2 s: a renewal late by up to 4 s on a loaded machine keeps it.
            let first = stores.tokenStore(leaseDuration: .seconds(6), lockTimeout: .seconds(1))
            let second = stores.tokenStore(leaseDuration: .seconds(6), lockTimeout: .seconds(1))
            let entered = Gate()
            let answer = LockedValue<CheckedContinuation<Void, Never>?>(nil)
            let refresh = Task {
                try await first.withRefreshLock(for: "u1") {
                    // The carrier's SDK calls back when it does, whatever the task's cancellation.
                    await withCheckedContinuation { continuation in
                        answer.withLock { $0 = continuation }
                        entered.open()
                    }
                }
            }
            await entered.wait()
            refresh.cancel()
            try await Task.sleep(for: .seconds(8))   // past the lease's end on the database's clock, had nothing renewed it
            let ran = LockedValue(false)
            await #expect {
                try await second.withRefreshLock(for: "u1") { ran.withLock { $0 = true } }
            } throws: { ($0 as? StoreError)?.kind == .timeout }
            #expect(ran.withLock { $0 } == false)
            answer.withLock { $0 }?.resume()
            try await refresh.value
            #expect(try await leaseHolder(stores, "u1") == nil)
        }
    }

    /// A process killed while it held a lease leaves it behind; it expires, and the refresh then happens.
    @Test func aLeaseLeftByAKilledProcessExpiresAndTheRefreshHappens() async throws {
        let url = try await TestDatabase.url()
        try await TestDatabase.withStores { stores in
            let store = stores.tokenStore(leaseDuration: .seconds(3), lockTimeout: .seconds(60))
            let clock = FakeClock(now: now)
            let refresher = MockRefresher()
            let vault = TokenVault(store: store, refresher: refresher, clock: clock, events: DiscardingEventSink())
            try await vault.store(token(age: 31 * 86_400))

            let helper = try HelperProcess("postgres-hold-lease", url: url, [stores.configuration.schema, "u1", "3000"])
            #expect(await helper.line() == "holding")
            #expect(try await leaseHolder(stores, "u1")?.contains(":\(helper.identifier):") == true)
            await helper.kill()
            // What the lease had left when its holder died, on the database's clock (the clock its expiry is
            // measured on): 2 to 3 s when the helper renewed on time, less when a loaded machine starved it.
            let left = try await stores.pool.execute(
                "SELECT expires_at_ms - \(PostgresMigrations.databaseNow) FROM \"\(stores.configuration.schema)\".refresh_leases WHERE account = 'u1'"
            ).first?.first?.int64 ?? 0

            let started = ContinuousClock.now
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await vault.run() }
                #expect(try await vault.validToken(for: "u1").value.reveal() == "refreshed-1")
                await vault.shutdown()
                try await group.waitForAll()
            }
            let waited = ContinuousClock.now - started
            // The refresh waited for the lease's expiry (less the moment between reading it and starting the
            // clock here), not for the 60 s lock time-out.
            #expect(waited >= .milliseconds(max(0, left - 250)) && waited < .seconds(30), "\(waited), the lease had \(left) ms left")
            #expect(refresher.calls == 1)
            #expect(try await store.load("u1")?.token.value.reveal() == "refreshed-1")
            #expect(try await leaseHolder(stores, "u1") == nil)
        }
    }

    // MARK: With the vault

    @Test func vaultOverThePostgresStoreRefreshes() async throws {
        try await TestDatabase.withStores { stores in
            let store = stores.tokenStore()
            let clock = FakeClock(now: now)
            let vault = TokenVault(store: store, refresher: MockRefresher(), clock: clock, events: DiscardingEventSink())
            try await vault.store(token(age: 31 * 86_400))
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await vault.run() }
                #expect(try await vault.validToken(for: "u1").value.reveal() == "refreshed-1")
                await vault.shutdown()
                try await group.waitForAll()
            }
            let stored = try await store.load("u1")
            #expect(stored?.token.value.reveal() == "refreshed-1" && stored?.token.refreshToken?.reveal() == "refresh-1")
            #expect(try await store.accounts(dueBefore: now, limit: 10).isEmpty)
        }
    }

    /// The server stops while a vault's refresh holds the lease: the refreshed token is served all the same
    /// (kept in the vault's memory) or the caller's own read fails clearly, the stored token is never torn,
    /// and once the server is back (the pool reconnects, the left lease expires) the refreshed token is
    /// written, with no second carrier call.
    @Test func theServerStoppingMidRefreshLosesNothing() async throws {
        let server = try await TestDatabase.privateServer()
        defer { server.remove() }
        let stores = try await PostgresStores.open(try TestDatabase.configuration(server.url(), connectTimeout: .seconds(30)))
        let store = stores.tokenStore(leaseDuration: .seconds(1), lockTimeout: .seconds(30))
        let clock = FakeClock(now: now)
        let refresher = MockRefresher()
        let vault = TokenVault(store: store, refresher: refresher, clock: clock, events: DiscardingEventSink())
        try await vault.store(token("u1", value: "tok-old", refresh: "ref-old", age: 31 * 86_400))
        let before = try await store.load("u1")
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await vault.run() }
            refresher.hold()
            async let first = outcome { try await vault.validToken(for: "u1") }
            await refresher.waitForCalls(1)
            #expect(try await leaseHolder(stores, "u1") != nil)
            try await server.stop()
            refresher.release()
            switch await first {
            case .success(let token):
                // The refresh's write failed (or waited for the restart): the refreshed token, served all the same.
                #expect(token.value.reveal() == "refreshed-1")
            case .failure(let error):
                // The caller's own read met the stopped server first (it may start its read after the background
                // scan's refresh).
                let error = try #require(error as? TokenError)
                #expect(error.kind == .storeFailed)
                #expect(error.message.contains("PostgreSQL") && error.message.contains("cannot read the token"), "\(error)")
                #expect(!error.message.contains("refreshed-1") && !error.message.contains("refresh-1") && !error.message.contains("tok-old"))
            }
            try await server.start()
            // Nothing lost or torn: the previous token, or (when the refresh's write, waiting for a connection
            // within the connect timeout, got one after the restart) the refreshed one, whole.
            let after = try #require(try await store.load("u1"))
            let kept = after.token.value.reveal() == "refreshed-1"
            #expect(after == before || (kept && after.token.refreshToken?.reveal() == "refresh-1"), "\(after)")
            // Written or only in memory, the refreshed token is served, and written by the next background scan at
            // the latest.
            #expect(try await vault.validToken(for: "u1").value.reveal() == "refreshed-1")
            await vault.waitUntilNoRefreshRuns()
            clock.advance(by: .seconds(60))
            try await waitUntil { try await store.load("u1")?.token.refreshToken?.reveal() == "refresh-1" }
            await vault.shutdown()
            try await group.waitForAll()
            #expect(try await store.load("u1")?.token.refreshToken?.reveal() == "refresh-1")
            #expect(refresher.calls == 1)
        }
        await stores.close()
    }

    // MARK: Across processes

    /// Four processes refreshing 1,000 due accounts in the background: 1,000 refreshes in all.
    @Test(.connections(40)) func fourProcessesRefreshEachDueAccountOnce() async throws {
        let url = try await TestDatabase.url()
        try await TestDatabase.withStores(poolSize: 8) { stores in
            let store = stores.tokenStore()
            let issued = Date().addingTimeInterval(-2 * 86_400)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for lane in 0..<8 {
                    group.addTask {
                        for index in stride(from: lane, to: 1000, by: 8) {
                            _ = try await store.save(
                                AccessToken(value: Secret("OLD"), refreshToken: Secret("R"), flow: .tianyi, account: try AccountID("acct-\(index)"),
                                            issuedAt: issued, expiresAt: issued.addingTimeInterval(30 * 86_400)),
                                replacing: nil, dueAt: issued)
                        }
                    }
                }
                try await group.waitForAll()
            }
            let counter = "/tmp/onetap-pg-refresh-count-\(UUID().uuidString)"
            defer { removeTemporary(counter) }
            let processes = try (0..<4).map { _ in
                try ChildProcess(
                    BuildProducts.path("OneTapTestHelper"), ["postgres-refresh-due", "-", stores.configuration.schema, counter],
                    environment: ProcessInfo.processInfo.environment.merging(HelperProcess.databaseURL(url)) { $1 })
            }
            for process in processes {
                #expect(await process.exited().succeeded)
            }
            let lines = try String(contentsOfFile: counter, encoding: .utf8).split(separator: "\n")
            #expect(lines.count == 1000)
            #expect(Set(lines.map { $0.split(separator: " ")[1] }).count == 1000)
            #expect(try await store.accounts(dueBefore: Date(), limit: 1).isEmpty)
        }
    }
}
