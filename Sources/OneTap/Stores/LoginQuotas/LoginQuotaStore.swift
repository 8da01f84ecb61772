/// Where the login quotas' counters live, shared by every instance of a server. One operation: read some
/// counters, let the policy decide and add the admitted event, write them back, all atomically, so
/// concurrent starts never pass a quota. Shaped for SQL: `SELECT … FOR UPDATE` on the counters' rows,
/// the change, `UPDATE`, `COMMIT`.
///
/// OneTap ships ``InMemoryLoginQuotaStore`` (one instance's memory: each instance of a server then
/// counts on its own) and, in `OneTapPostgres`, `PostgresStores.loginQuotaStore()` (one schema shared by
/// every instance, so a deployment admits each quota once); an adapter for another shared store proves
/// itself with `LoginQuotaStoreConformance` from `OneTapTesting`.
public protocol LoginQuotaStore: Sendable {
    /// Reads the counters, runs `body` on them, and writes back what it changed, atomically with respect
    /// to every other update that touches one of them.
    ///
    /// `body` is pure and quick; a store may run it more than once (a database that retries a
    /// serialization failure), and only the last run's changes are written.
    /// - Parameters:
    ///   - counters: The counters to read (missing ones read as empty).
    ///   - now: The time: what is kept only until before it may be dropped instead of read.
    ///   - body: The change; the state's `keepUntil` says how long to keep what is written.
    /// - Returns: What `body` returned.
    /// - Throws: ``StoreError`` of kind `io` (nothing was written), `corrupt`, or `timeout`.
    func update<Result: Sendable>(
        counters: [LoginQuotaPolicy.Counter], at now: Date, _ body: @Sendable (inout LoginQuotaState) -> Result
    ) async throws -> Result

    /// Removes counters kept only until before an instant.
    /// - Parameters:
    ///   - instant: The instant.
    ///   - limit: The most to remove in one call.
    /// - Returns: How many were removed.
    /// - Throws: ``StoreError`` of kind `io`.
    func removeExpired(before instant: Date, limit: Int) async throws -> Int
}

/// The counters one ``LoginQuotaStore/update(counters:at:_:)`` reads and writes.
public struct LoginQuotaState: Sendable {
    /// Each counter's events, oldest first; a counter asked for and never written reads as empty.
    public var events: [LoginQuotaPolicy.Counter: [Date]]
    /// How long to keep the counters written (the latest instant any rule may still count them).
    public var keepUntil: Date

    /// Creates a state, as a store reads it.
    /// - Parameters:
    ///   - events: Each counter's events.
    ///   - keepUntil: How long they are kept.
    public init(events: [LoginQuotaPolicy.Counter: [Date]], keepUntil: Date) {
        self.events = events
        self.keepUntil = keepUntil
    }
}

extension LoginQuotaState {
    /// Decides a start or an exchange on these counters and counts it when admitted, keeping them as long as the
    /// policy's windows need: the one update the server's quotas and `onetap quota -` make.
    /// - Parameters:
    ///   - request: The request's keys.
    ///   - counts: Starts or exchanges.
    ///   - counters: The counters read (``LoginQuotaPolicy/counters(for:counting:)``).
    ///   - policy: The rules.
    ///   - now: The time.
    ///   - captchaPassed: Whether a captcha passed for the request.
    /// - Returns: The decision.
    package mutating func admit(
        _ request: LoginQuotaPolicy.Request, counting counts: LoginQuotaPolicy.Counts, in counters: [LoginQuotaPolicy.Counter], policy: LoginQuotaPolicy,
        at now: Date, captchaPassed: Bool
    ) -> LoginQuotaPolicy.Decision {
        let (decision, keptUntil) = policy.admit(request, counting: counts, in: counters, events: &events, at: now, captchaPassed: captchaPassed)
        if let keptUntil { keepUntil = max(keepUntil, keptUntil) }
        return decision
    }
}
