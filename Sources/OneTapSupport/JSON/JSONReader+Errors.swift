// The errors a `JSONReader` makes: each names the coding path to the value at fault, and never quotes
// the value itself.

extension JSONReader {
    /// A `JSONReadError` (corrupt) at the value being read.
    /// - Parameter reason: What is wrong, without quoting the value.
    /// - Returns: The error.
    @usableFromInline
    package func corrupt(_ reason: String) -> JSONReadError { corrupt(reason, atByte: index) }

    /// A `JSONReadError` (corrupt) at a byte of the value being read.
    /// - Parameters:
    ///   - reason: What is wrong, without quoting the value.
    ///   - position: The offset of the byte at fault.
    /// - Returns: The error.
    @usableFromInline
    func corrupt(_ reason: String, atByte position: Int) -> JSONReadError {
        JSONReadError(.corrupt, codingPath, "\(reason) (at byte \(position))")
    }

    /// A `JSONReadError` (corrupt) for a value that reads but makes no sense (`invalid PLMN "4600a": …`):
    /// the message alone, without the byte position ``corrupt(_:)`` adds.
    /// - Parameter reason: What is wrong.
    /// - Returns: The error.
    @usableFromInline
    package func invalid(_ reason: String) -> JSONReadError {
        JSONReadError(.corrupt, codingPath, reason)
    }

    /// A `DecodingError.keyNotFound` for a member an object must have.
    /// - Parameter key: The key.
    /// - Returns: The error.
    @usableFromInline
    package func missing(_ key: StaticString) -> JSONReadError {
        JSONReadError(.missing(JSONPathKey(key.description)), codingPath, "no value for \(key)")
    }

    /// A `JSONReadError` (corrupt) for a key written twice in one object.
    /// - Parameter key: The key.
    /// - Returns: The error.
    @usableFromInline
    package func duplicate(_ key: JSONKey) -> JSONReadError {
        corrupt("\(QuotedInput(key.text)) appears twice in one object")
    }

    /// A value of another type than expected: `valueNotFound` for a `null` (as `JSONDecoder` says it),
    /// or, when what is here is no JSON value at all, that.
    @usableFromInline
    func mismatch(_ expected: JSONReadError.Expected) -> JSONReadError {
        if let problem = notAValue { return corrupt(problem) }
        guard let kind = Self.kind(startedBy: bytes[index]) else { return corrupt("not JSON: no value starts here") }
        if kind == .null { return JSONReadError(.valueNotFound(expected), codingPath, "expected \(expected), found null") }
        return JSONReadError(.mismatch(expected), codingPath, "expected \(expected), found \(kind)")
    }

    /// Why no JSON value starts here, or nil when one does (checked as far as a literal goes).
    private var notAValue: String? {
        guard index < bytes.count else { return "the input ends where a value should be" }
        guard let kind = Self.kind(startedBy: bytes[index]) else { return "not JSON: no value starts here" }
        let word: StaticString
        switch kind {
        case .null: word = "null"
        case .bool: word = bytes[index] == UInt8(ascii: "t") ? "true" : "false"
        default: return nil
        }
        return startsWith(word) ? nil : "not JSON: expected \(word)"
    }

    @inlinable
    func startsWith(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        return index + count <= bytes.count && JSONKey.same(UnsafeBufferPointer(rebasing: bytes[index..<(index + count)]), UnsafeBufferPointer(start: word.utf8Start, count: count))
    }
}
