#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import OneTap

/// Loads the tables a command needs: each from `--data DIR` when the directory holds it, else built in.
/// Only the tables asked for are read, so a command starts fast.
struct TableLoader {
    let options: TableOptions


    private func path(_ name: String) throws(CommandFailure) -> String? {
        guard let directory = options.dataDirectory else { return nil }
        var info = stat()
        guard stat(directory, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            throw CommandFailure(message: "cannot read the --data directory \(quoted(directory)): not a readable directory", code: .noInput)
        }
        let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
        return access(path, F_OK) == 0 ? path : nil
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

    func segments() throws(CommandFailure) -> NumberSegmentTable {
        try load(path("number-segments.csv"), builtIn: .builtIn, NumberSegmentTable.init(contentsOf:))
    }

    func engine() throws(CommandFailure) -> LoginDecisionEngine {
        let policyPath: String?
        if let file = options.policyFile { policyPath = file } else { policyPath = try path("routing-policy.csv") }
        return LoginDecisionEngine(
            policy: try load(policyPath, builtIn: .builtIn, RoutingPolicy.init(contentsOf:)),
            plmnTable: try plmn(),
            segmentTable: try segments(),
            ipv6Table: try load(path("ipv6-prefixes.csv"), builtIn: .builtIn, IPv6PrefixTable.init(contentsOf:)),
            outcomeTable: try load(path("result-codes.csv"), builtIn: .builtIn, OutcomeTable.init(contentsOf:)))
    }
}
