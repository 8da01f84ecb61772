import OneTap

/// An ``SMSStore`` wrapper that fails on demand, through ``FaultyStore/faults``: an update refused before
/// anything is read (`.refuse()`), or one whose change is computed but never written (`.lose()`, a
/// database that drops the connection at commit), so tests can check that nothing is sent or counted then.
public typealias FaultySMSStore = FaultyStore<any SMSStore>

extension FaultyStore: SMSStore where Base == any SMSStore {
    /// Makes the next updates fail.
    /// - Parameters:
    ///   - point: Where.
    ///   - count: How many updates in a row.
    package func fail(_ point: SMSUpdateFailure, times count: Int = 1) {
        switch point {
        case .beforeRead: faults.inject(.refuse(.io, "the store is down (scripted)"), into: [.update], times: count)
        case .beforeWrite: faults.inject(.lose(.io, "the connection dropped at commit (scripted)"), into: [.update], times: count)
        case .afterWrite: faults.inject(.land(.io, "the connection dropped after the commit (scripted)"), into: [.update], times: count)
        }
    }

    /// Updates through the base store, or fails as scripted.
    /// - Parameters:
    ///   - counters: The counters.
    ///   - number: The number and session, or nil for counters only.
    ///   - now: The time.
    ///   - body: The change.
    /// - Returns: What `body` returned.
    /// - Throws: ``StoreError`` of kind `io` when scripted to fail.
    public func update<Result: Sendable>(
        counters: [SMSPolicy.Counter], code number: SMSCodeKey?, at now: Date, _ body: @Sendable (inout SMSState) -> Result
    ) async throws -> Result {
        try await faults.run(.update) {
            try await base.update(counters: counters, code: number, at: now, body)
        } workingOut: {
            // Compute the change on a copy of the state and drop it, as a failed commit would.
            _ = try await base.update(counters: counters, code: number, at: now) { state -> Result in
                var copy = state
                return body(&copy)
            }
        }
    }

    /// Removes expired entries through the base store, or fails.
    /// - Parameters:
    ///   - instant: The instant.
    ///   - limit: The most to remove.
    /// - Returns: How many were removed.
    /// - Throws: ``StoreError`` when scripted to fail.
    public func removeExpired(before instant: Date, limit: Int) async throws -> Int {
        try await faults.run(.removeExpired) { try await base.removeExpired(before: instant, limit: limit) }
    }
}

/// Where a scripted update of a ``FaultySMSStore`` fails.
package enum SMSUpdateFailure: Hashable, Sendable {
    /// Before reading.
    case beforeRead
    /// After the change was computed, before it is written: the change is lost.
    case beforeWrite
    /// After the change was written, before its answer came back: the change landed, the caller is told it failed.
    case afterWrite
}
