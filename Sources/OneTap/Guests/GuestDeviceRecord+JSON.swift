// A device record's JSON, `onetap-guest-device/2`, for a store that keeps the record as one document:
//
//     {"format":"onetap-guest-device/2","generation":2,"account":"42","lastLogin":{…}}
//
// (`account` and `lastLogin` only when set; the hint as `LastLoginHint.json()` writes it). The form
// before it, what `JSONEncoder` wrote (no `format`, the hint's instant as seconds since 2001), is read
// too. The PostgreSQL store keeps the fields as columns, the hint as its own JSON.

extension GuestDeviceRecord: JSONStoredRecord {
    /// `onetap-guest-device/2`.
    package static let format = "onetap-guest-device/2"

    /// The record as one line of compact JSON (`onetap-guest-device/2`).
    /// - Returns: The JSON text.
    /// - Throws: `EncodingError.invalidValue` for a hint whose instant is infinite or NaN.
    public func json() throws(EncodingError) -> String { try encodedJSON(capacity: 192) }

    /// Reads a record from its JSON: what ``json()`` wrote, or what `JSONEncoder` wrote of it in earlier versions.
    /// - Parameter json: The JSON text.
    /// - Throws: `DecodingError` whose coding path names the member at fault.
    public init(json: String) throws(DecodingError) { try self.init(decoding: json.utf8) }

    package func writeMembers(to writer: inout JSONWriter) throws(JSONWriteError) {
        writer.member("generation", generation)
        writer.member("account", account?.rawValue)
        try writer.member("lastLogin", lastLogin)
    }

    /// Reads a record; it holds no instant of its own (the hint's are checked by the hint), so the
    /// format is checked alone.
    package init(reading reader: inout JSONReader) throws(JSONReadError) {
        var generation: Int?, account: AccountID??, lastLogin: LastLoginHint??
        _ = try reader.storedRecord(Self.format, legacy: .reference) { (key, reader, _) throws(JSONReadError) in
            switch key {
            case "generation": try reader.member(&generation, key)
            case "account": try reader.parsed(&account, key)
            case "lastLogin": try reader.record(&lastLogin, key)
            default: break
            }
        }
        self.init()
        self.generation = try reader.required(generation, "generation")
        self.account = account ?? nil
        self.lastLogin = lastLogin ?? nil
    }
}
