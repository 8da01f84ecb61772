import Foundation
import OneTapTesting
import Testing
@testable import OneTap

extension TokenVaultTests {
    // MARK: Background scan through the vault

    /// The background scan refreshes due accounts nobody asked for, a bounded number at a time.
    @Test func dueAccountsAreRefreshedInTheBackgroundABoundedNumberAtATime() async throws {
        let refresher = MockRefresher()
        refresher.hold()
        for index in 0..<5 { _ = try await store.save(token(AccountID("a\(index)"), age: 2 * Self.day), replacing: nil, dueAt: clock.now().addingTimeInterval(-1)) }
        _ = try await store.save(token("fresh", age: 60), replacing: nil, dueAt: clock.now().addingTimeInterval(Self.day))
        let background = TokenVault.Background(scanInterval: .seconds(60), concurrentRefreshes: 2)
        try await running(vault(refresher, background: background)) { vault in
            await refresher.waitForCalls(2)
            #expect(refresher.calls == 2)   // the limit
            await clock.waitForSleepers(3)   // the scan is done: it sleeps beside the two refreshes' time limits
            #expect(refresher.calls == 2)   // still: the others wait for a slot
            refresher.release()
            // Later scans take the rest, two at a time.
            for calls in [4, 5] {
                await vault.waitUntilNoRefreshRuns()   // their slots are free and their time limits gone
                await clock.waitForSleepers(1)   // only the scan sleeps
                clock.advance(by: .seconds(60))
                await refresher.waitForCalls(calls)
            }
            await events.wait(for: "refreshed", count: 5)
        }
        #expect(refresher.calls == 5)
        #expect(try await stored("fresh") == "A0")
        for index in 0..<5 { #expect(try await stored(AccountID("a\(index)"))?.hasPrefix("refreshed-") == true) }
    }

    @Test func backgroundScanRemovesExpiredTokensThatCannotBeRefreshed() async throws {
        _ = try await store.save(token(age: 31 * Self.day, refresh: nil), replacing: nil, dueAt: clock.now().addingTimeInterval(-1))
        try await running(vault(MockRefresher())) { _ in
            await events.wait(for: "relogin-required")
        }
        #expect(try await store.load("u1") == nil)
    }

    @Test func aFailingBackgroundScanIsReportedAndTriedAgain() async throws {
        let faulty = FaultyTokenStore(store)
        let refresher = MockRefresher()
        _ = try await store.save(token(age: 2 * Self.day), replacing: nil, dueAt: clock.now().addingTimeInterval(-1))
        faulty.fail(.accounts)
        try await running(vault(refresher, store: faulty)) { _ in
            #expect(events.names == ["due-scan-failed"])
            clock.advance(by: .seconds(86_400))   // the next scan
            await events.wait(for: "refreshed")
        }
        #expect(refresher.calls == 1)
    }
}

extension TokenVaultTests {
    /// The scan's rules on their own: how much it lists, and what a listed account needs.
    @Suite struct BackgroundRefreshesTests {
        @Test func theListingTakesFourPerFreeSlotPlusTheFailingAtMostTenThousand() {
            let background = BackgroundRefreshes(TokenVault.Background(concurrentRefreshes: 8))
            #expect(background.listingLimit(freeSlots: 8, failing: 0) == 32)
            #expect(background.listingLimit(freeSlots: 2, failing: 5) == 13)
            #expect(background.listingLimit(freeSlots: 8, failing: 20_000) == 10_000)
        }

        @Test(arguments: [
            (60.0, "R0", BackgroundRefreshes.Plan.skip),   // fresh: refreshed elsewhere since the listing
            (2 * 86_400, "R0", .refresh),   // stale
            (2 * 86_400, nil, .refresh),   // stale with no refresh token: the refresher may refresh by access token
            (30 * 86_400 - 30, "R0", .refresh),   // expired with a refresh token
            (30 * 86_400 - 30, nil, .relogin),   // expired with none: removed
        ] as [(Double, String?, BackgroundRefreshes.Plan)])
        func aListedAccountIsSkippedRefreshedOrRemoved(age: Double, refresh: String?, plan: BackgroundRefreshes.Plan) {
            let now = FakeClock.epoch.addingTimeInterval(age)
            let stored = StoredToken(token: .sample(refresh: refresh), version: TokenVersion(1))
            #expect(BackgroundRefreshes(TokenVault.Background()).plan(for: stored, at: now, policy: TokenPolicy()) == plan)
        }

        @Test func settingsAreClamped() {
            let settings = TokenVault.Background(scanInterval: .zero, concurrentRefreshes: 0)
            #expect(settings.scanInterval == .milliseconds(1) && settings.concurrentRefreshes == 1)
            #expect(TokenVault.Background() == TokenVault.Background(scanInterval: .seconds(60), concurrentRefreshes: 8, lateAnswerLimit: .seconds(300)))
        }
    }
}
