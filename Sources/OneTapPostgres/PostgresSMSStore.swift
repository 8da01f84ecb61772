import OneTap

/// SMS counters and code records in PostgreSQL, shared by every server instance, so every instance
/// counts against the same limits. Make one with ``PostgresStores/smsStore(attempts:)`` and give it to
/// an ``SMSCodeService``.
///
/// - A counter is a row of `<schema>.sms_counters` (its id `sends:number:13800138000`, its events as a
///   `bigint[]` of milliseconds since 1970, its keep-until); the code record of a number and login
///   session is a row of `<schema>.sms_codes` (its column `number` holds the ``SMSCodeKey``'s id: the
///   digits, or the digits, `/` and the session id since migration 11, which moved each session-bound
///   record there; the ``SMSCodeRecord`` as its JSON, which holds the code's HMAC and never the code; and
///   its keep-until; a record an earlier version wrote is read as it is). Ids are `text COLLATE "C"`.
/// - ``update(counters:code:at:_:)`` is one transaction: it takes a transaction-scoped advisory lock
///   for each row it reads (a 64-bit hash of the schema and the row's id, all of them in one statement,
///   in ascending order, so two updates never deadlock, and a row that does not exist yet is locked as
///   surely as one that does), reads the rows, runs `body`, writes what changed in one statement
///   (upserts, and deletes of counters left empty and of a record taken back; nothing when nothing
///   changed), and commits. So an update
///   is atomic against every other update that touches any of its rows, on any instance. Rows are read
///   without `FOR UPDATE`: the advisory locks order the updates, and no placeholder row is ever made.
///   The global counters (those of every send, `sends:global-lane:all` and its returning owners' lane, one of which
///   every send reads, and `failed-verifies:global:all`, which every verify reads) are the exception: an update
///   takes their lock only when `body` writes one of them, last, and then reads every row again and runs `body` again
///   under it. A send the rules refuse, or a verify of the right
///   code, decides on the global counters as they stand and never queues on their lock, so a flood of refused sends
///   cannot hold up the cluster's admitted ones; wrong codes take the lock one at a time, as admitted sends do.
/// - Before it takes anything, an update whose rows another update of this process holds or waits for (a flood on
///   one number, or any contention) reads them in one unlocked statement and runs `body` on them: a decision that
///   writes nothing (a verify from a session holding no code, a send the rules refuse) is answered from that
///   snapshot, never queueing before the updates that write; one that writes goes on as above, `body` then running
///   again under the locks. Not while an update of those rows left its outcome unknown (the answer to its `COMMIT`
///   lost) and none has gone through since: its transaction may still be committing, and a take-back of it waits for
///   its locks.
/// - A deadlock or serialization failure (SQLSTATE `40P01`, `40001`; only a foreign transaction on the
///   same rows can cause one), or a prepared statement the server refused before it ran (dropped by
///   `DISCARD ALL`, or a table changed under it), is retried, up to ``attempts`` runs in all: `body` may
///   then run more than once (as under contention, above), and only the last run is written.
/// - What is kept only until before the update's `now` reads as absent, as in ``InMemorySMSStore``, and
///   ``removeExpired(before:limit:)`` (or ``PostgresStores/removeExpiredRows(before:)``) deletes it.
/// - A database that is down fails the update with ``StoreError`` kind `io`; a statement held longer
///   than the statement timeout (rows locked by a stuck transaction) with `timeout`. Either way the
///   transaction is rolled back: nothing is half-written. Only when the connection breaks during the
///   `COMMIT` itself may the update have been committed (whole), which the message says.
package final class PostgresSMSStore: SMSStore, CustomStringConvertible {
    /// How many times an update runs at most when the database reports a deadlock or a serialization
    /// failure.
    package let attempts: Int
    /// The schema holding the tables.
    package var schema: String { pool.configuration.schema }

    private let pool: PostgresPool
    private let statements: Statements

    /// The statement texts, made once from the quoted schema name.
    private struct Statements: Sendable {
        let counters, codes: String
        let read, removeCounters, removeCodes: String

        init(_ schema: String) {
            counters = "\(schema).sms_counters"
            codes = "\(schema).sms_codes"
            read = """
                SELECT counter, events_ms, NULL::text AS record, keep_until_ms FROM \(counters) WHERE counter = ANY($1::text[]) \
                UNION ALL SELECT NULL, NULL, record, keep_until_ms FROM \(codes) WHERE number = $2
                """
            removeCounters = PostgresExpiredRows.delete(from: counters, key: "counter", before: "keep_until_ms")
            removeCodes = PostgresExpiredRows.delete(from: codes, key: "number", before: "keep_until_ms")
        }
    }

    /// Creates a store over a pool whose schema is migrated.
    /// - Parameters:
    ///   - pool: The pool.
    ///   - attempts: How many runs an update gets when the database reports a deadlock, a
    ///     serialization failure or a prepared statement gone stale, at least 1.
    package init(pool: PostgresPool, attempts: Int) {
        self.pool = pool
        self.attempts = max(1, attempts)
        statements = Statements(PostgresIdentifier.quoted(pool.configuration.schema))
    }

    /// `PostgresSMSStore(schema onetap, 4 attempts, PostgresPool(…))`.
    package var description: String { "PostgresSMSStore(schema \(schema), \(attempts) attempts, \(pool))" }

    // MARK: The update

    /// Reads the counters and the code record of a number and session, runs `body`, and writes back what changed, in
    /// one transaction (``SMSStore/update(counters:code:at:_:)``).
    /// - Parameters:
    ///   - counters: The counters to read (missing ones read as empty).
    ///   - number: The number and session whose code record to read; nil to read and write counters only (no record
    ///   row is read, locked or written).
    ///   - now: The time: rows kept only until before it read as absent.
    ///   - body: The change; the state's `keepUntil` becomes the keep-until of every row written.
    /// - Returns: What the last run of `body` returned.
    /// - Throws: ``StoreError`` of kind `io` (the database failed; nothing was written), `timeout`
    ///   (the rows stayed locked past the statement timeout; nothing was written) or `corrupt` (a stored
    ///   row is not one OneTap wrote; it is left as it is).
    package func update<Result: Sendable>(
        counters: [SMSPolicy.Counter], code number: SMSCodeKey?, at now: Date, _ body: @Sendable (inout SMSState) -> Result
    ) async throws -> Result {
        let read = PostgresCounterRows.Read(counters)
        // The global counters every send shares are locked only by an update that writes them (taken last,
        // so every update takes its locks in one order): a refused send never queues on them.
        let shared = Set(counters.filter { $0.counter.key.countsEveryRequest }.map(\.description))
        let locks = Self.lockKeys(schema: schema, counters: read.ids.filter { !shared.contains($0) }, number: number)
        let sharedLocks = Self.lockKeys(schema: schema, counters: read.ids.filter(shared.contains), number: nil)
        // Another update of this process holds these rows or waits for them (a flood on one number: verifies from a
        // session that holds no code for it, sends its rules refuse): a decision that writes nothing is answered from the
        // rows as one statement reads them, without joining the line, so such a flood never queues before an owner's
        // update that writes (an SMS attacker's read: at a few hundred a second, an owner's verify waited past the line's
        // limit and failed). The answer is the rows' at that statement's snapshot; a decision that writes joins the line
        // as any update does. Not after an update of these rows left its outcome unknown (its COMMIT's answer lost), until
        // one goes through: its transaction may still be committing, and a take-back of it must wait for its locks.
        if PostgresCounterRows.answersWithoutLocks(pool, locks),
            let answer = try await answerWritingNothing(read, counters: counters, code: number, shared: shared, at: now, body)
        {
            return answer
        }
        let doing = number.map { "update the SMS counters and the code record of \($0.number.masked)" } ?? "update the SMS counters"
        return try await PostgresCounterRows.update(pool, attempts: attempts, locks: locks, doing: doing) { connection, phase in
            func run() async throws -> (Result, Stored, SMSState) {
                try decide(try await connection.execute(statements.read, [.textArray(read.ids), number.map { .text($0.id) } ?? .null]), read, counters, number, at: now, body)
            }
            var (result, stored, state) = try await run()
            var write = changes(from: stored, to: state, shared: shared)
            if let counters = write?.counters, !shared.isDisjoint(with: counters.putCounters + counters.deleteCounters) {
                // It writes a global counter: decided again on what it holds under its lock.
                try await connection.execute(PostgresCounterRows.lock, [.int64Array(sharedLocks)])
                (result, stored, state) = try await run()
                write = changes(from: stored, to: state, shared: shared)
            }
            if let write {
                phase.withLock { $0 = .writing }
                let (sql, parameters) = try write.statement(statements, number: number, keepUntil: state.keepUntil)
                try await connection.execute(sql, parameters)
            }
            return result
        }
    }

    /// What `body` decides on the rows as one unlocked statement reads them, when that decision writes nothing; nil when
    /// it writes (or the read failed: the update's own run reports the database's failure).
    /// - Throws: ``StoreError`` of kind `corrupt` for a row OneTap did not write, or cancellation.
    private func answerWritingNothing<Result: Sendable>(
        _ read: PostgresCounterRows.Read<SMSPolicy.Counter>, counters: [SMSPolicy.Counter], code number: SMSCodeKey?, shared: Set<String>,
        at now: Date, _ body: @Sendable (inout SMSState) -> Result
    ) async throws -> Result? {
        let rows: PostgresRows
        do {
            rows = try await pool.execute(statements.read, [.textArray(read.ids), number.map { .text($0.id) } ?? .null])
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            return nil
        }
        let (result, stored, state) = try decide(rows, read, counters, number, at: now, body)
        return changes(from: stored, to: state, shared: shared) == nil ? result : nil
    }

    /// Runs `body` on the rows as read: what it returns, the rows as stored, and the state it left.
    /// - Throws: ``StoreError`` of kind `corrupt` for a row OneTap did not write.
    private func decide<Result: Sendable>(
        _ rows: PostgresRows, _ read: PostgresCounterRows.Read<SMSPolicy.Counter>, _ counters: [SMSPolicy.Counter], _ number: SMSCodeKey?,
        at now: Date, _ body: (inout SMSState) -> Result
    ) throws(StoreError) -> (Result, Stored, SMSState) {
        let stored = try self.read(rows, into: read, number: number, at: now)
        var state = SMSState(events: stored.counters.events, counters: counters, code: stored.record, keepUntil: stored.keepUntil)
        let result = body(&state)
        if number == nil { state.code = nil }  // counters only: no record is written
        return (result, stored, state)
    }

    /// The rows as they are stored (whether or not they are still kept), and the state they read as.
    private struct Stored {
        /// The counters asked for.
        var counters: PostgresCounterRows.Read<SMSPolicy.Counter>
        /// The stored record row: its keep-until, and the record when it is still kept.
        var code: (record: SMSCodeRecord?, keepUntil: Date)? = nil
        /// The kept record.
        var record: SMSCodeRecord? = nil
        /// The latest keep-until of what is read; the distant past when nothing is.
        var keepUntil: Date { max(counters.keepUntil, record == nil ? .distantPast : code?.keepUntil ?? .distantPast) }
    }

    private func read(
        _ rows: PostgresRows, into counters: PostgresCounterRows.Read<SMSPolicy.Counter>, number: SMSCodeKey?, at now: Date
    ) throws(StoreError) -> Stored {
        var stored = Stored(counters: counters)
        for row in rows.rows {
            guard row.count == 4, let keepUntil = row[3].instant else {
                throw StoreError(.corrupt, message: "a row of \(schema)'s SMS tables has no keep-until; it was left as it is")
            }
            if let counter = row[0].text {
                guard let events = row[1].instants else {
                    throw StoreError(.corrupt, message: "a row of \(schema).sms_counters holds no events; it was left as it is")
                }
                stored.counters.add(counter, events: events, keepUntil: keepUntil, at: now)
            } else {
                // A counters-only update (no key) binds NULL, which no row's number equals: no record row comes.
                guard let number else { continue }
                guard keepUntil >= now else {
                    stored.code = (nil, keepUntil)  // expired: read as absent, never decoded
                    continue
                }
                guard let json = row[2].text, let record = try? SMSCodeRecord(json: json), record.number == number.number,
                    record.session == number.session
                else {
                    throw StoreError(
                        .corrupt, message: "the code record of \(number.number.masked) in \(schema).sms_codes is not one OneTap wrote; it was left as it is")
                }
                stored.code = (record, keepUntil)
                stored.record = record
            }
        }
        return stored
    }

    /// What to write: nil when nothing changed.
    private struct Write {
        var counters = PostgresCounterRows.Write()
        var deleteCode = false
        var putCode: SMSCodeRecord? = nil

        /// The one statement that writes it all: each part it needs (deleting counters, deleting the
        /// record, upserting the record, upserting counters) as a data-modifying `WITH` part, the last as
        /// the statement itself. The text is made of the store's fixed fragments only; every value is a
        /// parameter. A counter's events are a slice of one `bigint[]` of all of them.
        func statement(_ statements: Statements, number: SMSCodeKey?, keepUntil: Date) throws(StoreError) -> (String, [PostgresValue]) {
            var parameters: [PostgresValue] = []
            func bind(_ value: PostgresValue) -> String {
                parameters.append(value)
                return "$\(parameters.count)"
            }
            var parts: [String] = []
            if !counters.deleteCounters.isEmpty {
                parts.append("DELETE FROM \(statements.counters) WHERE counter = ANY(\(bind(.textArray(counters.deleteCounters)))::text[])")
            }
            // The number and the keep-until are bound once, when a part first needs them.
            var digitsPlaceholder: String? = nil
            var keepPlaceholder: String? = nil
            func digits() -> String {
                if let digitsPlaceholder { return digitsPlaceholder }
                let placeholder = bind(number.map { .text($0.id) } ?? .null)
                digitsPlaceholder = placeholder
                return placeholder
            }
            func keep() -> String {
                if let keepPlaceholder { return keepPlaceholder }
                let placeholder = bind(.instant(keepUntil))
                keepPlaceholder = placeholder
                return placeholder
            }
            if deleteCode {
                parts.append("DELETE FROM \(statements.codes) WHERE number = \(digits())")
            }
            if let putCode {
                let json: String
                do {
                    json = try putCode.json()
                } catch {
                    throw StoreError(.io, message: "cannot write the code record of \(number?.number.masked ?? "(no number)") as JSON; nothing was written")
                }
                parts.append("""
                    INSERT INTO \(statements.codes) (number, record, keep_until_ms) VALUES (\(digits()), \(bind(.text(json))), \(keep())) \
                    ON CONFLICT (number) DO UPDATE SET record = EXCLUDED.record, keep_until_ms = EXCLUDED.keep_until_ms
                    """)
            }
            if !counters.putCounters.isEmpty {
                let events = bind(.instants(counters.events))
                parts.append(
                    PostgresCounterRows.Write.upsert(
                        into: statements.counters, events: events, counters: bind(.textArray(counters.putCounters)),
                        first: bind(.int64Array(counters.bounds.map(\.first))), last: bind(.int64Array(counters.bounds.map(\.last))), keepUntil: keep()))
            }
            let main = parts.removeLast()
            let with = parts.enumerated().map { "part\($0.offset) AS (\($0.element))" }
            return ((with.isEmpty ? "" : "WITH " + with.joined(separator: ", ") + " ") + main, parameters)
        }
    }

    private func changes(from stored: Stored, to state: SMSState, shared: Set<String>) -> Write? {
        var write = Write()
        var changed = false
        if let counters = stored.counters.changes(to: state.events, keepUntil: state.keepUntil, eventsOnly: shared) {
            write.counters = counters
            changed = true
        }
        if let record = state.code {
            if stored.code.map({ $0.record != record || $0.keepUntil != state.keepUntil }) ?? true {
                write.putCode = record
                changed = true
            }
        } else if stored.code != nil {
            write.deleteCode = true
            changed = true
        }
        return changed ? write : nil
    }

    /// The advisory-lock keys of an update's rows (``PostgresCounterRows/lockKeys(_:)``): its counters' and its code
    /// record's, each named by the schema, the table and the id.
    static func lockKeys(schema: String, counters: [String], number: SMSCodeKey?) -> [Int64] {
        func text(_ kind: String, _ id: String) -> String { "onetap.sms\u{0}\(schema)\u{0}\(kind)\u{0}\(id)" }
        return PostgresCounterRows.lockKeys(counters.map { text("counter", $0) } + (number.map { [text("code", $0.id)] } ?? []))
    }

    // MARK: Cleaning up

    /// Removes counters and code records kept only until before an instant
    /// (``SMSStore/removeExpired(before:limit:)``), counters first, skipping rows an update holds.
    /// - Parameters:
    ///   - instant: The instant; a row kept until it stays.
    ///   - limit: The most rows to remove, counters and records together.
    /// - Returns: How many were removed.
    /// - Throws: ``StoreError`` of kind `io` (or `timeout`).
    package func removeExpired(before instant: Date, limit: Int) async throws -> Int {
        do {
            let (counters, codes) = try await removeExpiredRows(before: instant, limit: limit)
            return counters + codes
        } catch {
            throw PostgresCounterRows.failure(error, phase: nil, doing: "remove expired SMS counters and code records")
        }
    }

    /// ``removeExpired(before:limit:)`` counting each table apart and failing with the database's own
    /// error (for ``PostgresStores/removeExpiredRows(before:)``).
    func removeExpiredRows(before instant: Date, limit: Int) async throws -> (counters: Int, codes: Int) {
        let counters = try await PostgresExpiredRows.remove(statements.removeCounters, before: instant, limit: limit, on: pool)
        let codes = try await PostgresExpiredRows.remove(statements.removeCodes, before: instant, limit: limit - counters, on: pool)
        return (counters, codes)
    }

}
