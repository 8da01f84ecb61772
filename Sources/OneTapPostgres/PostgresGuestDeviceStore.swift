import OneTap

/// Guest device records in PostgreSQL, shared by every server instance: what ``GuestService`` keeps per
/// device (its guest id's generation, the account logged in, the last-login hint), so that every
/// instance gives a device the same guest and a logout on one instance is seen by all. Make one with
/// ``PostgresStores/guestDeviceStore()``.
///
/// - One row per device in `<schema>.guest_devices`, keyed by the record key (an HMAC of the device id:
///   no raw device id is stored), with the generation, the account and the hint (its JSON,
///   ``LastLoginHint/json()``: the flow, the masked number, the time; a hint an earlier version wrote is
///   read as it is) as columns.
/// - ``update(key:_:)`` is one `READ COMMITTED` transaction (whatever the server's default isolation):
///   the row is created when missing, locked (`SELECT … FOR UPDATE`), changed by the body and written
///   back, so racing updates of one device on any instances are applied one after another and none is
///   lost. A deadlock or serialization failure a foreign transaction causes is retried (4 runs in all);
///   the body may then run more than once, and only the last run is written.
/// - Every value is a bound parameter. A database that is down, or a row held past the statement
///   timeout, fails the call with ``StoreError`` of kind `io`, and nothing is written.
package final class PostgresGuestDeviceStore: GuestDeviceStore, CustomStringConvertible {
    /// The schema holding the table.
    package var schema: String { pool.configuration.schema }

    private let pool: PostgresPool
    private let statements: Statements

    private struct Statements: Sendable {
        let read, ensure, lock, write: String

        init(_ schema: String) {
            let table = "\(schema).guest_devices"
            read = "SELECT generation, account, last_login FROM \(table) WHERE key = $1"
            ensure = "INSERT INTO \(table) (key, generation) VALUES ($1, 0) ON CONFLICT (key) DO NOTHING"
            lock = "SELECT generation, account, last_login FROM \(table) WHERE key = $1 FOR UPDATE"
            write = "UPDATE \(table) SET generation = $2, account = $3, last_login = $4 WHERE key = $1"
        }
    }

    /// Creates a store over a pool whose schema is migrated.
    /// - Parameter pool: The pool.
    package init(pool: PostgresPool) {
        self.pool = pool
        statements = Statements(PostgresIdentifier.quoted(pool.configuration.schema))
    }

    /// `PostgresGuestDeviceStore(schema onetap, PostgresPool(…))`.
    package var description: String { "PostgresGuestDeviceStore(schema \(schema), \(pool))" }

    /// A device's record (``GuestDeviceStore/record(forKey:)``).
    /// - Parameter key: The record's key.
    /// - Returns: The record, or nil for a device never seen.
    /// - Throws: ``StoreError`` of kind `io`, or `corrupt` when the row is not one OneTap wrote
    ///   (it is left as it is).
    package func record(forKey key: String) async throws -> GuestDeviceRecord? {
        let rows = try await pool.execute(statements.read, [.text(key)]) {
            failure($0, doing: "read a device record", write: false, committing: false)
        }
        return try rows.first.map(decode)
    }

    /// Changes a device's record in one transaction (``GuestDeviceStore/update(key:_:)``).
    /// - Parameters:
    ///   - key: The record's key.
    ///   - body: The change (run again only when the database asked for the transaction to be retried).
    /// - Returns: The record after the change.
    /// - Throws: ``StoreError`` of kind `io` (nothing was written, unless the connection broke
    ///   during the commit: then the message says the update may have been committed, whole), or
    ///   `corrupt`.
    package func update(key: String, _ body: @Sendable (inout GuestDeviceRecord) -> Void) async throws -> GuestDeviceRecord {
        var attempt = 1
        while true {
            do {
                return try await updateOnce(key: key, body)
            } catch let error as RetriedFailure {
                throw error.error
            } catch {
                if attempt < Self.attempts {
                    attempt += 1
                    continue
                }
                throw failure(error, doing: "update a device record (\(Self.attempts) runs)", write: true, committing: false)
            }
        }
    }

    /// How many runs an update gets when the database reports a deadlock or a serialization failure.
    static let attempts = 4

    /// A failure already turned into the store's error.
    private struct RetriedFailure: Error {
        let error: any Error
    }

    /// One run of an update's transaction: the database's own retryable errors (deadlock, serialization
    /// failure) come out as they are, every other failure as ``RetriedFailure`` holding the store's error.
    private func updateOnce(key: String, _ body: @Sendable (inout GuestDeviceRecord) -> Void) async throws -> GuestDeviceRecord {
        let committing = LockedValue(false)
        do {
            return try await pool.withConnection { connection in
                try await connection.transaction("BEGIN ISOLATION LEVEL READ COMMITTED", committing: { committing.withLock { $0 = true } }) { connection in
                    try await connection.execute(self.statements.ensure, [.text(key)])
                    guard let row = try await connection.execute(self.statements.lock, [.text(key)]).first else {
                        throw StoreError(.io, message: "PostgreSQL: the device record vanished inside its own transaction; nothing was written")
                    }
                    var record = try self.decode(row)
                    body(&record)
                    try await connection.execute(self.statements.write, try self.encode(record, key: key))
                    return record
                }
            }
        } catch let error as PostgresError where error.asksForARetry {
            throw error
        } catch {
            throw RetriedFailure(error: failure(error, doing: "update a device record", write: true, committing: committing.withLock { $0 }))
        }
    }

    // MARK: Rows

    private func encode(_ record: GuestDeviceRecord, key: String) throws(StoreError) -> [PostgresValue] {
        guard record.generation >= 0 else {
            throw StoreError(.io, message: "a device record's generation cannot be \(record.generation); nothing was written")
        }
        let hint: PostgresValue
        if let lastLogin = record.lastLogin {
            do {
                hint = .text(try lastLogin.json())
            } catch {
                throw StoreError(.io, message: "cannot write the last-login hint as JSON; nothing was written")
            }
        } else {
            hint = .null
        }
        return [.text(key), .int64(Int64(record.generation)), record.account.map { .text($0.rawValue) } ?? .null, hint]
    }

    private func decode(_ row: [PostgresValue]) throws(StoreError) -> GuestDeviceRecord {
        func corrupt(_ reason: String) -> StoreError {
            StoreError(.corrupt, message: "a row of \(schema).guest_devices is not a OneTap device record (\(reason)); it was left as it is")
        }
        guard row.count == 3, let generation = row[0].int64, let count = Int(exactly: generation) else { throw corrupt("no generation") }
        var record = GuestDeviceRecord()
        record.generation = count
        if let account = row[1].text {
            do {
                record.account = try AccountID(account)
            } catch {
                throw corrupt("its account is no account id: \(error.reason)")
            }
        } else if !row[1].isNull {
            throw corrupt("its account is not text")
        }
        if let json = row[2].text {
            do {
                record.lastLogin = try LastLoginHint(json: json)
            } catch {
                throw corrupt("its last-login hint does not read as one")
            }
        } else if !row[2].isNull {
            throw corrupt("its last-login hint is not text")
        }
        return record
    }

    private func failure(_ error: any Error, doing: String, write: Bool, committing: Bool) -> any Error {
        if error is CancellationError || error is StoreError { return error }
        var message = "PostgreSQL: cannot \(doing): \(error)"
        let lost = (error as? PostgresError)?.leavesTheOutcomeUnknown ?? false
        if committing && lost {
            message += "; the update may or may not have been committed (whole, if it was)"
        } else if write {
            message += "; nothing was written"
        }
        return StoreError(.io, message: message)
    }
}
