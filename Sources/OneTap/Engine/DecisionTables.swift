/// The tables an engine decides with, besides its routing policy: PLMNs, number segments, IPv6 prefixes
/// and result codes. Built in from `Data/`, or loaded from replacement files.
public struct DecisionTables: Sendable {
    /// PLMN → carrier.
    public var plmn: PLMNTable
    /// Number segment → carrier.
    public var segments: NumberSegmentTable
    /// IPv6 prefix → carrier.
    public var ipv6: IPv6PrefixTable
    /// (flow, code) → action.
    public var outcomes: OutcomeTable

    /// The tables built from `Data/`.
    public static var builtIn: DecisionTables { DecisionTables() }

    /// The file names a replacement directory may hold, as in `Data/`.
    public static let fileNames = ["plmn.csv", "number-segments.csv", "ipv6-prefixes.csv", "result-codes.csv"]

    /// Creates a set of tables; each defaults to the built-in one.
    /// - Parameters:
    ///   - plmn: The PLMN table.
    ///   - segments: The number-segment table.
    ///   - ipv6: The IPv6 prefix table.
    ///   - outcomes: The result-code table.
    public init(
        plmn: PLMNTable = .builtIn, segments: NumberSegmentTable = .builtIn, ipv6: IPv6PrefixTable = .builtIn,
        outcomes: OutcomeTable = .builtIn
    ) {
        self.plmn = plmn
        self.segments = segments
        self.ipv6 = ipv6
        self.outcomes = outcomes
    }

    /// Loads the tables a directory holds under their `Data/` names; a table the directory lacks stays
    /// built in. New codes can ship this way without a release.
    /// - Parameter directory: The directory.
    /// - Throws: ``TableError`` naming the file and line of a malformed table, or `unreadable` for a file
    ///   that exists but cannot be read, or a directory that does not exist.
    public init(directory: String) throws(TableError) {
        guard TableFile.isDirectory(directory) else {
            throw TableError(file: directory, line: 0, kind: .unreadable, message: "not a readable directory")
        }
        func path(_ name: String) -> String? { TableFile.path(of: name, in: directory) }
        self.init(
            plmn: try path("plmn.csv").map { path throws(TableError) in try PLMNTable(contentsOf: path) } ?? .builtIn,
            segments: try path("number-segments.csv").map { path throws(TableError) in try NumberSegmentTable(contentsOf: path) } ?? .builtIn,
            ipv6: try path("ipv6-prefixes.csv").map { path throws(TableError) in try IPv6PrefixTable(contentsOf: path) } ?? .builtIn,
            outcomes: try path("result-codes.csv").map { path throws(TableError) in try OutcomeTable(contentsOf: path) } ?? .builtIn)
    }
}
