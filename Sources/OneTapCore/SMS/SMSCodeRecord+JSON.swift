// An SMS code record's JSON, `onetap-sms-code/2`:
//
//     {"format":"onetap-sms-code/2","id":"4c4d36476fce4d70","number":"13800138000","digest":"326d…",
//      "session":"…","issuedAtMs":1796112000250,"expiresAtMs":1796112300250,"wrongAttempts":2}
//
// (`session` only when the code is bound to one). The form before it, what `JSONEncoder` wrote (no
// `format`; `issuedAt` and `expiresAt` as seconds since 2001-01-01), is read too: a store may hold it.

extension SMSCodeRecord: JSONStoredRecord {
    /// `onetap-sms-code/2`.
    package static let format = "onetap-sms-code/2"

    /// The record as one line of compact JSON (`onetap-sms-code/2`): what a store keeps. It holds the
    /// code's HMAC, never the code.
    /// - Returns: The JSON text.
    /// - Throws: `EncodingError.invalidValue` for an instant that is infinite or NaN.
    public func json() throws(EncodingError) -> String { try encodedJSON() }

    /// Reads a record from its JSON: what ``json()`` wrote, or what `JSONEncoder` wrote of it in earlier versions.
    /// - Parameter json: The JSON text.
    /// - Throws: `DecodingError` whose coding path names the member at fault.
    public init(json: String) throws(DecodingError) { try self.init(decoding: json.utf8) }

    package func writeMembers(to writer: inout JSONWriter) throws(JSONWriteError) {
        writer.member("id", id)
        writer.member("number", number.digits)
        writer.member("digest", digest.hex)
        writer.member("session", session?.text)
        try writer.instant("issuedAtMs", issuedAt)
        try writer.instant("expiresAtMs", expiresAt)
        writer.member("wrongAttempts", wrongAttempts)
    }

    package init(reading reader: inout JSONReader) throws(JSONReadError) {
        var id: String?, number: PhoneNumber?, digest: SHA256Digest?, session: LoginSessionID??
        var issuedAt: Date?, expiresAt: Date?, wrongAttempts: Int?
        let current = try reader.storedRecord(Self.format, legacy: .reference) { (key, reader, instants) throws(JSONReadError) in
            switch key {
            case "id": try reader.member(&id, key)
            case "number": try reader.parsed(&number, key)
            case "digest": try reader.member(&digest, key)
            case "session": try reader.parsed(&session, key)
            case "issuedAtMs", "issuedAt": try instants.read(&issuedAt, key, "issuedAtMs", &reader)
            case "expiresAtMs", "expiresAt": try instants.read(&expiresAt, key, "expiresAtMs", &reader)
            case "wrongAttempts": try reader.member(&wrongAttempts, key)
            default: break
            }
        }
        let wrong = try reader.required(wrongAttempts, "wrongAttempts")
        // A count OneTap never writes: the tries left would be more than the rules allow, or trap when counted.
        guard wrong >= 0 else { throw reader.invalid("wrong tries count from 0, not \(wrong)").at("wrongAttempts") }
        self.init(
            id: try reader.required(id, "id"), number: try reader.required(number, "number"), digest: try reader.required(digest, "digest"),
            session: session ?? nil, issuedAt: try reader.required(issuedAt, current ? "issuedAtMs" : "issuedAt"),
            expiresAt: try reader.required(expiresAt, current ? "expiresAtMs" : "expiresAt"), wrongAttempts: wrong)
    }
}
