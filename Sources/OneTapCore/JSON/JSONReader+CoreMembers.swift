// The core's values as a record's members: the text types that parse themselves (their ``ParseError``
// names the fault) and the enumerations read by their raw value (``JSONReader/raw(_:)``, matched on
// the bytes), each read into its slot with the duplicate check of every member.

extension PhoneNumber: JSONParsedText {}
extension AccountID: JSONParsedText {}
extension GuestID: JSONParsedText {}
extension LoginSessionID: JSONParsedText {}
extension ResultCode: JSONParsedText {}

extension JSONReader {
    /// Reads a member naming a case of its type (its raw value) into its slot.
    /// - Parameters:
    ///   - slot: Nil until the member is read.
    ///   - key: The member's key.
    /// - Throws: ``JSONReadError``: corrupt for a member written twice or text that names no case; a
    ///   mismatch for a value that is no string.
    @inline(__always)
    mutating func raw<Value: RawRepresentable<String> & CaseIterable>(_ slot: inout Value?, _ key: JSONKey) throws(JSONReadError) {
        if slot != nil { throw duplicate(key) }
        slot = try raw(Value.self)
    }

    /// Reads a member that may be `null` (absent), naming a case of its type, into its slot.
    /// - Parameters:
    ///   - slot: Nil until the member is read; `.some(nil)` for `null`.
    ///   - key: The member's key.
    /// - Throws: ``JSONReadError``, as ``raw(_:_:)-(Value?,_)``.
    @inline(__always)
    mutating func raw<Value: RawRepresentable<String> & CaseIterable>(_ slot: inout Value??, _ key: JSONKey) throws(JSONReadError) {
        if slot != nil { throw duplicate(key) }
        slot = .some(try null() ? nil : try raw(Value.self))
    }
}
