// A last-login hint's JSON, `onetap-last-login/2`:
//
//     {"format":"onetap-last-login/2","flow":"mobile","maskedNumber":"138****8000","atMs":1796112000125}
//
// (`maskedNumber` only when known). The form before it, what `JSONEncoder` wrote (no `format`; `at` as
// seconds since 2001-01-01), is read too: a store may hold it.

extension LastLoginHint: JSONStoredRecord {
    /// `onetap-last-login/2`.
    package static let format = "onetap-last-login/2"

    /// The hint as one line of compact JSON (`onetap-last-login/2`): what a store keeps.
    /// - Returns: The JSON text.
    /// - Throws: `EncodingError.invalidValue` for an instant that is infinite or NaN.
    public func json() throws(EncodingError) -> String { try encodedJSON(capacity: 128) }

    /// Reads a hint from its JSON: what ``json()`` wrote, or what `JSONEncoder` wrote of it in earlier versions.
    /// - Parameter json: The JSON text.
    /// - Throws: `DecodingError` whose coding path names the member at fault.
    public init(json: String) throws(DecodingError) { try self.init(decoding: json.utf8) }

    package func writeMembers(to writer: inout JSONWriter) throws(JSONWriteError) {
        writer.member("flow", flow.rawValue)
        writer.member("maskedNumber", maskedNumber)
        try writer.instant("atMs", at)
    }

    package init(reading reader: inout JSONReader) throws(JSONReadError) {
        var flow: LoginFlow?, maskedNumber: String??, at: Date?
        let current = try reader.storedRecord(Self.format, legacy: .reference) { (key, reader, instants) throws(JSONReadError) in
            switch key {
            case "flow": try reader.raw(&flow, key)
            case "maskedNumber": try reader.member(&maskedNumber, key)
            case "atMs", "at": try instants.read(&at, key, "atMs", &reader)
            default: break
            }
        }
        self.init(flow: try reader.required(flow, "flow"), maskedNumber: maskedNumber ?? nil, at: try reader.required(at, current ? "atMs" : "at"))
    }

    /// A hint as its JSON holds it.
    private init(flow: LoginFlow, maskedNumber: String?, at: Date) {
        self.flow = flow
        self.maskedNumber = maskedNumber
        self.at = at
    }
}
