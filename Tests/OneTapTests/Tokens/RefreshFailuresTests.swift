import Foundation
import OneTapTesting
import Testing
@testable import OneTap

extension TokenVaultTests {
    // MARK: Failures through the vault

    @Test func transientFailureKeepsAUsableTokenAndBacksOff() async throws {
        let failure = TokenError(.refreshFailed, message: "timeout")
        let refresher = MockRefresher([.failure(failure), .failure(failure)])
        try await running(vault(refresher)) { vault in
            try await vault.store(token(age: 2 * Self.day))
            // Stale: the token is served; the background refresh fails; the stored token is kept.
            #expect(try await vault.validToken(for: "u1").value.reveal() == "A0")
            #expect(await events.wait(for: "refresh-failed"))
            #expect(try await stored() == "A0")
            guard case .refreshFailed(_, _, 1, let retryAt) = events.tokenEvents.last else { Issue.record("no refresh-failed"); return }
            #expect(retryAt == clock.now().addingTimeInterval(30))
            // During the back-off: no new refresh call.
            clock.advance(by: .seconds(29))
            #expect(try await vault.validToken(for: "u1").value.reveal() == "A0")
            #expect(refresher.calls == 1)
            // After it: a retry; a second failure doubles the wait.
            clock.advance(by: .seconds(1))
            #expect(try await vault.validToken(for: "u1").value.reveal() == "A0")
            #expect(await events.wait(for: "refresh-failed", count: 2))
            guard case .refreshFailed(_, _, 2, let retry2) = events.tokenEvents.last else { Issue.record("no second refresh-failed"); return }
            #expect(retry2 == clock.now().addingTimeInterval(60))
            clock.advance(by: .seconds(60))
            _ = try await vault.validToken(for: "u1")
            #expect(await events.wait(for: "refreshed"))
            #expect(try await vault.validToken(for: "u1").value.reveal() == "refreshed-3")
        }
        #expect(refresher.calls == 3)
    }

