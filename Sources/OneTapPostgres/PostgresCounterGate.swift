import OneTap

/// Keeps this process's updates of one rate counter apart before they take a connection: PostgreSQL's advisory
/// locks keep updates of a counter apart across instances, and each waited on its lock holding one of the pool's
/// connections, so a flood on one key (a victim's number, a `global` rule) left none to the other stores. Behind
/// the gate at most one connection of an instance waits on a counter's lock; the other updates of that counter wait
/// here, holding nothing.
///
/// An update takes all of its keys at once or waits in line, first come first served for each key: it goes
/// through when none of its keys is held, or wanted by an update ahead of it in line. A waiting update leaves the
/// line when it is cancelled or past its time limit.
final class PostgresCounterGate: Sendable {
    private struct Waiting {
        let keys: [Int64]
        let waiter: PostgresWaiter<Void>
    }

    private struct State {
        /// The keys of the updates through the gate.
        var held: Set<Int64> = []
        var line: [Waiting] = []
    }

    private let state = LockedValue(State())

    /// Runs `body` once no other update of this process holds any of `keys`, holding them until it returns.
    /// - Parameters:
    ///   - keys: The update's advisory-lock keys.
    ///   - limit: The longest wait in line.
    ///   - clock: The clock the limit is measured on.
    ///   - timeout: The error of a wait past `limit`.
    ///   - body: The update.
    /// - Returns: What `body` returns.
    /// - Throws: `timeout()`'s error past the limit, `CancellationError` when cancelled in line, or what `body` throws.
    func withKeys<Result: Sendable>(
        _ keys: [Int64], waitingUpTo limit: Duration, on clock: any WallClock, timeout: @escaping @Sendable () -> any Error,
        _ body: () async throws -> Result
    ) async throws -> Result {
        if let waiter = enter(keys) {
            if case .failure(let error) = await waiter.value(waitingUpTo: limit, on: clock, timeout: timeout) {
                // Out of line: the updates behind it may go now.
                state.withLock { state in
                    state.line.removeAll { $0.waiter === waiter }
                    Self.admit(&state)
                }
                throw error
            }
        }
        defer {
            state.withLock { state in
                state.held.subtract(keys)
                Self.admit(&state)
            }
        }
        return try await body()
    }

    /// Takes the keys at once (nil), or the waiter in line.
    private func enter(_ keys: [Int64]) -> PostgresWaiter<Void>? {
        state.withLock { state in
            let wanted = state.line.reduce(into: state.held) { $0.formUnion($1.keys) }
            guard keys.contains(where: wanted.contains) else {
                state.held.formUnion(keys)
                return nil
            }
            let waiter = PostgresWaiter<Void>()
            state.line.append(Waiting(keys: keys, waiter: waiter))
            return waiter
        }
    }

    /// Lets through, in line order, every waiting update none of whose keys is held or wanted by one ahead of it.
    private static func admit(_ state: inout State) {
        var blocked = state.held
        var index = 0
        while index < state.line.count {
            let waiting = state.line[index]
            guard !waiting.keys.contains(where: blocked.contains) else {
                blocked.formUnion(waiting.keys)
                index += 1
                continue
            }
            state.line.remove(at: index)
            // A waiter past its limit or cancelled meanwhile has left already; its keys stay free.
            if waiting.waiter.resolve(.success(())) {
                state.held.formUnion(waiting.keys)
                blocked.formUnion(waiting.keys)
            }
        }
    }
}
