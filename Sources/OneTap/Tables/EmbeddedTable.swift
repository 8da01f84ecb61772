/// One of the `Data/*.csv` files, embedded in the module at build time by `OneTapTablesPlugin`.
///
/// The generated file (`EmbeddedTables.swift` in the build directory) defines ``all``. The text is the
/// file verbatim, so the built-in tables are parsed by the very loader that reads replacement files.
struct EmbeddedTable: Sendable {
    /// The file's name in `Data/`, e.g. `plmn.csv`.
    let fileName: String
    /// The file's text.
    let text: String

    /// The path used in error messages: `Data/<fileName>`.
    var path: String { "Data/\(fileName)" }

    /// Finds an embedded table by its file name.
    /// - Parameter fileName: The name in `Data/`.
    /// - Returns: The table; a missing one is a build defect reported by ``load(_:_:)``.
    static func named(_ fileName: String) -> EmbeddedTable? {
        all.first { $0.fileName == fileName }
    }

    /// Parses a built-in table.
    ///
    /// The test suite parses every built-in table and compares it with `Data/`, so a table that fails
    /// here means the binary was built from a `Data/` folder that never passed the tests: the process
    /// stops with the table error rather than run with a missing or partial table.
    /// - Parameters:
    ///   - fileName: The name in `Data/`.
    ///   - parse: The table's loader.
    /// - Returns: The parsed table.
    static func load<Table>(_ fileName: String, _ parse: (_ text: String, _ file: String) throws(TableError) -> Table) -> Table {
        guard let table = named(fileName) else {
            fatalError("OneTap was built without Data/\(fileName); rebuild from a complete checkout")
        }
        do {
            return try parse(table.text, table.path)
        } catch {
            fatalError("OneTap's built-in table is invalid: \(error)")
        }
    }
}
