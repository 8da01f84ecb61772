/// Where SMS counters and code records live, shared by every instance of a server. One operation:
/// read some counters and one code record (a number's, in one login session: ``SMSCodeKey``; or none, for a
/// captcha check that concerns no number), let the rules change them, write them back, all
/// atomically, so concurrent sends never pass a limit and concurrent verifies of one code succeed at
/// most once. Shaped for SQL: `SELECT … FOR UPDATE` on the counters' and the record's rows, the
/// change, `UPDATE`, `COMMIT`.
///
/// OneTap ships ``InMemorySMSStore``; `OneTapPostgres` ships one on PostgreSQL; an adapter for another
/// store proves itself with `SMSStoreConformance` from `OneTapTesting`.
public protocol SMSStore: Sendable {
    /// Reads the counters and the code record of a number and session, runs `body` on them, and writes
    /// back what it changed, atomically with respect to every other update that touches one of them.
    /// Records of the same number under other sessions are neither read nor written. Without a key (a login start's
    /// captcha check: its rejected-captcha counters only) no record is read, and none is written.
    ///
    /// `body` is pure and quick; a store may run it more than once (a database that retries a
    /// serialization failure), and only the last run's changes are written.
    /// - Parameters:
    ///   - counters: The counters to read (missing ones read as empty).
    ///   - key: The number and session whose code record to read; nil to read and write counters only.
    ///   - now: The time: what is kept only until before it may be dropped instead of read.
    ///   - body: The change; the state's `keepUntil` says how long to keep what is written.
    /// - Returns: What `body` returned.
    /// - Throws: ``StoreError`` of kind `io` (nothing was written), `corrupt`, or `timeout`.
    func update<Result: Sendable>(
        counters: [SMSPolicy.Counter], code key: SMSCodeKey?, at now: Date, _ body: @Sendable (inout SMSState) -> Result
    ) async throws -> Result

    /// Removes counters and records kept only until before an instant.
    /// - Parameters:
    ///   - instant: The instant.
    ///   - limit: The most to remove in one call.
    /// - Returns: How many were removed.
    /// - Throws: ``StoreError`` of kind `io`.
    func removeExpired(before instant: Date, limit: Int) async throws -> Int
}

extension SMSStore {
    /// The update of a number's code record sent without a login session
    /// (``update(counters:code:at:_:)`` with `SMSCodeKey(number: number, session: nil)`).
    /// - Parameters:
    ///   - counters: The counters to read.
    ///   - number: The number whose session-less code record to read.
    ///   - now: The time.
    ///   - body: The change.
    /// - Returns: What `body` returned.
    /// - Throws: As ``update(counters:code:at:_:)``.
    package func update<Result: Sendable>(
        counters: [SMSPolicy.Counter], code number: PhoneNumber, at now: Date, _ body: @Sendable (inout SMSState) -> Result
    ) async throws -> Result {
        try await update(counters: counters, code: SMSCodeKey(number: number, session: nil), at: now, body)
    }
}
