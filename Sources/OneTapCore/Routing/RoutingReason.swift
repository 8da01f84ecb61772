/// Why a plan has the flows it has: machine-readable, stable ids used in JSON and the CLI.
public enum RoutingReason: String, Hashable, Sendable, CaseIterable, Codable, CustomStringConvertible {
    /// No SIM card: SMS.
    case noSIM = "no-sim"
    /// The SIM is locked or still starting: SMS.
    case simNotReady = "sim-not-ready"
    /// No network at all: SMS.
    case noNetwork = "no-network"
    /// Mobile data is switched off (Wi-Fi alone cannot reach a carrier gateway): SMS.
    case mobileDataOff = "mobile-data-off"
    /// The user denied the app cellular data: every one-tap flow would fail, so SMS.
    case cellularRestricted = "cellular-restricted"
    /// The number belongs to a virtual operator, which no carrier gateway authenticates: SMS.
    case virtualOperator = "virtual-operator"
    /// The carrier has no one-tap gateway (China Broadnet, a foreign SIM): SMS.
    case carrierUnsupported = "carrier-unsupported"
    /// No evidence tells the carrier: China Mobile's gateway, which answers for all three big carriers.
    case carrierUnknown = "carrier-unknown"
    /// The carrier's flows as the policy lists them.
    case policy

    /// The id, e.g. `"no-sim"`.
    public var description: String { rawValue }
}

/// Which evidence named the carrier, strongest first.
public enum EvidenceSource: String, Hashable, Sendable, CaseIterable, Codable, CustomStringConvertible {
    /// The data SIM's PLMN. A PLMN that resolves to a carrier always wins.
    case plmn
    /// The client's IPv6 address in a carrier's pool, with the request over cellular alone.
    case ipv6
    /// The phone-number hint's segment (weakest: numbers are ported).
    case phoneNumber = "phone-number"
    /// Nothing named the carrier.
    case none

    /// The id, e.g. `"plmn"`.
    public var description: String { rawValue }
}
