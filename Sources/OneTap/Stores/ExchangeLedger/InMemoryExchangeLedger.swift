/// An exchange ledger in this process's memory. It forgets a token a day after its claim (no one-tap
/// token lives that long: `Data/token-lifetimes.csv`), and the answer it kept with it (the user's number
/// too), so it stays bounded.
package final class InMemoryExchangeLedger: ExchangeLedger {
    private struct Table {
        /// Each token's entry, kept until its claim's retention has passed; a sweep reads only what is due.
        var entries = InMemoryExpiringValues<SHA256Digest, ExchangeLedgerEntry>()
        /// Claims so far: every 1,024th sweeps out what is due (as the other in-memory stores' writes do).
        var claims = 0
    }

    private let table = LockedValue(Table())
    /// How long a token is remembered: one day.
    package let retention: Duration

    /// Creates an empty ledger.
    /// - Parameter retention: How long a token (and the answer kept with it) is remembered; one day.
    package init(retention: Duration = .seconds(86_400)) {
        self.retention = retention
    }

    /// Claims a token for a session (``ExchangeLedger/claim(_:for:at:)``).
    /// - Parameters:
    ///   - token: The token's SHA-256.
    ///   - session: The login session the token came with.
    ///   - now: The time.
    /// - Returns: Nil when it was never claimed (or was forgotten), else its entry.
    package func claim(_ token: SHA256Digest, for session: LoginSessionID, at now: Date) async throws -> ExchangeLedgerEntry? {
        claimNow(token, for: session, at: now)
    }

    /// ``claim(_:for:at:)`` at once, under the ledger's lock: what a login-session store that claims with a
    /// session's replace calls under its own lock (``InMemoryLoginSessionStore``).
    /// - Parameters:
    ///   - token: The token's SHA-256.
    ///   - session: The login session the token came with.
    ///   - now: The time.
    /// - Returns: Nil when it was never claimed (or was forgotten), else its entry.
    package func claimNow(_ token: SHA256Digest, for session: LoginSessionID, at now: Date) -> ExchangeLedgerEntry? {
        let keepUntil = now.addingTimeInterval(retention.seconds)
        return table.withLock { table in
            table.claims &+= 1
            if table.claims % 1024 == 0 { _ = table.entries.sweep(before: now, limit: .max) }
            if let held = table.entries.value(token, at: now) { return held.value }
            table.entries.set(token, ExchangeLedgerEntry(token: token, state: .pending, session: session, claimedAt: now, settledAt: now, sends: 1), keepUntil: keepUntil)
            return nil
        }
    }

    /// Claims an unknown exchange again for the session that claimed it, once (``ExchangeLedger/resend(_:for:at:)``).
    /// - Parameters:
    ///   - token: The token's SHA-256.
    ///   - session: The login session asking.
    ///   - now: The time.
    /// - Returns: True when this call claimed it again.
    package func resend(_ token: SHA256Digest, for session: LoginSessionID, at now: Date) async throws -> Bool {
        let keepUntil = now.addingTimeInterval(retention.seconds)
        return table.withLock { table in
            guard let entry = table.entries.value(token, at: now)?.value, entry.state == .unknown, entry.session == session, entry.sends < 2 else {
                return false
            }
            table.entries.set(
                token, ExchangeLedgerEntry(token: token, state: .pending, session: session, claimedAt: now, settledAt: now, sends: entry.sends + 1),
                keepUntil: keepUntil)
            return true
        }
    }

    /// Records how an exchange ended (``ExchangeLedger/settle(_:_:at:)``).
    /// - Parameters:
    ///   - token: The token's SHA-256.
    ///   - state: How it ended.
    ///   - now: The time.
    package func settle(_ token: SHA256Digest, _ state: ExchangeLedgerState, at now: Date) async throws {
        settleNow(token, state, at: now)
    }

    /// ``settle(_:_:at:)`` at once, under the ledger's lock (``claimNow(_:for:at:)`` says who calls it).
    /// - Parameters:
    ///   - token: The token's SHA-256.
    ///   - state: How it ended.
    ///   - now: The time.
    package func settleNow(_ token: SHA256Digest, _ state: ExchangeLedgerState, at now: Date) {
        let retention = retention.seconds
        table.withLock { table in
            let entry = table.entries.stored(token)
            let claimedAt = entry?.claimedAt ?? now
            table.entries.set(
                token, ExchangeLedgerEntry(token: token, state: state, session: entry?.session, claimedAt: claimedAt, settledAt: now, sends: entry?.sends ?? 1),
                keepUntil: claimedAt.addingTimeInterval(retention))
        }
    }

    /// The exchanges to reconcile, a page at a time
    /// (``ExchangeLedger/unknownExchanges(since:pendingClaimedBefore:after:limit:)``).
    /// - Parameters:
    ///   - since: The earliest time to list an unknown exchange by.
    ///   - pendingClaimedBefore: List the pending exchanges claimed before this time.
    ///   - after: The last entry of the page before; nil for the first.
    ///   - limit: The most entries to list.
    /// - Returns: Their entries, oldest first, then by token.
    /// - Complexity: O(n + k log k) for n entries held and k past the cursor still to reconcile: this store has no
    ///   index to read a page along (it holds one process's entries, a day of them).
    package func unknownExchanges(since: Date, pendingClaimedBefore: Date, after: ExchangeLedgerEntry?, limit: Int) async throws -> [ExchangeLedgerEntry] {
        guard limit > 0 else { return [] }
        let cursor = after.map { ($0.at, $0.token.hex) }
        return table.withLock { table in
            let listed = table.entries.storedValues { entry in
                let due = switch entry.state {
                case .unknown: entry.settledAt >= since
                case .pending: entry.claimedAt < pendingClaimedBefore
                case .answered, .failed: false
                }
                return due && (cursor.map { (entry.at, entry.token.hex) > $0 } ?? true)
            }
            .sorted { ($0.at, $0.token.hex) < ($1.at, $1.token.hex) }
            return Array(listed.prefix(limit))
        }
    }

    /// Forgets the tokens claimed longer than ``retention`` before an instant, with the answers kept with
    /// them: what ``ExpiredRecordSweeper`` calls on a schedule (``SweptStore/exchangeLedger(_:)``), so a
    /// ledger that stops taking claims still lets go of the numbers it kept. Every 1,024th claim also sweeps.
    /// - Parameters:
    ///   - instant: The instant: a token claimed before `instant` minus the retention goes.
    ///   - limit: The most to remove; zero or less removes nothing.
    /// - Returns: How many tokens were forgotten.
    /// - Complexity: O(r log n) for r tokens forgotten (and those claimed again since): a sweep reads only what
    ///   is due, never the whole ledger, under the lock a login-session store's joint claim also takes.
    package func removeExpired(before instant: Date, limit: Int) async throws -> Int {
        table.withLock { table in
            guard limit > 0 else { return 0 }
            return table.entries.sweep(before: instant, limit: limit)
        }
    }

    /// How many entries the sweep's queue holds (the tests': it stays within the claims of a retention).
    package var queued: Int { table.withLock { $0.entries.queued } }

    /// How many tokens the ledger holds now.
    package var count: Int { table.withLock { $0.entries.count } }
}
