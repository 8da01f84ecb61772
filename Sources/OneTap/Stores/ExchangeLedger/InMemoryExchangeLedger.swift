/// An exchange ledger in this process's memory. It forgets a token a day after its claim (no one-tap
/// token lives that long: `Data/token-lifetimes.csv`), and the answer it kept with it (the user's number
/// too), so it stays bounded.
package final class InMemoryExchangeLedger: ExchangeLedger {
    private struct Table {
        var entries: [SHA256Digest: ExchangeLedgerEntry] = [:]
        /// The size above which the next claim sweeps out forgotten tokens: at least 4,096, and twice what
        /// the last sweep kept, so a flood of claims costs amortised O(1) each, never a copy per claim.
        var sweepAbove = 4096
        /// Sweeps so far (tests).
        var sweeps = 0
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
        let horizon = now.addingTimeInterval(-retention.seconds)
        return table.withLock { table in
            if table.entries.count > table.sweepAbove {
                table.entries = table.entries.filter { $0.value.claimedAt >= horizon }
                table.sweepAbove = max(4096, 2 * table.entries.count)
                table.sweeps += 1
            }
            if let entry = table.entries[token], entry.claimedAt >= horizon { return entry }
            table.entries[token] = ExchangeLedgerEntry(token: token, state: .pending, session: session, claimedAt: now, settledAt: now, sends: 1)
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
        let horizon = now.addingTimeInterval(-retention.seconds)
        return table.withLock { table in
            guard let entry = table.entries[token], entry.claimedAt >= horizon, entry.state == .unknown, entry.session == session, entry.sends < 2 else {
                return false
            }
            table.entries[token] = ExchangeLedgerEntry(token: token, state: .pending, session: session, claimedAt: now, settledAt: now, sends: entry.sends + 1)
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
        table.withLock { table in
            let entry = table.entries[token]
            table.entries[token] = ExchangeLedgerEntry(
                token: token, state: state, session: entry?.session, claimedAt: entry?.claimedAt ?? now, settledAt: now, sends: entry?.sends ?? 1)
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
    /// - Complexity: O(n log n) in the entries to reconcile (this store holds one process's).
    package func unknownExchanges(since: Date, pendingClaimedBefore: Date, after: ExchangeLedgerEntry?, limit: Int) async throws -> [ExchangeLedgerEntry] {
        guard limit > 0 else { return [] }
        let cursor = after.map { ($0.at, $0.token.hex) }
        return table.withLock { table in
            let listed = table.entries.values.filter { entry in
                switch entry.state {
                case .unknown: entry.settledAt >= since
                case .pending: entry.claimedAt < pendingClaimedBefore
                case .answered, .failed: false
                }
            }
            .filter { entry in cursor.map { (entry.at, entry.token.hex) > $0 } ?? true }
            .sorted { ($0.at, $0.token.hex) < ($1.at, $1.token.hex) }
            return Array(listed.prefix(limit))
        }
    }

    /// Forgets the tokens claimed longer than ``retention`` before an instant, with the answers kept with
    /// them: what ``ExpiredRecordSweeper`` calls on a schedule (``SweptStore/exchangeLedger(_:)``), so a
    /// ledger that stops taking claims still lets go of the numbers it kept. Claims also sweep, past
    /// 4,096 tokens.
    /// - Parameters:
    ///   - instant: The instant: a token claimed before `instant` minus the retention goes.
    ///   - limit: The most to remove; zero or less removes nothing.
    /// - Returns: How many tokens were forgotten.
    package func removeExpired(before instant: Date, limit: Int) async throws -> Int {
        let horizon = instant.addingTimeInterval(-retention.seconds)
        return table.withLock { table in
            guard limit > 0 else { return 0 }
            var expired: [SHA256Digest] = []
            for (token, entry) in table.entries where entry.claimedAt < horizon {
                expired.append(token)
                if expired.count == limit { break }
            }
            for token in expired { table.entries[token] = nil }
            return expired.count
        }
    }

    /// How many sweeps for forgotten tokens the claims made (tests: a flood sweeps a logarithmic number
    /// of times).
    package var sweeps: Int { table.withLock { $0.sweeps } }

    /// How many tokens the ledger holds now.
    package var count: Int { table.withLock { $0.entries.count } }
}
