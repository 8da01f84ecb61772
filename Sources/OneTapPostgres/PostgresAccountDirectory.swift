#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import OneTap

/// The account directory in PostgreSQL, shared by every server instance: which account each verified
/// number belongs to. Make one with ``PostgresStores/accountDirectory()``.
///
/// - One row per number in `<schema>.account_numbers`: the number (the 11 digits, `text COLLATE "C"`, the
///   primary key: one number, one account), the account (indexed), when the number was bound
///   (`created_at_ms`), when it was last verified (`last_verified_at_ms`) and the verification before that
///   (`previous_verified_at_ms`, null until the second).
/// - ``findOrCreate(_:newID:at:)`` and ``bind(_:to:at:)`` are one statement each, `INSERT … ON CONFLICT
///   (number) DO UPDATE … RETURNING`: of any number of instances racing a number's first login, one
///   inserts and the others update the row it inserted, so all answer its account. The update moves the
///   stored last verification into `previous_verified_at_ms` on the locked row, so the answer carries the
///   verification before this one even under contention; a fresh row has none, which is how an answer
///   tells it created the row.
/// - Every value is a bound parameter. A database that is down, or a statement past the statement
///   timeout, fails the call with ``StoreError`` of kind `io`, and nothing is written (unless the
///   connection broke during the commit: the message says so).
package final class PostgresAccountDirectory: AccountDirectory, CustomStringConvertible {
    /// The schema holding the table.
    package var schema: String { pool.configuration.schema }

    private let pool: PostgresPool
    private let statements: Statements

    /// The statement texts, made once from the quoted schema name.
    private struct Statements: Sendable {
        let read, findOrCreate, verify, bind: String

        init(_ schema: String) {
            let table = "\(schema).account_numbers"
            let columns = "account, created_at_ms, last_verified_at_ms, previous_verified_at_ms"
            let recorded = """
                previous_verified_at_ms = a.last_verified_at_ms, last_verified_at_ms = GREATEST(a.last_verified_at_ms, EXCLUDED.last_verified_at_ms)
                """
            read = "SELECT \(columns) FROM \(table) WHERE number = $1"
            // A new number is inserted only when the new id is no other number's account.
            findOrCreate = """
                INSERT INTO \(table) AS a (number, account, created_at_ms, last_verified_at_ms) \
                SELECT $1, $2, $3, $3 WHERE NOT EXISTS (SELECT 1 FROM \(table) WHERE account = $2 AND number <> $1) \
                ON CONFLICT (number) DO UPDATE SET \(recorded) RETURNING \(columns)
                """
            verify = """
                UPDATE \(table) AS a SET previous_verified_at_ms = a.last_verified_at_ms, \
                last_verified_at_ms = GREATEST(a.last_verified_at_ms, $2) WHERE number = $1 RETURNING \(columns)
                """
            bind = """
                INSERT INTO \(table) AS a (number, account, created_at_ms, last_verified_at_ms) VALUES ($1, $2, $3, $3) \
                ON CONFLICT (number) DO UPDATE SET \(recorded) WHERE a.account = EXCLUDED.account RETURNING \(columns)
                """
        }
    }

    /// Creates a directory over a pool whose schema is migrated.
    /// - Parameter pool: The pool.
    package init(pool: PostgresPool) {
        self.pool = pool
        statements = Statements(PostgresIdentifier.quoted(pool.configuration.schema))
    }

    /// `PostgresAccountDirectory(schema onetap, PostgresPool(…))`.
    package var description: String { "PostgresAccountDirectory(schema \(schema), \(pool))" }

    /// The entry of a number (``AccountDirectory/account(for:)``).
    /// - Parameter number: The number.
    /// - Returns: Its entry, or nil.
    /// - Throws: ``StoreError`` of kind `io`, or `corrupt` when the row is not one OneTap wrote (it is
    ///   left as it is).
    package func account(for number: PhoneNumber) async throws -> AccountEntry? {
        let rows = try await pool.execute(statements.read, [.text(number.digits)]) { failure($0, number: number, doing: "read the number's account") }
        return try rows.first.map { try decode($0, number: number).entry }
    }

    /// Finds or creates the number's account and records the verification, in one statement
    /// (``AccountDirectory/findOrCreate(_:newID:at:)``).
    /// - Parameters:
    ///   - number: The verified number.
    ///   - newID: The id a new account gets.
    ///   - now: When the number was verified.
    /// - Returns: The entry, whether this call created it, and the previous verification.
    /// - Throws: ``StoreError`` of kind `duplicate` when the number is new and `newID` is another number's
    ///   account (nothing is written), `io`, or `corrupt`.
    package func findOrCreate(_ number: PhoneNumber, newID: AccountID, at now: Date) async throws -> AccountResolution {
        let rows = try await pool.execute(statements.findOrCreate, [.text(number.digits), .text(newID.rawValue), .instant(now)]) {
            failure($0, number: number, doing: "find or create the number's account", write: true)
        }
        if let row = rows.first { return try decode(row, number: number) }
        // The new id is another number's account: a known number is still found and its login recorded.
        let found = try await pool.execute(statements.verify, [.text(number.digits), .instant(now)]) {
            failure($0, number: number, doing: "record the number's verification", write: true)
        }
        guard let row = found.first else {
            throw StoreError(.duplicate, subject: .number(number), message: "the new account id is another number's account; nothing was written")
        }
        return try decode(row, number: number)
    }

    /// Binds a number to an account and records the verification, in one statement
    /// (``AccountDirectory/bind(_:to:at:)``).
    /// - Parameters:
    ///   - number: The verified number.
    ///   - account: The account.
    ///   - now: When the number was verified.
    /// - Returns: The entry, whether this call bound the number, and the previous verification.
    /// - Throws: ``StoreError`` of kind `conflict` when another account has the number (nothing is
    ///   written), `io`, or `corrupt`.
    package func bind(_ number: PhoneNumber, to account: AccountID, at now: Date) async throws -> AccountResolution {
        let rows = try await pool.execute(statements.bind, [.text(number.digits), .text(account.rawValue), .instant(now)]) {
            failure($0, number: number, doing: "bind the number", write: true)
        }
        guard let row = rows.first else {
            throw StoreError(.conflict, subject: .number(number), message: "the number belongs to another account; nothing was written")
        }
        return try decode(row, number: number)
    }

    // MARK: Rows

    /// A row (`account, created_at_ms, last_verified_at_ms, previous_verified_at_ms`) as the answer of the
    /// statement that returned it: a row without a previous verification is one the statement inserted.
    private func decode(_ row: [PostgresValue], number: PhoneNumber) throws(StoreError) -> AccountResolution {
        func corrupt(_ reason: String) -> StoreError {
            PostgresStoreFailure.corrupt(.number(number), table: "\(schema).account_numbers", record: "a OneTap account entry", reason: reason)
        }
        guard row.count == 4, let text = row[0].text, let created = row[1].instant, let verified = row[2].instant else { throw corrupt("a column is missing") }
        let account: AccountID
        do {
            account = try AccountID(text)
        } catch {
            throw corrupt("its account is no account id: \(error.reason)")
        }
        let previous = row[3].instant
        guard previous != nil || row[3].isNull else { throw corrupt("its previous verification is not an instant") }
        let entry = AccountEntry(account: account, number: number, createdAt: created, lastVerifiedAt: verified)
        return AccountResolution(entry: entry, created: previous == nil, previouslyVerifiedAt: previous)
    }

    /// The store error for a database failure.
    private func failure(_ error: any Error, number: PhoneNumber, doing: String, write: Bool = false) -> any Error {
        // A server's message may quote a row's values (a constraint's detail): every number in it masked.
        PostgresStoreFailure.io(
            error, subject: .number(number), doing: doing, write: write, unknownOutcome: ": read the number's account again", masksNumbers: true
        )
    }
}
