/// Whose tokens: the app's or the auth server's account identifier for a user. Not a secret.
public struct AccountID: Hashable, Sendable, Comparable, Codable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The identifier.
    public let rawValue: String

    /// Creates an account identifier.
    /// - Parameter rawValue: The identifier (any non-empty text).
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// Creates an account identifier from a literal.
    /// - Parameter value: The identifier.
    public init(stringLiteral value: String) { rawValue = value }

    /// A readable form, for messages and logs.
    public var description: String { rawValue }

    /// Orders values by their numbers (stable, for sorting).
    public static func < (lhs: AccountID, rhs: AccountID) -> Bool { lhs.rawValue < rhs.rawValue }

    /// Decodes the identifier from a string.
    /// - Parameter decoder: The decoder.
    /// - Throws: What the decoder throws.
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    /// Encodes the identifier as a string.
    /// - Parameter encoder: The encoder.
    /// - Throws: What the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
