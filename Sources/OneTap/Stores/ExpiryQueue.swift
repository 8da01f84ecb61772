/// Keys by the instant they are due, soonest first: a binary min-heap, so that a sweep of expired values
/// reads only what is due, never the whole table (``InMemoryExpiringValues``).
package struct ExpiryQueue<Key: Sendable>: Sendable {
    private var entries: [(due: Date, key: Key)] = []

    /// An empty queue.
    package init() {}

    /// How many entries it holds.
    package var count: Int { entries.count }

    /// The soonest entry, if any.
    /// - Complexity: O(1).
    package var first: (due: Date, key: Key)? { entries.first }

    /// Adds a key, due at an instant.
    /// - Parameters:
    ///   - key: The key.
    ///   - due: When it is due.
    /// - Complexity: O(log n).
    package mutating func insert(_ key: Key, due: Date) {
        entries.append((due, key))
        var child = entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].due < entries[parent].due else { break }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and returns the soonest entry.
    /// - Returns: The entry, or nil when the queue is empty.
    /// - Complexity: O(log n).
    package mutating func removeFirst() -> (due: Date, key: Key)? {
        guard !entries.isEmpty else { return nil }
        entries.swapAt(0, entries.count - 1)
        let first = entries.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < entries.count, entries[left].due < entries[smallest].due { smallest = left }
            if right < entries.count, entries[right].due < entries[smallest].due { smallest = right }
            guard smallest != parent else { break }
            entries.swapAt(parent, smallest)
            parent = smallest
        }
        return first
    }
}
