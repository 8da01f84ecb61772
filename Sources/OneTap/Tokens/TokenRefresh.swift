/// What one refresh does, from the stored token to the answer its callers get: the carrier call under
/// the store's refresh lock, the rotation written in one compare-and-swap, the back-off after a
/// transient failure, the removal after a refused refresh token, and the events. Its methods run on the vault's
/// actor (they take it `isolated`), so each step between two `await`s is one step of the vault.
///
/// Steps of ``answer(for:in:)``, in order (the first that applies ends it):
/// 1. The account logged out, or its token is gone: `logged-out`.
/// 2. Someone (another instance sharing the store) wrote a fresh token since the flight began:
///    `refreshed-elsewhere`, and that token is the answer.
/// 3. The carrier call fails (or answers an empty access token): its message is scrubbed of both
///    tokens, and it goes to ``failed(_:_:refused:_:in:)``.
/// 4. The account logged out during the call: `logged-out`, the answer is dropped.
/// 5. The answer's token is already expired (its lifetime within the skew margin): a transient failure.
/// 6. The new token (with the new refresh token, or the old one when the carrier sent none) replaces the
///    stored one by compare-and-swap. On a conflict: a usable token someone else wrote is the answer
///    (`refreshed-elsewhere`); an expired one, the replaced access token that another refresh stored again with
///    the refresh token it rotated, is written over when this answer rotated too, else `refresh-failed` (retry at
///    once); no token, `logged-out`. Any other store error: the new
///    token is the answer all the same and is kept in the vault's memory (`not-stored`): the carrier may
///    have rotated the refresh token, so it must not be lost.
/// 7. The back-off is cleared, `refreshed` is emitted, and the new token is the answer.
///
/// Before step 2, a token an earlier refresh kept in memory over the stored version is written first
/// (`refreshed` then): while it is fresh it is the answer, else the refresh goes on from it (its refresh
/// token is the latest). A write that fails again keeps it and answers it while usable; a conflict forgets it.
///
/// A failure (``failed(_:_:from:refused:_:in:)``): a refused refresh token (a ``TokenError`` of kind
/// `relogin-required`) removes an expired token (``requireRelogin(_:_:alsoReplacing:message:in:)``) and keeps one that still has
/// time until it expires, due then and backing off until then; any other failure is counted in the back-off book (unless the time limit already counted it) and the
/// callers get the stored token while it is usable, else `refresh-failed`. A logout during the flight
/// overrides every answer with `logged-out`.
package struct TokenRefresh: Sendable {
    /// Where the tokens live.
    package let store: any TokenStore
    /// The carrier refresh call.
    package let refresher: any TokenRefresher
    /// When tokens turn stale and expire.
    package let policy: TokenPolicy
    /// The time source.
    package let clock: any WallClock
    /// Receives the ``TokenEvent``s.
    package let events: any EventSink

    /// Runs the flight's refresh under the store's refresh lock.
    /// - Parameters:
    ///   - flight: The flight.
    ///   - vault: The vault whose back-off book the refresh updates.
    /// - Returns: The answer for the flight's callers.
    package func answer(for flight: RefreshFlight, in vault: isolated TokenVault) async -> Result<AccessToken, any Error> {
        let account = flight.account
        var result: Result<AccessToken, any Error>
        do {
            let token = try await store.withRefreshLock(for: account) { @Sendable in
                try await self.attempt(flight, in: vault)
            }
            result = .success(token)
        } catch let error as TokenError {
            result = .failure(error)
        } catch where CallerCancellation.reads(error) {
            result = .failure(TokenError(.notRunning, account: account, message: "the refresh was cancelled: the vault is stopping"))
        } catch {
            let failure = Self.storeFailure(account, error)
            if !flight.timedOut {
                // (A flight whose callers were answered at its time limit counted its failure then.)
                // Another instance's refresh holds the lock, the store is slow, or the lock cannot be taken at all (no
                // grant on the lease table, a lock file that cannot be opened): the account backs off and it is told, so
                // the next callers are answered at once instead of each trying (or waiting out) the lock again.
                _ = recordFailure(account, message: failure.message, at: clock.now(), in: vault)
            }
            result = .failure(failure)
        }
        if flight.loggedOut {
            result = .failure(TokenError(.loggedOut, account: account, message: "the account logged out during the refresh"))
        }
        return result
    }

    /// The answer when the time limit passes first: the failure is counted, and the callers get the
    /// stored token while it is usable, else `refresh-failed`. The call goes on as a late answer. A login that
    /// stored a token meanwhile makes the answer the login's token and counts nothing; a logout makes it
    /// `logged-out`, as the refresh's own answer would.
    /// - Parameters:
    ///   - flight: The flight.
    ///   - limit: The time limit that passed.
    ///   - vault: The vault whose back-off book counts the failure.
    /// - Returns: The answer for the flight's callers.
    package func answerAtLimit(for flight: RefreshFlight, after limit: Duration, in vault: isolated TokenVault) -> Result<AccessToken, any Error> {
        let now = clock.now()
        if flight.loggedOut {
            return .failure(TokenError(.loggedOut, account: flight.account, message: "the account logged out during the refresh"))
        }
        // A flight a login superseded counts nothing against the login's token, which its callers get.
        if let login = flight.supersedingToken, policy.state(of: login, at: now) != .expired { return .success(login) }
        let retryAt = flight.superseded ? now : recordFailure(flight.account, message: "no answer within \(limit.seconds) s", at: now, in: vault)
        if policy.state(of: flight.stored.token, at: now) != .expired {
            return .success(flight.stored.token)
        }
        return .failure(TokenError(
            .refreshFailed, account: flight.account, message: "the token expired and the refresh gave no answer within \(limit.seconds) s",
            retryAt: retryAt))
    }

    /// Removes a token that can no longer be refreshed, unless someone replaced it meanwhile (a re-save of the same
    /// token, or of the kept one it names, is no replacement: the removal is made over it).
    /// - Parameters:
    ///   - account: The account.
    ///   - current: The stored token to remove (by its version).
    ///   - basis: A newer token kept in memory over it, whose refresh token the carrier refused, if any.
    ///   - message: Why, for the event and the error.
    ///   - vault: The vault whose back-off book forgets the account.
    /// - Returns: The usable token someone stored meanwhile.
    /// - Throws: ``TokenError`` of kind `relogin-required` once removed; `refresh-failed` (retry at once) when another
    ///   writer stored an expired token meanwhile, whose own refresh decides it; `store-failed` when the store fails.
    package func requireRelogin(
        _ account: AccountID, _ current: StoredToken, alsoReplacing basis: AccessToken? = nil, message: String, in vault: isolated TokenVault
    ) async throws -> AccessToken {
        // The refused refresh token must never be sent again from this vault's memory.
        if let basis { vault.unsaved.forget(account, ifStill: basis) }
        do {
            var expected = current.version
            for attempt in 1...Self.saveAttempts {
                do {
                    try await store.remove(account, replacing: expected)
                    break
                } catch let error as StoreError where error.kind == .conflict {
                    guard let latest = try await load(account) else { break }   // removed meanwhile: as good as done
                    let refused = Self.isReplaced(latest.token, current.token, basis)
                    if refused, latest.version > expected, attempt < Self.saveAttempts {
                        expected = latest.version   // the refused token saved again: removed over that
                        continue
                    }
                    if refused {
                        // Saved again before every removal: it stays stored, so the account backs off instead of sending
                        // the refused refresh token again at the next request.
                        _ = recordFailure(account, message: "\(message); the refused token was saved again at every removal", at: clock.now(), in: vault)
                        throw TokenError(.reloginRequired, account: account, message: message)
                    }
                    if policy.state(of: latest.token, at: clock.now()) != .expired {
                        vault.failures.clear(account)
                        return latest.token   // another writer's token: theirs stands
                    }
                    // Another writer's expired token (its refresh token may be one the carrier takes): its own refresh
                    // decides it, at the callers' next request; the refused one is not served, and no one is told to log in.
                    vault.failures.clear(account)
                    let now = clock.now(), why = "\(message); another writer stored a token since, refreshed at the next request"
                    emit(.refreshFailed(account: account, message: why, attempt: 1, retryAt: now))
                    throw TokenError(.refreshFailed, account: account, message: why, retryAt: now)
                }
            }
        } catch let error as TokenError {
            throw error
        } catch where CallerCancellation.reads(error) {
            throw CancellationError()  // the vault stopping: the next refresh meets the refused token again
        } catch {
            // The refused token stays stored: the account backs off, so callers and the scan do not send the refresh
            // token the carrier refused again and again while the store cannot remove it.
            let failure = Self.storeFailure(account, error)
            _ = recordFailure(account, message: "the carrier refused the refresh and the token could not be removed: \(failure.message)", at: clock.now(), in: vault)
            throw failure
        }
        vault.failures.clear(account)
        emit(.reloginRequired(account: account, message: message))
        throw TokenError(.reloginRequired, account: account, message: message)
    }

    /// The refresh, holding the store's refresh lock: steps 1 to 7 above.
    private func attempt(_ flight: RefreshFlight, in vault: isolated TokenVault) async throws -> AccessToken {
        let account = flight.account
        // Another process or instance may have refreshed while this one waited for the lock.
        guard !flight.loggedOut, var current = try await load(account) else {
            throw TokenError(.loggedOut, account: account, message: "the token was removed before the refresh")
        }
        // The token the refresh starts from: the stored one, or a kept one the store has not taken.
        var basis = current.token
        if let kept = vault.unsaved.token(for: account, over: current) {
            // An earlier refresh's token that the store failed to write: written first, since its refresh token may
            // be the only one the carrier still takes.
            var storeAnswered = false
            switch try await writeKept(kept, over: current, in: vault, storeAnswered: &storeAnswered) {
            case .answer(let token): return token
            case .refreshFrom(let from, let stored): (basis, current) = (from, stored)
            }
        }
        if current.version != flight.stored.version, policy.state(of: current.token, at: clock.now()) == .fresh {
            emit(.refreshedElsewhere(account: account))
            return current.token
        }
        let response: RefreshResponse
        // The answer's lifetime counts from when the request left: the carrier counted it from before its answer
        // arrived, which may take long (a late answer up to the late-answer limit after).
        let sent = clock.now()
        do {
            response = try await refresher.refresh(basis)
        } catch is CancellationError where Task.isCancelled {
            throw CancellationError()
        } catch {
            let message = Secret.scrub(Self.why(error), of: [basis.value, basis.refreshToken, current.token.value, current.token.refreshToken])
            let refused = (error as? TokenError)?.kind == .reloginRequired
            return try await failed(flight, current, from: basis, refused: refused, "the refresh \(refused ? "was refused" : "failed"): \(message)", in: vault)
        }
        guard !flight.loggedOut else {
            throw TokenError(.loggedOut, account: account, message: "the account logged out during the refresh")
        }
        let now = clock.now()
        let (fresh, rotatedRefresh) = refreshed(basis, with: response, at: sent)
        // An answer that cannot be served: none to serve (no access token, a lifetime that is none), or one expired
        // on arrival.
        var unusable = response.unusable ?? (response.accessToken.isEmpty ? "the refresh answer has an empty access token" : nil)
        if unusable == nil, policy.state(of: fresh, at: now) == .expired {
            let seconds = response.expiresIn.map { "\($0.seconds) s" } ?? "no time"
            unusable = "the refresh answer's token lives \(seconds), within the \(policy.skewMargin.seconds) s skew margin: it is already expired"
        }
        // One no store keeps (a record over 64 KiB): never served from memory while its save fails at every scan.
        if unusable == nil, let problem = Self.unstorable(fresh) { unusable = "the refresh answer's token cannot be stored: " + problem }
        if let unusable {
            let message = "the refresh failed: " + unusable
            // Its refresh token is the carrier's latest (the one it replaced may be retired): kept with the access
            // token the account had, so the next refresh carries it, unless it is itself one no store keeps.
            guard let rotatedRefresh,
                case let kept = basis.rotated(value: basis.value, refreshToken: rotatedRefresh, issuedAt: basis.issuedAt, expiresAt: basis.expiresAt),
                Self.unstorable(kept) == nil
            else {
                return try await failed(flight, current, from: basis, refused: false, message, in: vault)
            }
            var stored = current
            do {
                // Nil: someone wrote another token since; theirs stands.
                if let version = try await saveAnswer(kept, over: current, from: basis, for: flight) {
                    stored = StoredToken(token: kept, version: version)
                }
            } catch where !flight.loggedOut {
                keepInMemory(kept, over: current, alsoReplacing: basis, after: error, "the refresh token the carrier rotated", then: "it is kept in this instance's memory", in: vault)
            } catch {
                // Logged out meanwhile: nothing to keep.
            }
            return try await failed(flight, stored, from: basis, refused: false, message, in: vault)
        }
        let written: TokenVersion?
        do {
            written = try await saveAnswer(fresh, over: current, from: basis, for: flight)
        } catch {
            guard !flight.loggedOut else {
                throw TokenError(.loggedOut, account: account, message: "the account logged out during the refresh")
            }
            // The carrier answered and may have rotated the refresh token: the new token is served and kept until
            // a write lands (the next background scan, or the account's next refresh, writes it before any
            // carrier call). The account backs off, so a store that is down is not asked again at every call.
            keepInMemory(
                fresh, over: current, alsoReplacing: basis, after: error, "the refreshed token", then: "it is served from this instance's memory and written when the store takes it",
                in: vault)
            _ = vault.failures.record(account, at: now)
            return fresh
        }
        guard written != nil else { return try await writtenByAnother(flight, at: now) }
        vault.failures.clear(account)
        emit(.refreshed(account: account, flow: fresh.flow, expiresAt: fresh.expiresAt, rotatedRefreshToken: rotatedRefresh != nil))
        return fresh
    }

    /// Why no store keeps a token (``TokenRecordLimit/check(_:)``), or nil.
    private static func unstorable(_ token: AccessToken) -> String? {
        do {
            try TokenRecordLimit.check(token)
            return nil
        } catch {
            return error.message
        }
    }

    /// The token someone wrote while the refresh ran, for its callers: another instance's refresh or a login (used), or
    /// a logout (nothing given back).
    /// - Parameters:
    ///   - flight: The refresh.
    ///   - now: The time.
    /// - Returns: The stored token.
    /// - Throws: ``TokenError`` `logged-out` when the account logged out or has no token; `refresh-failed` (retry at
    ///   once) when the token someone stored is expired (its own refresh decides it, at the next request); the store's
    ///   failure.
    private func writtenByAnother(_ flight: RefreshFlight, at now: Date) async throws -> AccessToken {
        guard !flight.loggedOut, let latest = try await load(flight.account) else {
            throw TokenError(.loggedOut, account: flight.account, message: "the token was removed during the refresh")
        }
        guard policy.state(of: latest.token, at: now) != .expired else {
            let why = "another writer stored an expired token during the refresh, refreshed at the next request"
            // Told once, as the callers' answer: a refresh a login superseded counts nothing, and one whose time limit
            // answered its callers told its failure then.
            if !flight.superseded && !flight.timedOut { emit(.refreshFailed(account: flight.account, message: why, attempt: 1, retryAt: now)) }
            throw TokenError(.refreshFailed, account: flight.account, message: why, retryAt: now)
        }
        if !flight.superseded { emit(.refreshedElsewhere(account: flight.account)) }
        return latest.token
    }

    /// The token a refresh answer makes: the new access token, the new refresh token or else the old one
    /// (rotation), and the answer's lifetime or else the policy's default, from `now` (when the request left).
    private func refreshed(_ token: AccessToken, with response: RefreshResponse, at now: Date) -> (AccessToken, rotatedRefresh: Secret?) {
        let lifetime = policy.lifetime(given: response.expiresIn)
        // Rotated: a refresh token that is not empty and not the one sent (the same one again is no rotation).
        let rotatedRefresh = response.refreshToken.flatMap { $0.isEmpty || $0 == token.refreshToken ? nil : $0 }
        let fresh = token.rotated(value: response.accessToken, refreshToken: rotatedRefresh, issuedAt: now, expiresAt: now.addingTimeInterval(lifetime))
        return (fresh, rotatedRefresh)
    }

    /// What a refresher's error says, without the kind of a ``TokenError`` (the caller says refused or failed).
    private static func why(_ error: any Error) -> String {
        if let error = error as? TokenError { return error.message }
        if error is CancellationError { return "the refresh was cancelled" }
        return "\(error)"
    }

    /// A failed refresh: a refused refresh token removes an expired token, and keeps one that still has time
    /// until it expires (backing off until then); any other failure backs off and keeps a usable token. A login that
    /// stored a new token meanwhile makes the failure the old token's: the login's token is answered, and nothing backs off.
    /// - Parameters:
    ///   - current: The stored token and version (what a removal or a write replaces).
    ///   - basis: The token the refresh started from: the stored one, or a newer one kept in memory, which alone is
    ///     judged and served (the stored one's access token was replaced by it).
    ///   - refused: Whether the carrier refused the refresh token (a ``TokenError`` of kind `relogin-required`).
    ///   - message: What went wrong, without a token.
    private func failed(
        _ flight: RefreshFlight, _ current: StoredToken, from basis: AccessToken, refused: Bool, _ message: String, in vault: isolated TokenVault
    ) async throws -> AccessToken {
        let account = flight.account
        let now = clock.now()
        // A login stored a new token meanwhile: the failure was the old token's; the login's is served, backing off from nothing.
        if flight.superseded { return try await writtenByAnother(flight, at: now) }
        if refused {
            guard policy.state(of: basis, at: now) != .expired else {
                return try await requireRelogin(account, current, alsoReplacing: basis, message: message, in: vault)
            }
            // The access token still works: served until it expires, when the refresh is tried once more (a carrier's
            // refusal for a reason that passes, or a token whose refresh token it left empty, costs no login before then).
            let expiry = policy.expiredFrom(basis)
            let entry = vault.failures.record(account, until: expiry, at: now)
            // Due at its expiry now, so that the background scans of every instance pass it by until then.
            do {
                _ = try await store.save(basis, replacing: current.version, dueAt: expiry)
            } catch {
                // Someone wrote since, or the store failed: the back-off alone holds this instance's scans off.
            }
            emit(.refreshFailed(
                account: account, message: "\(message); the token is served until it expires at \(expiry.iso8601), then refreshed once more",
                attempt: entry.attempts, retryAt: entry.retryAt))
            return basis
        }
        // A refresh whose callers were already answered at the time limit counted its failure then.
        let retryAt = flight.timedOut
            ? vault.failures.entry(for: account)?.retryAt ?? now.addingTimeInterval(vault.failures.backoff.delay(afterFailure: 1))
            : recordFailure(account, message: message, at: now, in: vault)
        if policy.state(of: basis, at: now) != .expired {
            return basis
        }
        throw TokenError(.refreshFailed, account: account, message: "the token expired and \(message)", retryAt: retryAt)
    }

    /// A listed account whose token cannot be read (the store failed, or a row no key opens): counted in the
    /// back-off book like a failed refresh (and said so), so the background scan neither retries it every
    /// scan nor stops at it.
    /// - Parameters:
    ///   - account: The account.
    ///   - error: What the store threw.
    ///   - vault: The vault whose book counts it.
    package func unreadable(_ account: AccountID, _ error: any Error, in vault: isolated TokenVault) {
        _ = recordFailure(account, message: "the stored token cannot be read: \(Self.storeFailure(account, error).message)", at: clock.now(), in: vault)
    }

    /// Counts a transient failure in the book and says so.
    /// - Returns: When refreshing may be tried again.
    private func recordFailure(_ account: AccountID, message: String, at now: Date, in vault: isolated TokenVault) -> Date {
        let entry = vault.failures.record(account, at: now)
        emit(.refreshFailed(account: account, message: message, attempt: entry.attempts, retryAt: entry.retryAt))
        return entry.retryAt
    }

    /// The stored token, with a store failure as a ``TokenError``.
    /// - Parameter account: The account.
    /// - Returns: The stored token, or nil when none is stored.
    /// - Throws: ``TokenError`` of kind `store-failed`; `CancellationError` when the caller was cancelled during the
    ///   read (the caller's doing, not the store failing).
    package nonisolated(nonsending) func load(_ account: AccountID) async throws -> StoredToken? {
        do {
            return try await store.load(account)
        } catch where CallerCancellation.reads(error) {
            throw CancellationError()
        } catch {
            throw Self.storeFailure(account, error)
        }
    }

    /// A store's error as the vault reports it.
    /// - Parameters:
    ///   - account: The account, or nil for the listing of due accounts.
    ///   - error: What the store threw.
    /// - Returns: The error itself when it is a ``TokenError``, else one of kind `store-failed`.
    package static func storeFailure(_ account: AccountID?, _ error: any Error) -> TokenError {
        if let error = error as? TokenError { return error }
        return TokenError(.storeFailed, account: account, message: "the token store failed: \(error)")
    }

    /// Emits a token event stamped with the clock's time.
    /// - Parameter event: The event.
    package func emit(_ event: TokenEvent) {
        events.receive(OneTapEvent(at: clock.now(), .token(event)))
    }
}
