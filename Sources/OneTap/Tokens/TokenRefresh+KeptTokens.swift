import Foundation

// Refreshed tokens the store failed to write: kept in the vault's memory (``UnsavedTokens``) and written over the
// version they replace by the account's next refresh or the background scan.

extension TokenRefresh {
    /// Keeps a token the store failed to write in this vault's memory, over the version it replaces (a scan once its
    /// back-off allows or the store is back, or the account's next refresh, writes it), and says so with a
    /// `not-stored` event that quotes no token.
    /// - Parameters:
    ///   - token: The token to keep.
    ///   - current: The stored token it replaces.
    ///   - basis: The newer token kept in memory its refresh started from, if any (replaced too).
    ///   - error: What the store threw.
    ///   - what: What could not be stored, for the event.
    ///   - then: What becomes of it, for the event.
    ///   - vault: The vault.
    func keepInMemory(
        _ token: AccessToken, over current: StoredToken, alsoReplacing basis: AccessToken?, after error: any Error, _ what: String, then: String,
        in vault: isolated TokenVault
    ) {
        vault.unsaved.keep(token, over: current, alsoReplacing: basis)
        let message = Secret.scrub("\(error)", of: [token.value, token.refreshToken, current.token.value, current.token.refreshToken])
        emit(.notStored(account: token.account, message: "\(what) could not be stored (\(message)); \(then)"))
    }

    /// What writing a kept token leads to.
    enum KeptWrite {
        /// The answer for the callers: the kept token (written, or still only in memory while usable), or
        /// another writer's usable token.
        case answer(AccessToken)
        /// Refresh from `basis` (the kept token, written or not: its refresh token is the latest), writing the answer
        /// over `stored` (the token and version the store holds: the kept one once written, else the one it replaces).
        case refreshFrom(basis: AccessToken, over: StoredToken)
    }

    /// Writes a token an earlier refresh could not store, over the version it replaces.
    /// - Parameter storeAnswered: Set to whether the store took the write or answered that another writer's token
    ///   stands (the store is up), whatever else changed meanwhile (a scan's probe reads it).
    func writeKept(_ kept: AccessToken, over current: StoredToken, in vault: isolated TokenVault, storeAnswered: inout Bool) async throws -> KeptWrite {
        let account = kept.account
        let now = clock.now()
        let written: TokenVersion?
        storeAnswered = false
        do {
            let store = store, dueAt = policy.dueAt(kept)
            written = try await saveOverTheReplaced(kept, current) { try await store.save(kept, replacing: $0, dueAt: dueAt) }
            storeAnswered = true
        } catch {
            let message = Secret.scrub("\(error)", of: [kept.value, kept.refreshToken, current.token.value, current.token.refreshToken])
            emit(.notStored(account: account, message: "the refreshed token still could not be stored (\(message)); it stays in memory"))
            if policy.state(of: kept, at: now) != .expired {
                // Served from memory meanwhile; the account backs off, so a store that keeps refusing writes is not
                // asked again by every request on the stale token (a scan past the back-off or once the store is
                // back, or the first request past the back-off, tries again). An expired kept token does not back off:
                // its refresh goes on below.
                _ = vault.failures.record(account, at: now)
                return .answer(kept)
            }
            // Expired in memory too: refresh from it (its refresh token is the latest); the answer is written over the
            // stored token it replaces, so that a re-save of that token since is recognised.
            return .refreshFrom(basis: kept, over: current)
        }
        if let version = written {
            vault.unsaved.forget(account, ifStill: kept)
            vault.failures.clear(account)
            let rotated = kept.refreshToken != nil && kept.refreshToken != current.token.refreshToken
            // A kept refresh token alone (an answer that could not be served) is no refresh: only a new access token is.
            if kept.value != current.token.value {
                emit(.refreshed(account: account, flow: kept.flow, expiresAt: kept.expiresAt, rotatedRefreshToken: rotated))
            }
            let stored = StoredToken(token: kept, version: version)
            return policy.state(of: kept, at: now) == .fresh ? .answer(kept) : .refreshFrom(basis: kept, over: stored)
        }
        // Someone wrote another token since (another instance's refresh, a logout, a login): theirs stands.
        vault.unsaved.forget(account, ifStill: kept)
        guard let latest = try await load(account) else {
            throw TokenError(.loggedOut, account: account, message: "the token was removed since the refresh that could not be stored")
        }
        return policy.state(of: latest.token, at: now) == .fresh ? .answer(latest.token) : .refreshFrom(basis: latest.token, over: latest)
    }

    /// Writes every token this vault kept after a failed write, over the version each replaces (what the
    /// background scan does first): the store may be back, and until a token is written other instances see
    /// only the one it replaced. Accounts backing off after a failed write wait for their retry times, but one of them
    /// probes the store at every scan, and once a write lands (the probe's, or an account's whose wait is over) the
    /// store is back and every kept token is written in the same pass: a store that keeps refusing writes gets a
    /// load, a save and a `not-stored` line per scan and per account whose wait is over, not per kept account (an
    /// attacker's read), and one that recovers has every kept token written within a scan (a review: waits grown to an
    /// hour held a rotated refresh token unwritten that long, while other instances refreshed with the one it
    /// replaced). The last pass, at shutdown, tries each.
    /// - Parameters:
    ///   - vault: The vault.
    ///   - stoppingAtAFailure: Whether the first account the store fails on ends the pass (at shutdown: a store still
    ///     down would hold it one time-out per account).
    package func writeKeptTokens(in vault: isolated TokenVault, stoppingAtAFailure: Bool = false) async {
        let now = clock.now()
        let kept = vault.unsaved.accounts.filter { vault.flights.flight(for: $0) == nil }
        let waiting = stoppingAtAFailure ? [] : kept.filter { vault.failures.isBackingOff($0, at: now) }
        let waits = Set(waiting)
        // Those whose wait is over first, then the waiting ones: the first of them whose write is tried probes the store.
        var landed = false, probed = false
        for account in kept.filter({ !waits.contains($0) }) + waiting {
            let probe = waits.contains(account) && !landed
            if probe, probed { return }  // the probe's write failed: the rest wait
            guard vault.flights.flight(for: account) == nil else { continue }
            let current: StoredToken
            do {
                guard let stored = try await load(account) else {
                    vault.unsaved.forget(account)  // removed since (a logout elsewhere): nothing to write it over
                    continue
                }
                current = stored
            } catch {
                if stoppingAtAFailure || probe { return }
                continue  // a store still down is tried again at a later scan
            }
            // A flight that started while the store was read writes it itself.
            guard vault.flights.flight(for: account) == nil, let token = vault.unsaved.token(for: account, over: current) else { continue }
            if probe { probed = true }
            var storeAnswered = false
            do {
                _ = try await writeKept(token, over: current, in: vault, storeAnswered: &storeAnswered)
            } catch {
                if storeAnswered { landed = true }
                continue  // a logout since, said by the write's event
            }
            if storeAnswered {
                landed = true
            } else if stoppingAtAFailure {
                return
            } else {
                // Not answered: the store failed the write (said by its `not-stored` event); tried again at a later scan,
                // and no waiting account probes it in this one.
                probed = true
            }
        }
    }
}
