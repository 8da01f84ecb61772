/// One of the `Data/*.csv` files, embedded in the module at build time by `OneTapTablesPlugin`.
///
/// The generated file (`EmbeddedTables.swift` in the build directory) defines ``all``. The text is the
/// file verbatim, so the built-in tables are parsed by the very loader that reads replacement files.
package struct EmbeddedTable: Sendable {
    /// The file's name in `Data/`, e.g. `plmn.csv`.
    package let fileName: String
    /// The file's text.
    package let text: String

    /// The path used in error messages: `Data/<fileName>`.
    package var path: String { "Data/\(fileName)" }

    /// Finds an embedded table by its file name.
    /// - Parameter fileName: The name in `Data/`.
    /// - Returns: The table; a missing one is a build defect reported by ``load(_:)``.
    package static func named(_ fileName: String) -> EmbeddedTable? {
        all.first { $0.fileName == fileName }
    }

    /// Parses a built-in table.
    ///
    /// The test suite parses every built-in table and checks it against `Data/`, so a table that fails
    /// here means the binary was built from a `Data/` folder that never passed the tests: the process
    /// stops with the table error rather than run with a missing or partial table.
    /// - Parameter table: The table type; its ``BuiltInTable/fileName`` names the embedded file.
    /// - Returns: The parsed table.
    package static func load<Table: BuiltInTable>(_ table: Table.Type) -> Table {
        guard let embedded = named(Table.fileName) else {
            fatalError("OneTap was built without Data/\(Table.fileName); rebuild from a complete checkout")
        }
        do {
            return try Table(csv: embedded.text, file: embedded.path)
        } catch {
            fatalError("OneTap's built-in table is invalid: \(error)")
        }
    }
}
