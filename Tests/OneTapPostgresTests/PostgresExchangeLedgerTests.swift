import Foundation
import OneTap
@testable import OneTapPostgres
import OneTapPostgresTestSupport
import OneTapTesting
import Testing

@Suite(.connectionBudget) struct PostgresExchangeLedgerTests {
    let now = Date(timeIntervalSince1970: 1_796_083_200.125)
    static let abc = SHA256.hash(Array("abc".utf8))

    func table(_ stores: PostgresStores) -> String { "\"\(stores.configuration.schema)\".exchange_ledger" }

    // MARK: The contract

    /// An attacker's read of the stores: a claim, a resend's claim or a settle whose answer never came (the connection
    /// broke, or the client's deadline passed with the statement sent) may have committed, and the error said only that
    /// the token was not exchanged: an operator reading it took the ledger's row for unwritten. It says the write may
    /// or may not have been recorded; a refusal or a read says nothing of the kind.
    @Test(arguments: [PostgresError.noAnswer("no answer within 12.0 s"), PostgresError(.connectionLost, message: "server closed the connection")])
    func aWriteWhoseAnswerNeverCameSaysItMayHaveBeenRecorded(_ cause: PostgresError) {
        let claim = PostgresExchangeLedger.failure(cause, doing: "claim the token's exchange (it was not exchanged)", write: true) as! StoreError
        #expect(claim.message.hasSuffix("; the ledger's write may or may not have been recorded"), "\(claim)")
        let listing = PostgresExchangeLedger.failure(cause, doing: "list the exchanges to reconcile", write: false) as! StoreError
        #expect(!listing.message.contains("may or may not"), "\(listing)")
        let refused = PostgresExchangeLedger.failure(PostgresError(.server, sqlState: "42P01", message: "relation does not exist"), doing: "claim", write: true) as! StoreError
        #expect(!refused.message.contains("may or may not"), "\(refused)")
    }

    @Test(arguments: [Duration.seconds(86_400), .seconds(90)])
    func conformsToTheLedgerContract(retention: Duration) async throws {
        // Built directly: a retention under the public door's hour (the contract's forgetting, without an hour's wait).
        try await checkConformance(try await TestDatabase.url(), { PostgresExchangeLedger(pool: $0.pool, retention: retention) as any ExchangeLedger }) { make in
            try await StoreConformance.check(retention: retention) { try await make() }
        }
    }

    /// Two instances (two pools) claiming one token at once: exactly one claims it.
    @Test func twoInstancesClaimATokenOnce() async throws {
        try await TestDatabase.withStores { one in
            let other = PostgresStores(configuration: one.configuration)
            let ledgers = [one.exchangeLedger(), other.exchangeLedger()]
            let tokens = (0..<20).map { SHA256.hash(Array("token-\($0)".utf8)) }
            let claims = try await withThrowingTaskGroup(of: (Int, Bool).self) { group in
                for (index, token) in tokens.enumerated() {
                    for copy in 0..<6 {
                        let now = self.now
                        group.addTask { (index, try await ledgers[copy % 2].claim(token, at: now) == nil) }
                    }
                }
                var claims = [Int](repeating: 0, count: tokens.count)
                for try await (index, claimed) in group where claimed { claims[index] += 1 }
                return claims
            }
            #expect(claims == [Int](repeating: 1, count: tokens.count))
            let rows = try await one.pool.execute("SELECT count(*), count(*) FILTER (WHERE state = 'pending') FROM \(table(one))")
            #expect(rows.first == [.int64(20), .int64(20)])
            await other.close()
        }
    }

    /// A ledger asked for a minute's retention keeps a token an hour: one forgotten sooner was claimed afresh by the
    /// next login that brought it, and sent to the carrier again while it could still be exchanged (an attacker's read).
    @Test func aRetentionShorterThanAnHourIsAnHour() async throws {
        try await TestDatabase.withStores { stores in
            let ledger = stores.exchangeLedger(retention: .seconds(60))
            #expect(try await ledger.claim(Self.abc, for: OneSession.id, at: now) == nil)
            let again = try await ledger.claim(Self.abc, for: OneSession.other, at: now.addingTimeInterval(61))
            #expect(again?.session == OneSession.id, "the first login's claim, not a fresh one")
            #expect(try await ledger.claim(Self.abc, for: OneSession.other, at: now.addingTimeInterval(3601)) == nil, "forgotten after the hour")
        }
    }

