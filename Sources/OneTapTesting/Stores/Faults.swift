import OneTap

/// Which calls of a store fail, and how: the one fault-injection mechanism every `Faulty…Store` of
/// `OneTapTesting` consults, so each wrapper is a thin pass-through.
///
/// ```swift
/// let sessions = FaultyLoginSessionStore(InMemoryLoginSessionStore())
/// sessions.faults.inject(.refuse(.io, "the database is down"), into: [.replace], after: 1, times: nil)
/// // the first replace goes through; every later one throws `io` until `sessions.faults.heal()`
/// ```
/// Each call of an operation is matched against the injected faults in the order they were injected:
/// every fault still waiting (`after`) counts the call, and the first armed one strikes.
public final class Faults: Sendable {
    /// How a call fails.
    public struct Fault: Sendable {
        enum Effect: Sendable {
            case refused, lost, landed, delayed
        }

        let effect: Effect
        let kind: StoreError.Kind
        let message: String
        let delay: Duration

        /// The call throws before it reaches the store: nothing is read or written (a database that is down).
        /// - Parameters:
        ///   - kind: The error's kind; `io`.
        ///   - message: The error's message.
        ///   - delay: How long the call waits on the clock before it fails; none.
        /// - Returns: The fault.
        public static func refuse(_ kind: ErrorKind<StoreError> = .io, _ message: String = "the store is down (injected)", delay: Duration = .zero) -> Fault {
            Fault(effect: .refused, kind: kind, message: message, delay: delay)
        }

        /// The store reads and the change is worked out, but nothing is written (a connection that drops at
        /// the commit). For a call that works out no change (a read, a compare-and-swap), as ``refuse(_:_:delay:)``.
        /// - Parameters:
        ///   - kind: The error's kind; `io`.
        ///   - message: The error's message.
        ///   - delay: How long the call waits on the clock before it fails; none.
        /// - Returns: The fault.
        public static func lose(_ kind: ErrorKind<StoreError> = .io, _ message: String = "the connection dropped at commit (injected)", delay: Duration = .zero) -> Fault {
            Fault(effect: .lost, kind: kind, message: message, delay: delay)
        }

        /// The call goes through and its write lands, then the caller is told it failed (a connection that
        /// drops after the commit, before the answer).
        /// - Parameters:
        ///   - kind: The error's kind; `io`.
        ///   - message: The error's message.
        ///   - delay: How long the call waits on the clock before it goes through; none.
        /// - Returns: The fault.
        public static func land(_ kind: ErrorKind<StoreError> = .io, _ message: String = "the connection dropped after the commit (injected)", delay: Duration = .zero) -> Fault {
            Fault(effect: .landed, kind: kind, message: message, delay: delay)
        }

        /// The call waits on the clock, then goes through: a slow store.
        /// - Parameter duration: How long.
        /// - Returns: The fault.
        public static func delay(_ duration: Duration) -> Fault {
            Fault(effect: .delayed, kind: .io, message: "", delay: duration)
        }
    }

    private struct Rule: Sendable {
        let fault: Fault
        let operations: Set<StoreOperation>?
        var waiting: Int
        var left: Int?
    }

    private struct State: Sendable {
        var rules: [Rule] = []
        var calls: [StoreOperation: Int] = [:]
    }

    private let state = LockedValue(State())
    private let clock: any WallClock

    /// Creates faults with none injected.
    /// - Parameter clock: The clock delays wait on.
    package init(clock: any WallClock = SystemClock()) { self.clock = clock }

    /// Makes calls fail.
    /// - Parameters:
    ///   - fault: How.
    ///   - operations: Which operations; every one when nil.
    ///   - passing: How many of their calls go through first.
    ///   - count: How many calls in a row fail then; every later one (until ``heal()``) when nil.
    public func inject(_ fault: Fault, into operations: Set<StoreOperation>? = nil, after passing: Int = 0, times count: Int? = 1) {
        guard count.map({ $0 > 0 }) ?? true else { return }
        state.withLock { $0.rules.append(Rule(fault: fault, operations: operations, waiting: max(0, passing), left: count)) }
    }

    /// Removes every fault: every later call goes through.
    public func heal() { state.withLock { $0.rules.removeAll() } }

    /// How many calls reached the store (those that failed before it did not).
    /// - Parameter operation: One operation, or every one when nil.
    /// - Returns: The count since the faults were made.
    public func calls(_ operation: StoreOperation? = nil) -> Int {
        state.withLock { state in operation.map { state.calls[$0] ?? 0 } ?? state.calls.values.reduce(0, +) }
    }

    /// The fault that strikes this call, if one does.
    private func take(_ operation: StoreOperation) -> Fault? {
        state.withLock { state in
            var struck: Fault? = nil
            var index = 0
            while index < state.rules.count {
                defer { index += 1 }
                guard state.rules[index].operations?.contains(operation) ?? true else { continue }
                if state.rules[index].waiting > 0 {
                    state.rules[index].waiting -= 1
                } else if struck == nil {
                    struck = state.rules[index].fault
                    if let left = state.rules[index].left {
                        state.rules[index].left = left - 1
                        if left == 1 {
                            state.rules.remove(at: index)
                            index -= 1
                        }
                    }
                }
            }
            return struck
        }
    }

    private func reached(_ operation: StoreOperation) {
        state.withLock { $0.calls[operation, default: 0] += 1 }
    }

    /// Runs one call of a store through the faults.
    /// - Parameters:
    ///   - operation: Which operation the call is.
    ///   - subject: What the call concerns, for the error.
    ///   - call: The call on the real store.
    /// - Returns: What `call` returns.
    /// - Throws: The injected ``StoreError``, or what `call` throws.
    package func run<Value: Sendable>(_ operation: StoreOperation, subject: StoreError.Entry? = nil, _ call: () async throws -> Value) async throws -> Value {
        try await perform(operation, subject: subject, call, workOut: nil)
    }

    /// Runs one call that works out a change (an update with a body) through the faults.
    /// - Parameters:
    ///   - operation: Which operation the call is.
    ///   - subject: What the call concerns, for the error.
    ///   - call: The call on the real store.
    ///   - workOut: Reads and works the change out without writing it: what a lost commit leaves behind.
    /// - Returns: What `call` returns.
    /// - Throws: The injected ``StoreError``, or what `call` throws.
    package func run<Value: Sendable>(
        _ operation: StoreOperation, subject: StoreError.Entry? = nil, _ call: () async throws -> Value, workingOut workOut: () async throws -> Void
    ) async throws -> Value {
        try await withoutActuallyEscaping(workOut) { workOut in
            try await perform(operation, subject: subject, call, workOut: workOut)
        }
    }

    private func perform<Value: Sendable>(
        _ operation: StoreOperation, subject: StoreError.Entry?, _ call: () async throws -> Value, workOut: (() async throws -> Void)?
    ) async throws -> Value {
        guard let fault = take(operation) else {
            reached(operation)
            return try await call()
        }
        if fault.delay > .zero { try await clock.sleep(for: fault.delay) }
        let error = StoreError(fault.kind, subject: subject, message: fault.message)
        switch fault.effect {
        case .delayed:
            reached(operation)
            return try await call()
        case .refused:
            throw error
        case .lost:
            if let workOut {
                reached(operation)
                try await workOut()
            }
            throw error
        case .landed:
            reached(operation)
            _ = try await call()
            throw error
        }
    }
}
