import OneTap

/// What runs a conformance suite: each check on a fresh, empty store; every broken property collected
/// (an error a check did not expect is one too); one ``ConformanceFailure`` thrown at the end.
///
/// ```swift
/// let suite = ConformanceHarness("TokenStoreConformance")
/// try await suite.check("absent accounts", makeStore) { store in
///     suite.expect(try await store.load("absent") == nil, "load of an account never written must be nil")
/// }
/// try suite.finish()
/// ```
final class ConformanceHarness {
    private let name: String
    private var problems: [String] = []

    /// Starts a suite.
    /// - Parameter name: The suite's name, for the failure.
    init(_ name: String) { self.name = name }

    /// Notes a broken property unless the condition holds.
    /// - Parameters:
    ///   - condition: The property.
    ///   - message: What is broken, when it is.
    func expect(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { problems.append(message()) }
    }

    /// Notes a broken property.
    /// - Parameter message: What is broken.
    func problem(_ message: String) {
        problems.append(message)
    }

    /// Notes a broken property unless the call throws a ``StoreError`` of the kind.
    /// - Parameters:
    ///   - kind: The kind the call must throw.
    ///   - property: What must hold, e.g. `"replace with a stale version must throw conflict"`: the problem
    ///     noted when the call goes through, and, with what it threw, when it throws something else.
    ///   - call: The call on the store.
    func expect(throws kind: StoreError.Kind, _ property: String, _ call: () async throws -> Void) async {
        do {
            try await call()
            problems.append(property)
        } catch let error as StoreError where error.kind == kind {
            return
        } catch {
            problems.append("\(property), threw \(error)")
        }
    }

    /// Runs one check on a fresh store; an error the store should not have thrown is a broken property.
    /// - Parameters:
    ///   - check: The check's name, for that property.
    ///   - makeStore: Makes an empty store.
    ///   - body: The check.
    /// - Throws: What `makeStore` throws.
    func check<Store>(_ check: String, _ makeStore: () async throws -> Store, _ body: (Store) async throws -> Void) async throws {
        let store = try await makeStore()
        do {
            try await body(store)
        } catch {
            problems.append("\(check): the store threw where it must not: \(error)")
        }
    }

    /// Runs `count` calls at once: the race of a concurrency check.
    /// - Parameters:
    ///   - count: How many calls.
    ///   - call: One call, given its index (from 0).
    /// - Returns: The calls' results, in the order they finished.
    /// - Throws: What a call throws (the first that fails; the others are then cancelled).
    func race<Result: Sendable>(_ count: Int, _ call: @escaping @Sendable (Int) async throws -> Result) async throws -> [Result] {
        try await withThrowingTaskGroup(of: Result.self) { group in
            for index in 0..<count { group.addTask { try await call(index) } }
            var results: [Result] = []
            for try await result in group { results.append(result) }
            return results
        }
    }

    /// How one call of a race on a compare-and-swap ended: it won, it lost as a lost race must (`conflict`), or it
    /// threw something else, which is no lost race but a broken property.
    enum RaceEnd: Sendable, Equatable {
        case won
        case lost
        case failed(String)

        /// Runs a call and reads how it ended.
        /// - Parameter call: The write.
        init(_ call: () async throws -> Void) async {
            do {
                try await call()
                self = .won
            } catch let error as StoreError where error.kind == .conflict {
                self = .lost
            } catch {
                self = .failed("\(error)")
            }
        }
    }

    /// Ends the suite.
    /// - Throws: ``ConformanceFailure`` listing every broken property, when one broke.
    func finish() throws(ConformanceFailure) {
        if !problems.isEmpty { throw ConformanceFailure(suite: name, problems: problems) }
    }
}
