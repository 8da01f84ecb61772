/// Values kept until an instant, as the in-memory SMS and login quota stores hold their counters and
/// code records: what is kept only until before now reads as absent, and ``sweep(before:limit:)``
/// removes it. Not locked itself: a store holds it under its own lock, so one update reads and writes
/// several of them atomically.
///
/// A sweep reads only what is due: every kept key stands in an ``ExpiryQueue`` once, at the keep-until it
/// had when queued (`queued`). When that passes, a key kept longer since is queued again at its new
/// keep-until, and one still expired is removed; an entry whose time is not its key's `queued` any more
/// (the key was removed, or kept shorter and queued again) is dropped. So a sweep costs what it removes
/// and re-queues, not the table's size. A value kept until the distant future (a merge journal while its merge
/// runs) is never queued, until it is kept until a time that comes.
package struct InMemoryExpiringValues<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private var kept: [Key: (value: Value, keepUntil: Date, queued: Date)] = [:]
    private var due = ExpiryQueue<Key>()

    /// An empty table.
    package init() {}

    /// How many values are held (expired ones not yet swept included).
    package var count: Int { kept.count }

    /// A value still kept at `now`.
    /// - Parameters:
    ///   - key: The key.
    ///   - now: The time.
    /// - Returns: The value and its keep-until, or nil when there is none or it is kept only until before `now`.
    package func value(_ key: Key, at now: Date) -> (value: Value, keepUntil: Date)? {
        guard let entry = kept[key], entry.keepUntil >= now else { return nil }
        return (entry.value, entry.keepUntil)
    }

    /// The values held, whatever their keep-until, that a predicate keeps, in no order (a listing by what they hold).
    /// - Parameter isIncluded: Whether to keep a value.
    /// - Returns: The values kept.
    /// - Complexity: O(n) in the values held: only those kept are copied.
    package func storedValues(where isIncluded: (Value) -> Bool) -> [Value] {
        var listed: [Value] = []
        for entry in kept.values where isIncluded(entry.value) { listed.append(entry.value) }
        return listed
    }

    /// A value whatever its keep-until (one kept only until before now included, until a sweep removes it).
    /// - Parameter key: The key.
    /// - Returns: The value, or nil when none is held.
    package func stored(_ key: Key) -> Value? { kept[key]?.value }

    /// Stores a value, or removes it.
    /// - Parameters:
    ///   - key: The key.
    ///   - value: The value; nil removes it.
    ///   - keepUntil: How long it is kept.
    /// - Complexity: O(1), or O(log n) for a key not kept before or kept shorter than it was queued. The key is
    ///   hashed and looked up once (the entry is changed in place), which is what a send decision's store time
    ///   is mostly made of once the table outgrows the caches.
    package mutating func set(_ key: Key, _ value: Value?, keepUntil: Date) {
        guard let value else {
            kept[key] = nil
            return
        }
        if Self.replace(&kept[key], with: value, keepUntil: keepUntil), keepUntil != .distantFuture { due.insert(key, due: keepUntil) }
    }

    /// Puts a value in a dictionary's slot, keeping its place in the queue when that comes no later.
    /// - Returns: Whether the key must be queued at `keepUntil` (it was not kept, or queued later).
    private static func replace(_ entry: inout (value: Value, keepUntil: Date, queued: Date)?, with value: Value, keepUntil: Date) -> Bool {
        if let queued = entry?.queued, queued <= keepUntil {
            entry = (value, keepUntil, queued)
            return false
        }
        entry = (value, keepUntil, keepUntil)
        return true
    }

    /// Removes values kept only until before an instant.
    /// - Parameters:
    ///   - instant: The instant.
    ///   - limit: The most to remove.
    ///   - removing: Told of each value as it is removed.
    /// - Returns: How many were removed.
    /// - Complexity: O((r + q) log n), for r values removed and q kept longer since they were queued.
    package mutating func sweep(before instant: Date, limit: Int, removing: (Key, Value) -> Void = { _, _ in }) -> Int {
        var removed = 0
        while removed < limit, let next = due.first, next.due < instant {
            _ = due.removeFirst()
            guard let entry = kept[next.key], entry.queued == next.due else { continue }  // removed, or queued again sooner
            if entry.keepUntil < instant {
                kept[next.key] = nil
                removing(next.key, entry.value)
                removed += 1
            } else {
                kept[next.key]?.queued = entry.keepUntil
                if entry.keepUntil != .distantFuture { due.insert(next.key, due: entry.keepUntil) }
            }
        }
        return removed
    }

    /// How many entries the sweep's queue holds (the tests').
    package var queued: Int { due.count }
}

extension InMemoryExpiringValues where Value == [Date] {
    /// The events of rate counters, as an update reads them.
    /// - Parameters:
    ///   - counters: The counters to read.
    ///   - now: The time.
    /// - Returns: Every counter's events (a missing or expired one as empty), and the latest keep-until of
    ///   those read (the distant past when none is).
    package func events(_ counters: [Key], at now: Date) -> (events: [Key: [Date]], keepUntil: Date) {
        var events: [Key: [Date]] = Dictionary(minimumCapacity: counters.count)
        var keepUntil = Date.distantPast
        for counter in counters {
            guard let entry = value(counter, at: now) else {
                events[counter] = []
                continue
            }
            events[counter] = entry.value
            keepUntil = max(keepUntil, entry.keepUntil)
        }
        return (events, keepUntil)
    }

    /// Writes rate counters back after an update: each one's events, kept until `keepUntil`; a counter
    /// left without events is removed.
    /// - Parameters:
    ///   - counters: The counters the update read.
    ///   - events: Their events after it.
    ///   - keepUntil: How long they are kept.
    package mutating func write(_ counters: [Key], _ events: [Key: [Date]], keepUntil: Date) {
        for counter in counters {
            let list = events[counter] ?? []
            set(counter, list.isEmpty ? nil : list, keepUntil: keepUntil)
        }
    }
}
