import OneTap

/// How every store deletes what it no longer keeps: a batch of at most `$2` rows whose instant column is
/// before `$1` and before the database's clock (``PostgresMigrations/databaseNow``), soonest first,
/// skipping rows another transaction holds (so a cleanup never waits for a login, nor holds one up).
///
/// The database's clock bounds the sweeper's: an instance whose clock runs ahead would otherwise delete
/// rows every other instance still keeps (a live login, an SMS counter still counting, an app session), for
/// as long as its clock is ahead.
enum PostgresExpiredRows {
    /// The `DELETE` statement: `$1` the bound an instant is compared with (``PostgresValue/bound(_:)``),
    /// `$2` the batch size; a row goes only when its instant is also before the database's clock.
    /// - Parameters:
    ///   - table: The schema-qualified table.
    ///   - key: The table's key column.
    ///   - column: The instant column (whole milliseconds since 1970) rows expire by.
    ///   - condition: A further condition a row must meet to go (`done`), if any.
    /// - Returns: The statement.
    static func delete(from table: String, key: String, before column: String, where condition: String? = nil) -> String {
        // The clock in a sub-select: read once per statement, so the bound is the index's condition; read per
        // row (`clock_timestamp()` is volatile), it would be a filter on every row the scan reads, live ones too.
        let expired = (condition.map { "\($0) AND " } ?? "") + "\(column) < LEAST($1, (SELECT \(PostgresMigrations.databaseNow)))"
        return "DELETE FROM \(table) WHERE \(key) IN "
            + "(SELECT \(key) FROM \(table) WHERE \(expired) ORDER BY \(column) LIMIT $2 FOR UPDATE SKIP LOCKED)"
    }

    /// Runs one batch of such a statement: nothing at all when `limit` is not positive.
    /// - Parameters:
    ///   - statement: A ``delete(from:key:before:where:)`` statement (or one taking the same `$1` and `$2`).
    ///   - instant: What `$1` is bound to.
    ///   - limit: The batch size, `$2`.
    ///   - pool: The pool it runs on.
    /// - Returns: How many rows were deleted.
    /// - Throws: The database's own error.
    static func remove(_ statement: String, before instant: Date, limit: Int, on pool: PostgresPool) async throws -> Int {
        guard limit > 0 else { return 0 }
        return try await pool.execute(statement, [.bound(instant), .int64(Int64(limit))]).affected
    }
}
