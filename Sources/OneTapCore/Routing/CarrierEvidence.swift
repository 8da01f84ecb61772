/// The carrier evidence in a snapshot, weighed: the PLMN first; then the client's IPv6 address, only
/// when the request travelled over cellular alone; then the phone-number hint.
package struct CarrierEvidence: Hashable, Sendable, CustomStringConvertible {
    /// The carrier named, or ``Carrier/unknown``.
    package let carrier: Carrier
    /// Which evidence named it.
    package let source: EvidenceSource
    /// Whether the phone-number hint is a virtual operator's number on ``carrier``.
    package let isVirtualOperator: Bool

    /// `mobile from plmn`.
    package var description: String { "\(carrier) from \(source)\(isVirtualOperator ? " (virtual operator)" : "")" }

    /// Weighs a snapshot's evidence.
    /// - Parameters:
    ///   - snapshot: What the device reported.
    ///   - plmnTable: The PLMN table.
    ///   - ipv6Table: The IPv6 prefix table.
    ///   - segmentTable: The number-segment table.
    /// - Complexity: O(1) in the snapshot; no allocation.
    package init(
        weighing snapshot: borrowing DeviceSnapshot, plmnTable: borrowing PLMNTable, ipv6Table: borrowing IPv6PrefixTable,
        segmentTable: borrowing NumberSegmentTable
    ) {
        var carrier = Carrier.unknown
        var source = EvidenceSource.none
        if snapshot.sim != .absent, let plmn = snapshot.plmn {
            // A PLMN resolves unless it is an unassigned mainland MNC; `other` (a foreign SIM) resolves too.
            let named = plmnTable.carrier(for: plmn)
            if named != .unknown {
                carrier = named
                source = .plmn
            }
        }
        if source == .none, snapshot.network == .cellular, let address = snapshot.clientIP,
            let named = ipv6Table.cellularCarrier(for: address)
        {
            carrier = named
            source = .ipv6
        }
        var isVirtual = false
        if let hint = snapshot.phoneHint {
            let (named, kind) = segmentTable.match(hint)
            if source == .none, named != .unknown {
                carrier = named
                source = .phoneNumber
            }
            // A virtual operator's SIM reports its host network's PLMN: the number tells them apart, as
            // long as the number is on the carrier the stronger evidence named.
            isVirtual = named == carrier && kind == .virtual
        }
        self.carrier = carrier
        self.source = source
        self.isVirtualOperator = isVirtual
    }
}
