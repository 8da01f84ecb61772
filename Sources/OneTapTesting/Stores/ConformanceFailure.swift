/// What a conformance suite (`TokenStoreConformance`, `LoginSessionStoreConformance`,
/// `ExchangeLedgerConformance`, `SMSStoreConformance`, `GuestDataStoreConformance`,
/// `AppSessionStoreConformance`, `AccountDirectoryConformance`) throws when a store breaks one of its properties: every broken property,
/// not only the first.
package struct ConformanceFailure: Error, CustomStringConvertible {
    /// The suite that found them, e.g. `TokenStoreConformance`.
    package let suite: String
    /// One line per broken property.
    package let problems: [String]

    init(suite: String, problems: [String]) {
        self.suite = suite
        self.problems = problems
    }

    /// `TokenStoreConformance: the store breaks 2 properties:`, then one line per property.
    package var description: String {
        "\(suite): the store breaks \(problems.count) propert\(problems.count == 1 ? "y" : "ies"):\n" + problems.joined(separator: "\n")
    }
}
