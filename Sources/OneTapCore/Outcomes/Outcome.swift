/// What one result code of one flow means, and what to do about it: a row of `Data/result-codes.csv`, or
/// the flow's default (`*`) row for a code the table does not list.
package struct Outcome: Hashable, Sendable, CustomStringConvertible {
    /// The flow that returned the code.
    package let flow: LoginFlow
    /// The code as classified.
    package let code: ResultCode
    /// What to do.
    package let action: OutcomeAction
    /// The meaning in Chinese.
    package let meaningZH: String
    /// The meaning in English.
    package let meaningEN: String
    /// Where the fact comes from.
    package let source: String
    /// Whether the table does not list the code and the flow's default row answered.
    package let isDefault: Bool

    /// `tianyi -8003 → retry: request timed out`.
    package var description: String {
        "\(flow) \(code) → \(action): \(meaningEN)\(isDefault ? " (unlisted code: the flow's default)" : "")"
    }
}
