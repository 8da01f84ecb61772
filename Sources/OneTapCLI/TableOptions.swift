import OneTap

/// Where the tables come from: the built-in ones, or replacement files.
package struct TableOptions: Hashable, Sendable {
    /// A directory holding replacement tables under their `Data/` names (`plmn.csv`, …); a table missing
    /// from it stays built in.
    package var dataDirectory: String?
    /// A replacement policy file (overrides one in ``dataDirectory``): the routing policy, or for `sms` the
    /// SMS policy.
    package var policyFile: String?

    static let specs: [OptionSpec] = [.value("data"), .value("policy")]

    init(_ parsed: ParsedArguments) {
        dataDirectory = parsed.value("data")
        policyFile = parsed.value("policy")
    }

    /// Creates table options.
    /// - Parameters:
    ///   - dataDirectory: A directory of replacement tables.
    ///   - policyFile: A replacement routing policy.
    package init(dataDirectory: String? = nil, policyFile: String? = nil) {
        self.dataDirectory = dataDirectory
        self.policyFile = policyFile
    }
}
