#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Keeps carrier access tokens usable for many accounts at once: the auth server's token manager.
///
/// - ``validToken(for:)`` returns a usable token: a fresh one as it is; a stale or expired one after a
///   refresh. It never hands out an expired token, not even beside an error.
/// - **Single flight per account**: concurrent callers while a refresh is due share one refresh call and
///   all get its result. Cancelling one caller cancels neither the refresh nor the others. Accounts
///   never wait on each other, and an account's in-flight state is dropped when its refresh ends.
/// - A transient refresh failure keeps the stored token, returns it while it is usable, and backs off
///   (capped exponential, with jitter). A final one (the carrier refused the refresh token) removes the
///   token: the user must log in again.
/// - **Rotation**: the new access token and the new refresh token (or the old one when the answer has
///   none) are written in one compare-and-swap before any caller sees them. When another instance
///   sharing the store refreshed first, its token is used instead of refreshing again.
/// - **Logout wins**: a refresh that finishes after ``logout(_:)`` does not bring credentials back.
public actor TokenVault {
    /// Where the tokens live.
    public nonisolated let store: any TokenStore
    /// When tokens turn stale and expire.
    public nonisolated let policy: TokenPolicy
    private let refresher: any TokenRefresher
    private let clock: any WallClock
    private let backoff: RefreshBackoff
    private let refreshTimeout: Duration?
    private let observer: (any TokenEventObserver)?

    /// One refresh in flight and the callers waiting for it.
    private final class Flight {
        let id: Int
        init(id: Int) { self.id = id }
        var waiters: [Int: CheckedContinuation<AccessToken, any Error>] = [:]
        var result: Result<AccessToken, any Error>? = nil
        var loggedOut = false
    }

    private var flights: [AccountID: Flight] = [:]
    private var failures: [AccountID: (attempts: Int, retryAt: Date)] = [:]
    private var nextID = 0

    /// Creates a vault.
    /// - Parameters:
    ///   - store: Where tokens live; in memory by default.
    ///   - refresher: The carrier refresh call.
    ///   - policy: When tokens turn stale and expire.
    ///   - clock: The time source; the system clock by default.
    ///   - backoff: The back-off after transient refresh failures.
    ///   - refreshTimeout: The limit on one refresh call; 30 seconds (nil for none). A refresh that takes
    ///     longer counts as a transient failure.
    ///   - observer: Receives ``TokenEvent``s.
    public init(
        store: any TokenStore = InMemoryTokenStore(), refresher: any TokenRefresher, policy: TokenPolicy = TokenPolicy(),
        clock: any WallClock = SystemClock(), backoff: RefreshBackoff = RefreshBackoff(), refreshTimeout: Duration? = .seconds(30),
        observer: (any TokenEventObserver)? = nil
    ) {
        self.store = store
        self.refresher = refresher
        self.policy = policy
        self.clock = clock
        self.backoff = backoff
        self.refreshTimeout = refreshTimeout
        self.observer = observer
    }

    // MARK: Storing and removing

    /// Stores a token after a login, replacing whatever the account had.
    /// - Parameter token: The token; its ``AccessToken/account`` is the key.
    /// - Throws: ``TokenError`` of kind `store-failed` when the store fails.
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
            } catch let error as TokenStoreError where error.kind == .conflict && attempts < 5 {
                continue  // written meanwhile: read again and replace
            } catch {
                throw storeFailure(account, error)
            }
        }
    }

    /// Logs an account out: removes its token. A refresh running for it finishes without storing anything
    /// and its callers get `logged-out`.
    /// - Parameter account: The account.
    /// - Throws: ``TokenError`` of kind `store-failed` when the store fails.
    public func logout(_ account: AccountID) async throws {
        flights[account]?.loggedOut = true
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

    /// Returns a usable token for an account, refreshing it when the policy says so.
    /// - Parameter account: The account.
    /// - Returns: A token that is not expired.
    /// - Throws: ``TokenError``: `not-logged-in`, `relogin-required`, `refresh-failed` (expired and the
    ///   refresh failed transiently), `backing-off`, `logged-out`, `store-failed`; `CancellationError`
    ///   when the caller is cancelled while waiting.
    public func validToken(for account: AccountID) async throws -> AccessToken {
        guard let stored = try await load(account) else {
            throw TokenError(.notLoggedIn, account: account, message: "no token is stored; log in")
        }
        let now = clock.now()
        let state = policy.state(of: stored.token, at: now)
        switch state {
        case .fresh:
            return stored.token
        case .stale:
            if let failure = failures[account], now < failure.retryAt, flights[account] == nil {
                return stored.token  // backing off: the token is still usable
            }
        case .expired:
            if flights[account] == nil {
                guard stored.token.refreshToken != nil else {
                    return try await requireRelogin(account, stored, message: "the token expired and there is no refresh token")
                }
                if let failure = failures[account], now < failure.retryAt {
                    throw TokenError(
                        .backingOff, account: account, message: "the token expired and refreshing is backing off after \(failure.attempts) failure(s)",
                        retryAt: failure.retryAt)
                }
            }
        }
        return try await join(account, stored)
    }

    /// What an app calls when it opens: the same as ``validToken(for:)``. A token that turned stale
    /// since the last open is refreshed now, so a user who opens the app at least monthly never logs in
    /// again.
    /// - Parameter account: The account.
    /// - Returns: A usable token.
    /// - Throws: As ``validToken(for:)``.
    public func appDidOpen(for account: AccountID) async throws -> AccessToken {
        try await validToken(for: account)
    }

    /// Accounts whose tokens go stale or expire before an instant, soonest first: the work list of a
    /// background refresher. Reads the store's index; does not scan every account.
    /// - Parameters:
    ///   - instant: The instant.
    ///   - limit: The most accounts to return.
    /// - Returns: The accounts.
    /// - Throws: ``TokenError`` of kind `store-failed`.
    public func accountsDue(before instant: Date, limit: Int = 1000) async throws -> [AccountID] {
        do {
            return try await store.accounts(dueBefore: instant, limit: limit)
        } catch {
            throw storeFailure("", error)
        }
    }

    // MARK: Single flight

    private func join(_ account: AccountID, _ stored: StoredToken) async throws -> AccessToken {
        let flight: Flight
        if let running = flights[account] {
            flight = running
        } else {
            nextID += 1
            flight = Flight(id: nextID)
            flights[account] = flight
            let flightID = flight.id
            Task { await self.fly(flightID, account: account, stored: stored) }
        }
        nextID += 1
        let id = nextID
        let flightID = flight.id
        return try await withTaskCancellationHandler {
            try await wait(for: flight, waiter: id)
        } onCancel: {
            Task { await self.abandon(account, flight: flightID, waiter: id) }
        }
    }

    /// Parks a caller on a flight. Runs on the vault's executor, so the waiter list is only touched there.
    private func wait(for flight: Flight, waiter id: Int) async throws -> AccessToken {
        try await withCheckedThrowingContinuation { continuation in
            if let result = flight.result {
                continuation.resume(with: result)
            } else if Task.isCancelled {
                continuation.resume(throwing: CancellationError())
            } else {
                flight.waiters[id] = continuation
            }
        }
    }

    /// The flight `id` of an account, while it runs.
    private func flight(_ account: AccountID, _ id: Int) -> Flight? {
        flights[account].flatMap { $0.id == id ? $0 : nil }
    }

    /// A waiter was cancelled: it leaves at once; the refresh and the other waiters go on.
    private func abandon(_ account: AccountID, flight id: Int, waiter: Int) {
        flight(account, id)?.waiters.removeValue(forKey: waiter)?.resume(throwing: CancellationError())
    }

    private func fly(_ id: Int, account: AccountID, stored: StoredToken) async {
        guard let flight = flight(account, id) else { return }
        var result: Result<AccessToken, any Error>
        do {
            let token = try await store.withRefreshLock(for: account) { @Sendable [self] in
                try await self.refreshHoldingLock(id, account: account, stored: stored)
            }
            result = .success(token)
        } catch let error as TokenError {
            result = .failure(error)
        } catch {
            result = .failure(storeFailure(account, error))
        }
        if flight.loggedOut {
            result = .failure(TokenError(.loggedOut, account: account, message: "the account logged out during the refresh"))
        }
        flight.result = result
        if flights[account] === flight { flights[account] = nil }
        let waiters = flight.waiters
        flight.waiters = [:]
        for continuation in waiters.values { continuation.resume(with: result) }
    }

    private func refreshHoldingLock(_ id: Int, account: AccountID, stored: StoredToken) async throws -> AccessToken {
        guard let flight = flight(account, id) else {
            throw TokenError(.loggedOut, account: account, message: "the refresh was abandoned")
        }
        // Another process or instance may have refreshed while this one waited for the lock.
        guard !flight.loggedOut, let current = try await load(account) else {
            throw TokenError(.loggedOut, account: account, message: "the token was removed before the refresh")
        }
        if current.version != stored.version, policy.state(of: current.token, at: clock.now()) == .fresh {
            emit(.refreshedElsewhere(account: account))
            return current.token
        }
        let response: RefreshResponse
        do {
            let refresher = self.refresher
            let token = current.token
            response = try await Deadline.run(
                limit: refreshTimeout, clock: clock,
                late: { [self] result in
                    // The carrier answered after the time limit: it may have rotated the refresh token,
                    // so keep its answer if the store still holds the token it replaces.
                    if case .success(let answer) = result { Task { await self.adoptLate(answer, replacing: current) } }
                }) { try await refresher.refresh(token) }
            guard !response.accessToken.isEmpty else {
                throw TokenRefreshError(.transient, message: "the refresh answer has an empty access token")
            }
        } catch {
            let classified = TokenRefreshError.classify(error)
            let message = Secret.scrub(classified.message, of: [current.token.value, current.token.refreshToken])
            return try await refreshFailed(account, current, TokenRefreshError(classified.kind, code: classified.code, message: message))
        }
        guard !flight.loggedOut else {
            throw TokenError(.loggedOut, account: account, message: "the account logged out during the refresh")
        }
        let now = clock.now()
        let (fresh, rotatedRefresh) = refreshed(current.token, with: response, at: now)
        do {
            _ = try await store.save(fresh, replacing: current.version, dueAt: policy.dueAt(fresh))
        } catch let error as TokenStoreError where error.kind == .conflict {
            // Someone wrote first: another instance's refresh (use it) or a logout (give nothing back).
            if !flight.loggedOut, let latest = try await load(account), policy.state(of: latest.token, at: now) != .expired {
                emit(.refreshedElsewhere(account: account))
                return latest.token
            }
            throw TokenError(.loggedOut, account: account, message: "the token was removed during the refresh")
        } catch {
            let message = Secret.scrub("\(error)", of: [fresh.value, fresh.refreshToken, current.token.value])
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

    /// Stores a refresh answer that arrived after its time limit, if nothing replaced the token since.
    private func adoptLate(_ response: RefreshResponse, replacing current: StoredToken) async {
        guard !response.accessToken.isEmpty else { return }
        let account = current.token.account
        let now = clock.now()
        let (fresh, rotatedRefresh) = refreshed(current.token, with: response, at: now)
        do {
            _ = try await store.save(fresh, replacing: current.version, dueAt: policy.dueAt(fresh))
        } catch {
            return  // replaced, refreshed elsewhere or logged out meanwhile: the late answer is not needed
        }
        failures[account] = nil
        emit(.refreshed(account: account, flow: fresh.flow, expiresAt: fresh.expiresAt, rotatedRefreshToken: rotatedRefresh != nil))
    }

    private func refreshFailed(_ account: AccountID, _ current: StoredToken, _ error: TokenRefreshError) async throws -> AccessToken {
        let now = clock.now()
        if error.kind == .final {
            return try await requireRelogin(account, current, message: error.description)
        }
        let attempts = (failures[account]?.attempts ?? 0) + 1
        let retryAt = now.addingTimeInterval(backoff.delay(afterFailure: attempts))
        pruneFailures(now)
        failures[account] = (attempts, retryAt)
        emit(.refreshFailed(account: account, message: error.description, attempt: attempts, retryAt: retryAt))
        if policy.state(of: current.token, at: now) != .expired {
            return current.token
        }
        throw TokenError(.refreshFailed, account: account, message: "the token expired and the refresh failed: \(error)", retryAt: retryAt)
    }

    /// Removes a token that can no longer be refreshed, unless someone replaced it meanwhile.
    private func requireRelogin(_ account: AccountID, _ current: StoredToken, message: String) async throws -> AccessToken {
        failures[account] = nil
        do {
            try await store.remove(account, replacing: current.version)
        } catch let error as TokenStoreError where error.kind == .conflict {
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

    // MARK: Helpers

    private func load(_ account: AccountID) async throws -> StoredToken? {
        do {
            return try await store.load(account)
        } catch {
            throw storeFailure(account, error)
        }
    }

    private func storeFailure(_ account: AccountID, _ error: any Error) -> TokenError {
        if let error = error as? TokenError { return error }
        return TokenError(.storeFailed, account: account, message: "the token store failed: \(error)")
    }

    private func emit(_ event: TokenEvent) {
        observer?.tokenEvent(event)
    }
}
