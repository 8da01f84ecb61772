import OneTap

/// What the PostgreSQL layer (the connection, the pool, the migrator) reports inside the package: a bad
/// configuration, a server that cannot be reached or went away, a time limit, or an error the server
/// answered with (its SQLSTATE and message). A user never meets it: the stores turn it into a
/// ``StoreError`` (``storeError(doing:)``), the one error every store throws.
///
/// Messages never hold a password, a token or a statement's parameter values: passwords are redacted
/// from everything libpq says, and the server's `DETAIL` (which can quote a row) is never kept.
package struct PostgresError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong: a closed set inside the package (a user meets only ``StoreError``), so the mapping to a
    /// store error's kind (``storeError(doing:)``) is a `switch` the compiler checks whole.
    package enum Kind: String, Hashable, Sendable, CustomStringConvertible {
        /// The URL, schema name, pool size or a time limit is not valid; nothing was tried.
        case invalidConfiguration = "invalid-configuration"
        /// No connection could be opened (no server at the address, refused, authentication failed).
        case connectionFailed = "connection-failed"
        /// The connection broke during the call (the server stopped or restarted). A write may or may not
        /// have been committed; the pool replaces the connection on the next call.
        case connectionLost = "connection-lost"
        /// A time limit passed: opening a connection, waiting for a free one, or a statement (the server's
        /// `statement_timeout`, SQLSTATE 57014, or the client's own deadline).
        case timeout
        /// The server answered with an error; ``PostgresError/sqlState`` says which.
        case server = "server-error"
        /// The database holds a schema this version of OneTap does not know (applied by a newer one).
        case incompatibleSchema = "incompatible-schema"
        /// The server answered with something the code did not expect (a missing row or column).
        case unexpectedResult = "unexpected-result"
        /// The pool was closed; no call runs any more.
        case closed
        /// A row holds a value OneTap does not read (a NULL inside an array, text that is not UTF-8, a type it
        /// does not decode): a row OneTap did not write, left as it is.
        case unreadableValue = "unreadable-value"

        /// The kind's stable id, e.g. `connection-lost`, as messages show it.
        package var description: String { rawValue }
    }

    /// What went wrong.
    package let kind: Kind
    /// The server's SQLSTATE code (`"57014"`, `"40001"`), when the server sent one.
    package let sqlState: String?
    /// An explanation: what was being done and why it failed, with the server's primary message.
    package private(set) var message: String
    /// Whether the server refused a prepared statement inside a transaction before running it, because it
    /// no longer fits (the server dropped it, or a table changed under its plan): the transaction is
    /// aborted, nothing of it was written, and the connection has forgotten the statement.
    package private(set) var refusedStaleStatement = false
    /// Whether the time limit passed while a sent statement awaited its answer (the client's own deadline):
    /// the statement may have run. A time limit that passed before anything was sent (no connection came free,
    /// none could be opened) leaves nothing unknown.
    package private(set) var passedAwaitingAnAnswer = false

    /// Creates an error.
    /// - Parameters:
    ///   - kind: What went wrong.
    ///   - sqlState: The server's SQLSTATE, if any.
    ///   - message: An explanation, without secrets.
    package init(_ kind: Kind, sqlState: String? = nil, message: String) {
        self.kind = kind
        self.sqlState = sqlState
        self.message = message
    }

    /// Whether a statement sent before this error may or may not have run: the connection broke, or the
    /// client's own deadline passed with no answer (``passedAwaitingAnAnswer``). A write's outcome is then
    /// unknown until the row is read again; after any other error it did not run (the server refused it, or it
    /// was never sent: the pool had no connection free, none could be opened).
    package var leavesTheOutcomeUnknown: Bool {
        kind == .connectionLost || (kind == .timeout && passedAwaitingAnAnswer)
    }

    /// The error of a time limit that passed while a sent statement awaited its answer.
    /// - Parameter message: What was being done.
    /// - Returns: A `timeout` whose statement may have run.
    package static func noAnswer(_ message: String) -> PostgresError {
        var error = PostgresError(.timeout, message: message)
        error.passedAwaitingAnAnswer = true
        return error
    }

    /// Whether the transaction should be run again: a deadlock (SQLSTATE `40P01`) or a serialization
    /// failure (`40001`), which another transaction caused, or a prepared statement refused before it ran
    /// (``refusedStaleStatement``), which the next run sends afresh; nothing of this one was written.
    package var asksForARetry: Bool {
        sqlState == "40001" || sqlState == "40P01" || refusedStaleStatement
    }

    /// This error with another message, its kind, SQLSTATE and marks kept.
    /// - Parameter message: The message, without secrets.
    /// - Returns: The error.
    package func withMessage(_ message: String) -> PostgresError {
        var changed = self
        changed.message = message
        return changed
    }

    /// This error, marked as a prepared statement's refusal inside a transaction (``refusedStaleStatement``).
    /// - Returns: The marked error.
    package func refusedAsStale() -> PostgresError {
        var marked = self
        marked.refusedStaleStatement = true
        return marked
    }

    /// The ``StoreError`` a public call throws for this error: `invalid-configuration`,
    /// `incompatible-schema` and `timeout` keep their kind, `unreadable-value` is `corrupt`, every other one is `io`; the message keeps this
    /// error's description (its kind and SQLSTATE).
    /// - Parameter doing: What was being done (`"migrate the schema"`).
    /// - Returns: The store error.
    package func storeError(doing: String) -> StoreError {
        let storeKind: ErrorKind<StoreError> =
            switch kind {
            case .invalidConfiguration: .invalidConfiguration
            case .incompatibleSchema: .incompatibleSchema
            case .timeout: .timeout
            case .unreadableValue: .corrupt
            case .connectionFailed, .connectionLost, .server, .unexpectedResult, .closed: .io
            }
        return StoreError(storeKind, message: "PostgreSQL: cannot \(doing): \(self)")
    }

    /// Runs `body`, throwing a ``StoreError`` for a ``PostgresError`` (``storeError(doing:)``); other errors
    /// pass as they are.
    /// - Parameters:
    ///   - doing: What `body` does (`"migrate the schema"`).
    ///   - body: The work.
    /// - Returns: What `body` returns.
    @inline(never)
    package static func asStoreError<T>(doing: String, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as PostgresError {
            throw error.storeError(doing: doing)
        }
    }

    /// `connection-lost: … (SQLSTATE 57P01)`.
    package var description: String {
        "\(kind): \(message)\(sqlState.map { " (SQLSTATE \($0))" } ?? "")"
    }
}
