import OneTap

/// The options every command that consults the tables takes (`check`, `outcome`, `route`, `session`,
/// `carrier`, `number`, `sms`): `--json`, and the tables (`--data`, and `--policy` for those that read a
/// policy: not the lookups or `outcome`). Read once, here, as swift-argument-parser's option groups are.
package struct CommonOptions: Hashable, Sendable {
    /// Whether to print JSON (NDJSON for a command that prints a record per input).
    package var json: Bool
    /// Replacement tables.
    package var tables: TableOptions

    /// The options, in the order a usage error lists them.
    static let specs: [OptionSpec] = [.flag("json")] + TableOptions.specs

    init(_ parsed: ParsedArguments) {
        self.init(json: parsed.has("json"), tables: TableOptions(parsed))
    }

    /// Creates the options.
    /// - Parameters:
    ///   - json: Whether to print JSON.
    ///   - tables: Replacement tables (the built-in ones by default).
    package init(json: Bool = false, tables: TableOptions = TableOptions()) {
        self.json = json
        self.tables = tables
    }
}
