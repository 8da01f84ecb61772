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

    @Test(arguments: [Duration.seconds(86_400), .seconds(90)])
    func conformsToTheLedgerContract(retention: Duration) async throws {
        try await checkConformance(try await TestDatabase.url(), { $0.exchangeLedger(retention: retention) }) { make in
            try await ExchangeLedgerConformance.check(retention: retention) { try await make() }
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

    /// The row holds the digest, the state and the times; never the token.
    @Test func rowsHoldTheDigestNeverTheToken() async throws {
        try await TestDatabase.withStores { stores in
            let ledger = stores.exchangeLedger(retention: .seconds(600))
            _ = try await ledger.claim(Self.abc, at: now)
            try await ledger.settle(Self.abc, .answered("000"), at: now.addingTimeInterval(1.5))
            let rows = try await stores.pool.execute("SELECT token, state, code, claimed_at_ms, settled_at_ms, forget_at_ms FROM \(table(stores))")
            let row = try #require(rows.first)
            #expect(row[0] == .bytes(Self.abc.bytes))
            #expect(row[1] == .text("answered") && row[2] == .text("000"))
            let times = row[3...].compactMap(\.instant).map { $0.timeIntervalSince(now) }
            #expect(times.count == 3 && abs(times[0]) < 1e-6 && abs(times[1] - 1.5) < 1e-6 && abs(times[2] - 600) < 1e-6, "\(times)")
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
        let answer = await exchange.exchange(CarrierCredential(flow: .tianyi, token: Secret("abc")), receivedAt: clock.now(), rules: .builtIn).answer
        guard case .fault(let message) = answer else {
            Issue.record("the guard answered \(answer) with its ledger timing out")
            await holder.release()
            await stores.close()
            await TestDatabase.dispose(usual)
            return
        }
        #expect(message.contains("the exchange ledger failed") && !message.contains(Self.abc.hex))
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
            { _ = try await ledger.unknownExchanges(since: now) },
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
