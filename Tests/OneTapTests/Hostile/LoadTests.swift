import Foundation
import OneTapTesting
import Testing
@testable import OneTap

/// Load, bounded in count (and so in time): many concurrent callers, every answer checked against
/// expectations written down here, not taken from the engine.
@Suite struct LoadTests {
    @Test func hundredThousandConcurrentPlansAndClassifications() async throws {
        let engine = LoginDecisionEngine()
        let plans: [(DeviceSnapshot, [LoginFlow], Carrier)] = [
            (DeviceSnapshot(plmn: try PLMN("46000")), [.mobile, .sms], .mobile),
            (DeviceSnapshot(plmn: try PLMN("46011"), network: .both), [.tianyi, .sms], .telecom),
            (DeviceSnapshot(sim: .absent), [.sms], .unknown),
            (DeviceSnapshot(plmn: try PLMN("46001"), mobileData: false), [.sms], .unicom),
            (DeviceSnapshot(network: .cellular, clientIP: try IPAddress("240e:400::1")), [.tianyi, .sms], .telecom),
            (DeviceSnapshot(plmn: try PLMN("45412")), [.sms], .other),
            (DeviceSnapshot(phoneHint: try PhoneNumber("17001234567")), [.sms], .telecom),
        ]
        let codes: [(LoginFlow, String, OutcomeAction)] = [
            (.mobile, "103000", .success), (.mobile, "200020", .cancelled), (.tianyi, "-8994014", .fallback), (.tianyi, "424242", .failed),
            (.unicom, "0", .success), (.sms, "1", .failed),
        ]
        let wrong = await withTaskGroup(of: Int.self) { group in
            for index in 0..<100_000 {
                group.addTask {
                    let (snapshot, flows, carrier) = plans[index % plans.count]
                    let (flow, code, action) = codes[index % codes.count]
                    var errors = 0
                    let plan = engine.plan(for: snapshot)
                    if Array(plan.flows) != flows || plan.carrier != carrier { errors += 1 }
                    if engine.outcomeTable.action(for: flow, code: code) != action { errors += 1 }
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

    /// 10,000 concurrent requests over 1,000 accounts, a third expired, a third stale, a third fresh:
    /// exactly one refresh per due account, expired callers get the new token, stale callers the old one
    /// at once, and no token is lost.
    @Test func tenThousandConcurrentTokenRequestsOverAThousandAccounts() async throws {
        let clock = FakeClock()
        let store = InMemoryTokenStore()
        let refresher = CountingRefresher()
        let events = RecordingEventSink()
        let vault = TokenVault(
            store: store, refresher: refresher, clock: clock, background: .init(scanInterval: .seconds(86_400)), events: events)
        let now = clock.now()
        let accounts = (0..<999).map { try! AccountID("acct-\($0)") }
        func age(_ index: Int) -> Double { [30 * 86_400 - 30, 2 * 86_400, 60][index % 3] }
        for (index, account) in accounts.enumerated() {
            let issued = now.addingTimeInterval(-age(index))
            _ = try await store.save(
                AccessToken(
                    value: Secret("old-\(account)"), refreshToken: Secret("r"), flow: .tianyi, account: account, issuedAt: issued,
                    expiresAt: issued.addingTimeInterval(30 * 86_400)),
                replacing: nil, dueAt: now.addingTimeInterval(86_400 * 40))   // not due for the scan: callers start every refresh
        }
        let results = try await withThrowingTaskGroup(of: [(AccountID, String)].self) { outer in
            outer.addTask { try await vault.run(); return [] }
            await clock.waitForSleepers(1)
            let results = await withTaskGroup(of: (AccountID, String).self) { group in
                for request in 0..<10_000 {
                    let account = accounts[request % accounts.count]
                    group.addTask {
                        do { return (account, try await vault.validToken(for: account).value.reveal()) }
                        catch { return (account, "error: \(error)") }
                    }
                }
                var results: [(AccountID, String)] = []
                for await result in group { results.append(result) }
                return results
            }
            let refreshed = await events.wait(for: "refreshed", count: 666)   // the stale ones refresh behind their callers
            #expect(refreshed, "666 refreshes were expected; the events were \(Dictionary(events.names.map { ($0, 1) }, uniquingKeysWith: +))")
            await vault.shutdown()
            for try await _ in outer {}
            return results
        }
        #expect(results.count == 10_000)
        let counts = refresher.counts.withLock { $0 }
        for (index, account) in accounts.enumerated() {
            let kind = index % 3   // 0 expired, 1 stale, 2 fresh
            #expect(counts[account, default: 0] == (kind == 2 ? 0 : 1), "\(account)")
            let stored = try await store.load(account)
            #expect(stored?.token.value.reveal() == (kind == 2 ? "old-\(account)" : "new-\(account)-1"), "token lost for \(account)")
        }
        for (account, value) in results {
            let index = Int(account.rawValue.dropFirst(5))!
            switch index % 3 {
            case 0: #expect(value == "new-\(account)-1")
            case 1: #expect(value == "old-\(account)" || value == "new-\(account)-1")
            default: #expect(value == "old-\(account)")
            }
        }
        #expect(store.count == 999)
    }
}
