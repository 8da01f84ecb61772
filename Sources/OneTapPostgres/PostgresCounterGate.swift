import OneTap

/// Keeps this process's updates of one rate counter apart before they take a connection: PostgreSQL's advisory
/// locks keep updates of a counter apart across instances, and each waited on its lock holding one of the pool's
/// connections, so a flood on one key (a victim's number, a `global` rule of the login quotas) left none to the other
/// stores. Behind the gate at most one connection of an instance waits on such a counter's lock; the other updates of
/// that counter wait here, holding nothing. (The SMS store's `global` counters, which it locks only once an update
/// writes them, are locked inside the transaction, past the gate: their waits still hold a connection each.)
///
/// An update takes all of its keys at once or waits in each key's line, first come first served: it goes through
/// once none of its keys is held and it stands first in every one of its keys' lines. A waiting update leaves the
/// lines when it is cancelled or past its time limit.
///
/// - Complexity: entering is O(*k*) for an update of *k* keys; leaving and letting through O(*k* × *K*) amortized, *K*
///   the most keys of one update (a handful of counters): whatever the lines' lengths, so a flood of waiters costs
///   each of them its own keys, never the line's length.
final class PostgresCounterGate: Sendable {
    private struct Waiting {
        let keys: [Int64]
        let waiter: PostgresWaiter<Void>
    }

    private struct State {
        /// The keys of the updates through the gate.
        var held: Set<Int64> = []
        /// Each key's line of waiting updates, by id; an id whose update left is dropped once it reaches the front
        /// (at once when it leaves, or when the key is let go, while an update holds it).
        var lines: [Int64: FIFOQueue<UInt64>] = [:]
        var waiting: [UInt64: Waiting] = [:]
        var nextID: UInt64 = 0
        /// The keys of updates whose outcome is unknown (the answer to their `COMMIT` lost: the transaction may still be
        /// committing on the server, holding the locks), with when they failed, until an update of them goes through or
        /// the wait limit passes: only an update under their locks reads them as they end up. Entries past the limit
        /// are dropped once there are more than ``unsettledKept``, so the map stays bounded by the failures of one limit.
        var unsettled: [Int64: Date] = [:]
    }

    private let state = LockedValue(State())

    /// How many unsettled keys are kept before those past their limit are dropped.
    static let unsettledKept = 1_024

    /// Runs `body` once no other update of this process holds any of `keys`, holding them until it returns.
    /// - Parameters:
    ///   - keys: The update's advisory-lock keys.
    ///   - limit: The longest wait in line.
    ///   - clock: The clock the limit is measured on.
    ///   - timeout: The error of a wait past `limit`.
    ///   - body: The update.
    /// - Returns: What `body` returns.
    ///   - unsettling: Whether an error `body` throws leaves the update's outcome unknown (its keys are then unsettled,
    ///     each until an update of it returns or `limit` passes: ``answersWithoutLocks(_:on:within:)``).
    /// - Throws: `timeout()`'s error past the limit, `CancellationError` when cancelled in line, or what `body` throws.
    func withKeys<Result: Sendable>(
        _ keys: [Int64], waitingUpTo limit: Duration, on clock: any WallClock, timeout: @escaping @Sendable () -> any Error,
        unsettling: (any Error) -> Bool = { _ in false }, _ body: () async throws -> Result
    ) async throws -> Result {
        if let (id, waiter) = enter(keys) {
            if case .failure(let error) = await waiter.value(waitingUpTo: limit, on: clock, timeout: timeout) {
                // Out of the lines: the updates behind it may go now.
                state.withLock { state in
                    state.waiting[id] = nil
                    Self.admit(keys, &state)
                }
                throw error
            }
        }
        do {
            let result = try await body()
            leave(keys, unsettledAt: nil, limit: limit)
            return result
        } catch {
            leave(keys, unsettledAt: unsettling(error) ? clock.now() : nil, limit: limit)
            throw error
        }
    }