    /// Only a ``TokenError`` of kind `relogin-required` removes the token: an error of another type, or a
    /// token error of another kind, is a failure that may pass (the token is kept, the refresh backs off).
    @Test(arguments: [0, 1])
    func anyOtherRefresherErrorKeepsTheToken(which: Int) async throws {
        struct Network: Error, CustomStringConvertible { var description: String { "connection reset" } }
        let failure: any Error = which == 0 ? Network() : TokenError(.notLoggedIn, message: "unknown user")
        let refresher = MockRefresher([.failure(failure)])
        try await running(vault(refresher)) { vault in
            try await vault.store(token(age: 31 * Self.day))
            await #expect { try await vault.validToken(for: "u1") } throws: { error in
                let error = error as! TokenError
                return error.kind == .refreshFailed
                    && error.message == "the token expired and the refresh failed: \(which == 0 ? "connection reset" : "unknown user")"
            }
        }
        #expect(try await store.load("u1") != nil)
        #expect(events.names == ["stored", "refresh-failed"])
    }

    @Test func aRefusedRefreshOfAnExpiredTokenRemovesItAndRequiresRelogin() async throws {
        let refresher = MockRefresher([.failure(TokenError(.reloginRequired, message: "result -1: refresh token revoked"))])
        try await running(vault(refresher)) { vault in
            try await vault.store(token(age: 31 * Self.day))
            await #expect { try await vault.validToken(for: "u1") } throws: { ($0 as? TokenError)?.kind == .reloginRequired }
            await #expect { try await vault.validToken(for: "u1") } throws: { ($0 as? TokenError)?.kind == .notLoggedIn }
        }
        #expect(try await store.load("u1") == nil)
        #expect(events.names == ["stored", "relogin-required"])
    }

    /// A refused refresh of a token that still has time (an unpublished carrier code, a token whose refresh
    /// token the carrier left empty) never takes the token away: the access token still works, so it is served
    /// until it expires, and the refresh is tried once more then; refused again, the token goes and the user
    /// logs in. (Before, a stale token was removed at the first refusal, with a month of its life left.)
    @Test func aRefusedRefreshOfATokenWithTimeLeftKeepsItUntilItExpires() async throws {
        let refresher = MockRefresher([
            .failure(TokenError(.reloginRequired, message: "result -1: refresh token revoked")),
            .failure(TokenError(.reloginRequired, message: "result -1: refresh token revoked")),
        ])
        try await running(vault(refresher)) { vault in
            try await vault.store(token(age: 2 * Self.day))
            #expect(try await vault.validToken(for: "u1").value.reveal() == "A0")   // stale: served, then refused
            #expect(await events.wait(for: "refresh-failed"))
            #expect(try await vault.validToken(for: "u1").value.reveal() == "A0", "still served")
            #expect(try await store.accounts(dueBefore: clock.now().addingTimeInterval(27 * Self.day), limit: 10).isEmpty, "due at its expiry: scans pass it by")
            clock.advance(by: .seconds(20 * Self.day))
            #expect(try await vault.validToken(for: "u1").value.reveal() == "A0", "not refreshed again before it expires")
            #expect(refresher.calls == 1)
            clock.advance(by: .seconds(8 * Self.day))
            await #expect { try await vault.validToken(for: "u1") } throws: { ($0 as? TokenError)?.kind == .reloginRequired }
        }
        #expect(refresher.calls == 2)
        #expect(try await store.load("u1") == nil)
        #expect(events.names == ["stored", "refresh-failed", "relogin-required"])
    }

    /// An attacker's read of the vault: a login stored while the carrier was refusing a refresh of a token with time
    /// left took on that token's back-off, until the old token's expiry (up to a month): its own token was never
    /// refreshed in the background, and once it expired callers got `backing-off`. The refusal was the old token's.
    @Test func aLoginDuringARefusedRefreshIsNotHeldBackByIt() async throws {
        let refresher = MockRefresher([.failure(TokenError(.reloginRequired, message: "result -1: refresh token revoked"))])
        refresher.hold()
        try await running(vault(refresher)) { vault in
            try await vault.store(token(age: 2 * Self.day))
            #expect(try await vault.validToken(for: "u1").value.reveal() == "A0")   // stale: served, its refresh held
            await refresher.waitForCalls(1)
            try await vault.store(token(value: "NEW-LOGIN", lifetime: 3 * Self.day))
            refresher.release()
            await vault.waitUntilNoRefreshRuns()
            #expect(try await stored() == "NEW-LOGIN")
            clock.advance(by: .seconds(3 * Self.day))   // the login's token expired: refreshed at once
            #expect(try await vault.validToken(for: "u1").value.reveal() == "refreshed-2")
        }
        #expect(refresher.calls == 2)
        #expect(!events.names.contains("refresh-failed"), "\(events.names)")
    }

    /// The review of that fix: the refresh was marked superseded before the login's token was written, so a login whose
    /// write failed left the refusal unhandled: no back-off and no due time moved, and the next scan sent the refused
    /// refresh token again. Only a login's stored token supersedes the refresh; one whose write failed changes nothing.
    @Test func aLoginWhoseWriteFailedLeavesTheRefusalAsItWas() async throws {
        let faulty = FaultyTokenStore(store)
        let refresher = MockRefresher([.failure(TokenError(.reloginRequired, message: "result -1: refresh token revoked"))])
        refresher.hold()
        try await running(vault(refresher, store: faulty)) { vault in
            try await vault.store(token(age: 2 * Self.day))
            #expect(try await vault.validToken(for: "u1").value.reveal() == "A0")   // stale: served, its refresh held
            await refresher.waitForCalls(1)
            faulty.fail(.save)
            await #expect { try await vault.store(token(value: "NEW-LOGIN")) } throws: { ($0 as? TokenError)?.kind == .storeFailed }
            refresher.release()
            await vault.waitUntilNoRefreshRuns()
            #expect(events.names.contains("refresh-failed"), "\(events.names)")
            #expect(try await store.accounts(dueBefore: clock.now().addingTimeInterval(27 * Self.day), limit: 10).isEmpty, "due at its expiry")
        }
        #expect(refresher.calls == 1)
    }

    /// The review of that fix: a refresh a login superseded that then reached its time limit counted its failure against
    /// the login's token (a back-off, and a `refresh-failed` event).
    @Test func aSupersededRefreshAtItsTimeLimitCountsNothing() async throws {
        let refresher = MockRefresher()
        refresher.hold()
        try await running(vault(refresher)) { vault in
            try await vault.store(token(age: 2 * Self.day))
            #expect(try await vault.validToken(for: "u1").value.reveal() == "A0")   // stale: served, its refresh held
            await refresher.waitForCalls(1)
            try await vault.store(token(value: "NEW-LOGIN"))
            await clock.waitForSleepers(2)   // the scan and the refresh's time limit
            clock.advance(by: .seconds(30))
            await clock.waitForSleepers(2)   // the scan and the late answer's limit: the time limit was handled
            refresher.release()
            await vault.waitUntilNoRefreshRuns()
            #expect(try await vault.validToken(for: "u1").value.reveal() == "NEW-LOGIN")
        }
        #expect(!events.names.contains("refresh-failed"), "\(events.names)")
    }

    /// An attacker's read: a caller waiting on the refresh of an expired token, which a login superseded, got
    /// `refresh-failed` at the time limit (the old token's answer), though the login's token was stored and usable.
    @Test func aCallerWaitingAtTheLimitOfASupersededRefreshGetsTheLoginsToken() async throws {
        try await whileAnExpiredTokensRefreshIsHeld { vault, caller, release in
            try await vault.store(token(value: "NEW-LOGIN"))
            await clock.waitForSleepers(2)   // the scan and the refresh's time limit
            clock.advance(by: .seconds(30))
            #expect(try await caller.value.value.reveal() == "NEW-LOGIN")
            release()
        }
        #expect(!events.names.contains("refresh-failed"), "\(events.names)")
    }

    /// The same read: a caller waiting at the time limit of a refresh whose account logged out meanwhile is told
    /// `logged-out`, as the refresh's own answer tells it, not that the refresh failed.
    @Test func aCallerWaitingAtTheLimitOfALoggedOutRefreshIsToldLoggedOut() async throws {
        try await whileAnExpiredTokensRefreshIsHeld { vault, caller, release in
            try await vault.logout("u1")
            await clock.waitForSleepers(2)
            clock.advance(by: .seconds(30))
            await #expect { try await caller.value } throws: { ($0 as? TokenError)?.kind == .loggedOut }
            release()
        }
        #expect(try await stored() == nil)
    }

    /// Runs `body` while a running vault's refresh of an expired token is held at the carrier, a caller waiting on it;
    /// once `body` returns, the vault's refreshes have ended.
    /// - Parameter body: Given the vault, the waiting caller, and what lets the carrier answer.
    func whileAnExpiredTokensRefreshIsHeld(
        _ body: @Sendable (TokenVault, Task<AccessToken, any Error>, @Sendable () -> Void) async throws -> Void
    ) async throws {
        let refresher = MockRefresher()
        refresher.hold()
        try await running(vault(refresher)) { vault in
            try await vault.store(token(age: 31 * Self.day))
            let caller = Task { try await vault.validToken(for: "u1") }   // expired: waits on the refresh
            await refresher.waitForCalls(1)
            try await body(vault, caller, { refresher.release() })
            refresher.release()
            _ = await caller.result
            await vault.waitUntilNoRefreshRuns()
        }
    }

    /// A caller cancelled while the store reads its token gets `CancellationError`, as `validToken` promises, not
    /// `store-failed` (a concurrency review: the store's cancellation was reported as the store failing).
    @Test func aCallerCancelledWhileTheStoreReadsIsCancelledNotAStoreFailure() async throws {
        let faulty = FaultyTokenStore(store, clock: clock)
        let vault = vault(MockRefresher(), store: faulty)
        try await vault.store(token())
        faulty.faults.inject(.delay(.seconds(60)), into: [.load])
        let caller = Task { try await vault.validToken(for: "u1") }
        await clock.waitForSleepers(1)   // the read, held up by the store
        caller.cancel()
        await #expect(throws: CancellationError.self) { try await caller.value }
    }

    @Test func reloginWithAFailingStoreIsAStoreError() async throws {
        let faulty = FaultyTokenStore(store)
        let refresher = MockRefresher([.failure(TokenError(.reloginRequired, message: "revoked"))])
        try await running(vault(refresher, store: faulty)) { vault in
            try await vault.store(expired())
            faulty.fail(.remove)
            await #expect { try await vault.validToken(for: "u1") } throws: { ($0 as? TokenError)?.kind == .storeFailed }
            // The refused refresh token is not sent again at once, caller after caller: the account backs off (a
            // review: the back-off was cleared before the remove failed, so every caller refreshed again).
            await #expect { try await vault.validToken(for: "u1") } throws: { ($0 as? TokenError)?.kind == .backingOff }
            #expect(refresher.calls == 1)
        }
        #expect(try await stored() == "A0")   // could not be removed: still there, still reported
        #expect(!events.names.contains("relogin-required"))
    }
}

