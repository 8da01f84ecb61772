import OneTap

// A transcript line's report members, read by the package's one JSON reader: every member optional,
// `null` as absent, other members (the snapshot's, on the first line) skipped.

extension Transcript.Line {
    static var skipsByteOrderMark: Bool { true }

    init(reading reader: inout JSONReader) throws(JSONReadError) {
        self.init()
        // Every member optional and `null` as absent; a member written twice is refused, as in every other JSON input
        // (kept last, a line replayed as something else than what its first reader saw).
        func text(_ reader: inout JSONReader) throws(JSONReadError) -> String? { try reader.null() ? nil : try reader.string() }
        func flag(_ reader: inout JSONReader) throws(JSONReadError) -> Bool? { try reader.null() ? nil : try reader.bool() }
        var seen: Set<String> = []
        try reader.members { (key, reader) throws(JSONReadError) in
            guard seen.insert(key.text).inserted else { throw reader.duplicate(key) }
            switch key {
            case "at": at = try text(&reader)
            case "version": version = try reader.null() ? nil : try reader.int()
            case "flow": flow = try text(&reader)
            case "code": code = try text(&reader)
            case "token": token = try text(&reader)
            case "uniqueId": uniqueId = try text(&reader)
            case "refreshToken": refreshToken = try text(&reader)
            case "expiresIn": expiresIn = try reader.null() ? nil : try ExpiresIn(reading: &reader)
            case "timeout": timeout = try flag(&reader)
            case "fault": fault = try text(&reader)
            case "switch": self.switch = try flag(&reader)
            case "cancel": cancel = try flag(&reader)
            case "verified": verified = try flag(&reader)
            case "phone": phone = try text(&reader)
            case "exchange": exchange = try text(&reader)
            default: break
            }
        }
    }
}
