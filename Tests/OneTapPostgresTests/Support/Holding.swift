import Foundation
import OneTap
import OneTapChildProcess
@testable import OneTapPostgres
import Testing

/// A transaction of the test's own, on a connection of its own, that holds row or advisory locks until
/// it is rolled back: what another instance's stuck transaction looks like to a store.
final class HeldTransaction: Sendable {
    private let connection: PostgresConnection

    private init(_ connection: PostgresConnection) { self.connection = connection }

    /// Opens a connection, begins a transaction and runs `statements` in it (`SELECT … FOR UPDATE`,
    /// `pg_advisory_xact_lock`), leaving it open.
    static func begin(_ configuration: PostgresConfiguration, _ statements: [(String, [PostgresValue])]) async throws -> HeldTransaction {
        let connection = try await PostgresConnection.open(configuration)
        try await connection.execute("BEGIN")
        for (sql, parameters) in statements { try await connection.execute(sql, parameters) }
        return HeldTransaction(connection)
    }

    /// Runs one more statement in the transaction.
    @discardableResult
    func execute(_ sql: String, _ parameters: [PostgresValue] = []) async throws -> PostgresRows {
        try await connection.execute(sql, parameters)
    }

    /// Rolls back (when the server is still there) and closes the connection.
    func release() async {
        if !connection.isBroken {
            do { try await connection.execute("ROLLBACK") } catch { /* the server went away */ }
        }
        await connection.close()
    }
}

/// Waits until `count` backends of the stores' database wait for a lock while running a statement on the
/// stores' schema whose text contains `fragment` (tests run side by side, each in a schema of its own).
func waitForLockWaiters(_ stores: PostgresStores, _ count: Int = 1, running fragment: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    try await waitUntil({
        let rows = try await stores.pool.execute(
            """
            SELECT count(*) FROM pg_catalog.pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database() \
            AND strpos(query, $1) > 0 AND strpos(query, $2) > 0
            """,
            [.text(fragment), .text("\"\(stores.configuration.schema)\".")])
        return rows.first == [.int64(Int64(count))]
    }, sourceLocation: sourceLocation)
}

/// Opens stores over a fresh schema for each store a conformance suite asks for, runs the suite, then
/// drops every schema it made, whatever the suite found.
func checkConformance<Store: Sendable>(
    _ url: String, poolSize: Int = 4, _ make: @escaping @Sendable (PostgresStores) -> Store, _ suite: (() async throws -> Store) async throws -> Void
) async throws {
    let opened = LockedValue<[PostgresStores]>([])
    let result: Result<Void, any Error>
    do {
        try await suite {
            let stores = try await PostgresStores.open(try TestDatabase.configuration(url, poolSize: poolSize))
            opened.withLock { $0.append(stores) }
            return make(stores)
        }
        result = .success(())
    } catch {
        result = .failure(error)
    }
    for stores in opened.withLock({ $0 }) { await TestDatabase.dispose(stores) }
    try result.get()
}

/// A helper process (`OneTapTestHelper`) the test talks to over its standard streams.
final class HelperProcess: @unchecked Sendable {
    private let child: ChildProcess
    private var buffer = Data()

    /// Starts `OneTapTestHelper` with the arguments.
    /// - Parameters:
    ///   - arguments: Its arguments.
    ///   - environment: Variables set for it on top of this process's (`ONETAP_SERVER_KEYS`).
    init(_ arguments: [String], environment: [String: String] = [:]) throws {
        child = try ChildProcess(
            BuildProducts.path("OneTapTestHelper"), arguments,
            environment: environment.isEmpty ? nil : ProcessInfo.processInfo.environment.merging(environment) { _, set in set },
            input: .pipe, output: .pipe)
        // A helper that hangs is killed after two minutes, so the test reading it fails (its output
        // ends) instead of waiting for ever.
        let child = self.child
        Thread {
            Thread.sleep(forTimeInterval: Self.limit)
            child.signal(SIGKILL)
        }.start()
    }

    /// Starts one of `OneTapTestHelper`'s `postgres-…` commands on the database at `url`: the URL goes in the helper's
    /// environment, never on its command line (where every user of the machine can read a password in it).
    /// - Parameters:
    ///   - command: The command, `postgres-…`.
    ///   - url: The database URL.
    ///   - arguments: The command's arguments after its URL.
    ///   - environment: More variables for it.
    convenience init(_ command: String, url: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        try self.init([command, "-"] + arguments, environment: environment.merging(Self.databaseURL(url)) { $1 })
    }

    /// The environment that hands `OneTapTestHelper` a database URL.
    /// - Parameter url: The URL.
    /// - Returns: `ONETAP_HELPER_DATABASE_URL` set to it.
    static func databaseURL(_ url: String) -> [String: String] { ["ONETAP_HELPER_DATABASE_URL": url] }

    /// How long a helper may run.
    static let limit: TimeInterval = 120

    /// Its process identifier.
    var identifier: Int32 { child.identifier }

    /// The next line the helper prints (without its newline), or nil when it closed its output. The read
    /// blocks, so it runs on a thread of its own: a test waiting for its helpers holds none of the cooperative
    /// pool's threads (two on a 2-core machine), which every other test running meanwhile needs.
    func line() async -> String? {
        await ChildProcess.onOwnThread { self.readLine() }
    }

    private func readLine() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer = Data(buffer[buffer.index(after: newline)...])
                return line
            }
            guard let chunk = child.output?.availableData, !chunk.isEmpty else { return nil }
            buffer.append(chunk)
        }
    }

    /// Writes a line to the helper's standard input.
    func send(_ line: String) {
        child.input?.write(Data((line + "\n").utf8))
    }

    /// Waits for the helper to end, on a thread of its own.
    /// - Returns: Its exit status.
    func finish() async -> Int32 {
        await ChildProcess.onOwnThread { self.child.wait().status }
    }

    /// Kills the helper (SIGKILL) and waits for it to end, on a thread of its own.
    func kill() async {
        child.signal(SIGKILL)
        await ChildProcess.onOwnThread { _ = self.child.wait() }
    }
}
