/// A table in the format of the `Data/` CSV files: built into the module at build time from its file
/// there, and replaceable at run time by a file of the same format (`init(contentsOf:)`, which `OneTap`
/// adds).
///
/// Every table's rules live in its ``init(csv:file:)``: the built-in copy and a replacement file go
/// through the same parser, so they are refused for the same reasons with the same `file:line` errors.
public protocol DataTable: Sendable {
    /// Reads the table from CSV text.
    /// - Parameters:
    ///   - text: The file's text.
    ///   - file: The name used in errors.
    /// - Throws: ``TableError`` naming the file, line and column of the first problem.
    init(csv text: String, file: String) throws(TableError)
}

/// A table with a built-in copy: its file's name in `Data/`, which the embedded copy
/// (``EmbeddedTable/load(_:)``), the CLI's `--data` directory and `DecisionTables(directory:)` look it
/// up by (the README lists them with their columns).
package protocol BuiltInTable: DataTable {
    /// The table's file name in `Data/`, e.g. `plmn.csv`; a replacement directory uses the same name.
    static var fileName: String { get }
}

// The tables built in from `Data/`, one per file there.
extension PLMNTable: BuiltInTable {}
extension NumberSegmentTable: BuiltInTable {}
extension IPv6PrefixTable: BuiltInTable {}
extension OutcomeTable: BuiltInTable {}
extension RoutingPolicy: BuiltInTable {}
extension TokenLifetimeTable: BuiltInTable {}
extension ExchangeCodeTable: BuiltInTable {}
extension SMSPolicy: BuiltInTable {}
extension LoginGate: BuiltInTable {}
extension MergeRules: BuiltInTable {}
