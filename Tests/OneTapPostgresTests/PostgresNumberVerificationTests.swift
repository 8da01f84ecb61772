import Foundation
import OneTap
@testable import OneTapPostgres
import OneTapTesting
import Testing

/// Number verification on the PostgreSQL exchange ledger (issue 22 item 4): the ledger the exchange uses serves
/// verification tokens under keys of their own, across instances, keeping the code and never the token or number.
@Suite(.connectionBudget) struct PostgresNumberVerificationTests {
    /// Counts the tokens that reach it; answers `000 pass`, or hangs for tokens starting `hang`.
    final class CountingVerifier: NumberVerificationProvider {
        private let sent = LockedValue<[String: Int]>([:])
        var tokensSent: [String: Int] { sent.withLock { $0 } }

        func verify(_ credential: CarrierCredential, number: PhoneNumber) async throws -> NumberVerificationResponse {
            let token = credential.token.reveal()
            sent.withLock { $0[token, default: 0] += 1 }
            if token.hasPrefix("hang") { while true { try await Task.sleep(for: .seconds(3600)) } }
            return NumberVerificationResponse(code: "000", verdict: .pass)
        }
    }

    static let number = try! PhoneNumber("13800138000")

    func table(_ stores: PostgresStores) -> String { "\"\(stores.configuration.schema)\".exchange_ledger" }

    @Test func twoInstancesSendATokenOnceAndTheRowHoldsTheKeyAndCodeOnly() async throws {
        try await TestDatabase.withStores { one in
            let other = PostgresStores(configuration: one.configuration)
            let provider = CountingVerifier()
            let services = [one.exchangeLedger(), other.exchangeLedger()].map {
                NumberVerificationService(provider: provider, ledger: $0, quota: nil, events: DiscardingEventSink())
            }
            let answers = try await withThrowingTaskGroup(of: NumberVerification.self) { group in
                for copy in 0..<12 {
                    group.addTask { try await services[copy % 2].verify(CarrierCredential(flow: .mobile, token: Secret("T-pg-1")), number: Self.number, caller: "end-user") }
                }
                return try await group.reduce(into: [NumberVerification]()) { $0.append($1) }
            }
            #expect(answers.filter { $0.verdict == .pass && $0.billed == true }.count == 1)
            // The others found the claim under way (unknown) or, the same token, number and caller, its answer recorded (again, unbilled).
            #expect(answers.filter { ($0.verdict == .unknown && $0.code == nil) || ($0.reason == .replayedAnswer && $0.code == "000") }.count == 11)
            #expect(answers.filter { $0.billed == false }.count == 11)
            #expect(provider.tokensSent == ["T-pg-1": 1])
            // python3 -c "import hashlib; print(hashlib.sha256(b'\xff' + b'verify:' + b'T-pg-1').hexdigest())"
            let key = NumberVerificationService.key(of: Secret("T-pg-1"))
            #expect(key.hex == "5f8cdce6907ef55d86c1cd9b7439b4578efb5c962095835008893eb85347ebb3")
            let rows = try await one.pool.execute("SELECT token, state, code, phone_number, verdict FROM \(table(one))")
            #expect(rows.rows == [[.bytes(key.bytes), .text("answered"), .text("000"), .null, .text("pass")]])
            await other.close()
        }
    }

    /// An honest retry (the app lost the answer) on another instance gets the verdict the row keeps, unsent and
    /// unbilled; the same token with another number is still refused. The row holds the verdict, never the number.
    @Test func aRetryOnAnotherInstanceGetsTheVerdictTheRowKeeps() async throws {
        try await TestDatabase.withStores { one in
            let other = PostgresStores(configuration: one.configuration)
            let provider = RejectingVerifier()
            let first = NumberVerificationService(provider: provider, ledger: one.exchangeLedger(), quota: nil, events: DiscardingEventSink())
            let second = NumberVerificationService(provider: provider, ledger: other.exchangeLedger(), quota: nil, events: DiscardingEventSink())
            let credential = CarrierCredential(flow: .mobile, token: Secret("T-pg-retry"))
            #expect(try await first.verify(credential, number: Self.number, caller: "end-user").description == "reject 001 (billed)")
            #expect(try await second.verify(credential, number: Self.number, caller: "end-user").description == "reject 001 (replayed-answer, not billed)")
            #expect(try await second.verify(credential, number: try PhoneNumber("13900139000"), caller: "end-user").description == "unknown (token-replayed, not billed)")
            #expect(provider.calls == 1)
            let key = NumberVerificationService.key(of: Secret("T-pg-retry"))
            let rows = try await one.pool.execute("SELECT state, code, phone_number, account, verdict FROM \(table(one)) WHERE token = $1", [.bytes(key.bytes)])
            #expect(rows.rows == [[.text("answered"), .text("001"), .null, .null, .text("reject")]])
            await other.close()
        }
    }

    /// The quota counted in the shared login quota store: two instances hold one caller to its limit between them;
    /// the row holds the caller key's SHA-256, never the key. python3 -c "import hashlib;
    /// print(hashlib.sha256(b'client-key-7').hexdigest())".
    @Test func aQuotaOnTheSharedCounterStoreHoldsAcrossInstances() async throws {
        try await TestDatabase.withStores { one in
            let other = PostgresStores(configuration: one.configuration)
            let provider = RejectingVerifier()
            var services: [NumberVerificationService] = []
            for stores in [one, other] {
                let quota = try NumberVerificationQuota(limit: 2, per: .seconds(3600), store: stores.loginQuotaStore())
                services.append(NumberVerificationService(provider: provider, ledger: stores.exchangeLedger(), quota: quota, events: DiscardingEventSink()))
            }
            var reasons: [String] = []
            for index in 0..<4 {
                let answer = try await services[index % 2].verify(
                    CarrierCredential(flow: .mobile, token: Secret("T-pg-quota-\(index)")), number: Self.number, caller: "client-key-7")
                reasons.append(answer.reason.rawValue)
            }
            #expect(reasons == ["answered", "answered", "limited", "limited"])
            #expect(provider.calls == 2)
            let rows = try await one.pool.execute("SELECT counter FROM \"\(one.configuration.schema)\".login_quota_counters")
            #expect(rows.rows == [[.text("exchanges:session:verify:c00fa49ac9e9fbe447e8efed9f54d9be52672ea0978fc377ed4b222b3db0bdca")]])
            await other.close()
        }
    }

    /// Answers `001 reject`, counting its calls.
    final class RejectingVerifier: NumberVerificationProvider {
        private let count = LockedValue(0)
        var calls: Int { count.withLock { $0 } }

        func verify(_ credential: CarrierCredential, number: PhoneNumber) async throws -> NumberVerificationResponse {
            count.withLock { $0 += 1 }
            return NumberVerificationResponse(code: "001", verdict: .reject)
        }
    }

    @Test func aTimeOutIsKeptUnknownForReconciliation() async throws {
        try await TestDatabase.withStores { stores in
            let ledger = stores.exchangeLedger()
            let service = NumberVerificationService(provider: CountingVerifier(), ledger: ledger, timeout: .milliseconds(300), quota: nil, events: DiscardingEventSink())
            let answer = try await service.verify(CarrierCredential(flow: .mobile, token: Secret("hang-pg-1")), number: Self.number)
            #expect(answer.verdict == .unknown && answer.billed == nil)
            let unknown = try await ledger.unknownExchanges(since: .distantPast, pendingClaimedBefore: .distantPast)
            #expect(unknown.map(\.token) == [NumberVerificationService.key(of: Secret("hang-pg-1"))])
        }
    }
}
