#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
///   (capped exponential, with jitter). A final one (the carrier refused the refresh token) removes the
///   token: the user must log in again. An answer whose token would already be expired (its `expiresIn`
///   within the policy's skew margin) is a failed refresh; a short one is served until it expires.
/// - **Rotation**: the new access token and the new refresh token (or the old one when the answer has
///   none) are written in one compare-and-swap before any caller sees them. When another instance
///   sharing the store refreshed first, its token is used instead of refreshing again.
/// - An answer that arrives after ``refreshTimeout`` (the callers already got their answer) is still
///   stored if nothing replaced the token meanwhile: the carrier may have rotated the refresh token.
/// - **Logout wins**: a refresh that finishes after ``logout(_:)`` does not bring credentials back.
public actor TokenVault {
    /// How the vault refreshes in the background while it runs.
    public struct Background: Hashable, Sendable {
        /// How often due accounts are looked for: 60 s.
        public var scanInterval: Duration
        /// The most background refreshes at once (refreshes a caller waits for are not limited): 8.
        public var concurrentRefreshes: Int
        /// How long a refresh call may go on after ``TokenVault/refreshTimeout`` (its callers already
        /// answered) before it is cancelled: 5 minutes.
        public var lateAnswerLimit: Duration

        /// Creates background settings.
        /// - Parameters:
        ///   - scanInterval: How often due accounts are looked for; 60 s.
        ///   - concurrentRefreshes: The most background refreshes at once, at least 1; 8.
        ///   - lateAnswerLimit: How long a late refresh call may go on; 5 minutes.
        public init(scanInterval: Duration = .seconds(60), concurrentRefreshes: Int = 8, lateAnswerLimit: Duration = .seconds(300)) {
            self.scanInterval = max(scanInterval, .milliseconds(1))
            self.concurrentRefreshes = max(1, concurrentRefreshes)
            self.lateAnswerLimit = lateAnswerLimit
        }
    }

    /// Where the tokens live.
    public nonisolated let store: any TokenStore
    /// When tokens turn stale and expire.
    public nonisolated let policy: TokenPolicy
    /// The limit on one refresh call, and so on a caller's wait for an expired token; nil for none.
    public nonisolated let refreshTimeout: Duration?
    private let refresher: any TokenRefresher
    private let clock: any WallClock
    private let backoff: RefreshBackoff
    private let background: Background
    private let events: any EventSink

    private enum Phase {
        /// Not started yet: refreshes wait in ``jobs`` for ``run()``.
        case idle
        case running
        case stopping
        case stopped
    }

    /// One refresh to run.
    private struct Job: Sendable {
        let flight: Flight
        let account: AccountID
        let stored: StoredToken
    }

    private var phase = Phase.idle
    private let jobs: AsyncStream<Job>
    private let jobQueue: AsyncStream<Job>.Continuation
    private var flights: [AccountID: Flight] = [:]
    private var failures: [AccountID: (attempts: Int, retryAt: Date)] = [:]
    private var activeBackground = 0
    private var nextID = 0
    private let drained = Signal()

    /// Creates a vault.
    /// - Parameters:
    ///   - store: Where tokens live; in memory by default.
    ///   - refresher: The carrier refresh call.
    ///   - policy: When tokens turn stale and expire.
    ///   - clock: The time source; the system clock by default.
    ///   - backoff: The back-off after transient refresh failures.
    ///   - refreshTimeout: The limit on one refresh call; 30 seconds (nil for none). A refresh that takes
    ///     longer counts as a transient failure for its callers.
    ///   - background: How due accounts are refreshed while ``run()`` runs.
    ///   - events: Receives ``TokenEvent``s; standard error by default.
    public init(
        store: any TokenStore = InMemoryTokenStore(), refresher: any TokenRefresher, policy: TokenPolicy = TokenPolicy(),
        clock: any WallClock = SystemClock(), backoff: RefreshBackoff = RefreshBackoff(), refreshTimeout: Duration? = .seconds(30),
        background: Background = Background(), events: any EventSink = StandardErrorEventSink.shared
    ) {
        self.store = store
        self.refresher = refresher
        self.policy = policy
        self.clock = clock
        self.backoff = backoff
        self.refreshTimeout = refreshTimeout
        self.background = background
        self.events = events
        (jobs, jobQueue) = AsyncStream.makeStream(of: Job.self)
    }

    // MARK: Running

    /// Runs the vault's refreshes until the calling task is cancelled or ``shutdown()`` is called: the
    /// refreshes callers started (also those asked for before `run()` began), and every
    /// ``Background/scanInterval`` a look for due accounts, which it refreshes (at most
    /// ``Background/concurrentRefreshes`` at once).
    ///
    /// After ``shutdown()`` no refresh starts; the ones under way finish (each within
    /// ``refreshTimeout``), their callers get their answers, then `run()` returns. When the task is
    /// cancelled instead, refreshes under way are cancelled and their callers get `not-running`.
    ///
    /// A `run()` that starts after ``shutdown()`` (a service group stopping while its task was still
    /// starting) returns at once.
    /// - Throws: ``TokenError`` of kind `already-running` when the vault is running or has run.
    public func run() async throws {
        if case .stopped = phase, shutDownBeforeRunning {
            // `shutdown()` came first (a service group stopping while this task was starting): nothing to run.
            shutDownBeforeRunning = false
            return
        }
        guard case .idle = phase else {
            throw TokenError(.alreadyRunning, account: nil, message: "this vault is running or has run; a vault runs once")
        }
        phase = .running
        let jobs = self.jobs
        await withDiscardingTaskGroup { group in
            group.addTask { await self.scanForDueAccounts() }
            for await job in jobs {
                group.addTask { await self.fly(job) }
            }
            // Shut down (or cancelled): let the refreshes callers wait for finish, then stop the rest.
            await self.drained.wait(until: { await self.unresolvedFlights == 0 })
            group.cancelAll()
        }
        phase = .stopped
        jobQueue.finish()
        for flight in flights.values {
            flight.resolve(.failure(TokenError(.notRunning, account: nil, message: "the vault stopped before the refresh finished")))
        }
        flights = [:]
    }

    /// Stops the vault gracefully: no refresh starts from now on, the ones under way finish, and
    /// ``run()`` returns once their callers have their answers.
    public func shutdown() {
        switch phase {
        case .idle:
            phase = .stopped
            shutDownBeforeRunning = true
            jobQueue.finish()
            for flight in flights.values {
                flight.resolve(.failure(TokenError(.notRunning, account: nil, message: "the vault was shut down before it ran")))
            }
            flights = [:]
        case .running:
            phase = .stopping
            jobQueue.finish()
            drained.check()
        case .stopping, .stopped:
            break
        }
    }

    /// Whether ``shutdown()`` came before ``run()``: that run returns at once instead of throwing.
    private var shutDownBeforeRunning = false

    private var isRunning: Bool {
        if case .running = phase { return true }
        return false
    }

    private var unresolvedFlights: Int { flights.values.filter { !$0.isResolved }.count }

    // MARK: Storing and removing

    /// Stores a token after a login, replacing whatever the account had.
    /// - Parameter token: The token; its ``AccessToken/account`` is the key.
    /// - Throws: ``TokenError`` of kind `store-failed` when the store fails (a token over 64 KiB, a full
    ///   disk, a database that is down, or five writers in a row that got there first).
    public func store(_ token: AccessToken) async throws {
        let account = token.account
        failures[account] = nil
        var attempts = 0
        while true {
            attempts += 1
            let current = try await load(account)
            do {
                _ = try await store.save(token, replacing: current?.version, dueAt: policy.dueAt(token))
                emit(.stored(account: account, flow: token.flow, expiresAt: token.expiresAt))
                return
            } catch let error as StoreError where error.kind == .conflict && attempts < 5 {
                continue  // written meanwhile: read again and replace
            } catch {
                throw storeFailure(account, error)
            }
        }
    }

    /// Logs an account out: removes its token. A refresh running for it finishes without storing anything
    /// and its callers get `logged-out`.
    /// - Parameter account: The account.
    /// - Throws: ``TokenError`` of kind `store-failed` when the store fails; the token is then still
    ///   stored, and a refresh under way still brings nothing back.
    public func logout(_ account: AccountID) async throws {
        flights[account]?.markLoggedOut()
        failures[account] = nil
        do {
            try await store.remove(account, replacing: nil)
        } catch {
            throw storeFailure(account, error)
        }
        emit(.loggedOut(account: account))
    }

    // MARK: Reading

    /// The state of an account's stored token now, or nil when none is stored.
    /// - Parameter account: The account.
    /// - Returns: fresh, stale, expired, or nil.
    /// - Throws: ``TokenError`` of kind `store-failed`.
    public func state(for account: AccountID) async throws -> TokenState? {
        try await load(account).map { policy.state(of: $0.token, at: clock.now()) }
    }

    /// Returns a usable token for an account.
    ///
    /// Fresh: the token. Stale: the token at once, and a refresh starts in the background (or the running
    /// one is left to finish). Expired: waits for the refresh, at most ``refreshTimeout``.
    /// - Parameter account: The account.
    /// - Returns: A token that is not expired.
    /// - Throws: ``TokenError``: `not-logged-in`, `relogin-required`, `refresh-failed` (expired and the
    ///   refresh failed transiently), `backing-off`, `logged-out`, `store-failed`, `not-running` (expired
    ///   and the vault is not running); `CancellationError` when the caller is cancelled while waiting.
    public func validToken(for account: AccountID) async throws -> AccessToken {
        guard let stored = try await load(account) else {
            throw TokenError(.notLoggedIn, account: account, message: "no token is stored; log in")
        }
        let now = clock.now()
        switch policy.state(of: stored.token, at: now) {
        case .fresh:
            return stored.token
        case .stale:
            if flights[account] == nil, !isBackingOff(account, at: now) { _ = start(account, stored, background: false) }
            return stored.token
        case .expired:
            if let flight = flights[account], !flight.isResolved {
                return try await wait(on: flight)
            }
            guard stored.token.refreshToken != nil else {
                return try await requireRelogin(account, stored, message: "the token expired and there is no refresh token")
            }
            if let failure = failures[account], now < failure.retryAt {
                throw TokenError(
                    .backingOff, account: account, message: "the token expired and refreshing is backing off after \(failure.attempts) failure(s)",
                    retryAt: failure.retryAt)
            }
            guard flights[account] == nil else {
                throw TokenError(
                    .refreshFailed, account: account, message: "the token expired and its last refresh is still waiting for a late answer",
                    retryAt: now.addingTimeInterval(backoff.base.seconds))
            }
            guard let flight = start(account, stored, background: false) else {
                throw TokenError(
                    .notRunning, account: account, message: "the token expired and must be refreshed, but the vault has stopped")
            }
            return try await wait(on: flight)
        }
    }

    /// What an app calls when it opens: the same as ``validToken(for:)``. A token that turned stale
    /// since the last open is refreshed in the background, so a user who opens the app at least monthly
    /// never logs in again.
    /// - Parameter account: The account.
    /// - Returns: A usable token.
    /// - Throws: As ``validToken(for:)``.
    public func appDidOpen(for account: AccountID) async throws -> AccessToken {
        try await validToken(for: account)
    }

    /// Accounts whose tokens go stale or expire before an instant, soonest first. Reads the store's
    /// index; does not scan every account.
    /// - Parameters:
    ///   - instant: The instant.
    ///   - limit: The most accounts to return.
    /// - Returns: The accounts.
    /// - Throws: ``TokenError`` of kind `store-failed` (with no account).
    public func accountsDue(before instant: Date, limit: Int = 1000) async throws -> [AccountID] {
        do {
            return try await store.accounts(dueBefore: instant, limit: limit)
        } catch {
            throw storeFailure(nil, error)
        }
    }

    // MARK: Single flight

    private func isBackingOff(_ account: AccountID, at now: Date) -> Bool {
        failures[account].map { now < $0.retryAt } ?? false
    }

    /// Starts a refresh, or returns nil when the vault is not running (or, for a background refresh,
    /// when enough run already).
    private func start(_ account: AccountID, _ stored: StoredToken, background: Bool) -> Flight? {
        switch phase {
        case .idle, .running: break
        case .stopping, .stopped: return nil
        }
        if background {
            guard activeBackground < self.background.concurrentRefreshes else { return nil }
            activeBackground += 1
        }
        nextID += 1
        let flight = Flight(id: nextID, background: background)
        flights[account] = flight
        jobQueue.yield(Job(flight: flight, account: account, stored: stored))
        return flight
    }

    /// Parks a caller on a flight until it resolves or the caller is cancelled. While the vault has not
    /// started, the wait is bounded by ``refreshTimeout`` on the caller's side (a running vault bounds it
    /// itself): a vault that is never run answers `not-running` instead of never.
    private func wait(on flight: Flight) async throws -> AccessToken {
        guard case .idle = phase, let limit = refreshTimeout else { return try await park(on: flight) }
        let clock = self.clock
        return try await withThrowingTaskGroup(of: AccessToken?.self) { group in
            group.addTask { try await self.park(on: flight) }
            group.addTask {
                try await clock.sleep(for: limit)
                return nil
            }
            defer { group.cancelAll() }
            guard let token = try await group.next()! else {
                throw TokenError(
                    .notRunning, account: nil, message: "the token expired and the vault did not start within \(limit.seconds) s to refresh it (call run())")
            }
            return token
        }
    }

    private func park(on flight: Flight) async throws -> AccessToken {
        nextID += 1
        let waiter = nextID
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                flight.join(waiter, continuation)
            }
        } onCancel: {
            flight.leave(waiter)
        }
    }

    /// Runs one refresh: the refresh itself, and beside it the time limit that answers its callers when
    /// the refresh is slow, then cancels the call if it goes on past ``Background/lateAnswerLimit``.
    private func fly(_ job: Job) async {
        let limit = refreshTimeout
        let late = background.lateAnswerLimit
        // The refresh answers false; the time limit answers true when the call was abandoned.
        let abandoned = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await self.refresh(job)
                return false
            }
            if let limit {
                group.addTask {
                    do { try await self.clock.sleep(for: limit) } catch { return false }
                    await self.timedOut(job, after: limit)
                    do { try await self.clock.sleep(for: late) } catch { return false }
                    return true
                }
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        releaseBackground(job.flight)
        if !job.flight.isResolved {
            job.flight.resolve(.failure(TokenError(.notRunning, account: job.account, message: "the vault stopped before the refresh finished")))
        }
        if flights[job.account] === job.flight { flights[job.account] = nil }
        if abandoned, let limit { emit(.refreshAbandoned(account: job.account, after: limit + late)) }
        drained.check()
    }

    /// The refresh, holding the store's refresh lock; resolves the flight with its result.
    private func refresh(_ job: Job) async {
        let account = job.account
        var result: Result<AccessToken, any Error>
        do {
            let token = try await store.withRefreshLock(for: account) { @Sendable [self] in
                try await self.refreshHoldingLock(job)
            }
            result = .success(token)
        } catch let error as TokenError {
            result = .failure(error)
        } catch is CancellationError {
            result = .failure(TokenError(.notRunning, account: account, message: "the refresh was cancelled: the vault is stopping"))
        } catch {
            result = .failure(storeFailure(account, error))
        }
        if job.flight.loggedOut {
            result = .failure(TokenError(.loggedOut, account: account, message: "the account logged out during the refresh"))
        }
        job.flight.resolve(result)
        releaseBackground(job.flight)
        // Answered: the account may refresh again. A flight that timed out keeps its place until its late
        // call ends, so one account never has two refresh calls at once.
        if flights[account] === job.flight { flights[account] = nil }
        drained.check()
    }

    /// A background flight that answered (or timed out) no longer counts toward the background limit.
    private func releaseBackground(_ flight: Flight) {
        if flight.background, flight.takeBackgroundSlot() { activeBackground -= 1 }
    }

    /// The time limit passed with no answer: the callers get the stored token if it is still usable, else
    /// `refresh-failed`; the refresh goes on, and a late answer is still stored.
    private func timedOut(_ job: Job, after limit: Duration) {
        guard !job.flight.isResolved else { return }
        job.flight.markTimedOut()
        releaseBackground(job.flight)
        let now = clock.now()
        let retryAt = recordFailure(job.account, message: "no answer within \(limit.seconds) s", at: now)
        if policy.state(of: job.stored.token, at: now) != .expired {
            job.flight.resolve(.success(job.stored.token))
        } else {
            job.flight.resolve(.failure(TokenError(
                .refreshFailed, account: job.account, message: "the token expired and the refresh gave no answer within \(limit.seconds) s",
                retryAt: retryAt)))
        }
        drained.check()
    }

    private func refreshHoldingLock(_ job: Job) async throws -> AccessToken {
        let account = job.account
        let flight = job.flight
        // Another process or instance may have refreshed while this one waited for the lock.
        guard !flight.loggedOut, let current = try await load(account) else {
            throw TokenError(.loggedOut, account: account, message: "the token was removed before the refresh")
        }
        if current.version != job.stored.version, policy.state(of: current.token, at: clock.now()) == .fresh {
            emit(.refreshedElsewhere(account: account))
            return current.token
        }
        let response: RefreshResponse
        do {
            response = try await refresher.refresh(current.token)
            guard !response.accessToken.isEmpty else {
                throw TokenRefreshError(.transient, message: "the refresh answer has an empty access token")
            }
        } catch is CancellationError where Task.isCancelled {
            throw CancellationError()
        } catch {
            let classified = TokenRefreshError.classify(error)
            let message = Secret.scrub(classified.message, of: [current.token.value, current.token.refreshToken])
            return try await refreshFailed(job, current, TokenRefreshError(classified.kind, code: classified.code, message: message))
        }
        guard !flight.loggedOut else {
            throw TokenError(.loggedOut, account: account, message: "the account logged out during the refresh")
        }
        let now = clock.now()
        let (fresh, rotatedRefresh) = refreshed(current.token, with: response, at: now)
        guard policy.state(of: fresh, at: now) != .expired else {
            let seconds = response.expiresIn.map { "\($0.seconds) s" } ?? "no time"
            return try await refreshFailed(job, current, TokenRefreshError(
                .transient, message: "the refresh answer's token lives \(seconds), within the \(policy.skewMargin.seconds) s skew margin: it is already expired"))
        }
        do {
            _ = try await store.save(fresh, replacing: current.version, dueAt: policy.dueAt(fresh))
        } catch let error as StoreError where error.kind == .conflict {
            // Someone wrote first: another instance's refresh (use it) or a logout (give nothing back).
            if !flight.loggedOut, let latest = try await load(account), policy.state(of: latest.token, at: now) != .expired {
                emit(.refreshedElsewhere(account: account))
                return latest.token
            }
            throw TokenError(.loggedOut, account: account, message: "the token was removed during the refresh")
        } catch {
            let message = Secret.scrub("\(error)", of: [fresh.value, fresh.refreshToken, current.token.value, current.token.refreshToken])
            throw TokenError(.storeFailed, account: account, message: "the refreshed token could not be stored (\(message)); the previous token is unchanged")
        }
        failures[account] = nil
        emit(.refreshed(account: account, flow: fresh.flow, expiresAt: fresh.expiresAt, rotatedRefreshToken: rotatedRefresh != nil))
        return fresh
    }

    /// The token a refresh answer makes: the new access token, the new refresh token or else the old one
    /// (rotation), and the answer's lifetime or else the policy's default, from `now`.
    private func refreshed(_ token: AccessToken, with response: RefreshResponse, at now: Date) -> (AccessToken, rotatedRefresh: Secret?) {
        let lifetime = response.expiresIn.map { Double($0.seconds) } ?? policy.defaultLifetime.seconds
        let rotatedRefresh = response.refreshToken.flatMap { $0.isEmpty ? nil : $0 }
        let fresh = token.rotated(value: response.accessToken, refreshToken: rotatedRefresh, issuedAt: now, expiresAt: now.addingTimeInterval(lifetime))
        return (fresh, rotatedRefresh)
    }

    private func refreshFailed(_ job: Job, _ current: StoredToken, _ error: TokenRefreshError) async throws -> AccessToken {
        let account = job.account
        let now = clock.now()
        if error.kind == .final {
            return try await requireRelogin(account, current, message: error.description)
        }
        // A refresh whose callers were already answered at the time limit counted its failure then.
        let retryAt = job.flight.timedOut
            ? failures[account]?.retryAt ?? now.addingTimeInterval(backoff.delay(afterFailure: 1))
            : recordFailure(account, message: error.description, at: now)
        if policy.state(of: current.token, at: now) != .expired {
            return current.token
        }
        throw TokenError(.refreshFailed, account: account, message: "the token expired and the refresh failed: \(error)", retryAt: retryAt)
    }

    /// Counts a transient failure and schedules the next try.
    /// - Returns: When refreshing may be tried again.
    private func recordFailure(_ account: AccountID, message: String, at now: Date) -> Date {
        let attempts = (failures[account]?.attempts ?? 0) + 1
        let retryAt = now.addingTimeInterval(backoff.delay(afterFailure: attempts))
        pruneFailures(now)
        failures[account] = (attempts, retryAt)
        emit(.refreshFailed(account: account, message: message, attempt: attempts, retryAt: retryAt))
        return retryAt
    }

    /// Removes a token that can no longer be refreshed, unless someone replaced it meanwhile.
    private func requireRelogin(_ account: AccountID, _ current: StoredToken, message: String) async throws -> AccessToken {
        failures[account] = nil
        do {
            try await store.remove(account, replacing: current.version)
        } catch let error as StoreError where error.kind == .conflict {
            if let latest = try await load(account), policy.state(of: latest.token, at: clock.now()) != .expired {
                return latest.token
            }
        } catch {
            throw storeFailure(account, error)
        }
        emit(.reloginRequired(account: account, message: message))
        throw TokenError(.reloginRequired, account: account, message: message)
    }

    /// Keeps the failure book bounded: entries whose back-off has passed are dropped once it grows large.
    private func pruneFailures(_ now: Date) {
        guard failures.count > 10_000 else { return }
        failures = failures.filter { $0.value.retryAt > now }
    }

    // MARK: Background refresh

    /// Every scan interval while running: refreshes the accounts the store lists as due.
    private func scanForDueAccounts() async {
        while isRunning, !Task.isCancelled {
            await refreshDueAccounts()
            do { try await clock.sleep(for: background.scanInterval) } catch { return }
        }
    }

    private func refreshDueAccounts() async {
        let capacity = background.concurrentRefreshes - activeBackground
        guard capacity > 0 else { return }
        let due: [AccountID]
        do {
            due = try await store.accounts(dueBefore: clock.now(), limit: min(10_000, capacity * 4 + failures.count))
        } catch {
            emit(.dueScanFailed(message: storeFailure(nil, error).message))
            return
        }
        for account in due {
            guard isRunning, activeBackground < background.concurrentRefreshes else { return }
            if flights[account] != nil || isBackingOff(account, at: clock.now()) { continue }
            let stored: StoredToken
            do {
                guard let loaded = try await store.load(account) else { continue }
                stored = loaded
            } catch {
                continue  // a caller reading this account gets the store's error
            }
            guard flights[account] == nil else { continue }
            switch policy.state(of: stored.token, at: clock.now()) {
            case .fresh:
                continue  // refreshed elsewhere since the listing
            case .expired where stored.token.refreshToken == nil:
                _ = try? await requireRelogin(account, stored, message: "the token expired and there is no refresh token")
            case .stale, .expired:
                _ = start(account, stored, background: true)
            }
        }
    }

    // MARK: Helpers

    private func load(_ account: AccountID) async throws -> StoredToken? {
        do {
            return try await store.load(account)
        } catch {
            throw storeFailure(account, error)
        }
    }

    private func storeFailure(_ account: AccountID?, _ error: any Error) -> TokenError {
        if let error = error as? TokenError { return error }
        return TokenError(.storeFailed, account: account, message: "the token store failed: \(error)")
    }

    private func emit(_ event: TokenEvent) {
        events.receive(OneTapEvent(at: clock.now(), .token(event)))
    }
}

