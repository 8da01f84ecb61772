#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where SMS counters and code records live, shared by every instance of a server. One operation:
/// read some counters and a number's code record, let the rules change them, write them back, all
/// atomically, so concurrent sends never pass a limit and concurrent verifies of one code succeed at
/// most once. Shaped for SQL: `SELECT … FOR UPDATE` on the counters' and the record's rows, the
/// change, `UPDATE`, `COMMIT`.
///
/// OneTap ships ``InMemorySMSStore``; `OneTapPostgres` ships one on PostgreSQL; an adapter for another
/// store proves itself with `SMSStoreConformance` from `OneTapTesting`.
public protocol SMSStore: Sendable {
    /// Reads the counters and the number's code record, runs `body` on them, and writes back what it
    /// changed, atomically with respect to every other update that touches one of them.
    ///
    /// `body` is pure and quick; a store may run it more than once (a database that retries a
    /// serialization failure), and only the last run's changes are written.
    /// - Parameters:
    ///   - counters: The counters to read (missing ones read as empty).
    ///   - number: The number whose code record to read.
    ///   - now: The time: what is kept only until before it may be dropped instead of read.
    ///   - body: The change; the state's `keepUntil` says how long to keep what is written.
    /// - Returns: What `body` returned.
    /// - Throws: ``SMSStoreError`` of kind `io` (nothing was written), `corrupt`, or `timeout`.
    func update<Result: Sendable>(
        counters: [SMSPolicy.Counter], code number: PhoneNumber, at now: Date, _ body: @Sendable (inout SMSState) -> Result
    ) async throws -> Result

    /// Removes counters and records kept only until before an instant.
    /// - Parameters:
    ///   - instant: The instant.
    ///   - limit: The most to remove in one call.
    /// - Returns: How many were removed.
    /// - Throws: ``SMSStoreError`` of kind `io`.
    func removeExpired(before instant: Date, limit: Int) async throws -> Int
}

/// What an SMS store reports. New kinds may be added; match kinds with a `default` case.
public struct SMSStoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong.
    public struct Kind: ErrorKind {
        /// The stable identifier, e.g. `"io"`.
        public let id: String

        private init(_ id: String) { self.id = id }

        /// The store failed (a database that is down); nothing was written.
        public static let io = Kind("io")
        /// A stored counter or record cannot be read back.
        public static let corrupt = Kind("corrupt")
        /// The rows stayed locked by another update for too long; nothing was written.
        public static let timeout = Kind("timeout")
    }

    /// What went wrong.
    public let kind: Kind
    /// An explanation, never a code.
    public let message: String

    /// Creates a store error (for store adapters outside OneTap).
    /// - Parameters:
    ///   - kind: What went wrong.
    ///   - message: An explanation.
    public init(_ kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    /// `io: …`.
    public var description: String { "\(kind): \(message)" }
}
