import Foundation
import OneTapTesting
import Testing
@testable import OneTap

/// Load, bounded in count (and so in time): many concurrent callers, every answer checked.
@Suite struct LoadTests {
    @Test func hundredThousandConcurrentPlansAndClassifications() async {
        let engine = LoginDecisionEngine()
        let snapshots: [DeviceSnapshot] = [
            DeviceSnapshot(plmn: try! PLMN("46000")), DeviceSnapshot(plmn: try! PLMN("46011"), network: .both), DeviceSnapshot(sim: .absent),
            DeviceSnapshot(plmn: try! PLMN("46001"), mobileData: false), DeviceSnapshot(network: .cellular, clientIP: try! IPAddress("240e:400::1")),
            DeviceSnapshot(plmn: try! PLMN("45412")), DeviceSnapshot(phoneHint: try! PhoneNumber("17001234567")),
        ]
        let codes: [(LoginFlow, ResultCode)] = [(.mobile, 103000), (.mobile, 200020), (.tianyi, -8994014), (.tianyi, 424242), (.unicom, 0), (.sms, 1)]
        let expectedPlans = snapshots.map { engine.plan(for: $0) }
        let expectedActions = codes.map { engine.outcome(for: $0.0, code: $0.1).action }
        let wrong = await withTaskGroup(of: Int.self) { group in
            for index in 0..<100_000 {
                group.addTask {
                    let snapshot = index % snapshots.count
                    let code = index % codes.count
                    var errors = 0
                    if engine.plan(for: snapshots[snapshot]) != expectedPlans[snapshot] { errors += 1 }
                    if engine.outcomeTable.action(for: codes[code].0, code: codes[code].1) != expectedActions[code] { errors += 1 }
                    if engine.outcomeTable.action(for: codes[code].0, code: codes[code].1.description) != expectedActions[code] { errors += 1 }
                    return errors
                }
            }
            return await group.reduce(0, +)
        }
        #expect(wrong == 0)
    }

    /// A refresher that suspends like a network call and counts calls per account.
    final class CountingRefresher: TokenRefresher {
        let counts = LockedValue<[AccountID: Int]>([:])
        func refresh(_ token: AccessToken) async throws -> RefreshResponse {
            let number = counts.withLock { counts -> Int in
                counts[token.account, default: 0] += 1
                return counts[token.account]!
            }
            for _ in 0..<3 { await Task.yield() }
            return RefreshResponse(accessToken: Secret("new-\(token.account)-\(number)"))
        }
    }

    @Test func tenThousandConcurrentTokenRequestsOverAThousandAccounts() async throws {
        let clock = FakeClock()
        let store = InMemoryTokenStore()
        let refresher = CountingRefresher()
        let vault = TokenVault(store: store, refresher: refresher, clock: clock)
        let now = clock.now()
        let accounts = (0..<1000).map { AccountID("acct-\($0)") }
        for (index, account) in accounts.enumerated() {
            let age = index % 2 == 0 ? 2 * 86_400.0 : 60   // even accounts are stale: one refresh each is due
            let issued = now.addingTimeInterval(-age)
            try await vault.store(AccessToken(
                value: Secret("old-\(account)"), refreshToken: Secret("r"), flow: .tianyi, account: account, issuedAt: issued,
                expiresAt: issued.addingTimeInterval(30 * 86_400)))
        }
        let results = await withTaskGroup(of: (AccountID, String?).self) { group in
            for request in 0..<10_000 {
                let account = accounts[request % accounts.count]
                group.addTask { (account, try? await vault.validToken(for: account).value.reveal()) }
            }
            var results: [(AccountID, String?)] = []
            for await result in group { results.append(result) }
            return results
        }
        #expect(results.count == 10_000)
        let counts = refresher.counts.withLock { $0 }
        for (index, account) in accounts.enumerated() {
            let stale = index % 2 == 0
            #expect(counts[account, default: 0] == (stale ? 1 : 0), "\(account)")
            let stored = try await store.load(account)
            #expect(stored?.token.value.reveal() == (stale ? "new-\(account)-1" : "old-\(account)"), "token lost for \(account)")
        }
        for (account, value) in results {
            let index = Int(account.rawValue.dropFirst(5))!
            #expect(value == (index % 2 == 0 ? "new-\(account)-1" : "old-\(account)"))
        }
        #expect(store.count == 1000)
    }
}
