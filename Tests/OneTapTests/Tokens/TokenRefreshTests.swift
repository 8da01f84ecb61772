#if canImport(Glibc)
import Glibc
#endif
import Foundation
import OneTapTesting
import Testing
@testable import OneTap

extension TokenVaultTests {
    // MARK: Refresh answers

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
        #expect(try await stored() == "A0")   // the answer's access token was not stored (its refresh token was)
        guard case .refreshFailed(_, let message, 1, _) = events.tokenEvents.last else { Issue.record("no refresh-failed: \(events.tokenEvents)"); return }
        #expect(message.contains("already expired"))
    }

    /// A token-vault attacker's read: such an answer's new refresh token was thrown away with it, so a carrier that
    /// rotates (and retires the one it replaced) logged the account out at the next refresh. The stored token keeps
    /// its access token and takes the answer's refresh token; the next refresh carries it.
    @Test func anAnswerTooShortToServeKeepsItsRotatedRefreshToken() async throws {
        let refresher = MockRefresher([.success(RefreshResponse(accessToken: Secret("A1"), refreshToken: Secret("R1"), expiresIn: try ExpiresIn(seconds: 30)))])
        try await running(vault(refresher)) { vault in
            try await vault.store(token(age: 31 * Self.day))
            await #expect { try await vault.validToken(for: "u1") } throws: { ($0 as? TokenError)?.kind == .refreshFailed }
        }
        let kept = try #require(try await store.load("u1"))
        #expect(kept.token.value.reveal() == "A0" && kept.token.refreshToken?.reveal() == "R1")
    }

    /// A token-vault attacker's read: an answer whose access token no store keeps (its record over 64 KiB) was taken for a
    /// store that is down: served from memory, its save retried at every scan for ever, and its rotated refresh token never
    /// reached the store, so another instance, or this one after a restart, sent the retired one. It is an unusable answer:
    /// the refresh fails, and the stored token keeps its access token and takes the answer's refresh token.
    @Test func anAnswerTooLargeToStoreKeepsItsRotatedRefreshToken() async throws {
        let huge = String(repeating: "A", count: 70_000)
        let refresher = MockRefresher([.success(RefreshResponse(accessToken: Secret(huge), refreshToken: Secret("R1")))])
        try await running(vault(refresher)) { vault in
            try await vault.store(token(age: 31 * Self.day))
            let error = await #expect(throws: TokenError.self) { try await vault.validToken(for: "u1") }
            #expect(error?.kind == .refreshFailed)
            #expect(error.map { "\($0)".contains("65536") && !"\($0)".contains("AAAA") && !"\($0)".contains("R1") } == true, "\(String(describing: error))")
        }
        let kept = try #require(try await store.load("u1"))
        #expect(kept.token.value.reveal() == "A0")
        #expect(kept.token.refreshToken?.reveal() == "R1")
    }

    /// A token-vault attacker's read: a Tianyi answer with result 0 and a rotated refresh token, but an `expiresIn` that
    /// is no lifetime or no access token, failed to decode as a whole, and its refresh token was lost with it. The
    /// stored token keeps its access token and takes the answer's refresh token, and the refresh counts as failed.
    @Test(arguments: [
        #"{"result":0,"accessToken":"A1","refreshToken":"R1","expiresIn":"soon"}"#,
        #"{"result":0,"accessToken":"A1","refreshToken":"R1","expiresIn":-1}"#,
        #"{"result":0,"accessToken":"","refreshToken":"R1","expiresIn":"2592000"}"#,
    ])
    func aTianyiSuccessThatCannotBeServedKeepsItsRotatedRefreshToken(body: String) async throws {
        struct Tianyi: TokenRefresher {
            let body: String
            func refresh(_ token: AccessToken) async throws -> RefreshResponse { try TianyiRefreshResponse.decode(Array(body.utf8)) }
        }
        try await running(vault(Tianyi(body: body))) { vault in
            try await vault.store(token(age: 31 * Self.day))
            let error = await #expect(throws: TokenError.self) { try await vault.validToken(for: "u1") }
            #expect(error?.kind == .refreshFailed)
            #expect(error.map { !"\($0)".contains("R1") && !"\($0)".contains("A1") } == true, "\(String(describing: error))")
        }
        let kept = try #require(try await store.load("u1"))
        #expect(kept.token.value.reveal() == "A0")
        #expect(kept.token.refreshToken?.reveal() == "R1")
    }

    /// An answer that cannot be served whose refresh token is the one sent rotated nothing: nothing is written (the
    /// stored token keeps its version), no `refreshed` event is emitted, and the refresh counts as failed.
    @Test func anUnusableAnswerRepeatingTheSentRefreshTokenWritesNothing() async throws {
        struct Tianyi: TokenRefresher {
            func refresh(_ token: AccessToken) async throws -> RefreshResponse {
                try TianyiRefreshResponse.decode(Array(#"{"result":0,"accessToken":"A1","refreshToken":"R0","expiresIn":"soon"}"#.utf8))
            }
        }
        try await running(vault(Tianyi())) { vault in
            try await vault.store(token(age: 31 * Self.day))
            let before = try #require(try await store.load("u1")).version
            await #expect { try await vault.validToken(for: "u1") } throws: { ($0 as? TokenError)?.kind == .refreshFailed }
            #expect(try await store.load("u1")?.version == before)
        }
        #expect(!events.tokenEvents.contains { if case .refreshed = $0 { true } else { false } })
        #expect(events.tokenEvents.contains { if case .refreshFailed = $0 { true } else { false } })
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

    /// A token-vault attacker's read: a refreshed token's expiry was counted from when the answer arrived, so an answer
    /// that took 200 s (its lifetime counted by the carrier from before then) was believed 200 s longer than it lives,
    /// past the 60 s skew margin. It counts from when the request left.
    @Test func aRefreshedTokensLifetimeCountsFromTheRequest() async throws {
        final class SlowCarrier: TokenRefresher, @unchecked Sendable {
            let clock: FakeClock
            init(clock: FakeClock) { self.clock = clock }
            func refresh(_ token: AccessToken) async throws -> RefreshResponse {
                clock.advance(by: .seconds(200))   // the answer takes 200 s
                return RefreshResponse(accessToken: Secret("A1"), refreshToken: Secret("R1"), expiresIn: try ExpiresIn(seconds: 3_600))
            }
        }
        let sent = clock.now()
        try await running(vault(SlowCarrier(clock: clock), refreshTimeout: nil)) { vault in
            try await vault.store(expired())
            #expect(try await vault.validToken(for: "u1").value.reveal() == "A1")
        }
        let expiresAt = try #require(try await store.load("u1")?.token.expiresAt)
        #expect(expiresAt <= sent.addingTimeInterval(3_600), "expires \(expiresAt), sent \(sent)")
    }

    /// A carrier that rotates refresh tokens and refuses one it replaced (RFC 9700's reuse detection): only the
    /// latest refresh token refreshes.
    final class RotatingCarrier: TokenRefresher, @unchecked Sendable {
        private let state = LockedValue((valid: "R0", issued: 0, calls: 0))
        var calls: Int { state.withLock { $0.calls } }

        func refresh(_ token: AccessToken) async throws -> RefreshResponse {
            try state.withLock { state in
                state.calls += 1
                guard token.refreshToken?.reveal() == state.valid else {
                    throw TokenError(.reloginRequired, account: token.account, message: "the refresh token was replaced")
                }
                state.issued += 1
                state.valid = "R\(state.issued)"
                return RefreshResponse(accessToken: Secret("A\(state.issued)"), refreshToken: Secret(state.valid))
            }
        }
    }

    /// An attacker's read found that a refresh whose write failed threw its answer away: the carrier had rotated
    /// the refresh token, so the stored one was dead, and the next refresh removed the account's token (log in
    /// again). Now the refreshed token is served and kept in memory, and written at the next background scan,
    /// before any carrier call: nothing is lost, and the carrier is not asked again with the replaced refresh token.
    /// Runs `body` in a vault that scans every minute, over a store that failed the write of a refresh of the
    /// expired token A0 to A1 (the carrier counted in `carrier`).
    func afterARefreshWhoseWriteFailed(
        _ carrier: RotatingCarrier, _ body: @Sendable (TokenVault, FaultyTokenStore) async throws -> Void
    ) async throws {
        let faulty = FaultyTokenStore(store)
        let background = TokenVault.Background(scanInterval: .seconds(60), concurrentRefreshes: 8, lateAnswerLimit: .seconds(300))
        try await running(vault(carrier, store: faulty, background: background)) { vault in
            try await vault.store(expired())
            faulty.fail(.save)
            #expect(try await vault.validToken(for: "u1").value.reveal() == "A1")   // refreshed; its write failed
            try await body(vault, faulty)
        }
    }

    @Test func aRefreshWhoseWriteFailsIsServedKeptAndWrittenLater() async throws {
        let carrier = RotatingCarrier()
        try await afterARefreshWhoseWriteFailed(carrier) { (vault, _) async throws in
            #expect(try await stored() == "A0")
            #expect(events.names.contains("not-stored"))
            #expect(try await vault.validToken(for: "u1").value.reveal() == "A1")   // served from memory
            await vault.waitUntilNoRefreshRuns()
            clock.advance(by: .seconds(60))   // the next scan writes it
            #expect(await events.wait(for: "refreshed"))
            #expect(try await store.load("u1")?.token.refreshToken?.reveal() == "R1")
            #expect(try await vault.validToken(for: "u1").value.reveal() == "A1")
        }
        #expect(try await stored() == "A1")
        #expect(carrier.calls == 1)
        #expect(!events.names.contains("relogin-required"))
        // The event names the failure, never a token.
        let notStored = events.tokenEvents.first { $0.name == "not-stored" }.map(\.description) ?? ""
        #expect(notStored.contains("No space left on device") && !["A0", "A1", "R0", "R1"].contains { notStored.contains($0) }, "\(notStored)")
    }

    /// Runs `body` in a vault that scans every minute, over a store that refuses every write: three accounts' expired
    /// tokens refreshed and kept in memory (their writes failed), then `scans` scans of the outage.
    func withThreeKeptTokens(scanningFor scans: Int, _ body: @Sendable (FaultyTokenStore, [AccountID]) async throws -> Void) async throws {
        let faulty = FaultyTokenStore(store)
        let background = TokenVault.Background(scanInterval: .seconds(60), concurrentRefreshes: 8, lateAnswerLimit: .seconds(300))
        let accounts: [AccountID] = ["u1", "u2", "u3"]
        try await running(vault(MockRefresher(), store: faulty, background: background)) { vault in
            for account in accounts { try await vault.store(expired(account)) }
            faulty.fail(.save, times: 1_000)
            for account in accounts { _ = try await vault.validToken(for: account) }   // refreshed, kept: their writes failed
            await vault.waitUntilNoRefreshRuns()
            await clock.waitForSleepers(1)
            for _ in 0..<scans {
                clock.advance(by: .seconds(60))
                await clock.waitForSleepers(1)
            }
            try await body(faulty, accounts)
        }
    }

    /// An attacker's read of the services: tokens kept after failed writes were written again at every scan, whatever
    /// the back-off, so a store that kept refusing writes got a load, a save and a `not-stored` line per kept account a
    /// minute for the whole outage (ten thousand accounts filled the event sink's line limit). The scan follows the
    /// back-off (30, 60, 120, 240 s apart here, jitter 1), with one waiting account a scan probing the store.
    @Test func keptTokensAreWrittenAgainOnTheBackOffNotAtEveryScan() async throws {
        try await withThreeKeptTokens(scanningFor: 10) { _, _ in }
        // At most: the three first failed writes, one probe of the store a scan (ten), the tries of accounts whose wait
        // ended (four each at most in ten minutes: 30, 60, 120, 240 s), one at shutdown (whose last pass stops at the
        // first failure): 26, where every scan tried every account before (37).
        let notStored = events.tokenEvents.filter { $0.name == "not-stored" }.count
        #expect(notStored <= 3 + 10 + 3 * 4 + 1, "\(notStored) not-stored lines")
    }

    /// A review of the back-off above: waits grown long in an outage held the kept tokens unwritten for up to an hour
    /// after the store came back (a rotated refresh token, while other instances refreshed with the one it replaced).
    /// One waiting account probes the store at every scan; once its write lands, every kept token is written in the
    /// same pass.
    @Test func aStoreThatComesBackHasEveryKeptTokenWrittenWithinAScan() async throws {
        // Half an hour of outage: each account's wait grows to 16 minutes or more.
        try await withThreeKeptTokens(scanningFor: 30) { faulty, accounts in
            faulty.faults.heal()
            clock.advance(by: .seconds(60))
            await clock.waitForSleepers(1)
            for account in accounts {
                let written = try await store.load(account)?.token.value.reveal()
                #expect(written != "A0", "\(account)'s kept token written")
            }
        }
    }

    /// A review of the vault: a refresh lock that fails outright (no grant on the lease table, a lock file that cannot be
    /// opened) was neither counted nor told: no back-off began, no `refresh-failed` was emitted, and every request on a
    /// stale token tried the lock again, for as long as the token lived (29 days). It now backs off as a lock time-out does.
    @Test func aRefreshLockThatFailsBacksOffAndIsTold() async throws {
        struct LockFails: ForwardingTokenStore {
            let base: any TokenStore
            let locks = LockedValue(0)
            func withRefreshLock<T: Sendable>(for account: AccountID, _ body: @Sendable () async throws -> T) async throws -> T {
                locks.withLock { $0 += 1 }
                throw StoreError(.io, account: account, message: "permission denied for table refresh_leases")
            }
        }
        let refresher = MockRefresher()
        let failing = LockFails(base: store)
        try await running(vault(refresher, store: failing)) { vault in
            try await vault.store(token(age: 2 * Self.day))
            for _ in 0..<3 {
                #expect(try await vault.validToken(for: "u1").value.reveal() == "A0")   // stale: served
                await vault.waitUntilNoRefreshRuns()
            }
        }
        #expect(failing.locks.withLock { $0 } == 1)
        #expect(refresher.calls == 0)
        #expect(events.names.filter { $0 == "refresh-failed" }.count == 1)
    }

    /// A review of the vault: a store that keeps refusing writes counted the first failed write of a refreshed token
    /// once; after that back-off passed, each request on the stale token tried the kept token's write again (a write and
    /// a `not-stored` event per request). A failed write of a kept token backs the account off too.
    @Test func aKeptTokenWhoseWriteFailsAgainBacksOff() async throws {
        let faulty = FaultyTokenStore(store)
        let refresher = MockRefresher([.success(RefreshResponse(accessToken: Secret("A1"), refreshToken: Secret("R1"), expiresIn: try ExpiresIn("2592000")))])
        try await running(vault(refresher, store: faulty)) { vault in
            try await vault.store(token(age: 2 * Self.day))
            faulty.fail(.save, times: 100)
            #expect(try await vault.validToken(for: "u1").value.reveal() == "A0")   // stale: served, its refresh behind it
            await vault.waitUntilNoRefreshRuns()
            #expect(events.names.filter { $0 == "not-stored" }.count == 1)
            clock.advance(by: .seconds(31))   // past the first back-off
            for _ in 0..<5 {
                #expect(try await vault.validToken(for: "u1").value.reveal() == "A1")   // served from memory
                await vault.waitUntilNoRefreshRuns()
            }
            // The first request past the back-off tried the write once more, and backed off again.
            #expect(events.names.filter { $0 == "not-stored" }.count == 2, "\(events.names)")
            faulty.faults.heal()
        }
        #expect(refresher.calls == 1)
        #expect(try await store.load("u1")?.token.refreshToken?.reveal() == "R1")   // written at shutdown
    }

    /// A token-vault attacker's read: a refreshed token kept in memory because its write failed was written only by
    /// a later background scan, so a graceful shutdown before it (the store back, then a deploy) lost it, and with it
    /// the carrier's rotated refresh token. The vault writes what it keeps before `run()` returns.
    @Test func aGracefulShutdownWritesTheKeptTokens() async throws {
        let carrier = RotatingCarrier()
        try await afterARefreshWhoseWriteFailed(carrier) { (vault, _) async throws in
            await vault.waitUntilNoRefreshRuns()
            #expect(try await stored() == "A0")
        }
        #expect(try await stored() == "A1")
        #expect(try await store.load("u1")?.token.refreshToken?.reveal() == "R1")
    }

    /// A stale token's refresh whose write failed: callers are served the refreshed token kept in memory (as the
    /// `not-stored` event says), not the stale one still stored, while the store is down.
    @Test func aStaleTokensRefreshThatWasNotWrittenIsServedFromMemory() async throws {
        let faulty = FaultyTokenStore(store)
        let carrier = RotatingCarrier()
        try await running(vault(carrier, store: faulty)) { vault in
            try await vault.store(token(age: 2 * Self.day))
            faulty.fail(.save)
            #expect(try await vault.validToken(for: "u1").value.reveal() == "A0")   // stale: served, refreshed behind
            #expect(await events.wait(for: "not-stored"))
            await vault.waitUntilNoRefreshRuns()
            #expect(try await vault.validToken(for: "u1").value.reveal() == "A1", "the kept token, not the stale stored one")
        }
        #expect(carrier.calls == 1)
    }

    /// A token kept in memory for an account another instance removed (a logout there) is let go by the next
    /// scan, not loaded again every scan for ever.
    @Test func aKeptTokenOfAnAccountRemovedElsewhereIsLetGo() async throws {
        try await afterARefreshWhoseWriteFailed(RotatingCarrier()) { (vault, faulty) async throws in
            await vault.waitUntilNoRefreshRuns()
            try await store.remove("u1", replacing: nil)   // another instance's logout
            let loads = faulty.faults.calls(.load)
            clock.advance(by: .seconds(60))
            await clock.waitForSleepers(1)
            clock.advance(by: .seconds(60))
            await clock.waitForSleepers(1)
            #expect(faulty.faults.calls(.load) - loads == 1, "looked at once, then let go")
            await #expect { try await vault.validToken(for: "u1") } throws: { ($0 as? TokenError)?.kind == .notLoggedIn }
        }
    }

    /// A logout forgets a refreshed token that could not be written, even when its own removal fails: the kept
    /// token is never served after it, nor written later.
    @Test func aLogoutForgetsARefreshedTokenThatWasNotWritten() async throws {
        let faulty = FaultyTokenStore(store)
        let carrier = RotatingCarrier()
        try await running(vault(carrier, store: faulty)) { vault in
            try await vault.store(expired())
            faulty.fail(.save)
            #expect(try await vault.validToken(for: "u1").value.reveal() == "A1")
            faulty.fail(.remove)
            await #expect(throws: TokenError.self) { try await vault.logout("u1") }
            do {
                let after = try await vault.validToken(for: "u1")
                Issue.record("a token was served after the logout: \(after.value.reveal())")
            } catch {
                #expect(error is TokenError)
            }
            await vault.waitUntilNoRefreshRuns()
        }
        #expect(try await stored() != "A1")
    }

    /// A refresh lock another process holds past the store's time-out fails the refresh (one refresh at a time),
    /// and the account then backs off: the next caller hears `backing-off` at once instead of waiting out the
    /// time-out again (a review: each request polled the lock for the whole time-out).
    @Test func aRefreshLockHeldElsewhereFailsOnceThenBacksOff() async throws {
        let refresher = MockRefresher()
        try await TemporaryDirectory.with("onetap-vault-lock") { base in
            let directory = base.appendingPathComponent("store").path   // the store makes it, private to this user
            let files = try FileTokenStore(directory: directory, lockTimeout: .milliseconds(50))
            try await running(vault(refresher, store: files)) { vault in
                try await vault.store(expired())
                let lock = open(directory + "/.locks/" + FileTokenStore.fileName("u1") + ".refresh", O_RDWR | O_CREAT, 0o600)
                #expect(flock(lock, LOCK_EX) == 0)   // another process's refresh holds it
                defer { close(lock) }
                for expected in [TokenError.Kind.storeFailed, .backingOff] {
                    await #expect {
                        try await vault.validToken(for: "u1")
                    } throws: { error in
                        (error as? TokenError)?.kind == expected
                    }
                }
            }
        }
        #expect(refresher.calls == 0)
    }

    // MARK: Another writer

    /// A store whose refresh lock does not span instances (the protocol's default: compare-and-swap alone).
    struct LocklessStore: ForwardingTokenStore {
        let base: any TokenStore
    }

    /// A review of the vault: with two refreshes of one account at once (a store whose lock does not span instances, or a
    /// lease lost), A's carrier rotates R0 into R1 while B's refresh with R0 is refused; B, its token still valid, saves
    /// the very same token again to move its due time. A's write then met a version conflict and its answer was thrown
    /// away for B's write, which changed nothing: the store kept R0, which the carrier had retired, and the account would
    /// have had to log in again at expiry. A's answer is now written over that version.
    @Test(arguments: [true, false])
    func aRotatedAnswerIsWrittenOverAReSaveOfTheTokenItReplaced(usable: Bool) async throws {
        let answer = RefreshResponse(accessToken: Secret("A1"), refreshToken: Secret("R1"), expiresIn: try ExpiresIn(seconds: usable ? 2_592_000 : 30))
        let refresherA = MockRefresher([.success(answer)])
        let refresherB = MockRefresher([.failure(TokenError(.reloginRequired, message: "the refresh token was replaced"))])
        refresherA.hold()
        let lockless = LocklessStore(base: store)
        try await running(vault(refresherA, store: lockless)) { a in
            try await running(vault(refresherB, store: lockless)) { b in
                try await a.store(token(age: 2 * Self.day))
                #expect(try await a.validToken(for: "u1").value.reveal() == "A0")   // stale: served, A's refresh behind it
                await refresherA.waitForCalls(1)
                #expect(try await b.validToken(for: "u1").value.reveal() == "A0")   // B's refresh behind it, refused
                #expect(await events.wait(for: "refresh-failed"))
                await b.waitUntilNoRefreshRuns()
                refresherA.release()
                await a.waitUntilNoRefreshRuns()
            }
        }
        let kept = try #require(try await store.load("u1"))
        #expect(kept.token.refreshToken?.reveal() == "R1")
        #expect(kept.token.value.reveal() == (usable ? "A1" : "A0"))
        #expect(!events.names.contains("refreshed-elsewhere"))
    }

    /// A review of the change above: when the replaced token was saved again before every one of the writes the refresh
    /// makes, running out of writes read as "another writer won", and the carrier's answer was thrown away (the account
    /// told `logged-out`). Running out keeps the answer in memory, as any failed write does, and serves it.
    @Test func aReplacedTokenSavedAgainAtEveryWriteLeavesTheAnswerKeptNotLost() async throws {
        struct ReSavedBeforeEachWrite: ForwardingTokenStore {
            let base: any TokenStore
            func save(_ token: AccessToken, replacing expected: TokenVersion?, dueAt: Date) async throws -> TokenVersion {
                if token.value.reveal() == "A1", let stored = try await base.load(token.account) {
                    _ = try await base.save(stored.token, replacing: stored.version, dueAt: dueAt)   // another instance, first
                }
                return try await base.save(token, replacing: expected, dueAt: dueAt)
            }
        }
        let refresher = MockRefresher([.success(RefreshResponse(accessToken: Secret("A1"), refreshToken: Secret("R1"), expiresIn: try ExpiresIn("2592000")))])
        try await running(vault(refresher, store: ReSavedBeforeEachWrite(base: store))) { vault in
            try await vault.store(expired())
            #expect(try await vault.validToken(for: "u1").value.reveal() == "A1")
        }
        #expect(events.names.contains("not-stored"))
        #expect(!events.names.contains("refreshed-elsewhere"))
    }

    /// An expired token's refresh answered with a token of an hour whose write fails (served from memory); two hours on,
    /// the refresh from that kept token is answered with a token of 30 days, `A2`, which must be served.
    /// - Parameter store: The store under the vault.
    /// - Returns: The refresher, for the tokens it saw.
    func keptTokenRefreshedAgain(on store: some TokenStore) async throws -> MockRefresher {
        let refresher = MockRefresher([
            .success(RefreshResponse(accessToken: Secret("A1"), refreshToken: Secret("R1"), expiresIn: try ExpiresIn(seconds: 3_600))),
            .success(RefreshResponse(accessToken: Secret("A2"), refreshToken: Secret("R2"), expiresIn: try ExpiresIn(seconds: 2_592_000))),
        ])
        try await running(vault(refresher, store: store)) { vault in
            try await vault.store(expired())
            #expect(try await vault.validToken(for: "u1").value.reveal() == "A1")   // served from memory: its write failed
            clock.advance(by: .seconds(7_200))   // A1 expired, past any back-off
            #expect(try await vault.validToken(for: "u1").value.reveal() == "A2")
        }
        return refresher
    }

    /// An attacker's read of the token vault: a refresh from a kept token (its write had landed unseen, so the store held
    /// it at a newer version) whose answer could not be written either was kept over the version the refresh started
    /// from, naming only the older stored token as the one it replaced. The next read found the kept token stored at the
    /// newer version, took it for another writer's, and forgot the answer: the refresh after went out with the rotated
    /// refresh token the carrier had retired, and the account had to log in again. The answer is kept over the kept
    /// token too.
    @Test func anAnswerKeptOverAKeptTokenThatLandedUnseenIsServed() async throws {
        struct Script: ForwardingTokenStore {
            let base: any TokenStore
            let writes = LockedValue([String: Int]())
            func save(_ token: AccessToken, replacing expected: TokenVersion?, dueAt: Date) async throws -> TokenVersion {
                let value = token.value.reveal()
                let write = writes.withLock { counts in counts[value, default: 0] += 1; return counts[value]! }
                switch (value, write) {
                case ("A1", 1): throw StoreError(.io, account: token.account, message: "the database is down (scripted)")
                case ("A1", _):
                    _ = try await base.save(token, replacing: expected, dueAt: dueAt)   // landed, then lost
                    throw StoreError(.io, account: token.account, message: "the connection broke (scripted)")
                case ("A2", 2...): throw StoreError(.io, account: token.account, message: "the database is down again (scripted)")
                default: return try await base.save(token, replacing: expected, dueAt: dueAt)
                }
            }
        }
        let refresher = MockRefresher([
            .success(RefreshResponse(accessToken: Secret("A1"), refreshToken: Secret("R1"), expiresIn: try ExpiresIn(seconds: 3_600))),
            .success(RefreshResponse(accessToken: Secret("A2"), refreshToken: Secret("R2"), expiresIn: try ExpiresIn(seconds: 2_592_000))),
            .failure(TokenError(.reloginRequired, message: "the refresh token was refused")),
        ])
        try await running(vault(refresher, store: Script(base: store))) { vault in
            try await vault.store(expired())
            #expect(try await vault.validToken(for: "u1").value.reveal() == "A1")   // kept in memory: its write failed
            clock.advance(by: .seconds(7_200))   // A1 expired, past any back-off
            // A1's write lands unseen; the refresh from it answers A2, whose write (over A1's version) fails: kept.
            #expect(try await vault.validToken(for: "u1").value.reveal() == "A2")
            #expect(try await store.load("u1")?.token.value.reveal() == "A1")
            #expect(try await vault.validToken(for: "u1").value.reveal() == "A2", "the answer is still served, never forgotten")
        }
        #expect(refresher.tokensSeen.map { $0.refreshToken?.reveal() } == ["R0", "R1"], "no refresh with the retired R1")
    }

    /// The review's second finding: a refresh that goes on from a kept token (refreshed earlier, its write failed, now
    /// expired) wrote its answer over the stored token's version while naming the kept token as the one it replaced,
    /// so a re-save of the stored token since (another instance moving its due time) was not recognised: the carrier's
    /// answer, with its rotated refresh token, was thrown away for the retired one. The answer is written over it.
    @Test func aRefreshFromAKeptTokenIsWrittenOverAReSaveOfTheStoredToken() async throws {
        struct KeptWriteFailsThenReSaved: ForwardingTokenStore {
            let base: any TokenStore
            let reSaved = LockedValue(false)
            func save(_ token: AccessToken, replacing expected: TokenVersion?, dueAt: Date) async throws -> TokenVersion {
                if token.value.reveal() == "A1" { throw StoreError(.io, account: token.account, message: "the database is down (scripted)") }
                if token.value.reveal() == "A2", reSaved.withLock({ done in defer { done = true }; return !done }), let stored = try await base.load(token.account) {
                    _ = try await base.save(stored.token, replacing: stored.version, dueAt: dueAt)   // another instance, first
                }
                return try await base.save(token, replacing: expected, dueAt: dueAt)
            }
        }
        let refresher = try await keptTokenRefreshedAgain(on: KeptWriteFailsThenReSaved(base: store))
        let kept = try #require(try await store.load("u1"))
        #expect(kept.token.value.reveal() == "A2")
        #expect(kept.token.refreshToken?.reveal() == "R2")
        #expect(refresher.tokensSeen.map { $0.refreshToken?.reveal() } == ["R0", "R1"], "the second refresh carried the kept token's")
    }

    /// A review of the fix above: a refresh from a kept token that the carrier refuses must be judged on the kept token
    /// (expired: the account logs in again), not on the older stored one, which may still have weeks to run but whose
    /// access token the carrier replaced. The stored token here is 2 days old (stale, 28 days left); the answer lived
    /// an hour and could not be written.
    @Test func aRefusedRefreshFromAKeptTokenIsJudgedOnTheKeptToken() async throws {
        struct KeptWriteFails: ForwardingTokenStore {
            let base: any TokenStore
            func save(_ token: AccessToken, replacing expected: TokenVersion?, dueAt: Date) async throws -> TokenVersion {
                if token.value.reveal() == "A1" { throw StoreError(.io, account: token.account, message: "the database is down (scripted)") }
                return try await base.save(token, replacing: expected, dueAt: dueAt)
            }
        }
        let refresher = MockRefresher([
            .success(RefreshResponse(accessToken: Secret("A1"), refreshToken: Secret("R1"), expiresIn: try ExpiresIn(seconds: 3_600))),
            .failure(TokenError(.reloginRequired, message: "the refresh token was refused")),
        ])
        try await running(vault(refresher, store: KeptWriteFails(base: store))) { vault in
            try await vault.store(token(age: 2 * Self.day))
            #expect(try await vault.validToken(for: "u1").value.reveal() == "A0")   // stale: served, its refresh behind it
            await vault.waitUntilNoRefreshRuns()
            #expect(try await vault.validToken(for: "u1").value.reveal() == "A1")   // kept in memory: its write failed
            clock.advance(by: .seconds(7_200))   // A1 expired, past any back-off; A0 has weeks left
            // The stored token, stale, is served while its refresh runs behind (as before the fix); the refresh, from
            // the kept token, is refused.
            #expect(try await vault.validToken(for: "u1").value.reveal() == "A0")
            await vault.waitUntilNoRefreshRuns()
            #expect(events.names.contains("relogin-required"), "\(events.names)")
            await #expect {
                try await vault.validToken(for: "u1")
            } throws: { error in
                (error as? TokenError)?.kind == .notLoggedIn
            }
        }
        #expect(try await store.load("u1") == nil)
        #expect(refresher.tokensSeen.map { $0.refreshToken?.reveal() } == ["R0", "R1"])
    }

    /// A review of the fix: a kept token's write whose outcome was unknown (it landed, then the store threw) left the
    /// kept token stored; the refresh from it then met a version conflict, found that kept token stored where it
    /// expected the older one, and threw the carrier's answer away (`logged-out`). The kept token counts as replaced too.
    @Test func aKeptWriteThatLandedUnseenIsReplacedByTheAnswer() async throws {
        struct KeptWriteLandsThenThrows: ForwardingTokenStore {
            let base: any TokenStore
            let writes = LockedValue(0)
            func save(_ token: AccessToken, replacing expected: TokenVersion?, dueAt: Date) async throws -> TokenVersion {
                if token.value.reveal() == "A1" {
                    let write = writes.withLock { count in count += 1; return count }
                    if write >= 2 { _ = try await base.save(token, replacing: expected, dueAt: dueAt) }   // landed, then lost
                    throw StoreError(.io, account: token.account, message: "the connection broke (scripted)")
                }
                return try await base.save(token, replacing: expected, dueAt: dueAt)
            }
        }
        _ = try await keptTokenRefreshedAgain(on: KeptWriteLandsThenThrows(base: store))
        #expect(try await store.load("u1")?.token.refreshToken?.reveal() == "R2")
    }

    /// A store whose write of `A1` fails and which another instance saves the stored token again on, before the first
    /// removal only or before every one.
    struct KeptWriteFailsAndReSavedBeforeRemoval: ForwardingTokenStore {
        let base: any TokenStore
        let everyTime: Bool
        let reSaved = LockedValue(false)
        func save(_ token: AccessToken, replacing expected: TokenVersion?, dueAt: Date) async throws -> TokenVersion {
            if token.value.reveal() == "A1" { throw StoreError(.io, account: token.account, message: "the database is down (scripted)") }
            return try await base.save(token, replacing: expected, dueAt: dueAt)
        }
        func remove(_ account: AccountID, replacing expected: TokenVersion?) async throws -> Bool {
            let first = reSaved.withLock { done in defer { done = true }; return !done }
            if first || everyTime, let stored = try await base.load(account) {
                _ = try await base.save(stored.token, replacing: stored.version, dueAt: Date.distantFuture)   // another instance, first
            }
            return try await base.remove(account, replacing: expected)
        }
    }

    /// A stale token's refresh answered with a token of an hour whose write fails; two hours on, the stored token (stale,
    /// weeks left) is served while a refresh from the kept one runs behind, and the carrier refuses it.
    /// - Parameters:
    ///   - store: The store under the vault.
    ///   - after: What to check before the vault stops.
    /// - Returns: The refresher, for the tokens it saw.
    func keptTokensRefreshRefused(on store: some TokenStore, after: @escaping @Sendable (TokenVault) async throws -> Void) async throws -> MockRefresher {
        let refresher = MockRefresher([
            .success(RefreshResponse(accessToken: Secret("A1"), refreshToken: Secret("R1"), expiresIn: try ExpiresIn(seconds: 3_600))),
            .failure(TokenError(.reloginRequired, message: "the refresh token was refused")),
        ])
        try await running(vault(refresher, store: store)) { vault in
            try await vault.store(token(age: 2 * Self.day))
            #expect(try await vault.validToken(for: "u1").value.reveal() == "A0")
            await vault.waitUntilNoRefreshRuns()
            clock.advance(by: .seconds(7_200))
            #expect(try await vault.validToken(for: "u1").value.reveal() == "A0")   // stale, served while its refresh runs behind
            await vault.waitUntilNoRefreshRuns()
            try await after(vault)
        }
        return refresher
    }

    /// A review of the fix: the carrier refused the kept token's refresh token while another instance saved the stored
    /// token again; the removal met a version conflict and served that stored token, whose access token the carrier had
    /// replaced, with no back-off. A re-save of the refused token is no replacement: the removal is made over it.
    @Test func aRefusedKeptTokenIsRemovedOverAReSaveOfTheStoredToken() async throws {
        _ = try await keptTokensRefreshRefused(on: KeptWriteFailsAndReSavedBeforeRemoval(base: store, everyTime: false)) { _ in
            #expect(events.names.contains("relogin-required"), "\(events.names)")
        }
        #expect(try await store.load("u1") == nil)
    }

    /// The same, with the stored token saved again before every removal: it stays stored, and the account backs off
    /// (a review: the back-off was cleared, so the next request sent the refused refresh token again at once).
    @Test func aRefusedTokenSavedAgainAtEveryRemovalBacksOff() async throws {
        let refresher = try await keptTokensRefreshRefused(on: KeptWriteFailsAndReSavedBeforeRemoval(base: store, everyTime: true)) { vault async throws in
            #expect(events.names.contains("refresh-failed"), "\(events.names)")
            #expect(try await vault.validToken(for: "u1").value.reveal() == "A0")   // backing off: no refresh behind it
            await vault.waitUntilNoRefreshRuns()
        }
        #expect(refresher.tokensSeen.map { $0.refreshToken?.reveal() } == ["R0", "R1"])
        #expect(try await store.load("u1")?.token.value.reveal() == "A0")
    }

    /// An attacker's read of the vault: when the carrier refused the refresh of an expired token and another instance
    /// had stored another expired token meanwhile (its kept token, with the refresh token the carrier took last), the
    /// callers were told to log in again, with `relogin-required`, though that token's refresh would succeed. Its
    /// refresh decides: the callers hear `refresh-failed`, to try again at once.
    @Test func anotherWritersExpiredTokenAfterARefusalIsNoLoginAgain() async throws {
        struct AnotherInstanceWritesFirst: ForwardingTokenStore {
            let base: any TokenStore
            let theirs: AccessToken
            func remove(_ account: AccountID, replacing expected: TokenVersion?) async throws -> Bool {
                if let stored = try await base.load(account), stored.token.value.reveal() == "A0" {
                    _ = try await base.save(theirs, replacing: stored.version, dueAt: Date(timeIntervalSince1970: 0))
                }
                return try await base.remove(account, replacing: expected)
            }
        }
        let refresher = MockRefresher([.failure(TokenError(.reloginRequired, message: "the refresh token was refused"))])
        let theirs = token(age: 30 * Self.day - 30, refresh: "R-THEIRS", value: "THEIRS")
        try await running(vault(refresher, store: AnotherInstanceWritesFirst(base: store, theirs: theirs))) { vault in
            try await vault.store(expired())
            await #expect { try await vault.validToken(for: "u1") } throws: { error in
                guard let error = error as? TokenError, error.kind == .refreshFailed else { return false }
                return error.retryAt == clock.now()
            }
            #expect(try await stored() == "THEIRS")
            #expect(try await vault.validToken(for: "u1").value.reveal() == "refreshed-2")   // its refresh succeeds
        }
        #expect(refresher.tokensSeen.map { $0.refreshToken?.reveal() } == ["R0", "R-THEIRS"])
        #expect(!events.names.contains("relogin-required") && events.names.contains("refresh-failed"), "\(events.names)")
    }

    @Test func anotherInstanceWinningTheWriteIsUsedNotRefreshedAgain() async throws {
        // Two vaults (two server instances) over one store whose refresh lock does not span them.
        let refresherA = MockRefresher([.success(RefreshResponse(accessToken: Secret("from-A")))])
        let refresherB = MockRefresher([.success(RefreshResponse(accessToken: Secret("from-B")))])
        refresherA.hold()
        let lockless = LocklessStore(base: store)
        try await running(vault(refresherA, store: lockless)) { a in
            try await running(vault(refresherB, store: lockless)) { b in
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

    /// A store that reports a conflict while it still holds the version written over (a custom adapter that reads a
    /// lagging replica after the conflict) broke its promise; it did not lose a race. The answer was dropped as another
    /// writer's win (`refreshed-elsewhere`), and with it the refresh token the carrier had rotated to: the next refresh
    /// sent the retired one and the account had to log in again (an attacker's read of the vault). It is kept as after
    /// a failed write, and the store is not asked again with the retired refresh token.
    /// `lag`: how many versions behind the store reads back after the conflict (1: a replica a re-save of the same token
    /// did not reach yet; the review of that fix found an older version still dropped the answer).
    @Test(arguments: [0, 1])
    func aStoreReportingAConflictOverAnUnchangedVersionKeepsTheAnswer(lag: UInt64) async throws {
        /// Reports a conflict at the first refreshed token's save, then reads back the stored token `lag` versions behind.
        struct Lagging: ForwardingTokenStore {
            let base: any TokenStore
            let lag: UInt64
            let lagging = LockedValue(false)
            let conflicted = LockedValue(false)
            func save(_ token: AccessToken, replacing expected: TokenVersion?, dueAt: Date) async throws -> TokenVersion {
                if token.value.reveal() == "A1", conflicted.withLock({ done in defer { done = true }; return !done }) {
                    lagging.withLock { $0 = true }
                    throw StoreError(.conflict, account: token.account, message: "injected conflict")
                }
                return try await base.save(token, replacing: expected, dueAt: dueAt)
            }
            func load(_ account: AccountID) async throws -> StoredToken? {
                guard let stored = try await base.load(account), lagging.withLock({ lagging in defer { lagging = false }; return lagging }) else {
                    return try await base.load(account)
                }
                return StoredToken(token: stored.token, version: TokenVersion(stored.version.value - lag))
            }
        }
        let carrier = RotatingCarrier()
        let background = TokenVault.Background(scanInterval: .seconds(60), concurrentRefreshes: 8, lateAnswerLimit: .seconds(300))
        try await running(vault(carrier, store: Lagging(base: store, lag: lag), background: background)) { vault in
            _ = try await store.save(expired(), replacing: nil, dueAt: clock.now())
            _ = try await store.save(expired(), replacing: try await store.load("u1")?.version, dueAt: clock.now())   // version 2
            #expect(try await vault.validToken(for: "u1").value.reveal() == "A1")
            #expect(events.names.contains("not-stored"), "\(events.names)")
            await vault.waitUntilNoRefreshRuns()
            clock.advance(by: .seconds(60))   // the next scan writes it
            #expect(await events.wait(for: "refreshed"))
            #expect(try await store.load("u1")?.token.refreshToken?.reveal() == "R1")
        }
        #expect(carrier.calls == 1)
        #expect(!events.names.contains("refreshed-elsewhere") && !events.names.contains("relogin-required"), "\(events.names)")
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
        let refresher = MockRefresher([.failure(TokenError(.reloginRequired, message: "revoked"))])
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

    /// Another instance's logout and new login win over a late refresh of the old session, whatever the login token's
    /// age (the review of the fix that writes a usable answer over another writer's expired token: it wrote the late
    /// refresh over a new login's token that happened to be expired when stored).
    @Test(arguments: [(0, nil, "R0"), (31 * TokenVaultTests.day, "R-OLD", "R-LOGIN")] as [(Double, String?, String)])
    func anotherInstancesLogoutAndNewLoginWinOverALateRefresh(loginAge: Double, answerRefresh: String?, loginRefresh: String) async throws {
        let refresherA = MockRefresher([.success(RefreshResponse(accessToken: Secret("OLD-SESSION-REFRESHED"), refreshToken: answerRefresh.map(Secret.init)))])
        refresherA.hold()
        try await running(vault(refresherA)) { a in
            let b = vault(MockRefresher())
            try await a.store(expired())
            let first = Task { try await a.validToken(for: "u1") }
            await refresherA.waitForCalls(1)
            try await b.logout("u1")
            try await b.store(token(age: loginAge, refresh: loginRefresh, value: "NEW-LOGIN"))
            refresherA.release()
            let answer = await first.result
            // A's write conflicted: the new login's token, while it is usable.
            if loginAge == 0 { #expect(try answer.get().value.reveal() == "NEW-LOGIN") }
        }
        #expect(try await stored() == "NEW-LOGIN")
        #expect(try await store.load("u1")?.token.refreshToken?.reveal() == loginRefresh)
    }

    /// The same review, in one instance: a login storing an expired token while a refresh runs supersedes the refresh,
    /// whose answer must not be written over it.
    @Test func aLoginsExpiredTokenIsNotOverwrittenByTheRefreshItSuperseded() async throws {
        try await whileAnExpiredTokensRefreshIsHeld { vault, _, _ in
            try await vault.store(token(age: 31 * Self.day, refresh: "R-LOGIN", value: "LOGIN"))
        }
        #expect(try await store.load("u1")?.token.refreshToken?.reveal() == "R-LOGIN")
        // A refresh a login superseded counts nothing (the review of the mend: it told `refresh-failed`).
        #expect(!events.names.contains("refresh-failed"), "\(events.names)")
    }

    // MARK: Secrets

    @Test func refresherErrorsNeverQuoteTheTokens() async throws {
        struct Leaky: Error, CustomStringConvertible {
            var description: String { "GET https://open.e.189.cn/api/oauth2/refreshToken.do?refreshToken=RT-SECRET-9&accessToken=AT-SECRET-9 failed" }
        }
        let refresher = MockRefresher([.failure(Leaky())])
        try await running(vault(refresher)) { vault in
            try await vault.store(token(age: 2 * Self.day, refresh: "RT-SECRET-9", value: "AT-SECRET-9"))
            _ = try await vault.validToken(for: "u1")
            #expect(await events.wait(for: "refresh-failed"))
        }
        guard case .refreshFailed(_, let message, _, _) = events.tokenEvents.last else { Issue.record("no refresh-failed"); return }
        #expect(!message.contains("RT-SECRET-9") && !message.contains("AT-SECRET-9"))
    }

    @Test func eventsNeverCarryTokens() async throws {
        let refresher = MockRefresher([.failure(TokenError(.refreshFailed, message: "503"))])
        try await running(vault(refresher)) { vault in
            try await vault.store(token(age: 2 * Self.day, refresh: "RT-SECRET", value: "AT-SECRET"))
            _ = try await vault.validToken(for: "u1")
            #expect(await events.wait(for: "refresh-failed"))
            clock.advance(by: .seconds(31))
            _ = try await vault.validToken(for: "u1")
            #expect(await events.wait(for: "refreshed"))
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
}

/// A token store that hands every call to `base`: a test's store overrides only what it scripts (and, not declaring
/// `withRefreshLock`, has the protocol's default lock: compare-and-swap alone).
protocol ForwardingTokenStore: TokenStore {
    var base: any TokenStore { get }
}

extension ForwardingTokenStore {
    func load(_ account: AccountID) async throws -> StoredToken? { try await base.load(account) }
    func save(_ token: AccessToken, replacing expected: TokenVersion?, dueAt: Date) async throws -> TokenVersion {
        try await base.save(token, replacing: expected, dueAt: dueAt)
    }
    func remove(_ account: AccountID, replacing expected: TokenVersion?) async throws -> Bool { try await base.remove(account, replacing: expected) }
    func accounts(dueBefore instant: Date, limit: Int) async throws -> [AccountID] { try await base.accounts(dueBefore: instant, limit: limit) }
}
