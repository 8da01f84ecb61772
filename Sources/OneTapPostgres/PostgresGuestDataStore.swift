import OneTap

/// Guests' and accounts' data and the merge journals in PostgreSQL, shared by every server instance:
/// what ``GuestMerger`` applies a merge through, so that a guest who logs in on two instances at once
/// merges once, and a merge an instance left half done (it crashed) is finished by the next login on
/// any instance. Make one with ``PostgresStores/guestDataStore()``.
///
/// - `<schema>.guest_data`: one row per owner (`guest` or `account`, and its id) and kind, the value as
///   JSON text (`JSONValue`'s canonical form, readable as `value::json`). Kinds are checked by
///   ``StoreError/check(dataKind:)`` before anything is sent, as in every store. A merge moves one
///   kind in one transaction, conditional on both rows holding what the merger read and on the journal's version,
///   which it replaces in the same transaction (``merge(kind:of:expecting:into:expecting:setting:recording:over:)``):
///   no lost updates, no kind merged that the journal does not record, and no migration.
/// - `<schema>.merge_journals`: one row per merging guest: the version, whether it is done, when it
///   began and finished (milliseconds since 1970), and the journal as JSON (``MergeJournal/json()``; a
///   row of an earlier version, which `JSONEncoder` wrote, is read as it is). ``createJournal(_:)`` is one `INSERT … ON CONFLICT DO NOTHING`
///   (the first of racing merges wins, and the others read its journal); ``replaceJournal(_:expecting:)``
///   is one compare-and-swap `UPDATE … WHERE guest = … AND version = …`.
/// - Every value is a bound parameter; errors never quote the data. A database that is down, or a row
///   held past the statement timeout, fails the call with ``StoreError`` of kind `io`, and
///   nothing is written; the merger's journal makes the merge resume where it stopped.
/// - Data has no expiry. A finished merge's journal is kept for ``MergeJournal/finishedRetention`` (30 days)
///   after the merge finished, so a late login of the same guest still finds it (and merges nothing
///   twice); ``PostgresStores/removeExpiredRows(before:)`` then removes it.
package final class PostgresGuestDataStore: GuestDataStore, CustomStringConvertible {
    /// The schema holding the tables.
    package var schema: String { pool.configuration.schema }

    /// How many runs a merge's transaction gets when the database reports a deadlock, a serialization
    /// failure or a prepared statement gone stale (nothing of a refused run is written): 4, as the
    /// counter stores'.
    static let mergeAttempts = 4

    private let pool: PostgresPool
    private let statements: Statements

    private struct Statements: Sendable {
        let data, write, remove, journal, create, replace, removeDone: String
        let insertIfNone, updateIfHeld, deleteIfHeld, holdsNone: String

        init(_ schema: String) {
            let table = "\(schema).guest_data"
            let journals = "\(schema).merge_journals"
            data = "SELECT kind, value FROM \(table) WHERE owner_kind = $1 AND owner = $2"
            write = """
                INSERT INTO \(table) (owner_kind, owner, kind, value) VALUES ($1, $2, $3, $4) \
                ON CONFLICT (owner_kind, owner, kind) DO UPDATE SET value = EXCLUDED.value
                """
            remove = "DELETE FROM \(table) WHERE owner_kind = $1 AND owner = $2 AND kind = $3"
            insertIfNone = """
                INSERT INTO \(table) (owner_kind, owner, kind, value) VALUES ($1, $2, $3, $4) \
                ON CONFLICT (owner_kind, owner, kind) DO NOTHING RETURNING 1
                """
            updateIfHeld = "UPDATE \(table) SET value = $5 WHERE owner_kind = $1 AND owner = $2 AND kind = $3 AND value = $4 RETURNING 1"
            deleteIfHeld = "DELETE FROM \(table) WHERE owner_kind = $1 AND owner = $2 AND kind = $3 AND value = $4 RETURNING 1"
            holdsNone = "SELECT 1 WHERE NOT EXISTS (SELECT 1 FROM \(table) WHERE owner_kind = $1 AND owner = $2 AND kind = $3)"
            journal = "SELECT version, journal FROM \(journals) WHERE guest = $1"
            create = """
                INSERT INTO \(journals) (guest, version, done, started_at_ms, finished_at_ms, journal) VALUES ($1, $2, $3, $4, $5, $6) \
                ON CONFLICT (guest) DO NOTHING RETURNING version
                """
            replace = """
                UPDATE \(journals) SET version = $3, done = $4, finished_at_ms = $5, journal = $6 \
                WHERE guest = $1 AND version = $2 AND $3 > $2 RETURNING version
                """
            removeDone = PostgresExpiredRows.delete(from: journals, key: "guest", before: "finished_at_ms", where: "done")
        }
    }

    /// Creates a store over a pool whose schema is migrated.
    /// - Parameter pool: The pool.
    package init(pool: PostgresPool) {
        self.pool = pool
        statements = Statements(PostgresIdentifier.quoted(pool.configuration.schema))
    }

    /// `PostgresGuestDataStore(schema onetap, PostgresPool(…))`.
    package var description: String { "PostgresGuestDataStore(schema \(schema), \(pool))" }

    // MARK: Data

    /// Every kind of data an owner has (``GuestDataStore/data(of:)``).
    /// - Parameter owner: A guest or an account.
    /// - Returns: The data by kind.
    /// - Throws: ``StoreError`` of kind `io`, or `corrupt` when a row is not JSON (it is left
    ///   as it is).
    package func data(of owner: Identity) async throws -> [String: JSONValue] {
        let rows = try await pool.execute(statements.data, Self.owner(owner)) { failure($0, doing: "read the data of \(owner)", write: false) }
        var data: [String: JSONValue] = [:]
        for row in rows.rows {
            guard row.count == 2, let kind = row[0].text, MergeRules.problem(kind) == nil, let json = row[1].text else {
                throw corrupt("a row of \(owner) has no value, or a kind that is none")
            }
            do {
                data[kind] = try JSONValue.parse(json)
            } catch {
                throw corrupt("the \(QuotedInput(kind)) of \(owner) is not JSON")
            }
        }
        return data
    }

    /// Sets an owner's data of one kind (``GuestDataStore/write(_:kind:of:)``), in one statement.
    /// - Parameters:
    ///   - value: The data.
    ///   - kind: The kind.
    ///   - owner: A guest or an account.
    /// - Throws: ``StoreError`` of kind `invalid-kind`, `too-large` (a value it could not read back) or `io`; nothing is written then.
    package func write(_ value: JSONValue, kind: String, of owner: Identity) async throws {
        try StoreError.check(dataKind: kind, value: value)
        try await run(statements.write, Self.owner(owner) + [.text(kind), .text(value.json)], doing: "write the \(kind) of \(owner)")
    }

    /// Deletes an owner's data of one kind (``GuestDataStore/remove(kind:of:)``).
    /// - Parameters:
    ///   - kind: The kind.
    ///   - owner: A guest or an account.
    /// - Throws: ``StoreError`` of kind `invalid-kind` or `io`.
    package func remove(kind: String, of owner: Identity) async throws {
        try StoreError.check(dataKind: kind)
        try await run(statements.remove, Self.owner(owner) + [.text(kind)], doing: "remove the \(kind) of \(owner)")
    }

    /// Sets or deletes an owner's data of one kind if it still holds what was read
    /// (``GuestDataStore/replace(kind:of:expecting:with:)``), in one statement: an insert that does nothing
    /// over an existing row, or an update or delete conditional on the row's value (compared as the canonical
    /// JSON text every write of this store keeps).
    /// - Parameters:
    ///   - kind: The kind.
    ///   - owner: A guest or an account.
    ///   - current: The value as read; nil for none.
    ///   - value: The new value; nil deletes.
    /// - Returns: False when the row changed (nothing written).
    /// - Throws: ``StoreError`` of kind `invalid-kind`, `too-large` (a value it could not read back) or `io`; nothing is written then, unless the message says
    ///   the outcome is unknown.
    package func replace(kind: String, of owner: Identity, expecting current: JSONValue?, with value: JSONValue?) async throws -> Bool {
        try StoreError.check(dataKind: kind, value: value)
        let (sql, parameters) = conditional(kind: kind, of: owner, expecting: current, with: value)
        return try await run(sql, parameters, doing: "replace the \(kind) of \(owner)").first != nil
    }

    /// Merges one kind of a guest's data into an account in one transaction
    /// (``GuestDataStore/merge(kind:of:expecting:into:expecting:setting:recording:over:)``): the guest's row is deleted
    /// only if it still holds the value read, and the account's row set only if it still holds the value
    /// read (inserted only if it still has none), and the journal replaced only if it is still at the version
    /// read; any condition failing rolls back all three. Values compare as the canonical JSON text every write
    /// of this store keeps.
    /// - Parameters:
    ///   - kind: The kind.
    ///   - guest: The guest.
    ///   - guestValue: The guest's value as read.
    ///   - account: The account.
    ///   - accountValue: The account's value as read; nil for none.
    ///   - merged: The account's new value.
    ///   - journal: The journal after the kind's merge.
    ///   - version: The journal's version as read.
    /// - Returns: False when a side or the journal changed (nothing written).
    /// - Throws: ``StoreError`` of kind `invalid-kind` or `io` (nothing written, unless the connection
    ///   broke during the `COMMIT`, which the message says). A run the database refused and asks to be run
    ///   again (``mergeAttempts``) runs again.
    package func merge(
        kind: String, of guest: GuestID, expecting guestValue: JSONValue, into account: AccountID, expecting accountValue: JSONValue?,
        setting merged: JSONValue, recording journal: MergeJournal, over version: Int
    ) async throws -> Bool {
        try StoreError.check(dataKind: kind, value: merged)
        guard journal.guest == guest, journal.version > version else { return false }
        let recorded = try encode(journal)
        let committing = LockedValue(false)
        do {
            return try await pool.transaction(
                attempts: Self.mergeAttempts, retrying: { committing.withLock { $0 = false } }, committing: { committing.withLock { $0 = true } }
            ) { connection in
                guard
                    try await mergeRows(on: connection, kind: kind, guest: guest, guestValue: guestValue, account: account, accountValue: accountValue, merged: merged)
                else { return false }
                guard try await connection.execute(statements.replace, replacing(journal, json: recorded, over: version)).first != nil else {
                    throw RolledBack()
                }
                return true
            }
        } catch is RolledBack {
            return false
        } catch {
            throw failure(error, doing: "merge the \(kind) of guest \(guest) into account \(account)", write: true, sent: committing.withLock { $0 })
        }
    }

    /// The data statements of ``merge(kind:of:expecting:into:expecting:setting:recording:over:)``'s transaction: false
    /// when the guest's row changed (nothing written yet); ``RolledBack`` (rolling back the guest's delete) when the
    /// account's did.
    private func mergeRows(
        on connection: PostgresConnection, kind: String, guest: GuestID, guestValue: JSONValue, account: AccountID, accountValue: JSONValue?,
        merged: JSONValue
    ) async throws -> Bool {
        let (take, taking) = conditional(kind: kind, of: .guest(guest), expecting: guestValue, with: nil)
        guard try await connection.execute(take, taking).first != nil else { return false }
        let (set, setting) = conditional(kind: kind, of: .account(account), expecting: accountValue, with: merged)
        guard try await connection.execute(set, setting).first != nil else { throw RolledBack() }
        return true
    }

    /// The one statement of a compare-and-swap of one owner's kind: an insert that does nothing over an
    /// existing row, an update or a delete conditional on the row's value, or a check that there is no row.
    /// It returns a row when it applied.
    private func conditional(kind: String, of owner: Identity, expecting current: JSONValue?, with value: JSONValue?) -> (String, [PostgresValue]) {
        let row = Self.owner(owner) + [.text(kind)]
        return switch (current, value) {
        case (nil, let value?): (statements.insertIfNone, row + [.text(value.json)])
        case (let current?, let value?): (statements.updateIfHeld, row + [.text(current.json), .text(value.json)])
        case (let current?, nil): (statements.deleteIfHeld, row + [.text(current.json)])
        case (nil, nil): (statements.holdsNone, row)
        }
    }

    /// Rolls a merge's transaction back: the account's row or the journal changed since it was read.
    private struct RolledBack: Error {}

    // MARK: Journals

    /// A guest's merge journal (``GuestDataStore/journal(for:)``).
    /// - Parameter guest: The guest.
    /// - Returns: The journal, or nil.
    /// - Throws: ``StoreError`` of kind `io`, or `corrupt`.
    package func journal(for guest: GuestID) async throws -> MergeJournal? {
        let rows = try await pool.execute(statements.journal, [.text(guest.text)]) {
            failure($0, doing: "read the merge journal of guest \(guest)", write: false)
        }
        return try rows.first.map { row throws(StoreError) in try decode(row, guest: guest) }
    }

    /// Stores a new journal unless the guest has one (``GuestDataStore/createJournal(_:)``), in one
    /// statement; returns the stored one.
    /// - Parameter journal: The new journal.
    /// - Returns: The journal stored for the guest: this one, or the one a racing merge stored first.
    /// - Throws: ``StoreError`` of kind `io`, or `corrupt`.
    package func createJournal(_ journal: MergeJournal) async throws -> MergeJournal {
        let json = try encode(journal)
        let inserted = try await run(
            statements.create,
            [.text(journal.guest.text), .int64(Int64(journal.version)), .bool(journal.done), .instant(journal.startedAt), finished(journal), .text(json)],
            doing: "create the merge journal of guest \(journal.guest)"
        ).first != nil
        if inserted { return journal }
        guard let stored = try await self.journal(for: journal.guest) else {
            throw StoreError(.io, message: "PostgreSQL: the merge journal of guest \(journal.guest) was removed while it was being created; try again")
        }
        return stored
    }

    /// Replaces a guest's journal if it is still at `version` (``GuestDataStore/replaceJournal(_:expecting:)``),
    /// in one statement.
    /// - Parameters:
    ///   - journal: The journal after a change.
    ///   - version: The version it was made from.
    /// - Returns: False when the stored journal is at another version, or there is none.
    /// - Throws: ``StoreError`` of kind `io`; nothing is written then.
    package func replaceJournal(_ journal: MergeJournal, expecting version: Int) async throws -> Bool {
        let json = try encode(journal)
        return try await run(statements.replace, replacing(journal, json: json, over: version), doing: "replace the merge journal of guest \(journal.guest)")
            .first != nil
    }

    /// The parameters of the statement that replaces a journal at `version` (``replaceJournal(_:expecting:)``, and a
    /// kind's merge).
    private func replacing(_ journal: MergeJournal, json: String, over version: Int) -> [PostgresValue] {
        [.text(journal.guest.text), .int64(Int64(version)), .int64(Int64(journal.version)), .bool(journal.done), finished(journal), .text(json)]
    }

    /// Removes journals of merges that finished more than ``MergeJournal/finishedRetention`` before an
    /// instant, oldest first, skipping rows another transaction holds (for
    /// ``PostgresStores/removeExpiredRows(before:)``).
    /// - Parameters:
    ///   - instant: The cut-off.
    ///   - limit: The most to remove.
    /// - Returns: How many were removed.
    func removeFinishedJournals(before instant: Date, limit: Int) async throws -> Int {
        let before = instant.addingTimeInterval(-MergeJournal.finishedRetention.seconds)
        return try await PostgresExpiredRows.remove(statements.removeDone, before: before, limit: limit, on: pool)
    }

    // MARK: Helpers

    /// Runs a write statement, telling in its error whether the statement was sent at all (a pool that
    /// had no free connection sent nothing).
    @discardableResult
    private func run(_ sql: String, _ parameters: [PostgresValue], doing: String) async throws -> PostgresRows {
        let sent = LockedValue(false)
        do {
            return try await pool.withConnection { connection in
                sent.withLock { $0 = true }
                return try await connection.execute(sql, parameters)
            }
        } catch {
            throw failure(error, doing: doing, write: true, sent: sent.withLock { $0 })
        }
    }

    /// The finish time of a journal that is done (``MergeJournal/finished``), as the table keeps it.
    private func finished(_ journal: MergeJournal) -> PostgresValue {
        journal.finished.map(PostgresValue.instant) ?? .null
    }

    /// Checks a journal before it is written: the table's constraints, said in OneTap's terms.
    private func validate(_ journal: MergeJournal) throws(StoreError) {
        guard journal.version > 0 else {
            throw StoreError(.io, message: "a merge journal's version must be at least 1, not \(journal.version); nothing was written")
        }
    }

    private static func owner(_ owner: Identity) -> [PostgresValue] {
        switch owner {
        case .guest(let guest): [.text("guest"), .text(guest.text)]
        case .account(let account): [.text("account"), .text(account.rawValue)]
        }
    }

    private func encode(_ journal: MergeJournal) throws(StoreError) -> String {
        try validate(journal)
        do {
            return try journal.json()
        } catch {
            throw StoreError(.io, message: "cannot write the merge journal of guest \(journal.guest) as JSON; nothing was written")
        }
    }

    private func decode(_ row: [PostgresValue], guest: GuestID) throws(StoreError) -> MergeJournal {
        guard let (version, json) = PostgresStoreFailure.versionedJSON(row) else {
            throw corrupt("the merge journal of guest \(guest) has no version or no journal")
        }
        let journal = try PostgresStoreFailure.decoded(json, { (json) throws(DecodingError) in try MergeJournal(json: json) }) { path in
            corrupt("the merge journal of guest \(guest) does not read as one at \(path)")
        }
        guard journal.guest == guest else { throw corrupt("the merge journal of guest \(guest) holds another guest's") }
        guard Int64(journal.version) == version else {
            throw corrupt("the merge journal of guest \(guest) is at version \(journal.version), its row at version \(version)")
        }
        return journal
    }

    private func corrupt(_ what: String) -> StoreError {
        StoreError(.corrupt, message: "in \(schema): \(what); it was left as it is")
    }

    private func failure(_ error: any Error, doing: String, write: Bool, sent: Bool = false) -> any Error {
        PostgresStoreFailure.io(error, subject: nil, doing: doing, write: write, sent: sent, unknownOutcome: " (whole, if it was); read it again")
    }
}
