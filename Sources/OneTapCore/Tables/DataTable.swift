/// A table kept in `Data/` as reviewable CSV: built into the module at build time from that file, and
/// replaceable at run time by a file of the same format (`init(contentsOf:)`, which `OneTap` adds).
///
/// Every table's rules live in its ``init(csv:file:)``: the built-in copy and a replacement file go
/// through the same parser, so they are refused for the same reasons with the same `file:line` errors.
public protocol DataTable: Sendable {
    /// The table's file name in `Data/`, e.g. `plmn.csv`; a replacement directory uses the same name.
    static var fileName: String { get }

    /// Reads the table from CSV text.
    /// - Parameters:
    ///   - text: The file's text.
    ///   - file: The name used in errors.
    /// - Throws: ``TableError`` naming the file, line and column of the first problem.
    init(csv text: String, file: String) throws(TableError)
}
