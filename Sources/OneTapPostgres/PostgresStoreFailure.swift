import OneTap

/// How the PostgreSQL stores of JSON records and rows word a failure, said once: a database failure
/// as a ``StoreError`` of kind `io` telling whether anything was written, and a row OneTap did not write
/// as one of kind `corrupt`. A message names the table or the record and the reason only: never a row's
/// value (a decoding failure is named by its key path, not by the value it met) and never a secret
/// (``PostgresError`` keeps no `DETAIL`, which could quote a row).
enum PostgresStoreFailure {
    /// The store error for a database failure: cancellation and store errors pass as they are.
    /// - Parameters:
    ///   - error: What the pool threw.
    ///   - subject: The record the call was about, if any.
    ///   - doing: What was being done (`"read the session"`).
    ///   - write: Whether the call writes.
    ///   - sent: Whether the write may have reached the server (false while a transaction is being
    ///     prepared, when a lost connection still means nothing was written).
    ///   - advice: What follows "the write may or may not have been committed" when the outcome is
    ///     unknown (`": read it again"`).
    ///   - masksNumbers: Whether every phone number in the message is masked (a store keyed by numbers).
    /// - Returns: The error to throw.
    // Never inlined: inlined into the stores' async calls, it crashed swift-frontend 6.3.1's release build
    // (signal 11 while LLVM split `PostgresAccountDirectory.account(for:)`'s coroutine).
    @inline(never)
    static func io(
        _ error: any Error, subject: StoreError.Entry?, doing: String, write: Bool, sent: Bool = true, unknownOutcome advice: String,
        masksNumbers: Bool = false
    ) -> any Error {
        if error is CancellationError || error is StoreError { return error }
        var message = "PostgreSQL: cannot \(doing): \(error)"
        // A row read that OneTap did not write; the answer of a sent write that cannot be read is the write's outcome
        // unknown (it ran).
        let unreadable = unreadableRow(error, message)
        if let unreadable, !(write && sent) {
            return StoreError(.corrupt, subject: subject, message: masksNumbers ? PhoneNumber.maskingNumbers(in: unreadable) : unreadable)
        }
        let lost = unreadable != nil || (error as? PostgresError)?.leavesTheOutcomeUnknown ?? false
        if write && sent && lost {
            message += "; the write may or may not have been committed\(advice)"
        } else if write {
            message += "; nothing was written"
        }
        return StoreError(.io, subject: subject, message: masksNumbers ? PhoneNumber.maskingNumbers(in: message) : message)
    }

    /// The message for a row holding a value OneTap does not read (``PostgresError/Kind/unreadableValue``), a row
    /// OneTap did not write, read by a statement that wrote nothing (a read, or one of a transaction rolled back): the
    /// row was left as it is.
    /// - Parameters:
    ///   - error: What the pool threw.
    ///   - message: The message so far.
    /// - Returns: The message of a `corrupt` store error, or nil for another error.
    static func unreadableRow(_ error: any Error, _ message: String) -> String? {
        guard (error as? PostgresError)?.kind == .unreadableValue else { return nil }
        return message + "; a row holds a value OneTap did not write, and was left as it is; nothing was written"
    }

    /// The store error for a row that holds no such record: it is left as it is.
    /// - Parameters:
    ///   - subject: The record that was read.
    ///   - table: The table, schema-qualified.
    ///   - record: What the row should hold (`"a OneTap session"`).
    ///   - reason: Why it does not, naming no value of the row.
    /// - Returns: The error, of kind `corrupt`.
    static func corrupt(_ subject: StoreError.Entry?, table: String, record: String, reason: String) -> StoreError {
        StoreError(.corrupt, subject: subject, message: "the row in \(table) is not \(record) (\(reason)); it was left as it is")
    }

    /// A row of `version, json` columns as its version and its JSON text.
    /// - Parameter row: The row.
    /// - Returns: The version and the text, or nil when a column is missing or of another type.
    static func versionedJSON(_ row: [PostgresValue]) -> (version: Int64, json: String)? {
        guard row.count == 2, let version = row[0].int64, let json = row[1].text else { return nil }
        return (version, json)
    }

    /// A record read from a row's JSON, or the store error for JSON that reads as no such record.
    /// - Parameters:
    ///   - json: The column's text.
    ///   - read: Reads the record.
    ///   - corrupt: The error for JSON that does not read, given where the decoding failed (``path(of:)``).
    /// - Returns: The record.
    /// - Throws: ``StoreError``, what `corrupt` makes.
    @inline(never)
    static func decoded<Record>(
        _ json: String, _ read: (String) throws(DecodingError) -> Record, corrupt: (_ path: String) -> StoreError
    ) throws(StoreError) -> Record {
        do {
            return try read(json)
        } catch {
            throw corrupt(path(of: error))
        }
    }

    /// Where a decoding error struck, as key names only (a message may quote the value).
    /// - Parameter error: The error.
    /// - Returns: The key path (`ancestors.[0].digest`), or `the top`.
    static func path(of error: DecodingError) -> String {
        let context: DecodingError.Context? = switch error {
        case .dataCorrupted(let context), .keyNotFound(_, let context), .typeMismatch(_, let context), .valueNotFound(_, let context): context
        @unknown default: nil
        }
        var keys: [any CodingKey] = context?.codingPath ?? []
        if case .keyNotFound(let key, _) = error { keys.append(key) }
        return keys.isEmpty ? "the top" : QuotedInput.path(keys)
    }
}