/// One refresh in flight and the callers waiting for it. Its waiters are kept under a lock, so a
/// cancelled caller leaves at once from its cancellation handler without a task of its own.
private final class Flight: Sendable {
    let id: Int
    let background: Bool

    private struct State {
        var waiters: [Int: CheckedContinuation<AccessToken, any Error>] = [:]
        var left: Set<Int> = []
        var result: Result<AccessToken, any Error>? = nil
        var loggedOut = false
        var timedOut = false
        var holdsBackgroundSlot = true
    }

    private let state = LockedValue(State())

    init(id: Int, background: Bool) {
        self.id = id
        self.background = background
    }

    var isResolved: Bool { state.withLock { $0.result != nil } }
    var loggedOut: Bool { state.withLock { $0.loggedOut } }
    var timedOut: Bool { state.withLock { $0.timedOut } }

    func markLoggedOut() { state.withLock { $0.loggedOut = true } }

    /// Gives up the flight's background slot; true only the first time.
    func takeBackgroundSlot() -> Bool {
        state.withLock { state in
            defer { state.holdsBackgroundSlot = false }
            return state.holdsBackgroundSlot
        }
    }
    func markTimedOut() { state.withLock { $0.timedOut = true } }

    /// Adds a waiter, or answers it at once when the flight is resolved or the waiter already left.
    func join(_ waiter: Int, _ continuation: CheckedContinuation<AccessToken, any Error>) {
        let answer = state.withLock { state -> Result<AccessToken, any Error>? in
            if let result = state.result { return result }
            if state.left.remove(waiter) != nil { return .failure(CancellationError()) }
            state.waiters[waiter] = continuation
            return nil
        }
        if let answer { continuation.resume(with: answer) }
    }

