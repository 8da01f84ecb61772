import CLibPQ
import Dispatch
import OneTap

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One libpq connection. It connects on a thread of its own (``PostgresConnectionThread``: libpq may resolve the host
/// name there, which blocks), never on Swift's cooperative pool nor on libdispatch's capped threads. Once connected it is
/// non-blocking: a statement is sent from its caller's thread (libpq's calls return at once) and waits for the socket on
/// the process's ``PostgresSocketWaiter`` (or, where there is none, on the connection's thread), with a deadline, so a
/// server that stops answering holds no thread of the caller's, and a statement waits behind no thread hop.
///
/// - A statement's text holds `$1`, `$2`… and every value travels apart, in binary format, with its type
///   named. No statement is ever built from a value.
/// - A statement goes out with its text (`PQsendQueryParams`) the first time the connection runs it; the
///   second time it is prepared (`PQsendPrepare`, one more round trip, once) and from then on run by name
///   (`PQsendQueryPrepared`): parsed once per connection, its text not sent again
///   (``PostgresStatementCache``). One the server no longer has (26000), or whose cached plan a changed
///   table broke (0A000 from `RevalidateCachedQuery`), is forgotten and, outside a transaction, run again
///   unprepared: the server refused it before running it.
///   ``PostgresConfiguration`` can turn this off (behind a pooler that does not keep prepared statements).
/// - A connection that broke (the server stopped, restarted or closed it; a time limit passed while
///   the server had the statement) is marked broken and never used again; ``PostgresPool`` replaces it.
/// - Time limits are measured on the monotonic clock: they bound real waits on a socket, which an
///   injected `WallClock` cannot shorten.
///
/// Not for concurrent use: the pool lends a connection to one caller at a time.
package final class PostgresConnection: Sendable {
    /// The libpq handle: touched by one thread at a time (the connection's while it connects, then the caller's, the
    /// pool lending the connection to one caller at a time).
    private final class Handle: @unchecked Sendable {
        var pointer: OpaquePointer?
        /// The statements prepared on this connection.
        var statements = PostgresStatementCache(prefix: PostgresStatementCache.randomPrefix())
        /// Taken and let go where the handle passes from one thread to the next (around a wait, after connecting).
        private let passing = LockedValue(())

        /// Orders what the thread letting the handle go did before what the thread taking it does next, with a lock
        /// both take: a continuation resumed from a thread of OneTap's own orders them too, but ThreadSanitizer does not
        /// see through it (the Swift runtime's jobs bypass libdispatch's interceptors) and reported connecting's write
        /// racing the first statement's read.
        func pass() { passing.withLock { _ in } }

        deinit { if let pointer { PQfinish(pointer) } }
    }

    private let thread = PostgresConnectionThread()
    /// Where its statements wait for the socket: the process's waiter, or nil to wait on the connection's thread.
    private let waiter: PostgresSocketWaiter?
    private let handle = Handle()
    private let broken = LockedValue(false)
    private let configuration: PostgresConfiguration
    /// Sees every statement's text just before it is sent (tests).
    private let observer: (@Sendable (String) -> Void)?
    /// The same with the values, `bytea` zero-filled (see ``open(_:waiter:observer:valuesObserver:)``).
    private let valuesObserver: (@Sendable (String, [PostgresValue]) -> Void)?

    private init(
        _ configuration: PostgresConfiguration, waiter: PostgresSocketWaiter?, observer: (@Sendable (String) -> Void)?,
        valuesObserver: (@Sendable (String, [PostgresValue]) -> Void)?
    ) {
        self.configuration = configuration
        self.waiter = waiter
        self.observer = observer
        self.valuesObserver = valuesObserver
    }

    deinit {
        thread.stop()
    }

    /// Opens a connection: connects within the configuration's connect time-out and sets the session's
    /// `statement_timeout`.
    /// - Parameters:
    ///   - configuration: Where and how to connect.
    ///   - waiter: Where statements wait for the socket: the process's waiter (the default), or nil to wait on the
    ///     connection's own thread (tests of that way, which a kernel without epoll takes).
    ///   - observer: Sees every statement's text before it is sent (tests); nil for none.
    ///   - valuesObserver: Sees every statement's text and its values before it is sent (benchmarks); nil for
    ///     none. Every `bytea` value reaches it zero-filled, its length kept: tokens travel only as `bytea`
    ///     (sealed, hashed or, in an unsealed token store, as they are), so no token ever reaches it.
    /// - Returns: The open connection.
    /// - Throws: ``PostgresError`` of kind `connection-failed` or `timeout`.
    package static func open(
        _ configuration: PostgresConfiguration, waiter: PostgresSocketWaiter? = PostgresSocketWaiter.shared,
        observer: (@Sendable (String) -> Void)? = nil, valuesObserver: (@Sendable (String, [PostgresValue]) -> Void)? = nil
    ) async throws(PostgresError) -> PostgresConnection {
        let connection = PostgresConnection(configuration, waiter: waiter, observer: observer, valuesObserver: valuesObserver)
        let deadline = try await connection.run { () throws(PostgresError) -> UInt64 in try connection.connectBlocking() }
        try await connection.setUpSession(before: deadline)
        return connection
    }

    /// Whether the connection broke and must not be used again.
    package var isBroken: Bool { broken.withLock { $0 } }

    /// Runs one statement.
    /// - Parameters:
    ///   - sql: The statement, with `$1`, `$2`… where the values go.
    ///   - parameters: The values, bound in order.
    /// - Returns: The rows and the count of rows touched.
    /// - Throws: ``PostgresError``: `server-error` (with the SQLSTATE), `timeout`, `connection-lost`,
    ///   `unexpected-result`, `unreadable-value` (a row holding a value OneTap does not read).
    @discardableResult
    package func execute(_ sql: String, _ parameters: [PostgresValue] = []) async throws(PostgresError) -> PostgresRows {
        try await executeOnce(sql, parameters)
    }

    /// Runs one statement that may take longer than the configuration's statement timeout (a migration
    /// step): the caller has raised the server's limit in its transaction (`set_config('statement_timeout',
    /// …, true)`), and the client waits for the server's answer as long as `limit`.
    /// - Parameters:
    ///   - sql: The statement.
    ///   - parameters: The values, bound in order.
    ///   - limit: How long the client waits for the answer (two seconds more, as for every statement).
    /// - Returns: The rows and the count of rows touched.
    /// - Throws: As ``execute(_:_:)``.
    @discardableResult
    package func execute(_ sql: String, _ parameters: [PostgresValue] = [], waitingUpTo limit: Duration) async throws(PostgresError) -> PostgresRows {
        try await executeOnce(sql, parameters, limit: limit)
    }

    /// Runs one statement on a connection that was idle, checking first that it still works, as ``isAlive()``
    /// does.
    /// - Parameters:
    ///   - sql: The statement.
    ///   - parameters: The values.
    /// - Returns: The rows, or nil when the connection was found dead before anything was sent (it is
    ///   then closed).
    /// - Throws: As ``execute(_:_:)``.
    package func executeIfAlive(_ sql: String, _ parameters: [PostgresValue]) async throws(PostgresError) -> PostgresRows? {
        guard checkAlive() else { return nil }
        return try await executeOnce(sql, parameters)
    }

    /// Runs `body` inside a transaction: `begin`, then `COMMIT` when it returns, `ROLLBACK` when it (or the
    /// `COMMIT`) throws and the connection still stands (a broken one is rolled back by the server).
    /// - Parameters:
    ///   - begin: The statement that opens it: `BEGIN ISOLATION LEVEL READ COMMITTED`, the level the stores'
    ///     statements are written for, whatever the database's or the role's `default_transaction_isolation`.
    ///   - committing: Called just before the `COMMIT` is sent: from then on, a connection that breaks
    ///     leaves the outcome unknown, which the caller's error says.
    ///   - body: The statements.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws, or ``PostgresError`` from `begin` and `COMMIT`: of kind `server-error`
    ///   when the server rolled the transaction back instead (a statement in it failed and `body` went on).
    package func transaction<T: Sendable>(
        _ begin: String = "BEGIN ISOLATION LEVEL READ COMMITTED", committing: () -> Void = {}, _ body: (PostgresConnection) async throws -> T
    ) async throws -> T {
        try await execute(begin)
        do {
            let result = try await body(self)
            committing()
            // The server answers the COMMIT of a transaction a failed statement aborted with `ROLLBACK`.
            let outcome = try await execute("COMMIT")
            guard outcome.command == "COMMIT" else {
                throw PostgresError(
                    .server, message: "the server rolled the transaction back instead of committing it (\(outcome.command)): a statement in it failed; nothing was written")
            }
            return result
        } catch {
            if !isBroken {
                do { try await execute("ROLLBACK") } catch { /* the connection broke; the server rolls back */ }
            }
            throw error
        }
    }

    /// Whether an idle connection still works, without a round trip: libpq calls it open and outside any
    /// transaction, and its socket has nothing to read. An idle connection has nothing to hear; what
    /// arrives on one is almost always the server's goodbye (a `FATAL` message, then the end of the
    /// stream, when it stops or restarts), so a readable connection is closed rather than trusted.
    /// - Returns: False when the connection is not fit for use; it is then closed.
    package func isAlive() async -> Bool {
        checkAlive()
    }

    /// ``isAlive()``: a `poll(2)` that does not wait.
    /// - Returns: False when the connection is not fit for use; it is then closed.
    private func checkAlive() -> Bool {
        guard let connection = handle.pointer, !isBroken, PQstatus(connection) == CONNECTION_OK,
            PQtransactionStatus(connection) == PQTRANS_IDLE
        else {
            finish()
            return false
        }
        var descriptor = pollfd(fd: PQsocket(connection), events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, 0) == 0 else {
            finish()
            return false
        }
        return true
    }

    /// Closes the connection (`PQfinish`); later calls fail with `connection-lost`.
    package func close() async {
        finish()
    }

    // MARK: Threads and waits

    /// How much longer than a statement's time limit the client waits for its answer: the server cancels the statement
    /// at the limit, and a loaded machine may schedule that cancel, or the waiting thread, late.
    static let answerGrace: UInt64 = 2_000_000_000

    /// Runs `body` on the connection's thread and waits without blocking the caller's thread.
    private func run<T: Sendable, Failure: Error>(_ body: @escaping @Sendable () throws(Failure) -> T) async throws(Failure) -> T {
        let result: Result<T, Failure> = await withCheckedContinuation { continuation in
            thread.submit { [handle] in
                let result = Result { () throws(Failure) -> T in try body() }
                handle.pass()
                continuation.resume(returning: result)
            }
        }
        handle.pass()
        return try result.get()
    }

    private func markBroken() { broken.withLock { $0 = true } }

    private func finish() {
        markBroken()
        if let pointer = handle.pointer { PQfinish(pointer) }
        handle.pointer = nil
    }

    /// libpq's last message for the connection, on one line, passwords redacted.
    private func libpqMessage(_ connection: OpaquePointer?) -> String {
        guard let connection, let text = PQerrorMessage(connection) else { return "no message from libpq" }
        return configuration.redact(Self.oneLine(String(cString: text)))
    }

    static func oneLine(_ text: String) -> String {
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingPrefix(while: \.isWhitespace) }.filter { !$0.isEmpty }
        return lines.isEmpty ? "no message" : lines.joined(separator: " ")
    }

    /// Connects, on the connection's thread: libpq may resolve the host name there (`getaddrinfo(3)` blocks).
    /// - Returns: The connect time-out's deadline, on ``Monotonic``.
    /// - Throws: ``PostgresError`` of kind `connection-failed` or `timeout`; the connection is closed.
    private func connectBlocking() throws(PostgresError) -> UInt64 {
        let limit = configuration.connectTimeout
        let deadline = Monotonic.now + Monotonic.nanoseconds(limit)
        var keywords = configuration.parameters.map(\.keyword)
        var values = configuration.parameters.map(\.value)
        if !keywords.contains("fallback_application_name") {
            keywords.append("fallback_application_name")
            values.append("onetap")
        }
        // Text is bound and read as UTF-8, and PostgreSQL converts text to the session's encoding (binary format
        // too): say it, over `PGCLIENTENCODING` and the database's or role's setting (the last keyword wins).
        keywords.append("client_encoding")
        values.append("UTF8")
        let started = CStrings.with(keywords) { keywords in
            CStrings.with(values) { values in PQconnectStartParams(keywords, values, 0) }
        }
        guard let connection = started else {
            markBroken()
            throw PostgresError(.connectionFailed, message: "libpq could not allocate a connection (out of memory)")
        }
        handle.pointer = connection
        PQsetNoticeProcessor(connection, { _, _ in }, nil)  // notices ("already exists, skipping") are not errors
        var status = PGRES_POLLING_WRITING
        while status != PGRES_POLLING_OK {
            guard PQstatus(connection) != CONNECTION_BAD, status != PGRES_POLLING_FAILED else {
                let message = libpqMessage(connection)
                finish()
                throw PostgresError(.connectionFailed, message: "cannot connect to PostgreSQL: \(message)")
            }
            if status == PGRES_POLLING_READING || status == PGRES_POLLING_WRITING {
                guard Self.wait(PQsocket(connection), for: status == PGRES_POLLING_WRITING ? Int16(POLLOUT) : Int16(POLLIN), until: deadline) else {
                    finish()
                    throw PostgresError(
                        .timeout, message: "cannot connect to PostgreSQL (\(configuration.redactedConnection)): no answer within the connect timeout of \(limit.seconds) s")
                }
            }
            status = PQconnectPoll(connection)
        }
        guard PQsetnonblocking(connection, 1) == 0 else {
            let message = libpqMessage(connection)
            finish()
            throw PostgresError(.connectionFailed, message: "cannot switch the connection to non-blocking mode: \(message)")
        }
        return deadline
    }

    /// Sets the session up (its search path, time limits and isolation level), within what is left of the connect
    /// time-out.
    /// - Parameter deadline: The connect time-out's deadline, on ``Monotonic``.
    /// - Throws: ``PostgresError`` of kind `connection-failed` or `timeout`; the connection is closed.
    private func setUpSession(before deadline: UInt64) async throws(PostgresError) {
        let limit = configuration.connectTimeout
        let milliseconds = Monotonic.nanoseconds(configuration.statementTimeout) / 1_000_000
        // A transaction idle between two statements ends too (an instance frozen there would otherwise hold its rows and
        // advisory locks, and with them every other instance's updates, until TCP noticed it gone): after the statement
        // limit, at least 10 s (``PostgresConfiguration/idleInTransactionTimeout``).
        let idle = min(max(Monotonic.nanoseconds(configuration.idleInTransactionTimeout) / 1_000_000, 1), UInt64(Int32.max))
        // OneTap names its tables with their schema, and its functions (`nextval`, `unnest`, …) without: a same-named
        // function another role planted in a schema on the search path (`public`, before PostgreSQL 15) would be taken
        // when its argument types fit better (CVE-2018-1058). The session searches `pg_catalog` and `pg_temp` alone.
        // Its statements run at READ COMMITTED, which they are written for, whatever the role's or the database's
        // default: a compare-and-swap that waited for another writer's row lock re-checks the row then, where at
        // `repeatable read` or `serializable` it failed (SQLSTATE 40001) even when the other writer changed nothing
        // it compares. `transaction()` names the level in its `BEGIN` too.
        // Within what is left of the connect timeout (and the two seconds every answer gets): opening a connection is
        // bounded by it, and a server that stalls here failed to connect, no statement of the caller's having been sent.
        let now = Monotonic.now  // read once: a deadline passing between two reads would make the difference negative
        let left = deadline > now ? deadline - now : 0
        do {
            _ = try await executeOnce(
                "SELECT pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', false), "
                    + "pg_catalog.set_config('statement_timeout', $1, false), pg_catalog.set_config('idle_in_transaction_session_timeout', $2, false), "
                    + "pg_catalog.set_config('default_transaction_isolation', 'read committed', false)",
                [.text(String(milliseconds)), .text(String(idle))], limit: .nanoseconds(Int64(clamping: left)))
        } catch {
            finish()
            throw PostgresError(
                error.kind == .timeout ? .timeout : .connectionFailed,
                message: "the connection was made but its session could not be set up within the connect timeout of \(limit.seconds) s: \(error.message)")
        }
    }

    /// Sends one statement from the caller's thread and awaits its answer (``collect(_:_:_:stale:)``): by name once
    /// the connection has prepared it, with its text otherwise; a prepared statement the server refused before it ran
    /// is forgotten and, outside a transaction, run again with its text.
    /// - Parameters:
    ///   - sql: The statement.
    ///   - parameters: The values, bound in order, in binary format.
    ///   - limit: How long the server may run it (the client waits two seconds more); the configuration's statement
    ///     timeout when nil.
    /// - Returns: The rows.
    /// - Throws: As ``execute(_:_:)``.
    private func executeOnce(_ sql: String, _ parameters: [PostgresValue], limit: Duration? = nil) async throws(PostgresError) -> PostgresRows {
        guard let connection = handle.pointer, !isBroken else {
            throw PostgresError(.connectionLost, message: "the connection is closed")
        }
        observer?(sql)
        valuesObserver?(sql, parameters.map(\.zeroFilled))
        let limit = limit ?? configuration.statementTimeout
        let encoded = parameters.map(PostgresBinary.encode)
        let buffers: [UnsafeMutablePointer<CChar>?] = encoded.map { value in
            guard let bytes = value.bytes else { return nil }
            let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: max(1, bytes.count))
            bytes.withUnsafeBytes { raw in
                if let base = raw.baseAddress { UnsafeMutableRawPointer(buffer).copyMemory(from: base, byteCount: raw.count) }
            }
            return buffer
        }
        defer { for buffer in buffers { buffer?.deallocate() } }
        let types = encoded.map { Oid($0.type) }
        let lengths = encoded.map { Int32($0.bytes?.count ?? 0) }
        let formats = [Int32](repeating: 1, count: encoded.count)
        let values = buffers.map { $0.map { UnsafePointer($0) } }
        let count = Int32(encoded.count)
        let plan = configuration.preparesStatements ? handle.statements.plan(sql, types: types) : .unprepared
        let idle = PQtransactionStatus(connection) == PQTRANS_IDLE
        var stale: StaleStatement? = nil
        func withText() async throws(PostgresError) -> PostgresRows {
            try await collect(PQsendQueryParams(connection, sql, count, types, values, lengths, formats, 1), connection, limit, stale: &stale)
        }
        func byName(_ name: String) async throws(PostgresError) -> PostgresRows {
            try await collect(PQsendQueryPrepared(connection, name, count, values, lengths, formats, 1), connection, limit, stale: &stale)
        }
        do throws(PostgresError) {
            switch plan {
            case .unprepared:
                return try await withText()
            case .prepare(let name):
                _ = try await collect(PQsendPrepare(connection, name, sql, count, types), connection, limit, stale: &stale)
                handle.statements.prepared(sql, types: types, name: name)
                return try await byName(name)
            case .prepared(let name):
                return try await byName(name)
            }
        } catch where plan != .unprepared && stale != nil {
            // The server refused it before running it, so outside a transaction nothing was done and it runs
            // unprepared; inside one, the transaction is aborted, and the caller's error asks for it to be run
            // again.
            if stale == .dropped { handle.statements.forgetAll() } else { handle.statements.forget(sql, types: types) }
            guard idle else { throw error.refusedAsStale() }
            return try await withText()
        }
    }

    /// Why the server refused a prepared statement before it ran, and so what the connection forgets.
    private enum StaleStatement {
        /// `26000`, no prepared statement of that name: the session's were dropped together (`DEALLOCATE
        /// ALL`, `DISCARD ALL`, a pooler's reset), so every statement is forgotten.
        case dropped
        /// `0A000` raised where the server checks a cached plan (`RevalidateCachedQuery`: a changed table
        /// would change the statement's result type): this statement is forgotten.
        case replanned
    }

    /// Whether a server error says a prepared statement no longer fits, before it ran (``StaleStatement``),
    /// or nil. Another `0A000` (a feature not supported) may come from a statement that ran, so it is none.
    private static func staleStatement(_ result: OpaquePointer) -> StaleStatement? {
        guard let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map({ String(cString: $0) }) else { return nil }
        if state == "26000" { return .dropped }
        let function = PQresultErrorField(result, Int32(UInt8(ascii: "R"))).map { String(cString: $0) }
        return state == "0A000" && function == "RevalidateCachedQuery" ? .replanned : nil
    }

    /// Waits for the answer to what a `PQsend…` call (`sent`, its result) queued: sends it all, then
    /// collects the results (the first error wins, else the last result). The server cancels a statement
    /// at `limit`; the client waits two seconds longer for that answer, from this call's start (a loaded
    /// machine may schedule the server's cancel, or this thread, late).
    /// - Parameters:
    ///   - stale: Set when the server refused a prepared statement that no longer fits (``staleStatement(_:)``).
    /// - Returns: The rows.
    /// - Throws: ``PostgresError``: `server-error`, `timeout`, `connection-lost`, `unexpected-result`, `unreadable-value`.
    private func collect(_ sent: Int32, _ connection: OpaquePointer, _ limit: Duration, stale: inout StaleStatement?) async throws(PostgresError) -> PostgresRows {
        let deadline = Monotonic.now + Monotonic.nanoseconds(limit) + Self.answerGrace
        guard sent != 0 else { throw lost("cannot send the statement: \(libpqMessage(connection))", connection) }

        // Send everything (the connection is non-blocking), reading whatever the server says meanwhile.
        while true {
            let flushed = PQflush(connection)
            if flushed == 0 { break }
            guard flushed > 0 else { throw lost("cannot send the statement: \(libpqMessage(connection))", connection) }
            guard await socketReady(PQsocket(connection), for: Int16(POLLOUT | POLLIN), until: deadline) else { throw clientTimeout(limit) }
            guard PQconsumeInput(connection) != 0 else { throw lost("the server went away: \(libpqMessage(connection))", connection) }
        }

        var kept: OpaquePointer? = nil
        defer { if let kept { PQclear(kept) } }
        while true {
            while PQisBusy(connection) != 0 {
                guard await socketReady(PQsocket(connection), for: Int16(POLLIN), until: deadline) else { throw clientTimeout(limit) }
                if PQconsumeInput(connection) == 0 {
                    // A broken connection: PQgetResult reports the failure. One still standing that could not be read
                    // (out of memory) would have PQgetResult wait for the socket with no limit: it is closed.
                    guard PQstatus(connection) == CONNECTION_BAD else {
                        let message = libpqMessage(connection)
                        finish()
                        throw PostgresError(.connectionLost, message: "cannot read the server's answer: \(message); the connection was closed")
                    }
                    break
                }
            }
            guard let result = PQgetResult(connection) else { break }
            if let previous = kept, PQresultStatus(previous) == PGRES_FATAL_ERROR {
                PQclear(result)
            } else {
                if let previous = kept { PQclear(previous) }
                kept = result
            }
            if PQstatus(connection) == CONNECTION_BAD { break }
        }
        guard let result = kept else {
            throw lost("the server closed the connection: \(libpqMessage(connection))", connection)
        }
        switch PQresultStatus(result) {
        case PGRES_TUPLES_OK, PGRES_COMMAND_OK:
            return try rows(result)
        case PGRES_FATAL_ERROR:
            let error = serverError(result, connection, limit: limit)
            stale = error.kind == .server ? Self.staleStatement(result) : nil
            throw error
        default:
            let status = String(cString: PQresStatus(PQresultStatus(result)))
            throw PostgresError(.unexpectedResult, message: "the server answered \(status), which OneTap does not expect")
        }
    }

    /// The client's deadline passed: the connection is in an unknown state, so it is closed.
    private func clientTimeout(_ limit: Duration) -> PostgresError {
        finish()
        return PostgresError.noAnswer(
            "no answer from the server within the statement timeout of \(limit.seconds) s (and two seconds more); the connection was closed")
    }

    private func lost(_ message: String, _ connection: OpaquePointer) -> PostgresError {
        if PQstatus(connection) == CONNECTION_BAD { markBroken() }
        return PostgresError(isBroken ? .connectionLost : .server, message: message)
    }

    private func serverError(_ result: OpaquePointer, _ connection: OpaquePointer, limit: Duration) -> PostgresError {
        func field(_ code: UInt8) -> String? {
            PQresultErrorField(result, Int32(code)).map { String(cString: $0) }
        }
        let state = field(UInt8(ascii: "C"))
        // The primary message only: DETAIL and the statement's parameters may quote a row's values.
        let primary = configuration.redact(Self.oneLine(field(UInt8(ascii: "M")) ?? String(cString: PQresultErrorMessage(result))))
        let lostStates: Set<String> = ["57P01", "57P02", "57P03"]
        if PQstatus(connection) == CONNECTION_BAD || state.map({ $0.hasPrefix("08") || lostStates.contains($0) }) == true {
            markBroken()
            return PostgresError(.connectionLost, sqlState: state, message: "the connection broke during the statement: \(primary)")
        }
        if state == "57014" {
            return PostgresError(.timeout, sqlState: state, message: "the statement ran longer than the statement timeout of \(limit.seconds) s: \(primary)")
        }
        return PostgresError(.server, sqlState: state, message: primary)
    }

    private func rows(_ result: OpaquePointer) throws(PostgresError) -> PostgresRows {
        let count = Int(PQntuples(result))
        let fields = Int(PQnfields(result))
        let names = (0..<fields).map { String(cString: PQfname(result, Int32($0))) }
        let types = (0..<fields).map { UInt32(PQftype(result, Int32($0))) }
        var rows: [[PostgresValue]] = []
        rows.reserveCapacity(count)
        for row in 0..<count {
            var values: [PostgresValue] = []
            values.reserveCapacity(fields)
            for column in 0..<fields {
                if PQgetisnull(result, Int32(row), Int32(column)) != 0 {
                    values.append(.null)
                    continue
                }
                let length = Int(PQgetlength(result, Int32(row), Int32(column)))
                let bytes = UnsafeRawBufferPointer(start: PQgetvalue(result, Int32(row), Int32(column)), count: length)
                guard let value = PostgresBinary.decode(type: types[column], bytes) else {
                    throw PostgresError(
                        .unreadableValue, message: "column \(names[column]) has type \(types[column]) (or a value) OneTap does not read")
                }
                values.append(value)
            }
            rows.append(values)
        }
        let touched = PQcmdTuples(result).map { Int(String(cString: $0)) ?? count } ?? count
        return PostgresRows(columns: names, rows: rows, affected: touched, command: PQcmdStatus(result).map { String(cString: $0) } ?? "")
    }

    /// Waits, off the caller's thread, until a statement's socket is ready for `events` or the deadline passes: on the
    /// connection's ``PostgresSocketWaiter``, or where it has none (or the kernel would not watch the socket), on the
    /// connection's thread (``wait(_:for:until:)``).
    /// - Parameters:
    ///   - socket: The connection's socket.
    ///   - events: `POLLIN`, `POLLOUT` or both.
    ///   - deadline: When to stop waiting, on ``Monotonic``.
    /// - Returns: False when the deadline passed with the socket not ready.
    private func socketReady(_ socket: Int32, for events: Int16, until deadline: UInt64) async -> Bool {
        guard socket >= 0 else { return true }  // no socket: libpq's next call says why
        handle.pass()
        defer { handle.pass() }  // another thread of the pool may take the statement on
        if let waiter, let ready = await waiter.wait(socket, for: events, until: deadline) { return ready }
        return await run { () -> Bool in Self.wait(socket, for: events, until: deadline) }
    }

    /// Waits until the socket is ready for `events` or the deadline passes. Past the deadline the socket is
    /// still asked once, without waiting: an answer that came while this thread was not running (a loaded
    /// machine) is taken, not thrown away as a time-out.
    /// - Parameters:
    ///   - socket: The socket.
    ///   - events: `POLLIN`, `POLLOUT` or both.
    ///   - deadline: When to stop waiting, on ``Monotonic``.
    /// - Returns: False when the deadline passed with the socket not ready.
    static func wait(_ socket: Int32, for events: Int16, until deadline: UInt64) -> Bool {
        while true {
            let milliseconds = Monotonic.milliseconds(until: deadline)
            var descriptor = pollfd(fd: socket, events: events, revents: 0)
            let ready = poll(&descriptor, 1, milliseconds)
            if ready > 0 { return true }
            if ready < 0 && errno != EINTR { return true }  // libpq's next call reports the failure
            if ready == 0 && milliseconds == 0 { return false }
        }
    }
}

