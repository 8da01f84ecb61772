// Reading the core's enumerations from JSON: a case by its raw value, matched on the bytes. Kept in the
// module of the enumerations (and of every record that reads them) so that each use is specialized:
// no array of cases, no string, no generic metadata per value read.

extension JSONReader {
    /// A string naming a case of `type` (its raw value), matched on its bytes.
    /// - Parameter type: The type.
    /// - Returns: The case.
    /// - Throws: ``JSONReadError``: a mismatch for a value that is no string, corrupt for text that names
    ///   no case.
    mutating func raw<Value: RawRepresentable<String> & CaseIterable>(_ type: Value.Type) throws(JSONReadError) -> Value {
        let text: String
        if let utf8 = try plainString() {
            for value in Value.allCases {
                var name = value.rawValue
                if name.utf8.count == utf8.count, name.withUTF8({ JSONKey.same($0, utf8) }) { return value }
            }
            text = String(decoding: utf8, as: UTF8.self)
        } else {
            text = try string()
            if let value = Value(rawValue: text) { return value }
        }
        throw corrupt("not a \(Value.self): \(QuotedInput(text))")
    }
}