extension TokenVaultTests {
    /// The back-off book on its own: attempts per account, retry times on the schedule, cleared by
    /// success, bounded by pruning.
    @Suite struct RefreshFailuresTests {
        let start = FakeClock.epoch

        func book(jitter: Double = 1.0) -> RefreshFailures {
            RefreshFailures(backoff: RefreshBackoff(jitter: { jitter }))
        }

        @Test func failuresInARowDoubleTheWaitUntilCleared() {
            var book = book()
            #expect(book.entry(for: "u1") == nil && !book.isBackingOff("u1", at: start))
            let first = book.record("u1", at: start)
            #expect(first == RefreshFailures.Entry(attempts: 1, retryAt: start.addingTimeInterval(30), recordedAt: start))
            #expect(book.isBackingOff("u1", at: start.addingTimeInterval(29.999)))
            #expect(!book.isBackingOff("u1", at: start.addingTimeInterval(30)))   // from the retry time on, it may try
            #expect(book.entry(for: "u1") == first)   // kept: it counts the attempts
            let second = book.record("u1", at: start.addingTimeInterval(30))
            #expect(second == RefreshFailures.Entry(attempts: 2, retryAt: start.addingTimeInterval(90), recordedAt: start.addingTimeInterval(30)))
            #expect(book.backingOff("u1", at: start.addingTimeInterval(60)) == second)
            let third = book.record("u1", at: start.addingTimeInterval(90))
            #expect(third == RefreshFailures.Entry(attempts: 3, retryAt: start.addingTimeInterval(210), recordedAt: start.addingTimeInterval(90)))
            book.clear("u1")
            #expect(book.entry(for: "u1") == nil && book.count == 0)
            #expect(book.record("u1", at: start).attempts == 1)   // a success started the count again
        }

