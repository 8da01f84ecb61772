import OneTap

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// The refresh lease: one instance at a time refreshes an account (``PostgresTokenStore/withRefreshLock(for:_:)``), a row
// in `<schema>.refresh_leases` taken, renewed and released on the database's clock.

extension PostgresTokenStore {
    /// Runs `body` holding the account's refresh lease (``TokenStore/withRefreshLock(for:_:)``), so one
    /// instance at a time refreshes an account.
    ///
    /// The lease is a row in `refresh_leases`, taken in one statement (`INSERT … ON CONFLICT (account)
    /// DO UPDATE … WHERE the lease expired … RETURNING`): the row is taken when it is missing or expired,
    /// and left alone when another instance holds it. While `body` runs, the lease is renewed every third
    /// of ``leaseDuration``, so a refresh that outlives the vault's refresh time-out (its late answer is
    /// still stored) keeps it; when `body` ends, the row is deleted. An instance that crashed leaves its
    /// row behind, which expires ``leaseDuration`` after its last renewal.
    ///
    /// Expiry is measured on **the database's clock** (`clock_timestamp()`, in milliseconds), not on the injected clock: every
    /// instance compares against the same clock, so clock skew between servers cannot make two of them
    /// take one lease. The injected clock paces the waiting: a held lease is asked for again every 20 ms
    /// for up to ``lockTimeout`` (of pauses, or on the clock, whichever comes first), after which the
    /// refresh fails without running: one refresh at a time, so that no two calls ever carry one refresh
    /// token (a carrier that refuses a reused one would end the account's login), as with ``FileTokenStore``.
    /// - Parameters:
    ///   - account: The account.
    ///   - body: The refresh.
    /// - Returns: What `body` returns.
    /// - Throws: ``StoreError`` of kind `io` when the lease cannot be asked for (the database is
    ///   down; `body` does not run), `timeout` when another instance holds it past ``lockTimeout`` (`body`
    ///   does not run), or what `body` throws.
    package func withRefreshLock<T: Sendable>(for account: AccountID, _ body: @Sendable () async throws -> T) async throws -> T {
        let holder = Self.holderPrefix + String(UInt64.random(in: 0...UInt64.max), radix: 16)
        var wait = LockWait(timeout: lockTimeout, clock: clock)
        var held = false
        while true {
            do {
                held = try await takeLease(account, holder)
            } catch {
                // The answer was lost (the connection broke, or no answer came in time) but the lease may have been
                // taken: let this holder's row go, or every instance's refresh of the account would wait for it to
                // expire. (A DELETE that overtakes an INSERT still running leaves the row to its expiry.)
                if (error as? PostgresError)?.leavesTheOutcomeUnknown == true { await releaseLease(account, holder) }
                throw Self.failure(error, account: account, doing: "take the refresh lease (the refresh did not run)")
            }
            if held || wait.isOver { break }
            try await wait.pause(pollInterval)
        }
        guard held else {
            throw StoreError(
                .timeout, account: account,
                message: "another instance held the refresh lease for longer than \(lockTimeout.seconds) s; the refresh did not run "
                    + "(one refresh at a time: the holder's refresh stores its token)")
        }
        let result: Result<T, any Error>
        do {
            result = .success(try await whileRenewing(account, holder, body))
        } catch {
            result = .failure(error)
        }
        await releaseLease(account, holder)
        return try result.get()
    }

    /// Deletes this holder's lease row, if there is one, even when the refresh's task was cancelled (the vault
    /// stopping): a cancelled wait for a busy pool's connection would leave the lease for its whole duration, every
    /// other instance's refresh of the account timing out meanwhile. A failure is left to the lease's expiry.
    private func releaseLease(_ account: AccountID, _ holder: String) async {
        let pool = pool, release = statements.releaseLease
        do {
            try await writeDespiteCancellation { _ = try await pool.execute(release, [.text(account.rawValue), .text(holder)]) }
        } catch {
            // The database went away: the lease expires on its own.
        }
    }

    private func takeLease(_ account: AccountID, _ holder: String) async throws -> Bool {
        let rows = try await pool.execute(
            statements.takeLease, [.text(account.rawValue), .text(holder), .int64(Self.milliseconds(of: leaseDuration))])
        return rows.first?.first?.text == holder
    }

    /// Runs `body` while a task of its own renews the lease. A renewal that finds no row of this holder (it
    /// expired and was swept, or another instance took it, and may have refreshed and let it go) tells
    /// ``leaseLost``: two refreshes may have overlapped. It takes the lease again when it is free, and stops
    /// renewing when another holder has it.
    ///
    /// The renewals outlive a cancellation of the refresh's task (the vault abandons a call past its late-answer
    /// limit): a call deaf to it runs on with the refresh token, and its lease must stand until it returns, as the
    /// in-memory store's lock and the file store's do. They end when `body` does, before the lease is let go.
    private func whileRenewing<T: Sendable>(_ account: AccountID, _ holder: String, _ body: () async throws -> T) async throws -> T {
        let every = leaseDuration / 3
        let (renew, take) = (statements.renewLease, statements.takeLease)
        let parameters: [PostgresValue] = [.text(account.rawValue), .text(holder), .int64(Self.milliseconds(of: leaseDuration))]
        // Not a child task: a child is cancelled with the refresh. Awaited below, whatever `body` does.
        let renewals = Task { [pool, clock, leaseLost] in
            while true {
                do { try await clock.sleep(for: every) } catch { return }
                do {
                    // The row stays this holder's until it is swept or another takes it, expired or not.
                    if try await pool.execute(renew, parameters).affected == 0 {
                        leaseLost(account)
                        if try await pool.execute(take, parameters).first?.first?.text != holder { return }
                    }
                } catch {
                    if Task.isCancelled { return }  // a failed renewal is retried; the lease may lapse meanwhile
                }
            }
        }
        let result: Result<T, any Error>
        do {
            result = .success(try await body())
        } catch {
            result = .failure(error)
        }
        renewals.cancel()
        await renewals.value
        return try result.get()
    }

    /// Who holds a lease: `host:pid:`, then a random number per refresh (for operators reading the table).
    private static let holderPrefix: String = {
        var name = [CChar](repeating: 0, count: 256)
        let host = gethostname(&name, name.count - 1) == 0 ? String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "host"
        return "\(host):\(getpid()):"
    }()
}
