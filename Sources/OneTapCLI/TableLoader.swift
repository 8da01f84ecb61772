import OneTap

/// Loads the tables a command needs: each from `--data DIR` when the directory holds it under its `Data/`
/// name (the table type's ``BuiltInTable/fileName``), else built in. `carrier` and `number` read only their
/// own table, so they start fast; the commands that build an engine (`route`, `outcome`, `simulate`,
/// `check`, `session`) read every table of the engine the directory holds.
struct TableLoader {
    /// `--data` and `--policy`.
    let options: TableOptions

    /// The tables a `--data` directory can replace, in the order the help overview names them.
    static let replaceable: [any BuiltInTable.Type] = [
        PLMNTable.self, NumberSegmentTable.self, IPv6PrefixTable.self, OutcomeTable.self, RoutingPolicy.self,
        SMSPolicy.self, LoginQuotaPolicy.self, LoginGate.self,
    ]

    /// A table: from `file` when given, else from the `--data` directory when it holds the table, else
    /// the built-in one.
    /// - Parameters:
    ///   - builtIn: The built-in table (`PLMNTable.builtIn`); its type names the file.
    ///   - file: A replacement file given on its own (`--policy`, `--rules`), which wins over the directory.
    /// - Returns: The table.
    /// - Throws: ``CommandFailure`` for a `--data` that is no directory (66), or a replacement that is
    ///   unreadable (66) or malformed (65).
    func table<Table: BuiltInTable>(_ builtIn: Table, file: String? = nil) throws(CommandFailure) -> Table {
        var path = file
        if path == nil, let directory = try directory() { path = TableFile.path(of: Table.fileName, in: directory) }
        guard let path else { return builtIn }
        do {
            return try Table(contentsOf: path)
        } catch {
            throw CommandFailure(error)
        }
    }

    /// The decision engine: the routing policy (`--policy`, else the directory's, else built in) over the
    /// decision tables the directory holds.
    /// - Returns: The engine.
    /// - Throws: ``CommandFailure`` as ``table(_:file:)`` does.
    func engine() throws(CommandFailure) -> LoginDecisionEngine {
        let policy = try table(RoutingPolicy.builtIn, file: options.policyFile)
        guard let directory = try directory() else { return LoginDecisionEngine(policy: policy) }
        do {
            return LoginDecisionEngine(policy: policy, tables: try DecisionTables(directory: directory))
        } catch {
            throw CommandFailure(error)
        }
    }

    /// The `--data` directory, checked, or nil when none was given.
    private func directory() throws(CommandFailure) -> String? {
        guard let directory = options.dataDirectory else { return nil }
        guard TableFile.isDirectory(directory) else {
            throw CommandFailure(message: "cannot read the --data directory \(quoted(directory)): not a readable directory", code: .noInput)
        }
        return directory
    }
}
