import Foundation
import OneTapTesting
import Testing
@testable import OneTap

/// The vault on a fake clock with a scripted refresher, running as a server runs it.
@Suite struct TokenVaultTests {
    let clock = FakeClock()
    let store = InMemoryTokenStore()
    let events = RecordingEventSink()
    static let day = 86_400.0

    /// Background scans in these tests happen once, at start, and then only a day later.
    static let background = TokenVault.Background(scanInterval: .seconds(86_400), concurrentRefreshes: 8, lateAnswerLimit: .seconds(300))

    func vault(
        _ refresher: MockRefresher, store: (any TokenStore)? = nil, jitter: Double = 1.0, refreshTimeout: Duration? = .seconds(30),
        background: TokenVault.Background = TokenVaultTests.background
    ) -> TokenVault {
        TokenVault(
            store: store ?? self.store, refresher: refresher, clock: clock, backoff: RefreshBackoff(jitter: { jitter }),
            refreshTimeout: refreshTimeout, background: background, events: events)
    }

    /// Runs `body` while `vault` runs, as a server's service group would; stops it gracefully after.
    @discardableResult
    func running<T: Sendable>(_ vault: TokenVault, _ body: @Sendable (TokenVault) async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await vault.run(); return nil }
            await clock.waitForSleepers(1)   // the background scan ran once and waits for the next
            let result = try await body(vault)
            await vault.shutdown()
            var value: T? = result
            for try await item in group { value = value ?? item }
            return value!
        }
    }

    /// A token issued `age` seconds ago with a 30-day life.
    func token(_ account: AccountID = "u1", age: Double = 0, refresh: String? = "R0", value: String = "A0", lifetime: Double = 30 * 86_400) -> AccessToken {
        let issued = clock.now().addingTimeInterval(-age)
        return AccessToken(
            value: Secret(value), refreshToken: refresh.map(Secret.init), flow: .tianyi, account: account, issuedAt: issued,
            expiresAt: issued.addingTimeInterval(lifetime))
    }

    /// A token that expired a while ago but still has its refresh token: callers must wait.
    func expired(_ account: AccountID = "u1", value: String = "A0") -> AccessToken {
        token(account, age: 30 * Self.day - 30, value: value)
    }

    func stored(_ account: AccountID = "u1") async throws -> String? {
        try await store.load(account)?.token.value.reveal()
    }

    // MARK: Fresh, stale, expired

    @Test func freshTokenIsReturnedWithoutARefresh() async throws {
        let refresher = MockRefresher()
        try await running(vault(refresher)) { vault in
            try await vault.store(token(age: 3600))
            #expect(try await vault.validToken(for: "u1").value.reveal() == "A0")
        }
        #expect(refresher.calls == 0)
        #expect(events.names == ["stored"])
    }

    /// A stale token is served at once, even while the refresh is held up; the refresh runs behind it.
    @Test func staleTokenIsServedAtOnceWhileOneRefreshRunsBehindIt() async throws {
        let refresher = MockRefresher([.success(RefreshResponse(accessToken: Secret("A1"), refreshToken: Secret("R1"), expiresIn: try ExpiresIn("2592000")))])
        refresher.hold()
        try await running(vault(refresher)) { vault in
            try await vault.store(token(age: 2 * Self.day))
            for _ in 0..<10 {
                #expect(try await vault.validToken(for: "u1").value.reveal() == "A0")   // no wait on the held refresh
            }
            await refresher.waitForCalls(1)
            refresher.release()
            await events.wait(for: "refreshed")
            let got = try await vault.validToken(for: "u1")
            #expect(got.value.reveal() == "A1" && got.refreshToken?.reveal() == "R1")
            #expect(got.issuedAt == clock.now() && got.lifetime == 2_592_000)
            #expect(try await store.load("u1")?.token == got)   // stored in one write before anyone saw it
        }
        #expect(refresher.calls == 1)
        #expect(refresher.tokensSeen.first?.refreshToken?.reveal() == "R0")
        #expect(events.names == ["stored", "refreshed"])
    }

    @Test(arguments: [nil, ""] as [String?])
    func rotationWithoutANewRefreshTokenKeepsTheOld(newRefresh: String?) async throws {
        let refresher = MockRefresher([.success(RefreshResponse(accessToken: Secret("A1"), refreshToken: newRefresh.map(Secret.init)))])
        try await running(vault(refresher)) { vault in
            try await vault.store(expired())
            let got = try await vault.validToken(for: "u1")
            #expect(got.refreshToken?.reveal() == "R0")
        }
        #expect(try await store.load("u1")?.token.refreshToken?.reveal() == "R0")
        if case .refreshed(_, _, _, let rotated) = events.tokenEvents.last { #expect(!rotated) } else { Issue.record("no refreshed event") }
    }

    @Test(arguments: [true, false])
    func thousandCallersOnAnExpiredTokenShareOneRefresh(succeeds: Bool) async throws {
        let refresher = MockRefresher(succeeds ? [] : [.failure(TokenRefreshError(.transient, message: "503"))])
        refresher.hold()
        let results = try await running(vault(refresher)) { vault in
            try await vault.store(expired())
            return await withTaskGroup(of: Result<String, TokenError>.self) { group in
                for _ in 0..<1000 {
                    group.addTask {
                        do {
                            return .success(try await vault.validToken(for: "u1").value.reveal())
                        } catch let error as TokenError {
                            return .failure(error)
                        } catch {
                            return .failure(TokenError(.storeFailed, account: "u1", message: "unexpected \(error)"))
                        }
                    }
                }
                await refresher.waitForCalls(1)
                for _ in 0..<50 { await Task.yield() }   // let every caller join before the answer
                refresher.release()
                var results: [Result<String, TokenError>] = []
                for await result in group { results.append(result) }
                return results
            }
        }
        #expect(refresher.calls == 1)
        #expect(results.count == 1000)
        if succeeds {
            #expect(Set(results.map { (try? $0.get()) ?? "failed" }) == ["refreshed-1"])
            #expect(events.names.filter { $0 == "refreshed" }.count == 1)
        } else {
            let kinds = Set(results.map { result -> String in
                if case .failure(let error) = result { return error.kind.id }
                return "token"
            })
            // Joined the flight (refresh-failed) or arrived after it, during the back-off (backing-off).
            #expect(kinds.isSubset(of: ["refresh-failed", "backing-off"]) && kinds.contains("refresh-failed"), "\(kinds)")
            #expect(events.names.filter { $0 == "refresh-failed" }.count == 1)
        }
    }

    /// 10,000 callers on an expired token, half of them cancelled while waiting: one refresh, and every
    /// caller that was not cancelled gets its token.
    @Test func tenThousandCallersHalfCancelledShareOneRefresh() async throws {
        let refresher = MockRefresher()
        refresher.hold()
        let (tokens, cancelled) = try await running(vault(refresher)) { vault in
            try await vault.store(expired())
            let tasks = (0..<10_000).map { _ in Task { try await vault.validToken(for: "u1").value.reveal() } }
            await refresher.waitForCalls(1)
            for (index, task) in tasks.enumerated() where index % 2 == 0 { task.cancel() }
            refresher.release()
            var tokens = 0
            var cancelled = 0
            for task in tasks {
                do {
                    if try await task.value == "refreshed-1" { tokens += 1 }
                } catch is CancellationError {
                    cancelled += 1
                }
            }
            return (tokens, cancelled)
        }
        #expect(refresher.calls == 1)
        #expect(tokens + cancelled == 10_000 && tokens >= 5000)
    }

    @Test func cancellingOneWaiterCancelsNeitherTheRefreshNorTheOthers() async throws {
        let refresher = MockRefresher()
        refresher.hold()
        try await running(vault(refresher)) { vault in
            try await vault.store(expired())
            let cancelled = Task { try await vault.validToken(for: "u1") }
            let other = Task { try await vault.validToken(for: "u1") }
            await refresher.waitForCalls(1)
            cancelled.cancel()
            await #expect(throws: CancellationError.self) { try await cancelled.value }   // leaves at once
            refresher.release()
            #expect(try await other.value.value.reveal() == "refreshed-1")
        }
        #expect(refresher.calls == 1)
        #expect(try await stored() == "refreshed-1")
    }

    @Test func expiredTokenIsNeverHandedOut() async throws {
        let refresher = MockRefresher([.failure(TokenRefreshError(.transient, message: "503"))])
        try await running(vault(refresher)) { vault in
            try await vault.store(token(age: 31 * Self.day))
            await #expect {
                try await vault.validToken(for: "u1")
            } throws: { error in
                let error = error as! TokenError
                return error.kind == .refreshFailed && error.retryAt == clock.now().addingTimeInterval(30)
            }
            // During the back-off: refused without a call, still never the expired token.
            await #expect { try await vault.validToken(for: "u1") } throws: { ($0 as? TokenError)?.kind == .backingOff }
        }
        #expect(try await store.load("u1") != nil)   // kept for a later refresh
        #expect(refresher.calls == 1)
    }

    /// A refresh answer whose token lives less than the skew margin is already expired: a failed refresh,
    /// never handed out, and five calls do not make five refreshes.
    @Test func anAnswerShorterThanTheSkewMarginIsAFailedRefresh() async throws {
        let refresher = MockRefresher(expiresIn: try ExpiresIn(seconds: 30))
        try await running(vault(refresher)) { vault in
            try await vault.store(token(age: 31 * Self.day))
            for call in 1...5 {
                await #expect {
                    try await vault.validToken(for: "u1")
                } throws: { error in
                    let kind = (error as! TokenError).kind
                    return call == 1 ? kind == .refreshFailed : kind == .backingOff
                }
            }
        }
        #expect(refresher.calls == 1)
        #expect(try await stored() == "A0")   // the answer was not stored
        guard case .refreshFailed(_, let message, 1, _) = events.tokenEvents.last else { Issue.record("no refresh-failed"); return }
        #expect(message.contains("already expired"))
    }

    /// A short answer that is not yet expired is served until it expires, without a refresh per call.
    @Test func aShortAnswerIsServedUntilItExpires() async throws {
        let refresher = MockRefresher(expiresIn: try ExpiresIn(seconds: 100))   // expired from 40 s (100 − 60)
        try await running(vault(refresher)) { vault in
            try await vault.store(token(age: 31 * Self.day))
            #expect(try await vault.validToken(for: "u1").value.reveal() == "refreshed-1")
            for _ in 0..<5 {
                clock.setWallTime(clock.now().addingTimeInterval(5))
                #expect(try await vault.validToken(for: "u1").value.reveal() == "refreshed-1")
            }
            clock.setWallTime(clock.now().addingTimeInterval(20))   // 45 s after the answer: expired
            #expect(try await vault.validToken(for: "u1").value.reveal() == "refreshed-2")
        }
        #expect(refresher.calls == 2)
    }

    @Test func expiredWithoutARefreshTokenRequiresRelogin() async throws {
        let refresher = MockRefresher()
        try await running(vault(refresher)) { vault in
            try await vault.store(token(age: 31 * Self.day, refresh: nil))
            await #expect { try await vault.validToken(for: "u1") } throws: { ($0 as? TokenError)?.kind == .reloginRequired }
        }
        #expect(refresher.calls == 0)
        #expect(try await store.load("u1") == nil)
    }

    @Test func staleWithoutARefreshTokenIsStillServedAndRefreshed() async throws {
        let refresher = MockRefresher()
        try await running(vault(refresher)) { vault in
            try await vault.store(token(age: 2 * Self.day, refresh: nil))
            #expect(try await vault.validToken(for: "u1").value.reveal() == "A0")
            await events.wait(for: "refreshed")   // the refresher is asked (it may refresh by access token)
            #expect(try await vault.validToken(for: "u1").value.reveal() == "refreshed-1")
        }
    }

    // MARK: Failures

    @Test func transientFailureKeepsAUsableTokenAndBacksOff() async throws {
        let failure = TokenRefreshError(.transient, message: "timeout")
        let refresher = MockRefresher([.failure(failure), .failure(failure)])
        try await running(vault(refresher)) { vault in
            try await vault.store(token(age: 2 * Self.day))
            // Stale: the token is served; the background refresh fails; the stored token is kept.
            #expect(try await vault.validToken(for: "u1").value.reveal() == "A0")
            await events.wait(for: "refresh-failed")
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
            await events.wait(for: "refresh-failed", count: 2)
            guard case .refreshFailed(_, _, 2, let retry2) = events.tokenEvents.last else { Issue.record("no second refresh-failed"); return }
            #expect(retry2 == clock.now().addingTimeInterval(60))
            clock.advance(by: .seconds(60))
            _ = try await vault.validToken(for: "u1")
            await events.wait(for: "refreshed")
            #expect(try await vault.validToken(for: "u1").value.reveal() == "refreshed-3")
        }
        #expect(refresher.calls == 3)
    }

    @Test(arguments: [2.0, 31.0])
    func finalFailureRemovesTheTokenAndRequiresRelogin(ageInDays: Double) async throws {
        let refresher = MockRefresher([.failure(TokenRefreshError(.final, code: -1, message: "refresh token revoked"))])
        try await running(vault(refresher)) { vault in
            try await vault.store(token(age: ageInDays * Self.day))
            if ageInDays < 30 {
                #expect(try await vault.validToken(for: "u1").value.reveal() == "A0")   // stale: served, then refused
                await events.wait(for: "relogin-required")
            } else {
                await #expect { try await vault.validToken(for: "u1") } throws: { ($0 as? TokenError)?.kind == .reloginRequired }
            }
            await #expect { try await vault.validToken(for: "u1") } throws: { ($0 as? TokenError)?.kind == .notLoggedIn }
        }
        #expect(try await store.load("u1") == nil)
        #expect(events.names == ["stored", "relogin-required"])
    }

    @Test func writeFailureAfterTheRefreshLeavesTheOldTokenUsable() async throws {
        let faulty = FaultyTokenStore(store)
        let refresher = MockRefresher()
        try await running(vault(refresher, store: faulty)) { vault in
            try await vault.store(expired())
            faulty.fail(.save)
            await #expect {
                try await vault.validToken(for: "u1")
            } throws: { error in
                let error = error as! TokenError
                return error.kind == .storeFailed && error.message.contains("the previous token is unchanged")
            }
        }
        #expect(try await stored() == "A0")
        #expect(!events.names.contains("refreshed"))
    }

    @Test func readFailureIsAClearError() async throws {
        let faulty = FaultyTokenStore(store)
        try await running(vault(MockRefresher(), store: faulty)) { vault in
            try await vault.store(token())
            faulty.fail(.load)
            await #expect {
                try await vault.validToken(for: "u1")
            } throws: { error in
                let error = error as! TokenError
                return error.kind == .storeFailed && error.account == "u1" && error.message.contains("No space left on device")
            }
            #expect(try await vault.validToken(for: "u1").value.reveal() == "A0")
        }
    }

    /// `store` re-reads and retries when another writer got in first, up to five times in a row.
    @Test(arguments: [(4, true), (5, false)])
    func storeRetriesConflicts(conflicts: Int, succeeds: Bool) async throws {
        let faulty = FaultyTokenStore(store)
        try await running(vault(MockRefresher(), store: faulty)) { vault in
            try await vault.store(token(value: "first"))
            faulty.conflict(times: conflicts)
            if succeeds {
                try await vault.store(token(value: "second"))
                #expect(try await stored() == "second")
            } else {
                await #expect {
                    try await vault.store(token(value: "second"))
                } throws: { error in
                    let error = error as! TokenError
                    return error.kind == .storeFailed && error.message.contains("injected conflict")
                }
                #expect(try await stored() == "first")
            }
        }
    }

    @Test func logoutWithAFailingStoreIsAClearErrorAndKeepsTheToken() async throws {
        let faulty = FaultyTokenStore(store)
        try await running(vault(MockRefresher(), store: faulty)) { vault in
            try await vault.store(token())
            faulty.fail(.remove)
            await #expect {
                try await vault.logout("u1")
            } throws: { error in
                let error = error as! TokenError
                return error.kind == .storeFailed && error.account == "u1"
            }
            #expect(try await stored() == "A0")
            try await vault.logout("u1")
        }
        #expect(try await store.load("u1") == nil)
        #expect(events.names == ["stored", "logged-out"])
    }

    @Test func reloginWithAFailingStoreIsAStoreError() async throws {
        let faulty = FaultyTokenStore(store)
        let refresher = MockRefresher([.failure(TokenRefreshError(.final, message: "revoked"))])
        try await running(vault(refresher, store: faulty)) { vault in
            try await vault.store(expired())
            faulty.fail(.remove)
            await #expect { try await vault.validToken(for: "u1") } throws: { ($0 as? TokenError)?.kind == .storeFailed }
        }
        #expect(try await stored() == "A0")   // could not be removed: still there, still reported
        #expect(!events.names.contains("relogin-required"))
    }

    @Test func listingDueAccountsWithAFailingStoreNamesNoAccount() async throws {
        let faulty = FaultyTokenStore(store)
        let vault = vault(MockRefresher(), store: faulty)
        faulty.fail(.accounts)
        await #expect {
            try await vault.accountsDue(before: clock.now())
        } throws: { error in
            let error = error as! TokenError
            return error.kind == .storeFailed && error.account == nil && error.description.hasPrefix("store-failed: ")
        }
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

    @Test func anotherInstanceWinningTheWriteIsUsedNotRefreshedAgain() async throws {
        // Two vaults (two server instances) over one store.
        let refresherA = MockRefresher([.success(RefreshResponse(accessToken: Secret("from-A")))])
        let refresherB = MockRefresher([.success(RefreshResponse(accessToken: Secret("from-B")))])
        refresherA.hold()
        try await running(vault(refresherA)) { a in
            try await running(vault(refresherB)) { b in
                try await a.store(expired())
                let first = Task { try await a.validToken(for: "u1") }
                await refresherA.waitForCalls(1)
                #expect(try await b.validToken(for: "u1").value.reveal() == "from-B")   // B refreshes and writes first
                refresherA.release()
                #expect(try await first.value.value.reveal() == "from-B")   // A's write conflicts: it uses B's
            }
        }
        #expect(try await stored() == "from-B")
        #expect(events.names.filter { $0 == "refreshed" }.count == 1)
        #expect(events.names.contains("refreshed-elsewhere"))
    }

    @Test func aStoreReportingAStaleVersionMakesTheVaultReReadNotRefreshAgain() async throws {
        let faulty = FaultyTokenStore(store)
        let refresher = MockRefresher()
        try await running(vault(refresher, store: faulty)) { vault in
            try await vault.store(token(age: 2 * Self.day))
            faulty.conflict()   // the next save reports that another writer got there first
            #expect(try await vault.validToken(for: "u1").value.reveal() == "A0")
            await events.wait(for: "refreshed-elsewhere")
        }
        #expect(refresher.calls == 1)
        #expect(try await stored() == "A0")
    }

    // MARK: Logout

    @Test func logoutDuringARefreshWins() async throws {
        let refresher = MockRefresher()
        refresher.hold()
        try await running(vault(refresher)) { vault in
            try await vault.store(expired())
            let waiter = Task { try await vault.validToken(for: "u1") }
            await refresher.waitForCalls(1)
            try await vault.logout("u1")
            refresher.release()
            await #expect { try await waiter.value } throws: { ($0 as? TokenError)?.kind == .loggedOut }
        }
        #expect(try await store.load("u1") == nil)   // the refresh brought nothing back
        #expect(!events.names.contains("refreshed"))
        #expect(events.names.contains("logged-out"))
    }

    @Test func logoutAndNewLoginDuringARefreshThatFailsFinallyKeepTheNewLogin() async throws {
        let refresher = MockRefresher([.failure(TokenRefreshError(.final, message: "revoked"))])
        refresher.hold()
        try await running(vault(refresher)) { vault in
            try await vault.store(expired())
            let waiter = Task { try await vault.validToken(for: "u1") }
            await refresher.waitForCalls(1)
            try await vault.logout("u1")
            try await vault.store(token(age: 0, value: "NEW-LOGIN"))
            refresher.release()
            await #expect { try await waiter.value } throws: { ($0 as? TokenError)?.kind == .loggedOut }
        }
        #expect(try await stored() == "NEW-LOGIN")
    }

    @Test func anotherInstancesLogoutAndNewLoginWinOverALateRefresh() async throws {
        let refresherA = MockRefresher([.success(RefreshResponse(accessToken: Secret("OLD-SESSION-REFRESHED")))])
        refresherA.hold()
        try await running(vault(refresherA)) { a in
            let b = vault(MockRefresher())
            try await a.store(expired())
            let first = Task { try await a.validToken(for: "u1") }
            await refresherA.waitForCalls(1)
            try await b.logout("u1")
            try await b.store(token(age: 0, value: "NEW-LOGIN"))
            refresherA.release()
            #expect(try await first.value.value.reveal() == "NEW-LOGIN")   // A's write conflicted: the new login
        }
        #expect(try await stored() == "NEW-LOGIN")
    }

    // MARK: Time limits

    @Test func aRefreshAnswerAfterTheTimeLimitIsStillKept() async throws {
        let refresher = MockRefresher([.success(RefreshResponse(accessToken: Secret("LATE"), refreshToken: Secret("ROTATED")))])
        refresher.hold()
        try await running(vault(refresher)) { vault in
            try await vault.store(expired())
            let call = Task { try await vault.validToken(for: "u1") }
            await refresher.waitForCalls(1)
            await clock.waitForSleepers(2)   // the scan's and the refresh's time limit
            clock.advance(by: .seconds(30))
            await #expect { try await call.value } throws: { ($0 as? TokenError)?.kind == .refreshFailed }
            refresher.release()
            await events.wait(for: "refreshed")
        }
        let stored = try await store.load("u1")
        #expect(stored?.token.value.reveal() == "LATE" && stored?.token.refreshToken?.reveal() == "ROTATED")
        #expect(events.names.suffix(2) == ["refresh-failed", "refreshed"])
    }

    @Test func aHungRefresherTimesOutAndIsCancelledAfterTheLateLimit() async throws {
        let refresher = MockRefresher([.hang])
        try await running(vault(refresher)) { vault in
            try await vault.store(expired())
            let call = Task { try await vault.validToken(for: "u1") }
            await clock.waitForSleepers(2)
            clock.advance(by: .seconds(30))
            await #expect { try await call.value } throws: { ($0 as? TokenError)?.kind == .refreshFailed }
            // While the hung call goes on, the account has no second refresh call.
            await #expect { try await vault.validToken(for: "u1") } throws: { ($0 as? TokenError)?.kind == .backingOff }
            await clock.waitForSleepers(2)   // the late limit
            clock.advance(by: .seconds(300))
            await events.wait(for: "refresh-abandoned")
            // The hung call was cancelled; a new refresh runs.
            #expect(try await vault.validToken(for: "u1").value.reveal() == "refreshed-2")
        }
        #expect(refresher.calls == 2)
        #expect(events.names.filter { $0 == "refresh-failed" }.count == 1)   // counted once, at the limit
    }

    @Test func withoutATimeLimitCallersWaitForTheAnswer() async throws {
        let refresher = MockRefresher()
        refresher.hold()
        try await running(vault(refresher, refreshTimeout: nil)) { vault in
            try await vault.store(expired())
            let call = Task { try await vault.validToken(for: "u1") }
            await refresher.waitForCalls(1)
            #expect(clock.sleeperCount == 1)   // the scan's only: no time limit runs
            clock.advance(by: .seconds(3600))
            refresher.release()
            #expect(try await call.value.value.reveal() == "refreshed-1")
        }
    }

    // MARK: Running

    /// Before `run` starts, usable tokens are served and refreshes wait for it; a caller on an expired
    /// token waits at most the refresh time limit, then hears that the vault is not running.
    @Test func aVaultThatIsNotRunningServesUsableTokensAndSaysWhyItCannotRefresh() async throws {
        let refresher = MockRefresher()
        let vault = vault(refresher)
        try await vault.store(token("stale", age: 2 * Self.day))
        try await vault.store(expired("expired"))
        #expect(try await vault.validToken(for: "stale").value.reveal() == "A0")
        let call = Task { try await vault.validToken(for: "expired") }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(30))
        await #expect { try await call.value } throws: { ($0 as? TokenError)?.kind == .notRunning }
        #expect(refresher.calls == 0)
        await vault.shutdown()
        await #expect { try await vault.validToken(for: "expired") } throws: { ($0 as? TokenError)?.kind == .notRunning }
    }

    /// A refresh asked for just before `run` starts is run once it does.
    @Test func aRefreshAskedForBeforeRunStartsRunsWhenItDoes() async throws {
        let vault = vault(MockRefresher())
        try await vault.store(expired())
        let call = Task { try await vault.validToken(for: "u1") }
        await clock.waitForSleepers(1)   // the caller's bound while the vault has not started
        try await running(vault) { _ async throws in
            #expect(try await call.value.value.reveal() == "refreshed-1")
        }
    }

    @Test func aVaultRunsOnce() async throws {
        let vault = vault(MockRefresher())
        try await running(vault) { vault in
            await #expect { try await vault.run() } throws: { ($0 as? TokenError)?.kind == .alreadyRunning }
        }
        await #expect { try await vault.run() } throws: { ($0 as? TokenError)?.kind == .alreadyRunning }
    }

    /// Shutdown lets the refresh a caller waits for finish and answer, then `run` returns.
    @Test func gracefulShutdownFinishesTheRefreshUnderWay() async throws {
        let refresher = MockRefresher()
        refresher.hold()
        let vault = vault(refresher)
        try await vault.store(expired())
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await vault.run() }
            await clock.waitForSleepers(1)
            let waiter = Task { try await vault.validToken(for: "u1") }
            await refresher.waitForCalls(1)
            await vault.shutdown()
            refresher.release()
            #expect(try await waiter.value.value.reveal() == "refreshed-1")
            try await group.waitForAll()   // run returned
        }
        #expect(try await vault.validToken(for: "u1").value.reveal() == "refreshed-1")   // fresh now: served by a stopped vault
    }

    /// Cancelling `run` cancels the refreshes under way; their callers hear why.
    @Test func cancellingRunAnswersWaitersWithNotRunning() async throws {
        let refresher = MockRefresher([.hang])
        let vault = vault(refresher)
        try await vault.store(expired())
        let run = Task { try await vault.run() }
        await clock.waitForSleepers(1)
        let waiter = Task { try await vault.validToken(for: "u1") }
        await refresher.waitForCalls(1)
        run.cancel()
        await #expect { try await waiter.value } throws: { ($0 as? TokenError)?.kind == .notRunning }
        try await run.value
        #expect(!events.names.contains("refresh-failed"))   // a stop is not a failure of the carrier
    }

    /// The background scan refreshes due accounts nobody asked for, a bounded number at a time.
    @Test func dueAccountsAreRefreshedInTheBackgroundABoundedNumberAtATime() async throws {
        let refresher = MockRefresher()
        refresher.hold()
        for index in 0..<5 { _ = try await store.save(token(AccountID("a\(index)"), age: 2 * Self.day), replacing: nil, dueAt: clock.now().addingTimeInterval(-1)) }
        _ = try await store.save(token("fresh", age: 60), replacing: nil, dueAt: clock.now().addingTimeInterval(Self.day))
        let background = TokenVault.Background(scanInterval: .seconds(60), concurrentRefreshes: 2)
        try await running(vault(refresher, background: background)) { _ in
            await refresher.waitForCalls(2)
            #expect(refresher.calls == 2)   // the limit
            for _ in 0..<100 { await Task.yield() }
            #expect(refresher.calls == 2)   // still: the others wait for a slot
            refresher.release()
            // Later scans take the rest, two at a time.
            for _ in 0..<50 where events.names.filter({ $0 == "refreshed" }).count < 5 {
                clock.advance(by: .seconds(60))
                for _ in 0..<200 { await Task.yield() }
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

    // MARK: Misc

    @Test func accountsAreIndependentAndDueListing() async throws {
        let refresher = MockRefresher()
        refresher.hold()
        try await running(vault(refresher)) { vault in
            try await vault.store(expired("slow"))
            try await vault.store(token("fresh", age: 60))
            let slow = Task { try await vault.validToken(for: "slow") }
            await refresher.waitForCalls(1)
            // Another account is served while the first waits on its refresh.
            #expect(try await vault.validToken(for: "fresh").value.reveal() == "A0")
            refresher.release()
            _ = try await slow.value
            #expect(try await vault.accountsDue(before: clock.now().addingTimeInterval(Self.day), limit: 10) == ["fresh"])
            #expect(try await vault.accountsDue(before: clock.now().addingTimeInterval(2 * Self.day)) == ["fresh", "slow"])
        }
    }

    @Test func stateReportsThePolicyState() async throws {
        let vault = vault(MockRefresher())
        #expect(try await vault.state(for: "u1") == nil)
        try await vault.store(token(age: 2 * Self.day))
        #expect(try await vault.state(for: "u1") == .stale)
        clock.setWallTime(clock.now().addingTimeInterval(40 * Self.day))
        #expect(try await vault.state(for: "u1") == .expired)
    }

    @Test func clockGoingBackwardsNeverExpiresAFreshToken() async throws {
        let refresher = MockRefresher()
        try await running(vault(refresher)) { vault in
            try await vault.store(token(age: 0))
            clock.setWallTime(clock.now().addingTimeInterval(-10 * Self.day))
            #expect(try await vault.validToken(for: "u1").value.reveal() == "A0")
        }
        #expect(refresher.calls == 0)
    }

    @Test func managerServesOneAccount() async throws {
        let refresher = MockRefresher()
        let manager = TokenManager(account: "me", vault: vault(refresher))
        try await running(manager.vault) { _ in
            try await manager.store(expired("me"))
            #expect(try await manager.state() == .expired)
            #expect(try await manager.appDidOpen().value.reveal() == "refreshed-1")
            #expect(try await manager.validToken().value.reveal() == "refreshed-1")
            try await manager.logout()
            #expect(try await manager.state() == nil)
        }
        #expect(refresher.calls == 1)
    }

    @Test func refresherErrorsNeverQuoteTheTokens() async throws {
        struct Leaky: Error, CustomStringConvertible {
            var description: String { "GET https://open.e.189.cn/api/oauth2/refreshToken.do?refreshToken=RT-SECRET-9&accessToken=AT-SECRET-9 failed" }
        }
        let refresher = MockRefresher([.failure(Leaky())])
        try await running(vault(refresher)) { vault in
            try await vault.store(token(age: 2 * Self.day, refresh: "RT-SECRET-9", value: "AT-SECRET-9"))
            _ = try await vault.validToken(for: "u1")
            await events.wait(for: "refresh-failed")
        }
        guard case .refreshFailed(_, let message, _, _) = events.tokenEvents.last else { Issue.record("no refresh-failed"); return }
        #expect(!message.contains("RT-SECRET-9") && !message.contains("AT-SECRET-9"))
    }

    @Test func eventsNeverCarryTokens() async throws {
        let refresher = MockRefresher([.failure(TokenRefreshError(.transient, message: "503"))])
        try await running(vault(refresher)) { vault in
            try await vault.store(token(age: 2 * Self.day, refresh: "RT-SECRET", value: "AT-SECRET"))
            _ = try await vault.validToken(for: "u1")
            await events.wait(for: "refresh-failed")
            clock.advance(by: .seconds(31))
            _ = try await vault.validToken(for: "u1")
            await events.wait(for: "refreshed")
            try await vault.logout("u1")
        }
        for event in events.recorded {
            let json = event.json()
            for text in [event.description, json, String(reflecting: event)] {
                #expect(!text.contains("SECRET") && !text.contains("refreshed-2") && !text.contains("refresh-2"), "leaked: \(text)")
            }
        }
        #expect(events.names == ["stored", "refresh-failed", "refreshed", "logged-out"])
    }

    @Test func aShutdownBeforeRunMakesRunReturnAtOnceAndOnlyOnce() async throws {
        let vault = TokenVault(refresher: MockRefresher(), events: DiscardingEventSink())
        await vault.shutdown()
        try await vault.run()   // returns: a service group stopped before the task started
        await #expect { try await vault.run() } throws: { ($0 as? TokenError)?.kind == .alreadyRunning }
    }
}
