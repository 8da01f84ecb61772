/// The gate's action ids → rules, in a table built once from `Data/login-gate.csv` and never changed: open
/// addressing over the ids' UTF-8 with FNV-1a (a fixed table takes no insertions, so a chosen key cannot make it
/// slow: a lookup probes at most as many slots as the table has rows), the bytes compared in place.
///
/// It answers the gate's one question faster than `[String: Rule]` (whose SipHash is keyed against flooding a
/// table that grows, which this one does not), and without allocating.
struct ActionIndex: Sendable {
    /// Every id's UTF-8, one after another.
    private let bytes: [UInt8]
    /// Per slot: the rule's index + 1 (0: empty), the id's offset in `bytes` and its length.
    private let slots: [(rule: Int, offset: Int, count: Int)]
    private let rules: [LoginGate.Rule]
    private let mask: Int

    /// Indexes rules by their action ids (each listed once).
    /// - Parameter rules: The rules; their ids are distinct.
    init(_ rules: [LoginGate.Rule]) {
        var size = 8
        while size < rules.count * 2 { size *= 2 }
        var bytes: [UInt8] = []
        var slots = Array(repeating: (rule: 0, offset: 0, count: 0), count: size)
        for (index, rule) in rules.enumerated() {
            let id = Array(rule.action.utf8)
            var slot = Self.hash(id) & (size - 1)
            while slots[slot].rule != 0 { slot = (slot + 1) & (size - 1) }
            slots[slot] = (index + 1, bytes.count, id.count)
            bytes += id
        }
        self.bytes = bytes
        self.slots = slots
        self.rules = rules
        self.mask = size - 1
    }

    /// FNV-1a, 64 bits, over bytes.
    @inline(__always)
    private static func hash(_ id: some Collection<UInt8>) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in id { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return Int(truncatingIfNeeded: hash ^ (hash >> 32))
    }

    /// The rule of an action id, or nil when it is not listed.
    /// - Parameter action: The id as asked.
    /// - Returns: Its rule.
    /// - Complexity: O(*m*) in the id's length, plus at most one probe per row for an unlisted id.
    func rule(for action: String) -> LoginGate.Rule? {
        var action = action
        return action.withUTF8 { id in rule(for: id) }
    }

    /// Whether `stored[offset...]` starts with `id` (the caller checked there are `id.count` bytes).
    @inline(__always)
    private static func equal(_ stored: UnsafeBufferPointer<UInt8>, from offset: Int, _ id: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        while index < id.count {
            if stored[offset &+ index] != id[index] { return false }
            index &+= 1
        }
        return true
    }

    private func rule(for id: UnsafeBufferPointer<UInt8>) -> LoginGate.Rule? {
        var slot = Self.hash(id) & mask
        return bytes.withUnsafeBufferPointer { stored in
            slots.withUnsafeBufferPointer { slots in
                while true {
                    let entry = slots[slot]
                    if entry.rule == 0 { return nil }
                    if entry.count == id.count, Self.equal(stored, from: entry.offset, id) { return rules[entry.rule - 1] }
                    slot = (slot + 1) & mask
                }
            }
        }
    }
}
