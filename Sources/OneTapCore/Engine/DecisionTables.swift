/// The tables an engine decides with, besides its routing policy: PLMNs, number segments, IPv6 prefixes
/// and result codes. Built in from `Data/`, or loaded from replacement files.
public struct DecisionTables: Sendable {
    /// PLMN → carrier.
    package var plmn: PLMNTable
    /// Number segment → carrier.
    package var segments: NumberSegmentTable
    /// IPv6 prefix → carrier.
    package var ipv6: IPv6PrefixTable
    /// (flow, code) → action.
    package var outcomes: OutcomeTable

    /// The tables built from `Data/`.
    package static var builtIn: DecisionTables { DecisionTables() }

    /// The tables built from `Data/`; `DecisionTables(directory:)` loads replacements.
    public init() {
        self.init(plmn: .builtIn)
    }

    /// Creates a set of tables; each defaults to the built-in one.
    /// - Parameters:
    ///   - plmn: The PLMN table.
    ///   - segments: The number-segment table.
    ///   - ipv6: The IPv6 prefix table.
    ///   - outcomes: The result-code table.
    package init(
        plmn: PLMNTable = .builtIn, segments: NumberSegmentTable = .builtIn, ipv6: IPv6PrefixTable = .builtIn,
        outcomes: OutcomeTable = .builtIn
    ) {
        self.plmn = plmn
        self.segments = segments
        self.ipv6 = ipv6
        self.outcomes = outcomes
    }
}
