import Foundation

/// What distinct clients last told of one channel, and which clients the server saw succeed on it, over a span of
/// time: the evidence ``ChannelHealth`` weighs a client's word against.
///
/// One entry a client (``ChannelClient``: sharing an app session, an identity or an address block is being the same
/// client; a device id, the app's claim, joins nothing), the newest word replacing the older: a failure the client
/// told, or a success or failure the server saw for it. Entries leave when they are older than the span, when a
/// clock set back puts them ahead of now, or, past the capacity, oldest first. A success the server saw for a client
/// that gave no address is that client's own entry (its app session and identity), never the shared unknown
/// address's: a success is the server's observation, and must not be folded into every address-less client's word.
///
/// - Complexity: ``note(_:failed:at:span:slack:capacity:)`` is O(k) amortized for a client of k keys (at most five);
///   ``count`` and ``failing`` are O(1). Memory is O(capacity).
struct ClientLedger {
    private struct Entry {
        var keys: [String]
        var failed: Bool
        var at: Date
    }

    private var entries: [UInt64: Entry] = [:]
    /// The entry each key belongs to.
    private var owners: [String: UInt64] = [:]
    /// Entries in the order they were noted (some since replaced), from `head` on.
    private var order: [(serial: UInt64, at: Date)] = []
    private var head = 0
    private var nextSerial: UInt64 = 0
    /// How many entries are failures.
    private(set) var failing = 0

    /// How many clients are in the ledger.
    var count: Int { entries.count }

    /// Notes a client's newest outcome, replacing every entry it shares a key with.
    /// - Parameters:
    ///   - client: The client.
    ///   - failed: Whether the attempt failed.
    ///   - now: The time.
    ///   - span: How long an entry counts.
    ///   - slack: How far ahead of `now` an entry may stand before it is taken for a clock set back.
    ///   - capacity: The most entries kept; at least 1.
    mutating func note(_ client: ChannelClient, failed: Bool, at now: Date, span: Duration, slack: Duration, capacity: Int) {
        forget(at: now, span: span, slack: slack)
        var keys = client.keysBeyondTheDevice
        if !failed, keys.count > 1 { keys.removeAll { $0 == ChannelClient.unknownAddress } }
        for key in keys {
            if let serial = owners[key] { remove(serial) }
        }
        let serial = nextSerial
        nextSerial &+= 1
        entries[serial] = Entry(keys: keys, failed: failed, at: now)
        for key in keys { owners[key] = serial }
        if failed { failing += 1 }
        order.append((serial, now))
        while entries.count > max(1, capacity) { dropOldest() }
        if order.count - head > 4 * max(1, capacity) { rebuildOrder() }
    }

    /// Drops the entries older than `span` and those a clock set back put more than `slack` ahead of `now`.
    /// - Parameters:
    ///   - now: The time.
    ///   - span: How long an entry counts.
    ///   - slack: How far ahead of `now` an entry may stand.
    mutating func forget(at now: Date, span: Duration, slack: Duration) {
        let oldest = now.addingTimeInterval(-span.seconds)
        let latest = now.addingTimeInterval(slack.seconds)
        while head < order.count, order[head].at <= oldest || order[head].at > latest { dropOldest() }
        if head > 1_024, head * 2 > order.count {
            order.removeFirst(head)
            head = 0
        }
    }

    /// Whether the ledger meets an opening rule: at least `minimum` clients, and failures at least `threshold` of them.
    /// - Parameters:
    ///   - minimum: The fewest clients.
    ///   - threshold: The failure share, 0 ... 1.
    /// - Returns: True when both hold.
    func meets(minimum: Int, threshold: Double) -> Bool {
        count >= max(1, minimum) && Double(failing) >= threshold * Double(count)
    }

    private mutating func dropOldest() {
        guard head < order.count else { return }
        let serial = order[head].serial
        head += 1
        remove(serial)
    }

    private mutating func remove(_ serial: UInt64) {
        guard let entry = entries.removeValue(forKey: serial) else { return }
        if entry.failed { failing -= 1 }
        for key in entry.keys where owners[key] == serial { owners[key] = nil }
    }

    /// Keeps only the live entries in `order`, in the order they were noted: a client noted again and again leaves a
    /// replaced place behind each time, and those must not pile up for a whole span.
    private mutating func rebuildOrder() {
        order = entries.map { (serial: $0.key, at: $0.value.at) }.sorted { $0.serial < $1.serial }
        head = 0
    }
}
