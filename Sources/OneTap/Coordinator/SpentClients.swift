/// The clients of a half-open circuit left without a probe slot until it opens or closes again: those whose probe ran
/// out unreported, was cancelled, or failed by their word. Held as the keys a stranger cannot claim (app session,
/// identity, address blocks; never a device id), so a client sharing any of them is spent too, and at most ``limit``
/// keys, the oldest leaving first: enough that a stranger cycling through address blocks runs out of blocks before
/// the first leaves.
///
/// - Complexity: ``spend(_:)`` and ``holds(_:)`` are O(k) amortized for a client of k keys (at most four).
struct SpentClients: Sendable {
    private var keys: Set<String> = []
    /// The keys in the order they were spent.
    private var order = FIFOQueue<String>()

    /// The most keys held: 16,384 (4,096 clients of four keys).
    static let limit = 16_384

    /// Leaves a client without a slot.
    /// - Parameter client: The client.
    mutating func spend(_ client: ChannelClient) {
        for key in client.keysBeyondTheDevice where keys.insert(key).inserted { order.append(key) }
        while keys.count > Self.limit, let oldest = order.popFirst() { keys.remove(oldest) }
    }

    /// Whether a client shares a key with a spent one.
    /// - Parameter client: The client.
    /// - Returns: True when it may take no slot.
    func holds(_ client: ChannelClient) -> Bool {
        client.keysBeyondTheDevice.contains { keys.contains($0) }
    }

    /// Forgets every spent client (the circuit opened or closed).
    mutating func removeAll() {
        keys = []
        order.removeAll()
    }
}
