/// Keeps carrier access tokens usable for many accounts at once: the auth server's token manager.
///
/// - ``validToken(for:)`` never makes a request wait while a usable token exists: a fresh token is
///   returned as it is; a **stale** one is returned at once while one refresh runs in the background;
///   only an **expired** one makes the caller wait for the refresh, at most ``refreshTimeout``. It never
///   hands out an expired token, not even beside an error.
/// - **Single flight per account**: concurrent callers share one refresh call. Cancelling a caller
///   cancels neither the refresh nor the others. Accounts never wait on each other.
/// - **Structured**: refreshes run inside ``run()``, which lives until its task is cancelled or
///   ``shutdown()`` is called (the shape of swift-service-lifecycle's `Service`), and which also
///   refreshes due accounts in the background (``Background``). A vault that is not running still serves
///   fresh and stale tokens; an expired one then fails with `not-running`.
/// - A transient refresh failure keeps the stored token, serves it while it is usable, and backs off
///   (capped exponential, with jitter). A final one (the carrier refused the refresh token) removes an
///   expired token: the user must log in again. A token that still has time is served until it expires,
///   when the refresh is tried once more (a refusal for a reason that passes, or a refresh token the carrier
///   left empty, costs no login before then). An answer whose token would already be expired (its `expiresIn`
///   within the policy's skew margin) is a failed refresh; a short one is served until it expires.
/// - **Rotation**: the new access token and the new refresh token (or the old one when the answer has
///   none) are written in one compare-and-swap before any caller sees them. When another instance
///   sharing the store refreshed first, its token is used instead of refreshing again.
/// - An answer that arrives after ``refreshTimeout`` (the callers already got their answer) is still
///   stored if nothing replaced the token meanwhile: the carrier may have rotated the refresh token.
///   For the same reason a refreshed token the store fails to write is never thrown away: it is served,
///   kept in the vault's memory, and written at the account's next refresh before any carrier call.
/// - **Logout wins**: a refresh that finishes after ``logout(_:)`` does not bring credentials back.
public actor TokenVault {
    // The vault composes its parts, each in a file of its own: `VaultLifecycle` (idle, running,
    // stopping, stopped, and the queue `run()` drains), `SingleFlight` and `RefreshFlight` (one refresh
    // per account and the callers waiting for it), `RefreshDeadline` (the time limit and late answers),
    // `TokenRefresh` (what one refresh does, and in which order it writes and emits),
    // `RefreshFailures` with `RefreshBackoff` (the back-off book), and `BackgroundRefreshes` (the
    // scan for due accounts). Every mutable part is a value this actor owns, so each check-then-act below
    // is one step on the actor; the fresh path reads the store without entering the actor at all (and,
    // on the in-memory store, without suspending, judged under the store's lock with only the token copied
    // out: `InMemoryTokenStore.freshToken`).
    //
    // What `validToken(for:)` does with the stored token's state:
    // - **fresh**: returned, without the actor.
    // - **stale**: returned; on the actor, a refresh starts unless one runs or the account is backing off.
    // - **expired**, on the actor, the first that applies: a refresh under way → wait for it; no refresh
    //   token → removed (`relogin-required`); backing off → `backing-off`; the last refresh's late answer
    //   still pending → `refresh-failed`; the vault stopping or stopped → `not-running`; else a refresh
    //   starts and the caller waits for it (at most `refreshTimeout` while the vault has not started).

    /// Where the tokens live.
    package nonisolated let store: any TokenStore
    /// The store itself when it is the in-memory one, read without suspending: the store is still read
    /// on every call (a write by another vault sharing it is seen at once), with no hop off the
    /// caller's executor.
    private nonisolated let memory: InMemoryTokenStore?
    /// When tokens turn stale and expire.
    package nonisolated let policy: TokenPolicy
    /// The limit on one refresh call, and so on a caller's wait for an expired token; nil for none.
    package nonisolated let refreshTimeout: Duration?
    let clock: any WallClock
    /// What one refresh does.
    let refresh: TokenRefresh
    /// The limits on each refresh call.
    let deadline: RefreshDeadline
    /// The background scan.
    let background: BackgroundRefreshes
    /// Wakes `run()` (and ``waitUntilNoRefreshRuns()``) to re-check whether refreshes are done.
    let drained = ConditionSignal()

    var lifecycle = VaultLifecycle()
    var flights = SingleFlight()
    var failures: RefreshFailures
    /// Refreshed tokens whose write failed, until a write lands.
    var unsaved = UnsavedTokens()
    /// Refresh calls running now (from the start of a flight's run to its end, late answers included).
    private var running = 0
    /// Refreshes queued for `run()` that have not started to run.
    private var queued = 0

    /// Creates a vault.
    /// - Parameters:
    ///   - store: Where tokens live; in memory by default.
    ///   - refresher: The carrier refresh call.
    ///   - policy: When tokens turn stale and expire.
    ///   - clock: The time source; the system clock by default.
    ///   - backoff: The back-off after transient refresh failures.
    ///   - refreshTimeout: The limit on one refresh call; 30 seconds (nil for none). A refresh that takes
    ///     longer counts as a transient failure for its callers. Before ``run()`` starts, a caller waits this
    ///     long (30 seconds when nil) for it, then hears `not-running`.
    ///   - background: How due accounts are refreshed while ``run()`` runs.
    ///   - events: Receives the token events (area `token`); standard error by default.
    public init(
        store: any TokenStore = InMemoryStores.newTokenStore(), refresher: any TokenRefresher, policy: TokenPolicy = TokenPolicy(),
        clock: any WallClock = SystemClock(), backoff: RefreshBackoff = RefreshBackoff(), refreshTimeout: Duration? = .seconds(30),
        background: Background = Background(), events: any EventSink = StandardErrorEventSink.shared
    ) {
        self.store = store
        memory = store as? InMemoryTokenStore
        self.policy = policy
        self.refreshTimeout = refreshTimeout
        self.clock = clock
        refresh = TokenRefresh(store: store, refresher: refresher, policy: policy, clock: clock, events: events)
        deadline = RefreshDeadline(limit: refreshTimeout, lateAnswerLimit: background.lateAnswerLimit, clock: clock)
        self.background = BackgroundRefreshes(background)
        failures = RefreshFailures(backoff: backoff)
    }

    // MARK: Running

    /// Runs the vault's refreshes until the calling task is cancelled or ``shutdown()`` is called: the
    /// refreshes callers started (also those asked for before `run()` began), and every
    /// ``Background/scanInterval`` a look for due accounts, which it refreshes (at most
    /// ``Background/concurrentRefreshes`` at once).
    ///
    /// After ``shutdown()`` no refresh starts; the ones under way finish (each within
    /// ``refreshTimeout``), their callers get their answers, and a refresh call still running after its
    /// callers' time limit is waited for (within ``Background/lateAnswerLimit``, and its answer stored), then
    /// `run()` returns. When the task is
    /// cancelled instead, refreshes under way are cancelled and their callers get `not-running`.
    ///
    /// Before it returns from a shutdown, it writes the refreshed tokens it kept in memory because their writes
    /// failed (a carrier's rotated refresh token may be the only one it still takes), stopping at the first the
    /// store fails to read or write; it emits `not-stored` for each it could not write (a cancelled run writes none).
    ///
    /// A `run()` that starts after ``shutdown()`` (a service group stopping while its task was still
    /// starting) returns at once.
    /// - Throws: ``TokenError`` of kind `already-running` when the vault is running or has run.
    public func run() async throws {
        guard try lifecycle.startRunning() else { return }  // `shutdown()` came first: nothing to run
        let queue = lifecycle.queue
        await withDiscardingTaskGroup { group in
            group.addTask { await self.background.scanUntilStopped(self) }
            for await flight in queue {
                group.addTask { await self.fly(flight) }
            }
            // Shut down (or cancelled): let the refreshes callers wait for finish, then stop the rest.
            await self.drained.wait(until: { await self.flights.unresolvedCount == 0 })
            // Shut down: late answers too (each ends within the late-answer limit): a carrier's answer after the
            // callers' time limit may carry a rotated refresh token, the only one the carrier still takes.
            await self.drained.wait(until: { await self.running == 0 })
            group.cancelAll()
        }
        // A refreshed token whose write failed lives only in memory until a scan writes it: write it now (the
        // store may be back; not when cancelled, whose store calls would be too, and stopping at the store's first
        // failure, so a store still down does not hold the shutdown), and say which are lost with this process.
        if !Task.isCancelled { await refresh.writeKeptTokens(in: self, stoppingAtAFailure: true) }
        for account in unsaved.accounts {
            refresh.emit(.notStored(account: account, message: "the vault stopped before the refreshed token could be written: it is lost"))
        }
        lifecycle.stopped()
        flights.resolveAll(TokenError(.notRunning, account: nil, message: "the vault stopped before the refresh finished"))
        drained.check()  // a test waiting for no refresh to run or wait: none will now
    }

    /// Stops the vault gracefully: no refresh starts from now on, the ones under way finish, and
    /// ``run()`` returns once their callers have their answers.
    public func shutdown() {
        switch lifecycle.shutdown() {
        case .answerQueued:
            flights.resolveAll(TokenError(.notRunning, account: nil, message: "the vault was shut down before it ran"))
        case .drain:
            drained.check()
        case .nothing:
            break
        }
    }

    /// Returns once no refresh call runs or waits to run: every one started (a stale token's refresh behind its
    /// caller included, queued before the caller's answer) has answered or been abandoned, its time limit included.
    /// Lets a test wait for the refreshes instead of guessing. Queued refreshes count only while the vault runs (before
    /// `run()` none runs; once it has stopped none will).
    package func waitUntilNoRefreshRuns() async {
        await drained.wait(until: { await self.noRefreshRunsOrWaits })
    }

    private var noRefreshRunsOrWaits: Bool { running == 0 && (queued == 0 || lifecycle.isIdle || lifecycle.phase == .stopped) }

    // MARK: Reading

    /// The state of an account's stored token now, or nil when none is stored (the package's tests and
    /// tools; a caller asks ``validToken(for:)``, which refreshes what needs it).
    /// - Parameter account: The account.
    /// - Returns: fresh, stale, expired, or nil.
    /// - Throws: ``TokenError`` of kind `store-failed`.
    package nonisolated(nonsending) func state(for account: AccountID) async throws -> TokenState? {
        try await refresh.load(account).map { policy.state(of: $0.token, at: clock.now()) }
    }

    /// Returns a usable token for an account.
    ///
    /// Fresh: the token. Stale: the token at once, and a refresh starts in the background (or the running
    /// one is left to finish). Expired: waits for the refresh, at most ``refreshTimeout``.
    /// - Parameter account: The account.
    /// - Returns: A token that is not expired.
    /// - Throws: ``TokenError``: `not-logged-in`, `relogin-required`, `refresh-failed` (expired and the
    ///   refresh failed transiently, or refused while another writer stored a token, or another writer stored an
    ///   expired token meanwhile: try again at its `retryAt`),
    ///   `backing-off`, `logged-out`, `store-failed`, `not-running` (expired and the vault is not running);
    ///   `CancellationError` when the caller is cancelled while waiting.
    public nonisolated(nonsending) func validToken(for account: AccountID) async throws -> AccessToken {
        let loaded: StoredToken?
        if let memory {
            // The common case in one step: a fresh token, judged where it is stored.
            if let fresh = memory.freshToken(account, at: clock.now(), policy: policy) { return fresh }
            loaded = memory.loadNow(account)
        } else {
            loaded = try await refresh.load(account)
        }
        guard let stored = loaded else {
            throw TokenError(.notLoggedIn, account: account, message: "no token is stored; log in")
        }
        let now = clock.now()
        switch policy.state(of: stored.token, at: now) {
        case .fresh:
            return stored.token
        case .stale:
            return await staleAnswer(account, stored, at: now)
        case .expired:
            switch try await admitExpired(account, stored, at: now) {
            case .token(let token):
                return token
            case .wait(let flight, nil):
                return try await flight.answer()
            case .wait(let flight, let limit?):
                guard let token = try await flight.answer(within: limit, on: clock) else {
                    throw TokenError(
                        .notRunning, account: nil,
                        message: "the token expired and the vault did not start within \(limit.seconds) s to refresh it (call run())")
                }
                return token
            }
        }
    }

    /// Accounts whose tokens go stale or expire before an instant, soonest first. Reads the store's
    /// index; does not scan every account.
    /// - Parameters:
    ///   - instant: The instant.
    ///   - limit: The most accounts to return.
    /// - Returns: The accounts.
    /// - Throws: ``TokenError`` of kind `store-failed` (with no account).
    package nonisolated func accountsDue(before instant: Date, limit: Int = 1000) async throws -> [AccountID] {
        do {
            return try await store.accounts(dueBefore: instant, limit: limit)
        } catch {
            throw TokenRefresh.storeFailure(nil, error)
        }
    }

    // MARK: Starting and running refreshes

    /// What a caller on a stale token gets: a refreshed token kept in memory after its write failed (newer,
    /// and its refresh token the latest) while it is usable, else the stale one; either way a refresh starts
    /// behind the caller unless one runs or the account backs off.
    private func staleAnswer(_ account: AccountID, _ stored: StoredToken, at now: Date) -> AccessToken {
        refreshBehind(account, stored, at: now)
        if let kept = unsaved.token(for: account, over: stored), policy.state(of: kept, at: now) != .expired { return kept }
        return stored.token
    }

    /// A stale token was served: refresh it behind the caller, unless a refresh runs or it backs off.
    private func refreshBehind(_ account: AccountID, _ stored: StoredToken, at now: Date) {
        if flights.flight(for: account) == nil, !failures.isBackingOff(account, at: now) {
            _ = startRefresh(account, from: stored, background: false)
        }
    }

    /// What a caller on an expired token gets: a token at once, or a flight to wait on (and the limit on
    /// its wait while the vault has not started).
    private enum ExpiredAnswer {
        case token(AccessToken)
        case wait(RefreshFlight, limit: Duration?)
    }

    /// The expired path's decision, in one step on the actor (see the type's comment).
    private func admitExpired(_ account: AccountID, _ stored: StoredToken, at now: Date) async throws -> ExpiredAnswer {
        if let kept = unsaved.token(for: account, over: stored), policy.state(of: kept, at: now) != .expired {
            // A refresh's token the store failed to write: served, and written by the next refresh.
            refreshBehind(account, stored, at: now)
            return .token(kept)
        }
        if let flight = flights.flight(for: account), !flight.isResolved {
            return .wait(flight, limit: waitLimit)
        }
        guard stored.token.refreshToken != nil else {
            return .token(try await refresh.requireRelogin(account, stored, message: "the token expired and there is no refresh token", in: self))
        }
        if let failure = failures.backingOff(account, at: now) {
            throw TokenError(
                .backingOff, account: account, message: "the token expired and refreshing is backing off after \(failure.attempts) failure(s)",
                retryAt: failure.retryAt)
        }
        guard flights.flight(for: account) == nil else {
            throw TokenError(
                .refreshFailed, account: account, message: "the token expired and its last refresh is still waiting for a late answer",
                retryAt: now.addingTimeInterval(failures.backoff.base.seconds))
        }
        guard let flight = startRefresh(account, from: stored, background: false) else {
            throw TokenError(.notRunning, account: account, message: "the token expired and must be refreshed, but the vault has stopped")
        }
        return .wait(flight, limit: waitLimit)
    }

    /// While the vault has not started, a caller bounds its own wait by ``refreshTimeout``, 30 seconds when
    /// that is nil (a running vault bounds each refresh itself, or not at all), so a vault that is never run
    /// answers `not-running`, not never.
    private var waitLimit: Duration? { lifecycle.isIdle ? refreshTimeout ?? .seconds(30) : nil }

    /// Starts a refresh: queues it for `run()`.
    /// - Returns: The flight, or nil when the vault is stopping or stopped (or, for a background
    ///   refresh, when enough run already).
    func startRefresh(_ account: AccountID, from stored: StoredToken, background: Bool) -> RefreshFlight? {
        guard lifecycle.startsRefreshes else { return nil }
        if background, flights.backgroundUnderWay >= self.background.settings.concurrentRefreshes { return nil }
        let flight = flights.begin(account, from: stored, background: background)
        if lifecycle.enqueue(flight) { queued += 1 }
        return flight
    }

    /// Runs one refresh under its time limits, then ends its flight.
    private func fly(_ flight: RefreshFlight) async {
        queued -= 1
        running += 1
        let ending = await deadline.run {
            await self.answer(flight)
        } atLimit: {
            await self.timedOut(flight)
        }
        flights.releaseBackgroundSlot(of: flight)
        if !flight.isResolved {
            flight.resolve(.failure(TokenError(.notRunning, account: flight.account, message: "the vault stopped before the refresh finished")))
        }
        flights.end(flight)
        running -= 1
        if ending == .abandoned, let limit = refreshTimeout {
            refresh.emit(.refreshAbandoned(account: flight.account, after: limit + deadline.lateAnswerLimit))
        }
        drained.check()
    }

    /// The refresh call ended: its callers get its answer (unless the time limit answered them), and
    /// the account may refresh again. A flight that timed out kept its place until now, so one account
    /// never has two refresh calls at once.
    private func answer(_ flight: RefreshFlight) async {
        let result = await refresh.answer(for: flight, in: self)
        flight.resolve(result)
        flights.releaseBackgroundSlot(of: flight)
        flights.end(flight)
        drained.check()
    }

    /// The time limit passed with no answer: the callers get `logged-out` after a logout, the token a login stored
    /// meanwhile while it is usable, else the stored token if it is still usable, else `refresh-failed`
    /// (``TokenRefresh/answerAtLimit(for:after:in:)``); the refresh goes on, and a late answer is still stored.
    private func timedOut(_ flight: RefreshFlight) {
        guard !flight.isResolved, let limit = refreshTimeout else { return }
        flight.markTimedOut()
        flights.releaseBackgroundSlot(of: flight)
        flight.resolve(refresh.answerAtLimit(for: flight, after: limit, in: self))
        drained.check()
    }
}
