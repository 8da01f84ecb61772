extension TokenVault {
    /// How the vault refreshes in the background while it runs.
    public struct Background: Hashable, Sendable {
        /// How often due accounts are looked for: 60 s.
        package var scanInterval: Duration
        /// The most background refreshes at once (refreshes a caller waits for are not limited): 8.
        package var concurrentRefreshes: Int
        /// How long a refresh call may go on after ``TokenVault/refreshTimeout`` (its callers already
        /// answered) before it is cancelled: 5 minutes.
        package var lateAnswerLimit: Duration

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
}

/// The vault's background scheduling: every ``TokenVault/Background/scanInterval`` while the vault runs,
/// the accounts the store lists as due (stale or expired soon) are refreshed with nobody waiting, at
/// most ``TokenVault/Background/concurrentRefreshes`` at once. (A stale token a caller gets is refreshed
/// behind that caller by the vault itself, outside this limit.) Its scan runs on the vault's actor.
///
/// States of the scan and their transitions:
/// - **scanning** (once at `run()`, then after each interval): no free slot → nothing this time. Else the
///   due accounts are listed (at most ``listingLimit(freeSlots:failing:)``); a listing error emits
///   `due-scan-failed` and the next scan tries again.
/// - Each listed account, while the vault runs and a slot is free: skipped when a refresh runs for it or
///   it is backing off; else its token is loaded (a store error or no token: skipped, a caller reading
///   it hears the error) and ``plan(for:at:policy:)`` says: fresh (refreshed elsewhere since the
///   listing) → skip; expired with no refresh token → removed (`relogin-required`); else a background
///   refresh starts and holds a slot until it answers or times out.
/// - scanning → **sleeping** for the interval → scanning, until the vault stops running or the scan's
///   task is cancelled.
package struct BackgroundRefreshes: Sendable {
    /// What a listed account needs.
    package enum Plan: Hashable, Sendable {
        /// Nothing: the token is fresh.
        case skip
        /// Remove it: expired with no refresh token.
        case relogin
        /// Refresh it: stale, or expired with a refresh token.
        case refresh
    }

    /// The settings.
    package let settings: TokenVault.Background

    /// Scheduling with these settings.
    /// - Parameter settings: The interval, the limit and the late-answer limit.
    package init(_ settings: TokenVault.Background) {
        self.settings = settings
    }

    /// How many due accounts one scan lists: four per free slot, plus the accounts backing off (which it
    /// skips), at most 10,000.
    /// - Parameters:
    ///   - freeSlots: Background refreshes that may still start.
    ///   - failing: Accounts in the back-off book.
    /// - Returns: The listing's limit.
    package func listingLimit(freeSlots: Int, failing: Int) -> Int {
        min(10_000, freeSlots * 4 + failing)
    }

    /// What a listed account's stored token needs now.
    /// - Parameters:
    ///   - stored: The stored token.
    ///   - now: The instant.
    ///   - policy: When tokens turn stale and expire.
    /// - Returns: Skip, relogin or refresh.
    package func plan(for stored: StoredToken, at now: Date, policy: TokenPolicy) -> Plan {
        switch policy.state(of: stored.token, at: now) {
        case .fresh: .skip
        case .expired where stored.token.refreshToken == nil: .relogin
        case .stale, .expired: .refresh
        }
    }

    /// Scans, then sleeps an interval, until the vault stops running or the task is cancelled.
    /// - Parameter vault: The vault.
    package func scanUntilStopped(_ vault: isolated TokenVault) async {
        while vault.lifecycle.isRunning, !Task.isCancelled {
            await scan(vault)
            do { try await vault.clock.sleep(for: settings.scanInterval) } catch { return }
        }
    }

    /// One scan: refreshes the due accounts, as many as the free slots allow.
    /// - Parameter vault: The vault.
    package func scan(_ vault: isolated TokenVault) async {
        await vault.refresh.writeKeptTokens(in: vault)
        let free = settings.concurrentRefreshes - vault.flights.backgroundUnderWay
        guard free > 0 else { return }
        let due: [AccountID]
        do {
            due = try await vault.store.accounts(dueBefore: vault.clock.now(), limit: listingLimit(freeSlots: free, failing: vault.failures.count))
        } catch where CallerCancellation.reads(error) {
            return  // the vault stopping: no scan failed
        } catch {
            vault.refresh.emit(.dueScanFailed(message: TokenRefresh.storeFailure(nil, error).message))
            return
        }
        for account in due {
            guard vault.lifecycle.isRunning, vault.flights.backgroundUnderWay < settings.concurrentRefreshes else { return }
            if vault.flights.flight(for: account) != nil || vault.failures.isBackingOff(account, at: vault.clock.now()) { continue }
            let stored: StoredToken
            do {
                guard let loaded = try await vault.store.load(account) else { continue }
                stored = loaded
            } catch where CallerCancellation.reads(error) {
                return  // the vault stopping: the account's token is not unreadable
            } catch {
                // A caller reading this account gets the store's error. The account backs off like a failing
                // refresh, so the listing (four per free slot plus the failing) reaches past it next time.
                vault.refresh.unreadable(account, error, in: vault)
                continue
            }
            guard vault.flights.flight(for: account) == nil else { continue }
            switch plan(for: stored, at: vault.clock.now(), policy: vault.policy) {
            case .skip:
                continue  // refreshed elsewhere since the listing
            case .relogin:
                do {
                    _ = try await vault.refresh.requireRelogin(account, stored, message: "the token expired and there is no refresh token", in: vault)
                } catch {
                    continue  // removed (its event says so), or the store failed: a caller reading it hears why
                }
            case .refresh:
                _ = vault.startRefresh(account, from: stored, background: true)
            }
        }
    }
}
