import Foundation

/// What distinct clients last told of one channel, and which clients the server saw succeed on it, over a span of
/// time: the evidence ``ChannelHealth`` weighs a client's word against.
///
/// One place a client, the newest outcome replacing the older: what the client told (a failure, or a success where no
/// exchange of the server's decides one), or a success the server saw for it. A client's word is placed by every key
/// a stranger cannot claim (``ChannelClient``: its app session, its identity, its address blocks; a device id joins
/// nothing): words from one address block are one place. A success the server saw is its own observation, placed by
/// the credentials alone (app session and identity): users behind one carrier NAT address or one IPv6 /48 are each a
/// place, and no stranger's word from a shared block replaces a user's success; the user's own newer word does.
///
/// Places leave once older than the span. Past the capacity the oldest failure leaves first (a failure with none
/// before it is not kept): a burst of strangers' words never pushes out the successes seen. Time never runs back
/// here: an instant behind the latest one seen (a slow request's) counts as the latest; a clock set back by more
/// than ten spans restarts the span of every place from the new time.
///
/// - Complexity: ``note(_:failed:seen:at:span:capacity:)`` is O(k) amortized for a client of k keys (at most four);
///   ``count`` and ``failing`` are O(1). Memory is O(capacity).
struct ClientLedger: Sendable {
    private struct Entry: Sendable {
        var keys: [String]
        var failed: Bool
    }

    private var entries: [UInt64: Entry] = [:]
    /// The place each key belongs to.
    private var owners: [String: UInt64] = [:]
    /// Failures and successes in the order they were noted (some since replaced).
    private var failures = FIFOQueue<(serial: UInt64, at: Date)>()
    private var successes = FIFOQueue<(serial: UInt64, at: Date)>()
    private var nextSerial: UInt64 = 0
    /// The latest instant seen.
    private var latest: Date?
    /// How many places are failures.
    private(set) var failing = 0

    /// How many clients are in the ledger.
    var count: Int { entries.count }

    /// Notes a client's newest outcome, replacing every place it shares a key with.
    /// - Parameters:
    ///   - client: The client.
    ///   - failed: Whether the attempt failed.
    ///   - seen: Whether the server saw it (a success of its exchange), or the client told it.
    ///   - now: The time.
    ///   - span: How long a place counts.
    ///   - capacity: The most places kept, 1 ... 2²⁰.
    mutating func note(_ client: ChannelClient, failed: Bool, seen: Bool, at now: Date, span: Duration, capacity: Int) {
        let capacity = min(max(1, capacity), 1 << 20)
        let now = forget(at: now, span: span)
        let credentials = client.credentialKeys
        let keys = seen && !credentials.isEmpty ? credentials : client.keysBeyondTheDevice
        for key in keys {
            if let serial = owners[key] { remove(serial) }
        }
        let serial = nextSerial
        nextSerial &+= 1
        entries[serial] = Entry(keys: keys, failed: failed)
        for key in keys { owners[key] = serial }
        if failed {
            failing += 1
            failures.append((serial, now))
        } else {
            successes.append((serial, now))
        }
        while entries.count > capacity {
            guard let oldest = failures.popFirst() ?? successes.popFirst() else { break }
            remove(oldest.serial)
        }
        // Replaced places stay queued until they outnumber the live ones several times.
        let live = entries
        if failures.count > 4 * capacity { failures.keep { live[$0.serial] != nil } }
        if successes.count > 4 * capacity { successes.keep { live[$0.serial] != nil } }
    }

    /// Lets go of the places older than `span`.
    /// - Parameters:
    ///   - now: The time.
    ///   - span: How long a place counts.
    /// - Returns: The ledger's time: `now`, or the latest instant seen when `now` is behind it.
    @discardableResult
    mutating func forget(at now: Date, span: Duration) -> Date {
        var time = now
        if let latest, now < latest {
            if latest.timeIntervalSince(now) > 10 * span.seconds {
                failures.update { $0.at = now }   // a clock set back: every place counts a span from now
                successes.update { $0.at = now }
            } else {
                time = latest
            }
        }
        latest = time
        let oldest = time.addingTimeInterval(-span.seconds)
        while let place = failures.first, place.at <= oldest { _ = failures.popFirst(); remove(place.serial) }
        while let place = successes.first, place.at <= oldest { _ = successes.popFirst(); remove(place.serial) }
        return time
    }

    /// Whether the ledger meets an opening rule: at least `minimum` failing clients, and failures at least
    /// `threshold` of the clients in it.
    /// - Parameters:
    ///   - minimum: The fewest failing clients.
    ///   - threshold: The failure share, 0 ... 1.
    /// - Returns: True when both hold.
    func meets(minimum: Int, threshold: Double) -> Bool {
        failing >= max(1, minimum) && Double(failing) / Double(count) >= threshold
    }

    private mutating func remove(_ serial: UInt64) {
        guard let entry = entries.removeValue(forKey: serial) else { return }
        if entry.failed { failing -= 1 }
        for key in entry.keys where owners[key] == serial { owners[key] = nil }
    }
}