        /// A failure recorded while the clock ran a year ahead holds the account no longer once the clock is put back
        /// before it (an attacker's read of the services: it backed off for the year); at the clock it was recorded by,
        /// it still backs off.
        @Test func aClockSetBackBeforeAFailureEndsItsBackOff() {
            var book = book()
            let ahead = start.addingTimeInterval(365 * 86_400)
            _ = book.record("u1", at: ahead)
            #expect(book.isBackingOff("u1", at: ahead.addingTimeInterval(10)))
            #expect(!book.isBackingOff("u1", at: start))
            #expect(book.entry(for: "u1")?.attempts == 1, "the count is kept")
        }

        @Test func accountsBackOffApart() {
            var book = book(jitter: 0.5)
            _ = book.record("u1", at: start)
            _ = book.record("u1", at: start)
            let other = book.record("u2", at: start)
            #expect(other == RefreshFailures.Entry(attempts: 1, retryAt: start.addingTimeInterval(15), recordedAt: start))
            #expect(book.entry(for: "u1")?.attempts == 2 && book.count == 2)
        }

        /// Three failures in a row with the seeded jitter of `RefreshBackoffTests`: the waits are that
        /// sequence's first three, each from the instant of its failure.
        @Test func aSeededJitterSpreadsTheRetries() {
            let generator = LockedValue(SplitMix64(seed: 0))
            var book = RefreshFailures(backoff: RefreshBackoff(jitter: { generator.withLock { 0.5 + 0.5 * $0.uniform() } }))
            let first = book.record("u1", at: start)
            let second = book.record("u1", at: first.retryAt)
            let third = book.record("u1", at: second.retryAt)
            #expect(first.retryAt == start.addingTimeInterval(28.249662123204637))
            #expect(second.retryAt == first.retryAt.addingTimeInterval(42.9458399114553))
            #expect(third.retryAt == second.retryAt.addingTimeInterval(61.58602629555587))
        }

