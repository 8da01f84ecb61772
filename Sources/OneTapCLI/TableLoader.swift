import OneTap

/// Loads the tables a command needs: each from `--data DIR` when the directory holds it, else built in.
/// `carrier` and `number` read only their own table, so they start fast; the commands that build an
/// engine (`route`, `outcome`, `simulate`, `check`) read every table the directory holds.
struct TableLoader {
    let options: TableOptions


    private func checkedDirectory(_ directory: String) throws(CommandFailure) -> String {
        guard TableFile.isDirectory(directory) else {
            throw CommandFailure(message: "cannot read the --data directory \(quoted(directory)): not a readable directory", code: .noInput)
        }
        return directory
    }

    private func path(_ name: String) throws(CommandFailure) -> String? {
        guard let directory = try options.dataDirectory.map({ directory throws(CommandFailure) in try checkedDirectory(directory) }) else { return nil }
        return TableFile.path(of: name, in: directory)
    }

    private func load<Table>(_ path: String?, builtIn: Table, _ read: (String) throws(TableError) -> Table) throws(CommandFailure) -> Table {
        guard let path else { return builtIn }
        do {
            return try read(path)
        } catch {
            throw CommandFailure(error)
        }
    }

    func plmn() throws(CommandFailure) -> PLMNTable {
        try load(path("plmn.csv"), builtIn: .builtIn, PLMNTable.init(contentsOf:))
    }

    func loginGate() throws(CommandFailure) -> LoginGate {
        try load(path(LoginGate.fileName), builtIn: .builtIn, LoginGate.init(contentsOf:))
    }

    func mergeRules(file: String?) throws(CommandFailure) -> MergeRules {
        var path = file
        if path == nil { path = try self.path(MergeRules.fileName) }
        return try load(path, builtIn: .builtIn, MergeRules.init(contentsOf:))
    }

    func segments() throws(CommandFailure) -> NumberSegmentTable {
        try load(path("number-segments.csv"), builtIn: .builtIn, NumberSegmentTable.init(contentsOf:))
    }

    func engine() throws(CommandFailure) -> LoginDecisionEngine {
        let policyPath: String?
        if let file = options.policyFile { policyPath = file } else { policyPath = try path("routing-policy.csv") }
        let policy = try load(policyPath, builtIn: .builtIn, RoutingPolicy.init(contentsOf:))
        guard let directory = try options.dataDirectory.map({ directory throws(CommandFailure) in try checkedDirectory(directory) }) else {
            return LoginDecisionEngine(policy: policy)
        }
        do {
            return LoginDecisionEngine(policy: policy, tables: try DecisionTables(directory: directory))
        } catch {
            throw CommandFailure(error)
        }
    }
}
