/// What one result code of one flow means, and what to do about it: a row of `Data/result-codes.csv`, or
/// the flow's default (`*`) row for a code the table does not list.
public struct Outcome: Hashable, Sendable, CustomStringConvertible {
    /// The flow that returned the code.
    public let flow: LoginFlow
    /// The code as classified.
    public let code: ResultCode
    /// What to do.
    public let action: OutcomeAction
    /// The meaning in Chinese.
    public let meaningZH: String
    /// The meaning in English.
    public let meaningEN: String
    /// Where the fact comes from.
    public let source: String
    /// Whether the table does not list the code and the flow's default row answered.
    public let isDefault: Bool

    /// `tianyi -8003 → retry: request timed out`.
    public var description: String {
        "\(flow) \(code) → \(action): \(meaningEN)\(isDefault ? " (unlisted code: the flow's default)" : "")"
    }
}