    /// The row holds the digest, the state, the claiming session, the answer (migration 10) and the times;
    /// never the token.
    @Test func rowsHoldTheDigestNeverTheToken() async throws {
        try await TestDatabase.withStores { stores in
            let ledger = PostgresExchangeLedger(pool: stores.pool, retention: .seconds(600))
            _ = try await ledger.claim(Self.abc, at: now)
            let answer = ExchangeResponse(code: "000", phoneNumber: try PhoneNumber("13800138000"), account: "account-42")
            try await ledger.settle(Self.abc, .answered(answer), at: now.addingTimeInterval(1.5))
            let rows = try await stores.pool.execute(
                "SELECT token, state, code, session, phone_number, account, sends, claimed_at_ms, settled_at_ms, forget_at_ms FROM \(table(stores))")
            let row = try #require(rows.first)
            #expect(row[0] == .bytes(Self.abc.bytes))
            #expect(row[1] == .text("answered") && row[2] == .text("000"))
            #expect(row[3] == .text(OneSession.id.text) && row[4] == .text("13800138000") && row[5] == .text("account-42") && row[6] == .int64(1))
            let times = row[7...].compactMap(\.instant).map { $0.timeIntervalSince(now) }
            #expect(times.count == 3 && abs(times[0]) < 1e-6 && abs(times[1] - 1.5) < 1e-6 && abs(times[2] - 600) < 1e-6, "\(times)")
            // The same login reads the answer back; another login's claim finds it too (the guard answers it `replayed`).
            #expect(try await ledger.claim(Self.abc, for: OneSession.other, at: now)?.state == .answered(answer))
        }
    }