        @Test(arguments: [(RefreshFailures.pruneThreshold, RefreshFailures.pruneThreshold + 1), (RefreshFailures.pruneThreshold + 1, 1)])
        func theBookDropsPassedEntriesOnceItGrowsLarge(accounts: Int, after: Int) throws {
            var book = book()
            for index in 0..<accounts { _ = book.record(try AccountID("a\(index)"), at: start) }
            // Every earlier retry time passed more than the cap (an hour) ago.
            _ = book.record("late", at: start.addingTimeInterval(3_600 + 31))
            #expect(book.count == after)
            #expect(book.entry(for: "late")?.attempts == 1)
        }

        /// A token-vault attacker's read: in an outage of more than 10,000 failing accounts, each prune dropped every
        /// entry whose retry time had passed, among them accounts due for their next try, whose next failure then
        /// counted as the first (a 15–30 s wait, not up to an hour). An entry whose retry passed within the cap keeps its
        /// count.
        @Test func aPruneKeepsTheCountOfAnAccountDueWithinTheCap() throws {
            var book = book()
            for _ in 0..<5 { _ = book.record("due", at: start) }
            for index in 0..<RefreshFailures.pruneThreshold { _ = book.record(try AccountID("a\(index)"), at: start) }
            _ = book.record("other", at: start.addingTimeInterval(1_800))   // prunes: every retry passed, within the cap
            #expect(book.prunes == 1)
            #expect(book.record("due", at: start.addingTimeInterval(1_800)).attempts == 6)
        }

        /// A token-vault attacker's read: with more accounts backing off than the threshold (a carrier outage),
        /// every later failure filtered the whole book again and dropped nothing: quadratic time on the vault's
        /// actor. The book prunes again only once it has doubled since the last prune.
        @Test func aBookOfAccountsAllBackingOffIsNotFilteredAtEveryFailure() throws {
            var book = book()
            for index in 0..<(3 * RefreshFailures.pruneThreshold) { _ = book.record(try AccountID("a\(index)"), at: start) }
            #expect(book.count == 3 * RefreshFailures.pruneThreshold)
            #expect(book.prunes <= 2, "\(book.prunes) filters of the whole book")
        }
    }
}

extension TokenVaultTests {
    /// A store whose saves, while held, wait for the test, then fail when their task was cancelled meanwhile, as a
    /// pool's waiter in line or a file lock's pause does.
    final class HeldSaves: TokenStore {
        let base: any TokenStore
        /// Set: each save opens the first gate, then waits at the second.
        let held = LockedValue<(started: Gate, go: Gate)?>(nil)

        init(_ base: any TokenStore) { self.base = base }

        func load(_ account: AccountID) async throws -> StoredToken? { try await base.load(account) }

        func save(_ token: AccessToken, replacing expected: TokenVersion?, dueAt: Date) async throws -> TokenVersion {
            if let gates = held.withLock({ $0 }) {
                gates.started.open()
                await gates.go.wait()
                try Task.checkCancellation()
            }
            return try await base.save(token, replacing: expected, dueAt: dueAt)
        }

        func remove(_ account: AccountID, replacing expected: TokenVersion?) async throws -> Bool {
            try await base.remove(account, replacing: expected)
        }

        func accounts(dueBefore instant: Date, limit: Int) async throws -> [AccountID] {
            try await base.accounts(dueBefore: instant, limit: limit)
        }
    }

    /// An attacker's read: two refreshes of one account overlapping (a store with no refresh lock, or a PostgreSQL lease
    /// that lapsed under a slow call), the first answered unusable but rotated (the expired access token is stored again
    /// with the new refresh token), the second's callers were told `logged-out`, though the account never logged out, and
    /// its good answer was dropped: an app reads that as "log in again". The second's usable token is written over the
    /// expired one and served.
    @Test func anotherWritersExpiredTokenIsNoLogout() async throws {
        let second = try await overlappingRefreshes(MockRefresher())
        #expect(try await second.value.value.reveal() == "refreshed-1")
        #expect(try await store.load("u1")?.token.refreshToken?.reveal() == "refresh-1")
    }

