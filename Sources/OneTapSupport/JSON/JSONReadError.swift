/// A key (or an array index) on the way to a value, for a `DecodingError`'s coding path.
/// `@usableFromInline` (still `package`), as a ``JSONReadError`` holds it.
@usableFromInline
package struct JSONPathKey: CodingKey, Hashable, Sendable {
    private let key: String
    /// The index, for an array's element.
    @usableFromInline package let intValue: Int?

    /// The key, or `Index 3` for an array's fourth element (as `JSONDecoder` names it).
    @usableFromInline package var stringValue: String { intValue.map { "Index \($0)" } ?? key }

    /// An object's key.
    /// - Parameter key: The key.
    package init(_ key: String) {
        self.key = key
        intValue = nil
    }

    /// An array's element.
    /// - Parameter index: Its index, from 0.
    package init(index: Int) {
        key = ""
        intValue = index
    }

    /// An object's key (`CodingKey`).
    /// - Parameter stringValue: The key.
    @usableFromInline package init?(stringValue: String) { self.init(stringValue) }

    /// An array's element (`CodingKey`).
    /// - Parameter intValue: Its index.
    @usableFromInline package init?(intValue: Int) { self.init(index: intValue) }
}

/// Why ``JSONReader`` stopped, made a `DecodingError` (``decodingError``) where the API hands it out.
///
/// The reader throws its own type because `DecodingError` is a resilient library type: every function
/// that throws it typed pays for an error of unknown size, which measured as half of the reader's time.
/// `@usableFromInline` (still `package`, outside the API) so that ``JSONReader``'s `@inlinable` members
/// may throw it.
@usableFromInline
package struct JSONReadError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    @usableFromInline
    package enum Kind: Sendable {
        /// Not JSON, or a value that makes no sense.
        case corrupt
        /// A member an object must have.
        case missing(JSONPathKey)
        /// A value of another type than expected.
        case mismatch(Expected)
        /// `null` where a value must be.
        case valueNotFound(Expected)
    }

    /// The type a value should have had.
    @usableFromInline
    package enum Expected: Sendable, CustomStringConvertible {
        /// A JSON object.
        case object
        /// A JSON array.
        case array
        /// A JSON string.
        case string
        /// A number without fraction or exponent, in `Int`'s range.
        case integer
        /// Any JSON number within `Double`'s range.
        case number
        /// `true` or `false`.
        case boolean

        /// `an object`, …, for a message.
        @usableFromInline package var description: String {
            switch self {
            case .object: "an object"
            case .array: "an array"
            case .string: "a string"
            case .integer: "an integer"
            case .number: "a number"
            case .boolean: "a boolean"
            }
        }

        /// The Swift type `JSONDecoder` names for it.
        var type: Any.Type {
            switch self {
            case .object: [String: Any].self
            case .array: [Any].self
            case .string: String.self
            case .integer: Int.self
            case .number: Double.self
            case .boolean: Bool.self
            }
        }
    }

    /// What went wrong.
    package let kind: Kind
    /// The keys to the value at fault.
    package let codingPath: [JSONPathKey]
    /// What is wrong.
    package let message: String

    package init(_ kind: Kind, _ codingPath: [JSONPathKey], _ message: String) {
        self.kind = kind
        self.codingPath = codingPath
        self.message = message
    }

    /// The same error as `JSONDecoder` would throw it.
    package var decodingError: DecodingError {
        let context = DecodingError.Context(codingPath: codingPath, debugDescription: message)
        switch kind {
        case .corrupt: return .dataCorrupted(context)
        case .missing(let key): return .keyNotFound(key, context)
        case .mismatch(let expected): return .typeMismatch(expected.type, context)
        case .valueNotFound(let expected): return .valueNotFound(expected.type, context)
        }
    }

    /// `at plan.flows: …`.
    @usableFromInline package var description: String {
        let path = QuotedInput.path(codingPath)
        return path.isEmpty ? message : "at \(path): \(message)"
    }

    /// A copy one key deeper (the member of the object just read that is at fault).
    package func at(_ key: String) -> JSONReadError { JSONReadError(kind, codingPath + [JSONPathKey(key)], message) }
}