    /// An attacker's read: a ledger row holding a value OneTap does not read (a column changed under it) failed the
    /// reconciliation's listing as `io`, pointing at the database rather than the row: it is `corrupt`.
    @Test func aListedRowHoldingAValueOneTapDoesNotReadIsCorrupt() async throws {
        try await TestDatabase.withStores { stores in
            let ledger = stores.exchangeLedger()
            _ = try await ledger.claim(Self.abc, for: OneSession.id, at: now)
            try await ledger.settle(Self.abc, .unknown, at: now)
            try await stores.pool.execute("ALTER TABLE \(table(stores)) ALTER COLUMN sends TYPE numeric")
            await #expect {
                _ = try await ledger.unknownExchanges(since: now.addingTimeInterval(-60), pendingClaimedBefore: now, after: nil, limit: 10)
            } throws: { error in
                #expect((error as? StoreError)?.kind == .corrupt, "\(error)")
                return (error as? StoreError)?.kind == .corrupt
            }
        }
    }

    /// A row whose number, account or session OneTap would not write is reported corrupt, never quoted.
    @Test(arguments: [("phone_number = '12345'", "its number is not a phone number"), ("session = 'short'", "its session is not a login session id"),
                      ("account = ''", "its account is not an account id")])
    func anAnswerOneTapDidNotWriteIsReportedCorrupt(change: String, reason: String) async throws {
        try await TestDatabase.withStores { stores in
            let ledger = stores.exchangeLedger()
            _ = try await ledger.claim(Self.abc, at: now)
            try await ledger.settle(Self.abc, .answered(ExchangeResponse(code: "103000", phoneNumber: try PhoneNumber("13800138000"))), at: now)
            try await stores.pool.execute("UPDATE \(table(stores)) SET \(change)")
            await #expect {
                _ = try await ledger.claim(Self.abc, at: now)
            } throws: { error in
                let error = error as! StoreError
                return error.kind == .corrupt && error.message.contains(reason) && !error.description.contains(Self.abc.hex)
            }
        }
    }

    @Test(arguments: [("state = 'spent'", "holds a state OneTap does not write"), ("state = 'answered', code = NULL", "holds a state OneTap does not write")])
    func aRowOneTapDidNotWriteIsReportedCorrupt(change: String, reason: String) async throws {
        try await TestDatabase.withStores { stores in
            let ledger = stores.exchangeLedger()
            _ = try await ledger.claim(Self.abc, at: now)
            try await stores.pool.execute("UPDATE \(table(stores)) SET \(change)")
            await #expect {
                _ = try await ledger.claim(Self.abc, at: now)
            } throws: { error in
                let error = error as! StoreError
                return error.kind == .corrupt && error.message.contains(reason) && !error.description.contains(Self.abc.hex)
            }
        }
    }

    /// Issue 21 across instances: the app's retry reaches another instance (another pool) while the first
    /// instance's carrier call is under way; the retry waits on the shared ledger and gets the answer the
    /// first instance kept, the carrier called once; another login's report is a replay.
    @Test func aRetryOnAnotherInstanceWaitsForTheAnswer() async throws {
        try await TestDatabase.withStores { one in
            let other = PostgresStores(configuration: one.configuration)
            let clock = FakeClock(now: now)
            let carrier = HeldTokenExchange()
            let first = ExchangeGuard(provider: carrier, ledger: one.exchangeLedger(), clock: clock)
            let second = ExchangeGuard(provider: carrier, ledger: other.exchangeLedger(), clock: clock)
            let credential = CarrierCredential(flow: .tianyi, token: Secret("T-across-instances"))
            let now = self.now
            let firstCall = Task { try await first.exchange(credential, receivedAt: now, rules: .builtIn).answer }
            await carrier.waitForCalls(1)
            let retry = Task { try await second.exchange(credential, receivedAt: now, rules: .builtIn).answer }
            await clock.waitForSleepers(2)  // the first's limit, the retry's wait
            let number = try PhoneNumber("13800138000")
            carrier.release(ExchangeResponse(code: "0", phoneNumber: number))
            #expect(try await firstCall.value == .answered("0", phoneNumber: number))
            clock.advance(by: second.pollInterval)
            #expect(try await retry.value == .answered("0", phoneNumber: number))
            #expect(carrier.calls == 1)
            let stranger = try await second.exchange(credential, for: OneSession.other, receivedAt: now, rules: .builtIn, events: DiscardingEventSink())
            #expect(stranger.answer == .replayed)
            await other.close()
        }
    }

    // MARK: Faults

    /// A claim held on the token's row past the statement timeout fails with `timeout`; the guard then
    /// sends nothing to the carrier.
    @Test func aClaimHeldPastTheStatementTimeoutTimesOutAndTheGuardDoesNotExchange() async throws {
        let (stores, usual) = try await TestDatabase.timingOutStores(statementTimeout: .seconds(1))
        let ledger = stores.exchangeLedger()
        try await usual.exchangeLedger().settle(Self.abc, .unknown, at: now)
        let holder = try await HeldTransaction.begin(usual.configuration, [("SELECT state FROM \(table(stores)) FOR UPDATE", [])])
        // An unknown exchange's claim waits for the row (its upsert), past the time-out.
        await #expect {
            _ = try await ledger.claim(Self.abc, at: now.addingTimeInterval(86_401))
        } throws: { error in
            let error = error as! StoreError
            return error.kind == .timeout && error.message.contains("statement timeout") && !error.description.contains(Self.abc.hex)
        }
        let clock = FakeClock(now: now.addingTimeInterval(86_401))
        let provider = MockTokenExchange(number: try PhoneNumber("13800138000"), clock: clock)
        let exchange = ExchangeGuard(provider: provider, ledger: ledger, clock: clock)
        // The guard answers nothing: the ledger's error propagates (the request fails with 503, the session unchanged).
        await #expect {
            _ = try await exchange.exchange(CarrierCredential(flow: .tianyi, token: Secret("abc")), receivedAt: clock.now(), rules: .builtIn)
        } throws: { error in
            guard let error = error as? StoreError else { return false }
            return error.kind == .timeout && !error.description.contains(Self.abc.hex)
        }
        #expect(provider.tokensSent.isEmpty)
        await holder.release()
        #expect(try await usual.exchangeLedger().claim(Self.abc, at: now.addingTimeInterval(86_401)) == nil)
        await stores.close()
        await TestDatabase.dispose(usual)
    }

    @Test func everyCallFailsWithIOWhileTheDatabaseIsUnreachable() async throws {
        let nowhere = try PostgresConfiguration(url: "postgresql://api:hunter2-pw@/onetap?host=/tmp/onetap-nowhere-\(UInt32.random(in: 0...UInt32.max))")
        let ledger = PostgresStores(configuration: nowhere).exchangeLedger()
        let calls: [@Sendable () async throws -> Void] = [
            { _ = try await ledger.claim(Self.abc, at: now) }, { try await ledger.settle(Self.abc, .failed, at: now) },
            { _ = try await ledger.unknownExchanges(since: now) }, { _ = try await ledger.resend(Self.abc, for: OneSession.id, at: now) },
        ]
        for call in calls {
            await #expect {
                try await call()
            } throws: { error in
                let error = error as! StoreError
                return error.kind == .io && error.message.contains("connection-failed") && !error.description.contains("hunter2-pw")
                    && !error.description.contains(Self.abc.hex)
            }
        }
    }
}

