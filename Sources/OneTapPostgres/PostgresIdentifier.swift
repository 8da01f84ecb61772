/// An SQL identifier OneTap puts into statement text (the schema name): the one thing in a statement
/// that is not a bound parameter, so it is validated to a small alphabet and always double-quoted.
enum PostgresIdentifier {
    /// The longest identifier PostgreSQL keeps whole: 63 bytes.
    static let maximumLength = 63

    /// Why a name cannot be an identifier here, or nil when it can.
    /// - Parameter name: The name.
    /// - Returns: The reason, for an error message.
    static func problem(_ name: String) -> String? {
        let bytes = Array(name.utf8)
        guard !bytes.isEmpty else { return "it is empty" }
        guard bytes.count <= maximumLength else { return "it has \(bytes.count) characters; PostgreSQL keeps at most \(maximumLength)" }
        for (offset, byte) in bytes.enumerated() {
            let letter = (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || byte == UInt8(ascii: "_")
            let digit = (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            guard letter || (digit && offset > 0) else {
                return offset == 0 && digit
                    ? "it starts with a digit"
                    : "character \(offset + 1) is not one of a-z, 0-9 and _ (use a lowercase name)"
            }
        }
        guard !name.hasPrefix("pg_") else { return "names starting with pg_ are reserved for PostgreSQL's own schemas" }
        return nil
    }

    /// The name double-quoted for statement text: `"onetap"`. Only for names ``problem(_:)`` accepts.
    /// - Parameter name: A valid name.
    /// - Returns: The quoted name.
    static func quoted(_ name: String) -> String {
        precondition(problem(name) == nil, "only validated identifiers are quoted")
        return "\"" + name + "\""
    }
}
