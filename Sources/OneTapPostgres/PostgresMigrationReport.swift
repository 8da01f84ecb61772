/// What ``PostgresStores/migrate()`` did.
package struct PostgresMigrationReport: Sendable, Hashable, CustomStringConvertible {
    /// The schema.
    package let schema: String
    /// The versions this call applied, in order; empty when the schema was already current.
    package let applied: [Int]
    /// The schema's version now.
    package let version: Int

    /// Creates a report.
    /// - Parameters:
    ///   - schema: The schema.
    ///   - applied: The versions applied.
    ///   - version: The version now.
    package init(schema: String, applied: [Int], version: Int) {
        self.schema = schema
        self.applied = applied
        self.version = version
    }

    /// `schema onetap at version 2 (applied 1, 2)` or `schema onetap at version 2 (already current)`.
    package var description: String {
        let what = applied.isEmpty ? "already current" : "applied \(applied.map(String.init).joined(separator: ", "))"
        return "schema \(schema) at version \(version) (\(what))"
    }
}