/// The monotonic clock in nanoseconds, for socket deadlines.
enum Monotonic {
    /// A time-out for `poll(2)` or `epoll_wait(2)` that ends at `deadline`: the milliseconds from now, rounded up (a
    /// wait never ends before its deadline), at most `Int32.max`; 0 once it passed.
    /// - Parameter deadline: The deadline, on this clock.
    /// - Returns: The time-out in milliseconds.
    static func milliseconds(until deadline: UInt64) -> Int32 {
        let now = Monotonic.now
        return now < deadline ? Int32(min((deadline - now + 999_999) / 1_000_000, UInt64(Int32.max))) : 0
    }

    static var now: UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// A duration in nanoseconds: 0 for a negative one, `UInt64.max` for one longer than 584 years.
    static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 0 }
        let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        let (total, carry) = whole.addingReportingOverflow(UInt64(max(0, attoseconds) / 1_000_000_000))
        return overflow || carry ? .max : total
    }
}

/// NUL-terminated C string arrays for libpq's keyword/value calls.
enum CStrings {
    static func with<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
        let copies = strings.map { strdup($0) }
        defer { for copy in copies { free(copy) } }
        let pointers: [UnsafePointer<CChar>?] = copies.map { $0.map { UnsafePointer($0) } } + [nil]
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}
