/// Which carrier each mainland China PLMN (MCC 460) belongs to: `Data/plmn.csv`.
///
/// Any valid PLMN with another MCC is ``Carrier/other``; a 460 MNC the table does not list is
/// ``Carrier/unknown``. The built-in table is the default; a replacement file comes in through
/// `DecisionTables(directory:)` when a new code is assigned before a release carries it.
package struct PLMNTable: DataTable {
    /// `plmn.csv`, the table's file in `Data/`.
    package static let fileName = "plmn.csv"

    /// One row of the table.
    package struct Entry: Hashable, Sendable {
        /// The PLMN.
        package let plmn: PLMN
        /// Its carrier.
        package let carrier: Carrier
        /// What the code is used for.
        package let note: String
        /// Where the fact comes from.
        package let source: String
        /// The row's line in its file.
        package let line: Int
    }

    /// The columns of the file.
    static let columns = ["mcc", "mnc", "carrier", "note", "source"]

    /// Every row, in file order.
    package let entries: [Entry]

    /// Carrier by MNC under MCC 460: index `mnc` for 2-digit MNCs, `100 + mnc` for 3-digit ones.
    private let mainland: [Carrier]

    /// The table built from `Data/plmn.csv`: the default of every parameter that takes one
    /// (`@usableFromInline` for those default arguments; integrators pass a replacement or nothing).
    package static let builtIn: PLMNTable = EmbeddedTable.load(PLMNTable.self)

    /// Reads a table from CSV text.
    /// - Parameters:
    ///   - text: The file's text, in the `Data/plmn.csv` format.
    ///   - file: The name used in errors.
    /// - Throws: ``TableError`` naming the file, line and column of the first problem: an unparsable or
    ///   non-mainland PLMN, a carrier id that is not a mainland carrier, a duplicate PLMN.
    package init(csv text: String, file: String) throws(TableError) {
        let table = try CSVTable(text: text, file: file, columns: Self.columns)
        var entries: [Entry] = []
        var mainland = [Carrier](repeating: .unknown, count: 1100)
        var listed = ListedKeys<PLMN>()
        for row in try table.requiringRows("PLMNs") {
            let plmn: PLMN
            do {
                plmn = try PLMN(mcc: row[0], mnc: row[1])
            } catch {
                throw row.error(file, column: error.subject == .mcc ? "mcc" : "mnc", .invalidValue, error.description)
            }
            guard plmn.isMainland else {
                throw row.error(
                    file, column: "mcc", .invalidValue,
                    "MCC \(plmn.mcc) is not mainland China's 460; every other MCC is the carrier `other` and needs no row")
            }
            let carrier = try Carrier.mainland(row[2], row: row, file: file, column: "carrier")
            try listed.insert(plmn, "\(plmn)", at: row, file: file, column: nil)
            mainland[Self.slot(plmn)] = carrier
            entries.append(Entry(plmn: plmn, carrier: carrier, note: row[3], source: row[4], line: row.line))
        }
        self.entries = entries
        self.mainland = mainland
    }


    @inline(__always)
    private static func slot(_ plmn: PLMN) -> Int {
        Int(plmn.mncCode) &+ (plmn.mncLength == 3 ? 100 : 0)
    }

    /// The carrier of a parsed PLMN.
    /// - Parameter plmn: The PLMN.
    /// - Returns: The carrier: a mainland carrier, `other` outside MCC 460, `unknown` for an unlisted 460 MNC.
    /// - Complexity: O(1), no allocation.
    @inline(__always)
    package func carrier(for plmn: PLMN) -> Carrier {
        plmn.mccCode == 460 ? mainland[Self.slot(plmn)] : .other
    }

    /// The carrier of a PLMN as a device reported it, in any form ``PLMN/init(_:)`` accepts.
    ///
    /// A value from which no carrier can be known (empty, the iOS placeholder `65535`, `--`) is
    /// ``Carrier/unknown``, not an error: the device simply did not say.
    /// - Parameter reported: The reported value, e.g. `"46000"`.
    /// - Returns: The carrier.
    /// - Throws: ``ParseError`` when the value is malformed (letters, wrong length, full-width digits…).
    /// - Complexity: O(*n*) in the length of `reported`; no allocation unless it throws.
    package func carrier(forReported reported: String) throws(ParseError) -> Carrier {
        if let plmn = reported.withUTF8Bytes({ PLMN.parse($0) }) {
            return carrier(for: plmn)
        }
        let error = PLMN.diagnose(reported)
        if error.kind == .empty || error.kind == .placeholder { return .unknown }
        throw error
    }
}
