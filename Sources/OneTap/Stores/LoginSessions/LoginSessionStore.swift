#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where login sessions live between the app's requests, shared by every server instance: create,
/// load, compare-and-swap on the version, and clean up expired ones. Shaped for one SQL row per session
/// with a version column (`UPDATE … WHERE id = $1 AND version = $2`).
///
/// OneTap ships ``InMemoryLoginSessionStore``; `OneTapPostgres` ships one on PostgreSQL; an adapter for
/// another store proves itself with `LoginSessionStoreConformance` from `OneTapTesting`.
public protocol LoginSessionStore: Sendable {
    /// Stores a new session.
    /// - Parameter session: The session (version 1).
    /// - Throws: ``LoginSessionStoreError`` of kind `duplicate` when its id is taken, or `io`.
    func create(_ session: LoginSession) async throws

    /// Reads a session.
    /// - Parameter id: The id.
    /// - Returns: The session, or nil when none has the id (or it was cleaned up).
    /// - Throws: ``LoginSessionStoreError`` of kind `io` or `corrupt`.
    func load(_ id: LoginSessionID) async throws -> LoginSession?

    /// Replaces a session if it is still at `version` (compare-and-swap).
    /// - Parameters:
    ///   - session: The session after a report (its version is greater than `version`).
    ///   - version: The version the report was applied to.
    /// - Throws: ``LoginSessionStoreError`` of kind `conflict` when the stored version differs (someone
    ///   else's report won), `notFound` when the session is gone, or `io`. Nothing is written then.
    func replace(_ session: LoginSession, expecting version: Int) async throws

    /// Removes sessions that expired before an instant.
    /// - Parameters:
    ///   - instant: The instant.
    ///   - limit: The most to remove in one call.
    /// - Returns: How many were removed.
    /// - Throws: ``LoginSessionStoreError`` of kind `io`.
    func removeExpired(before instant: Date, limit: Int) async throws -> Int
}

/// What a login-session store reports. New kinds may be added; match kinds with a `default` case.
public struct LoginSessionStoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong.
    public struct Kind: ErrorKind {
        /// The stable identifier, e.g. `"conflict"`.
        public let id: String

        private init(_ id: String) { self.id = id }

        /// The stored version is not the one the write expected: another report won.
        public static let conflict = Kind("conflict")
        /// A session with the id exists already.
        public static let duplicate = Kind("duplicate")
        /// No session has the id.
        public static let notFound = Kind("not-found")
        /// A stored session cannot be read back.
        public static let corrupt = Kind("corrupt")
        /// The store failed (a database that is down); nothing was changed.
        public static let io = Kind("io")
    }

    /// What went wrong.
    public let kind: Kind
    /// The session, when the failure concerns one.
    public let session: LoginSessionID?
    /// An explanation, never a token.
    public let message: String

    /// Creates a store error (for store adapters outside OneTap).
    /// - Parameters:
    ///   - kind: What went wrong.
    ///   - session: The session, if one.
    ///   - message: An explanation.
    public init(_ kind: Kind, session: LoginSessionID?, message: String) {
        self.kind = kind
        self.session = session
        self.message = message
    }

    /// `conflict for session Ab…: …`.
    public var description: String { "\(kind)\(session.map { " for session \($0)" } ?? ""): \(message)" }
}

/// Login sessions in this process's memory: the default, and the model the conformance suite checks
/// other stores against. Thread-safe; every operation is atomic.
public final class InMemoryLoginSessionStore: LoginSessionStore {
    private let sessions = LockedValue<[LoginSessionID: LoginSession]>([:])

    /// Creates an empty store.
    public init() {}

    /// How many sessions are stored.
    public var count: Int { sessions.withLock { $0.count } }

    /// Stores a new session (``LoginSessionStore/create(_:)``).
    /// - Parameter session: The session.
    /// - Throws: ``LoginSessionStoreError`` of kind `duplicate`.
    public func create(_ session: LoginSession) async throws {
        try sessions.withLock { sessions throws(LoginSessionStoreError) in
            guard sessions[session.id] == nil else {
                throw LoginSessionStoreError(.duplicate, session: session.id, message: "a session with this id exists")
            }
            sessions[session.id] = session
        }
    }

    /// Reads a session (``LoginSessionStore/load(_:)``).
    /// - Parameter id: The id.
    /// - Returns: The session, or nil.
    public func load(_ id: LoginSessionID) async throws -> LoginSession? {
        sessions.withLock { $0[id] }
    }

    /// Replaces a session if it is still at `version` (``LoginSessionStore/replace(_:expecting:)``).
    /// - Parameters:
    ///   - session: The new session.
    ///   - version: The version it was made from.
    /// - Throws: ``LoginSessionStoreError`` of kind `conflict` or `notFound`.
    public func replace(_ session: LoginSession, expecting version: Int) async throws {
        try sessions.withLock { sessions throws(LoginSessionStoreError) in
            guard let current = sessions[session.id] else {
                throw LoginSessionStoreError(.notFound, session: session.id, message: "no session has this id")
            }
            guard current.version == version, session.version > version else {
                throw LoginSessionStoreError(
                    .conflict, session: session.id, message: "expected version \(version), found \(current.version)")
            }
            sessions[session.id] = session
        }
    }

    /// Removes expired sessions (``LoginSessionStore/removeExpired(before:limit:)``).
    /// - Parameters:
    ///   - instant: The instant.
    ///   - limit: The most to remove.
    /// - Returns: How many were removed.
    public func removeExpired(before instant: Date, limit: Int) async throws -> Int {
        sessions.withLock { sessions in
            let expired = sessions.values.filter { $0.expiresAt < instant }.prefix(max(0, limit)).map(\.id)
            for id in expired { sessions[id] = nil }
            return expired.count
        }
    }
}
