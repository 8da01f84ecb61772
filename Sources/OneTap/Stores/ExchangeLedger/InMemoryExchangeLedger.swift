/// An exchange ledger in this process's memory. It forgets a token a day after its claim (no one-tap
/// token lives that long: `Data/token-lifetimes.csv`), so it stays bounded.
public final class InMemoryExchangeLedger: ExchangeLedger {
    private struct Entry {
        var state: ExchangeLedgerState
        var claimedAt: Date
        var settledAt: Date
    }

    private struct Table {
        var entries: [SHA256Digest: Entry] = [:]
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
    /// - Parameter retention: How long a token is remembered; one day.
    public init(retention: Duration = .seconds(86_400)) {
        self.retention = retention
    }

    /// Claims a token (``ExchangeLedger/claim(_:at:)``).
    /// - Parameters:
    ///   - token: The token's SHA-256.
    ///   - now: The time.
    /// - Returns: Nil when it was never claimed, else its state.
    public func claim(_ token: SHA256Digest, at now: Date) async throws -> ExchangeLedgerState? {
        let horizon = now.addingTimeInterval(-retention.seconds)
        return table.withLock { table in
            if table.entries.count > table.sweepAbove {
                table.entries = table.entries.filter { $0.value.claimedAt >= horizon }
                table.sweepAbove = max(4096, 2 * table.entries.count)
                table.sweeps += 1
            }
            if let entry = table.entries[token], entry.claimedAt >= horizon { return entry.state }
            table.entries[token] = Entry(state: .pending, claimedAt: now, settledAt: now)
            return nil
        }
    }

    /// Records how an exchange ended (``ExchangeLedger/settle(_:_:at:)``).
    /// - Parameters:
    ///   - token: The token's SHA-256.
    ///   - state: How it ended.
    ///   - now: The time.
    public func settle(_ token: SHA256Digest, _ state: ExchangeLedgerState, at now: Date) async throws {
        table.withLock { table in
            table.entries[token, default: Entry(state: state, claimedAt: now, settledAt: now)].state = state
            table.entries[token]?.settledAt = now
        }
    }

    /// The exchanges with an unknown result (``ExchangeLedger/unknownExchanges(since:)``).
    /// - Parameter since: The earliest time to list.
    /// - Returns: Their digests and times, oldest first.
    public func unknownExchanges(since: Date) async throws -> [(token: SHA256Digest, at: Date)] {
        table.withLock { table in
            table.entries.filter { $0.value.state == .unknown && $0.value.settledAt >= since }
                .map { (token: $0.key, at: $0.value.settledAt) }
                .sorted { $0.at < $1.at }
        }
    }

    /// How many sweeps for forgotten tokens the claims made (tests: a flood sweeps a logarithmic number
    /// of times).
    package var sweeps: Int { table.withLock { $0.sweeps } }

    /// How many tokens the ledger holds now.
    package var count: Int { table.withLock { $0.entries.count } }
}
