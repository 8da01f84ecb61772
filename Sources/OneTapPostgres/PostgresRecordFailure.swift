import OneTap

/// How the stores that keep a record whole in its row (login sessions, app sessions, account numbers)
/// report a database failure and a row that does not decode: written once for all of them.
enum PostgresRecordFailure {
    /// The store error for a failed statement.
    /// - Parameters:
    ///   - error: What the statement threw (a cancellation or a store error passes through).
    ///   - subject: What the failure concerns, if one record.
    ///   - doing: What the store was doing, for the message (`read the session`).
    ///   - write: Whether the statement writes.
    ///   - reread: What the caller reads again when a write's outcome is unknown.
    ///   - masking: Applied to the message (a server's message may quote a row's values).
    /// - Returns: The error to throw: `io`, saying whether anything was written.
    static func error(
        _ error: any Error, subject: StoreError.Entry?, doing: String, write: Bool, reread: String, masking: (String) -> String = { $0 }
    ) -> any Error {
        if error is CancellationError || error is StoreError { return error }
        var message = "PostgreSQL: cannot \(doing): \(error)"
        if let error = error as? PostgresError, error.leavesTheOutcomeUnknown, write {
            message += "; the write may or may not have been committed: \(reread)"
        } else if write {
            message += "; nothing was written"
        }
        return StoreError(.io, subject: subject, message: masking(message))
    }

    /// Where a decoding error struck, as key names only (a message may quote the value).
    /// - Parameter error: The error.
    /// - Returns: `plan.flows.[1]`, or `the top`.
    static func path(of error: DecodingError) -> String {
        let context: DecodingError.Context? = switch error {
        case .dataCorrupted(let context), .keyNotFound(_, let context), .typeMismatch(_, let context), .valueNotFound(_, let context): context
        @unknown default: nil
        }
        var keys = context?.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue } ?? []
        if case .keyNotFound(let key, _) = error { keys.append(key.stringValue) }
        return keys.isEmpty ? "the top" : keys.joined(separator: ".")
    }
}
