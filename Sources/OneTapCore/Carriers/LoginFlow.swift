/// A way to log in: one carrier's one-tap product, or SMS.
public enum LoginFlow: String, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    /// China Mobile's number authentication (号码认证) one-tap: result code 103000 with a token.
    case mobile
    /// China Telecom's Tianyi account (天翼账号) one-tap: an accessToken.
    case tianyi
    /// China Unicom's authentication (认证) one-tap. Off in the default policy, selectable in a custom one.
    case unicom
    /// SMS verification-code login: works for every number, and always comes last in a plan.
    case sms

    /// The id, e.g. `"tianyi"`.
    public var description: String { rawValue }

    /// Whether the flow asks a carrier gateway (every flow but SMS).
    package var isOneTap: Bool { self != .sms }

    /// A small dense number for tables (0 ..< 4).
    package var index: Int {
        switch self {
        case .mobile: 0
        case .tianyi: 1
        case .unicom: 2
        case .sms: 3
        }
    }

    /// Reads a flow id in a table field.
    static func parse(_ field: String, row: CSVTable.Row, file: String, column: String) throws(TableError) -> LoginFlow {
        try row.choice(field, "flow", from: allCases, file: file, column: column)
    }
}
