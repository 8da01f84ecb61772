/// What the sweep of a store's expired records did (``ExpiredRecordSweeper``), for the event log: the
/// store's name and counts, or the store's error; never a record's content.
public enum StoreEvent: Hashable, Sendable, CustomStringConvertible {
    /// A round removed records that had expired: the store's name (``SweptStore/name``) and how many
    /// it removed. A round that removed nothing says nothing.
    case swept(store: String, removed: Int)
    /// A round could not remove a store's expired records: the store's name, how many the round had
    /// removed before the failure, and the store's error (numbers masked). The next round tries again.
    case sweepFailed(store: String, removed: Int, reason: String)

    /// `swept` or `sweep-failed`.
    public var name: String {
        switch self {
        case .swept: "swept"
        case .sweepFailed: "sweep-failed"
        }
    }

    /// `swept login-sessions: 120 expired records removed`, `sweep-failed sms after 0 removed: the store is down`.
    public var description: String {
        switch self {
        case .swept(let store, let removed): "swept \(store): \(removed) expired records removed"
        case .sweepFailed(let store, let removed, let reason): "sweep-failed \(store) after \(removed) removed: \(PhoneNumber.maskingNumbers(in: reason))"
        }
    }

    /// Writes the event's members after the schema's `v`, `at` and `area`: `event`, `store`, `removed`,
    /// and for `sweep-failed` `reason` (numbers masked).
    package func writeMembers(to writer: inout JSONWriter) {
        writer.member("event", name)
        switch self {
        case .swept(let store, let removed):
            writer.member("store", store)
            writer.member("removed", removed)
        case .sweepFailed(let store, let removed, let reason):
            writer.member("store", store)
            writer.member("removed", removed)
            writer.member("reason", PhoneNumber.maskingNumbers(in: reason))
        }
    }
}
