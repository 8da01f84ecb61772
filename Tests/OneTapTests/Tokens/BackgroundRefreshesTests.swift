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
            #expect(await events.wait(for: "refreshed", count: 5))
        }
        #expect(refresher.calls == 5)
        #expect(try await stored("fresh") == "A0")
        for index in 0..<5 { #expect(try await stored(AccountID("a\(index)"))?.hasPrefix("refreshed-") == true) }
    }

    @Test func backgroundScanRemovesExpiredTokensThatCannotBeRefreshed() async throws {
        _ = try await store.save(token(age: 31 * Self.day, refresh: nil), replacing: nil, dueAt: clock.now().addingTimeInterval(-1))
        try await running(vault(MockRefresher())) { _ in
            #expect(await events.wait(for: "relogin-required"))
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
            #expect(await events.wait(for: "refreshed"))
        }
        #expect(refresher.calls == 1)
    }
}

/// A store whose rows of some accounts cannot be read back (sealed with a key no instance holds any more):
/// `load` answers `corrupt` for them until a write replaces the row.
final class UnreadableRowsStore: TokenStore, @unchecked Sendable {
    let base: InMemoryTokenStore
    private let unreadable: LockedValue<Set<AccountID>>

    init(_ base: InMemoryTokenStore, unreadable: Set<AccountID>) {
        self.base = base
        self.unreadable = LockedValue(unreadable)
    }

    func load(_ account: AccountID) async throws -> StoredToken? {
        if unreadable.withLock({ $0.contains(account) }) {
            throw StoreError(.corrupt, account: account, message: "sealed with token key \"k9\", which the keyring does not hold")
        }
        return try await base.load(account)
    }

    func save(_ token: AccessToken, replacing expected: TokenVersion?, dueAt: Date) async throws -> TokenVersion {
        // The row is there, readable or not: a write that expects none conflicts, as the database's would.
        if expected == nil, unreadable.withLock({ $0.contains(token.account) }) {
            throw StoreError(.conflict, account: token.account, message: "expected no token, found one")
        }
        let version = try await base.save(token, replacing: expected, dueAt: dueAt)
        _ = unreadable.withLock { $0.remove(token.account) }
        return version
    }

    func remove(_ account: AccountID, replacing expected: TokenVersion?) async throws -> Bool {
        if expected == nil, unreadable.withLock({ $0.remove(account) }) != nil {
            _ = try await base.remove(account, replacing: nil)
            return true
        }
        return try await base.remove(account, replacing: expected)
    }

    func accounts(dueBefore instant: Date, limit: Int) async throws -> [AccountID] {
        try await base.accounts(dueBefore: instant, limit: limit)
    }
}

extension TokenVaultTests {
    /// An attacker's read: a token row no instance can read (its key left the keyring) blocked every login of
    /// the account (the vault read the row before writing the login's token), and 32 such rows due first
    /// stopped every background refresh (the scan skipped them without moving on). A login now replaces such a
    /// row; the scan counts it as a failing account (backing off), so later scans list past it.
    @Test func aLoginReplacesARowNoKeyOpens() async throws {
        _ = try await store.save(token(value: "A-old"), replacing: nil, dueAt: clock.now().addingTimeInterval(Self.day))
        let unreadable = UnreadableRowsStore(store, unreadable: ["u1"])
        try await running(vault(MockRefresher(), store: unreadable)) { vault in
            try await vault.store(token(value: "A-new"))
            #expect(try await vault.validToken(for: "u1").value.reveal() == "A-new")
        }
        #expect(try await stored() == "A-new")
    }

    @Test(.timeLimit(.minutes(3))) func rowsNoKeyOpensDoNotStopTheBackgroundRefreshes() async throws {
        let refresher = MockRefresher()
        var broken: Set<AccountID> = []
        for index in 0..<40 {
            let account = try AccountID("broken-\(index)")
            broken.insert(account)
            _ = try await store.save(token(account, age: 2 * Self.day), replacing: nil, dueAt: clock.now().addingTimeInterval(-1000 + Double(index)))
        }
        _ = try await store.save(token("readable", age: 2 * Self.day), replacing: nil, dueAt: clock.now().addingTimeInterval(-1))
        let background = TokenVault.Background(scanInterval: .seconds(60), concurrentRefreshes: 8)
        try await running(vault(refresher, store: UnreadableRowsStore(store, unreadable: broken), background: background)) { _ in
            // The first scan lists 32 (four per free slot), all unreadable; the next lists past them.
            await clock.waitForSleepers(1)
            clock.advance(by: .seconds(60))
            #expect(await events.wait(for: "refreshed"))
        }
        #expect(refresher.tokensSeen.map(\.account) == ["readable"])
    }

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
