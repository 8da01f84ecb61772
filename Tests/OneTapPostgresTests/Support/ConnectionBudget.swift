import Foundation
import OneTap
@testable import OneTapPostgres
import OneTapPostgresTestSupport
import Testing

/// A shared connection budget, so the PostgreSQL suites pass against a stock server (`max_connections` 100)
/// given by `ONETAP_POSTGRES_URL`, not only against the private server's 300.
///
/// Every PostgreSQL suite carries `.connectionBudget`: each test case takes its weight (how many
/// connections it may hold at once, its own pools and its helper processes': 12 unless the test says
/// `.connections(n)`) from one budget before it runs and gives it back after. The budget is what the shared
/// server allows ordinary clients (`max_connections` − `superuser_reserved_connections`), less the
/// connections other clients held when the first test asked, less a margin of 5. A test case takes its
/// whole weight at once (first come, first served), so test cases never deadlock waiting for each other.
struct ConnectionBudget: SuiteTrait, TestTrait, TestScoping {
    var isRecursive: Bool { true }

    func scopeProvider(for test: Test, testCase: Test.Case?) -> ConnectionBudget? {
        testCase == nil ? nil : self
    }

    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        let weight = test.traits.compactMap { $0 as? ConnectionWeight }.map(\.count).max() ?? ConnectionWeight.standard
        let granted = try await SharedConnectionBudget.shared.acquire(weight)
        do {
            try await function()
        } catch {
            await SharedConnectionBudget.shared.release(granted)
            throw error
        }
        await SharedConnectionBudget.shared.release(granted)
    }
}

/// How many connections a test may hold at once, when it is more than ``standard``.
struct ConnectionWeight: TestTrait {
    /// What a test holds unless it says otherwise: a pool of 4, a second one, a few connections of its own.
    static let standard = 12
    let count: Int
}

extension Trait where Self == ConnectionBudget {
    /// Runs each test case of the suite within the shared connection budget.
    static var connectionBudget: Self { ConnectionBudget() }
}

extension Trait where Self == ConnectionWeight {
    /// The test holds up to `count` connections at once (its pools and its helper processes').
    static func connections(_ count: Int) -> Self { ConnectionWeight(count: count) }
}

/// The budget itself, one per test process.
actor SharedConnectionBudget {
    static let shared = SharedConnectionBudget()

    private var capacity: Int?
    private var used = 0
    private var waiting: [(weight: Int, continuation: CheckedContinuation<Void, Never>)] = []

    /// Takes `weight` connections from the budget (no more than the whole budget), waiting for them.
    /// - Returns: How many were taken, to give back.
    func acquire(_ weight: Int) async throws -> Int {
        let capacity = try await measuredCapacity()
        let taken = min(weight, capacity)
        if waiting.isEmpty && used + taken <= capacity {
            used += taken
            return taken
        }
        await withCheckedContinuation { continuation in waiting.append((taken, continuation)) }
        return taken
    }

    /// Gives connections back and lets waiting test cases in, first come first served.
    func release(_ taken: Int) {
        used -= taken
        guard let capacity else { return }
        while let first = waiting.first, used + first.weight <= capacity {
            waiting.removeFirst()
            used += first.weight
            first.continuation.resume()
        }
    }

    /// The budget, read from the shared server once.
    private func measuredCapacity() async throws -> Int {
        if let capacity { return capacity }
        let configuration = try TestDatabase.configuration(try await TestDatabase.url(), poolSize: 1)
        let connection = try await PostgresConnection.open(configuration)
        let rows: PostgresRows
        do {
            rows = try await connection.execute(
                """
                SELECT current_setting('max_connections')::bigint - current_setting('superuser_reserved_connections')::bigint \
                - (SELECT count(*) FROM pg_catalog.pg_stat_activity WHERE backend_type = 'client backend')
                """)
        } catch {
            await connection.close()
            throw error
        }
        await connection.close()
        if let capacity { return capacity }  // another caller measured while this one waited
        let free = Int(rows.first?.first?.int64 ?? 0) - 5
        let measured = max(free, ConnectionWeight.standard)
        capacity = measured
        return measured
    }
}