    /// A waiter was cancelled: it leaves with `CancellationError`; the flight and the others go on.
    func leave(_ waiter: Int) {
        let continuation = state.withLock { state -> CheckedContinuation<AccessToken, any Error>? in
            guard state.result == nil else { return nil }
            guard let continuation = state.waiters.removeValue(forKey: waiter) else {
                state.left.insert(waiter)  // cancelled before it joined
                return nil
            }
            return continuation
        }
        continuation?.resume(throwing: CancellationError())
    }

    /// Answers every waiter, once; later results are ignored.
    func resolve(_ result: Result<AccessToken, any Error>) {
        let waiters = state.withLock { state -> [CheckedContinuation<AccessToken, any Error>] in
            guard state.result == nil else { return [] }
            state.result = result
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(with: result) }
    }
}

/// A condition someone waits for, re-checked whenever ``check()`` is called (or the waiter is cancelled).
private final class Signal: Sendable {
    private struct State {
        var generation = 0
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = LockedValue(State())

    /// Waits until `condition` holds, re-checking it after every ``check()``; returns at once when the
    /// task is cancelled. A check that comes while the condition is being evaluated is not missed.
    func wait(until condition: @Sendable () async -> Bool) async {
        while !Task.isCancelled {
            let seen = state.withLock { $0.generation }
            if await condition() { return }
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let now = state.withLock { state -> Bool in
                        if state.generation != seen { return true }
                        state.waiters.append(continuation)
                        return false
                    }
                    if now { continuation.resume() }
                }
            } onCancel: {
                check()
            }
        }
    }

    /// Wakes every waiter to re-check its condition.
    func check() {
        let woken = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.generation &+= 1
            defer { state.waiters = [] }
            return state.waiters
        }
        for continuation in woken { continuation.resume() }
    }
}