    /// Lets an update's keys go: settled (it went through), or unsettled at `failedAt` (its outcome is unknown), those
    /// past `limit` dropped once more than ``unsettledKept`` are kept; the updates waiting for them may go.
    private func leave(_ keys: [Int64], unsettledAt failedAt: Date?, limit: Duration) {
        state.withLock { state in
            state.held.subtract(keys)
            for key in keys { state.unsettled[key] = failedAt }
            if let failedAt, state.unsettled.count > Self.unsettledKept {
                state.unsettled = state.unsettled.filter { failedAt.timeIntervalSince($0.value) < limit.seconds }
            }
            Self.admit(keys, &state)
        }
    }

    /// Takes the keys at once (nil) when none is held or waited for, or stands in each key's line.
    private func enter(_ keys: [Int64]) -> (UInt64, PostgresWaiter<Void>)? {
        state.withLock { state in
            guard keys.contains(where: { state.held.contains($0) || state.lines[$0] != nil }) else {
                state.held.formUnion(keys)
                return nil
            }
            let id = state.nextID
            state.nextID += 1
            let waiter = PostgresWaiter<Void>()
            state.waiting[id] = Waiting(keys: keys, waiter: waiter)
            for key in keys { state.lines[key, default: FIFOQueue()].append(id) }
            return (id, waiter)
        }
    }

    /// Lets through the updates first in the lines of `keys` whose keys are all free and that are first in each of
    /// their lines; drops ids of updates that left from the front of those lines.
    private static func admit(_ keys: [Int64], _ state: inout State) {
        var pending = keys
        while let key = pending.popLast() {
            guard let id = front(key, &state), let waiting = state.waiting[id] else { continue }
            guard waiting.keys.allSatisfy({ !state.held.contains($0) && front($0, &state) == id }) else { continue }
            state.waiting[id] = nil
            for own in waiting.keys {
                _ = state.lines[own]?.popFirst()
                if state.lines[own]?.count == 0 { state.lines[own] = nil }
            }
            if waiting.waiter.resolve(.success(())) {
                state.held.formUnion(waiting.keys)
            } else {
                pending += waiting.keys  // it left meanwhile (past its limit, cancelled): its keys stay free
            }
        }
    }

    /// Whether an update of `keys` may decide, without their locks, on the rows as one statement reads them, when its
    /// decision writes nothing: when it would wait here (another update of this process holds one of them or waits for
    /// it), and none of them is unsettled: an update of it left its outcome unknown within `limit` and none has gone
    /// through since. Such a transaction may still be committing on the server (the answer to its `COMMIT` lost, or
    /// given up on), holding the locks, its writes not yet visible: a take-back of it must wait on those locks, or it
    /// would find nothing to take back. A hint, true the moment it is read.
    /// - Parameters:
    ///   - keys: The update's advisory-lock keys.
    ///   - clock: The clock failures are stamped on (the one ``withKeys(_:waitingUpTo:on:timeout:unsettling:_:)`` is given).
    ///   - limit: How long a failure keeps its keys unsettled: the wait limit of the gate.
    /// - Returns: True when the update may answer a decision that writes nothing without the locks.
    /// - Complexity: O(*k*) for *k* keys.
    func answersWithoutLocks(_ keys: [Int64], on clock: any WallClock, within limit: Duration) -> Bool {
        let now = clock.now()
        return state.withLock { state in
            keys.contains { state.held.contains($0) || state.lines[$0] != nil }
                && !keys.contains { key in state.unsettled[key].map { now.timeIntervalSince($0) < limit.seconds } ?? false }
        }
    }

    /// The first waiting update in a key's line, after dropping the ids of updates that left; an emptied line goes.
    private static func front(_ key: Int64, _ state: inout State) -> UInt64? {
        while let id = state.lines[key]?.first {
            if state.waiting[id] != nil { return id }
            _ = state.lines[key]?.popFirst()
        }
        state.lines[key] = nil
        return nil
    }
}
