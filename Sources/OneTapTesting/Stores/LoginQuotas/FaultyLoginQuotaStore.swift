import OneTap

/// A ``LoginQuotaStore`` wrapper that fails on demand, through ``FaultyStore/faults``: an update refused
/// before anything is read (`.refuse()`), or one whose change is computed but never written (`.lose()`,
/// a database that drops the connection at commit), so tests can check that nothing is started or
/// exchanged then.
public typealias FaultyLoginQuotaStore = FaultyStore<any LoginQuotaStore>

extension FaultyStore: LoginQuotaStore where Base == any LoginQuotaStore {
    /// Updates through the base store, or fails as scripted.
    /// - Parameters:
    ///   - counters: The counters.
    ///   - now: The time.
    ///   - body: The change.
    /// - Returns: What `body` returned.
    /// - Throws: ``StoreError`` when scripted to fail.
    public func update<Result: Sendable>(
        counters: [LoginQuotaPolicy.Counter], at now: Date, _ body: @Sendable (inout LoginQuotaState) -> Result
    ) async throws -> Result {
        try await faults.run(.update) {
            try await base.update(counters: counters, at: now, body)
        } workingOut: {
            // Compute the change on a copy of the state and drop it, as a failed commit would.
            _ = try await base.update(counters: counters, at: now) { state -> Result in
                var copy = state
                return body(&copy)
            }
        }
    }

    /// Removes expired counters through the base store, or fails.
    /// - Parameters:
    ///   - instant: The instant.
    ///   - limit: The most to remove.
    /// - Returns: How many were removed.
    /// - Throws: ``StoreError`` when scripted to fail.
    public func removeExpired(before instant: Date, limit: Int) async throws -> Int {
        try await faults.run(.removeExpired) { try await base.removeExpired(before: instant, limit: limit) }
    }
}
