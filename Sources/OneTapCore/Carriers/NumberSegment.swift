/// A number segment (号段): a prefix of mainland mobile numbers and the carrier that first issued it.
package struct NumberSegment: Hashable, Sendable, CustomStringConvertible {
    /// What a segment's numbers are for.
    package enum Kind: String, Hashable, Sendable, CaseIterable, Codable, DescribedByID {
        /// A network operator's own subscribers.
        case standard
        /// A virtual network operator's (虚拟运营商, MVNO) numbers, hosted on the carrier's network. No
        /// carrier gateway authenticates them for one-tap login today.
        case virtual
        /// Data cards (上网卡): they take SMS, mostly not voice.
        case data
        /// IoT-only segments (物联网业务专用号段): no ordinary SMS, so SMS login refuses them.
        case iot
        /// Satellite phone numbers.
        case satellite
    }

    /// The prefix's digits, e.g. `"1703"`.
    package let prefix: String
    /// The carrier that issued the segment.
    package let carrier: Carrier
    /// What the segment's numbers are for.
    package let kind: Kind
    /// A short note.
    package let note: String
    /// Where the fact comes from.
    package let source: String
    /// The row's line in its file.
    package let line: Int

    /// `1703 → mobile (virtual)`.
    package var description: String { "\(prefix) → \(carrier) (\(kind))" }
}
