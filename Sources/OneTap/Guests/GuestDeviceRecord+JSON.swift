// A device record's JSON, `onetap-guest-device/2`, for a store that keeps the record as one document:
//
//     {"format":"onetap-guest-device/2","generation":2,"account":"42","lastLogin":{…}}
//
// (`account` and `lastLogin` only when set; the hint as `LastLoginHint.json()` writes it). The form
// before it, what `JSONEncoder` wrote (no `format`, the hint's instant as seconds since 2001), is read
// too. The PostgreSQL store keeps the fields as columns, the hint as its own JSON.

extension GuestDeviceRecord: JSONRecord {
    /// A byte order mark is skipped, as `JSONDecoder` skipped it when it read this record.
    package static var skipsByteOrderMark: Bool { true }

    /// `onetap-guest-device/2`.
    static let format = "onetap-guest-device/2"

    /// The record as one line of compact JSON (`onetap-guest-device/2`).
    /// - Returns: The JSON text.
    /// - Throws: `EncodingError.invalidValue` for a hint whose instant is infinite or NaN.
    public func json() throws(EncodingError) -> String {
        do {
            return try jsonText(capacity: 192)
        } catch {
            throw error.encodingError
        }
    }

    /// Reads a record from its JSON: what ``json()`` wrote, or what `JSONEncoder` wrote of it in earlier versions.
    /// - Parameter json: The JSON text.
    /// - Throws: `DecodingError` whose coding path names the member at fault.
    public init(json: String) throws(DecodingError) {
        do {
            self = try Self.reading(json.utf8)
        } catch {
            throw error.decodingError
        }
    }

    package func write(to writer: inout JSONWriter) throws(JSONWriteError) {
        try writer.object { (writer) throws(JSONWriteError) in
            writer.key("format")
            writer.string(Self.format)
            writer.key("generation")
            writer.int(generation)
            if let account {
                writer.key("account")
                writer.string(account.rawValue)
            }
            if let lastLogin {
                writer.key("lastLogin")
                try lastLogin.write(to: &writer)
            }
        }
    }

    package init(reading reader: inout JSONReader) throws(JSONReadError) {
        var format: String?, generation: Int?, account: AccountID??, lastLogin: LastLoginHint??
        var members = try reader.beginObject()
        while let key = try reader.nextKey(in: &members) {
            switch key {
            case "format":
                try reader.unseen(format != nil, key)
                format = try reader.string()
            case "generation":
                try reader.unseen(generation != nil, key)
                generation = try reader.int()
            case "account":
                try reader.unseen(account != nil, key)
                account = .some(try reader.null() ? nil : try reader.parsed { (text) throws(ParseError) in try AccountID(text) })
            case "lastLogin":
                try reader.unseen(lastLogin != nil, key)
                lastLogin = .some(try reader.null() ? nil : try LastLoginHint(reading: &reader))
            default: break
            }
        }
        if let format, format != Self.format { throw reader.corrupt("format \(QuotedInput(format)) is not \(Self.format)", at: "format") }
        self.init()
        self.generation = try reader.required(generation, "generation")
        self.account = account ?? nil
        self.lastLogin = lastLogin ?? nil
    }
}