    /// The review of that fix: a second answer that did not rotate the refresh token wrote the refresh token the first
    /// answer had retired back over the rotated one. Such an answer is not written over the rotation; its callers are
    /// told the refresh failed, to be tried again at once, from the rotated refresh token (no `logged-out`).
    @Test func aNonRotatingAnswerLeavesAnotherWritersRotationStored() async throws {
        let second = try await overlappingRefreshes(MockRefresher(rotates: false))
        await #expect { try await second.value } throws: { ($0 as? TokenError)?.kind == .refreshFailed }
        #expect(try await store.load("u1")?.token.refreshToken?.reveal() == "R2")
    }

    /// Two vaults on one store with no refresh lock refresh one expired token at once: the first's answer cannot be
    /// served but rotates the refresh token (stored, kept with the expired access token), then the second answers.
    /// - Parameter refresher: The second vault's refresher.
    /// - Returns: The second vault's caller, its refresh answered.
    func overlappingRefreshes(_ refresher: MockRefresher) async throws -> Task<AccessToken, any Error> {
        let shared = HeldSaves(store)   // forwards everything, with no refresh lock
        let first = MockRefresher([.success(RefreshResponse(rotating: Secret("R2"), unusable: "no access token"))])
        first.hold()
        refresher.hold()
        let one = vault(first, store: shared), other = vault(refresher, store: shared)
        return try await running(one) { one in
            try await running(other) { other in
                try await one.store(token(age: 31 * Self.day))
                let a = Task { try await one.validToken(for: "u1") }
                let b = Task { try await other.validToken(for: "u1") }
                await first.waitForCalls(1)
                await refresher.waitForCalls(1)
                first.release()
                _ = await a.result
                #expect(try await store.load("u1")?.token.refreshToken?.reveal() == "R2")
                refresher.release()
                _ = await b.result
                return b
            }
        }
    }

    /// The vault cancelled (its server stopping) while a refreshed token is being written: the write still lands. The
    /// carrier may have rotated the refresh token, retiring the stored one (a review: the cancellation broke the
    /// write, the token was kept in memory, and the cancelled `run()` said it was lost; the next refresh was refused).
    @Test func aRefreshedTokenIsWrittenWhenTheVaultIsCancelledDuringTheWrite() async throws {
        let held = HeldSaves(store)
        let refresher = MockRefresher()
        let vault = vault(refresher, store: held)
        let gates = (started: Gate(), go: Gate())
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await vault.run() }
            await clock.waitForSleepers(1)
            try await vault.store(expired())
            held.held.withLock { $0 = gates }
            group.addTask {
                do { _ = try await vault.validToken(for: "u1") } catch {}  // its answer is not what this test is about
            }
            await gates.started.wait()
            group.cancelAll()
            gates.go.open()
            try await group.waitForAll()
        }
        #expect(refresher.calls == 1)
        #expect(try await stored() == "refreshed-1")
        #expect(!events.names.contains("not-stored"))
    }
}

extension TokenVaultTests {
    /// A review, through the vault: this vault's refreshed token (the carrier rotated its refresh token) could not be
    /// written and was kept in memory; another instance, which could not see it, had its refresh with the old refresh
    /// token refused and re-saved that very token (a newer version of it). The kept token was forgotten, and the next
    /// refresh carried the refresh token the carrier had retired. It is written over the newer version now, and the
    /// carrier is not called again.
    @Test func aKeptTokenIsWrittenOverAnotherInstancesResaveOfTheTokenItReplaced() async throws {
        let faulty = FaultyTokenStore(store)
        let refresher = MockRefresher()
        try await running(vault(refresher, store: faulty)) { vault in
            try await vault.store(expired())
            let first = try #require(try await store.load("u1"))
            faulty.fail(.save)
            #expect(try await vault.validToken(for: "u1").value.reveal() == "refreshed-1")   // served from memory
            #expect(try await stored() == "A0")
            // The other instance's re-save of the very token this vault's replaced.
            _ = try await store.save(first.token, replacing: first.version, dueAt: first.token.expiresAt)
            #expect(try await vault.validToken(for: "u1").value.reveal() == "refreshed-1")
            await vault.waitUntilNoRefreshRuns()
        }
        #expect(try await stored() == "refreshed-1")
        #expect(refresher.calls == 1, "the retired refresh token was never sent")
    }
}
