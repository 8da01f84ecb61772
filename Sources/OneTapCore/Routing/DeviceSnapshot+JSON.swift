// A device snapshot's JSON, as the app sends it (see ``DeviceSnapshot``): read member by member, every
// member optional, unknown members skipped so that newer clients can send more.

extension DeviceSnapshot: JSONRecord {
    /// A byte order mark is skipped, as `JSONDecoder` skipped it when it read this record.
    package static var skipsByteOrderMark: Bool { true }

    /// Reads the snapshot an app sent, as UTF-8 bytes (a request body's `Data`, a `[UInt8]`, a
    /// string's `utf8`).
    ///
    /// ```swift
    /// let snapshot = try DeviceSnapshot(json: #"{"sim":"present","plmn":"46000","network":"both"}"#.utf8)
    /// ```
    /// - Parameter json: The bytes.
    /// - Throws: `DecodingError` naming the key: `typeMismatch` for a value of the wrong type,
    ///   `dataCorrupted` for an unknown enum value or a malformed PLMN, address or number (with the
    ///   ``ParseError``'s description), `keyNotFound` for an `mcc` without its `mnc` (or the other way
    ///   round); `dataCorrupted` with an empty coding path for text that is no JSON object.
    /// - Complexity: O(*n*) in the number of bytes.
    public init(json: some Collection<UInt8>) throws(DecodingError) { try self.init(decoding: json) }

    /// Reads the snapshot an app sent, as JSON text (the package's tests and tools; a server hands
    /// the request body's bytes to the public initialiser above).
    /// - Parameter json: The JSON text.
    /// - Throws: `DecodingError`, as the bytes' initialiser.
    /// - Complexity: O(*n*) in the length of the text.
    package init(json: String) throws(DecodingError) { try self.init(decoding: json.utf8) }

    /// Writes the JSON form described on ``DeviceSnapshot`` (`plmn` hyphenated, `"460-00"`; absent
    /// fields left out).
    package func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writer.member("sim", sim?.rawValue)
            writer.member("plmn", plmn?.description)
            writer.member("mobileData", mobileData)
            writer.member("cellularAccess", cellularAccess?.rawValue)
            writer.member("network", network?.rawValue)
            writer.member("ip", clientIP?.description)
            writer.member("phone", phoneHint?.digits)
            writer.member("platform", platform?.rawValue)
        }
    }

    package init(reading reader: inout JSONReader) throws(JSONReadError) {
        self.init()
        // Seen members; a key written twice is refused. `plmn` counts as given even when `null`.
        var seen = Seen()
        var mcc: String?, mnc: String?, plmnText: String?
        try reader.members { (key, reader) throws(JSONReadError) in
            switch key {
            case "sim":
                try seen.first(.sim, key, reader)
                sim = try Self.value(&reader)
            case "cellularAccess":
                try seen.first(.cellularAccess, key, reader)
                cellularAccess = try Self.value(&reader)
            case "network":
                try seen.first(.network, key, reader)
                network = try Self.value(&reader)
            case "mobileData":
                try seen.first(.mobileData, key, reader)
                if try reader.null() { break }
                if try reader.peek() == .bool {
                    mobileData = try reader.bool()
                } else {
                    switch try reader.string() {
                    case "on": mobileData = true
                    case "off": mobileData = false
                    case let text: throw reader.invalid("expected true, false, \"on\" or \"off\", found \(QuotedInput(text))")
                    }
                }
            case "plmn":
                try seen.first(.plmn, key, reader)
                plmnText = try reader.null() ? nil : try reader.string()
            case "mcc":
                try seen.first(.mcc, key, reader)
                mcc = try reader.null() ? nil : try reader.string()
            case "mnc":
                try seen.first(.mnc, key, reader)
                mnc = try reader.null() ? nil : try reader.string()
            case "ip":
                try seen.first(.ip, key, reader)
                clientIP = try reader.null() ? nil : try reader.parsed { (text) throws(ParseError) in try IPAddress(text) }
            case "phone":
                try seen.first(.phone, key, reader)
                phoneHint = try reader.null() ? nil : try reader.parsed { (text) throws(ParseError) in try PhoneNumber(text) }
            case "platform":
                try seen.first(.platform, key, reader)
                platform = try reader.null() ? nil : try reader.parsed { (text) throws(ParseError) in try Platform(text) }
            default: break
            }
        }
        if seen.contains(.plmn), mcc != nil || mnc != nil {
            throw reader.invalid("give either plmn or mcc and mnc, not both").at("plmn")
        }
        if plmnText == nil, (mcc == nil) != (mnc == nil) {
            let absent = JSONPathKey(mcc == nil ? "mcc" : "mnc")
            throw JSONReadError(.missing(absent), reader.missing("mcc").codingPath, "mcc and mnc come together")
        }
        do throws(ParseError) {
            if let plmnText {
                plmn = try PLMN(plmnText)
            } else if let mcc, let mnc {
                plmn = try PLMN(mcc: mcc, mnc: mnc)
            }
        } catch where error.kind == .empty || error.kind == .placeholder {
            plmn = nil  // the platform did not say: no evidence
        } catch {
            let key = seen.contains(.plmn) ? "plmn" : error.subject == .mnc ? "mnc" : "mcc"
            throw reader.invalid(error.description).at(key)
        }
    }

    /// A raw-value enum's case, or nil for `null`.
    private static func value<Value: RawRepresentable<String> & CaseIterable>(_ reader: inout JSONReader) throws(JSONReadError) -> Value? {
        if try reader.null() { return nil }
        let text = try reader.string()
        guard let value = Value(rawValue: text) else {
            throw reader.invalid("\(QuotedInput(text)) is none of \(Value.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return value
    }

    /// The members read so far.
    private struct Seen: OptionSet {
        let rawValue: UInt16
        static let sim = Seen(rawValue: 1 << 0), cellularAccess = Seen(rawValue: 1 << 1), network = Seen(rawValue: 1 << 2)
        static let mobileData = Seen(rawValue: 1 << 3), plmn = Seen(rawValue: 1 << 4), mcc = Seen(rawValue: 1 << 5), mnc = Seen(rawValue: 1 << 6)
        static let ip = Seen(rawValue: 1 << 7), phone = Seen(rawValue: 1 << 8), platform = Seen(rawValue: 1 << 9)

        /// Marks a member read, refusing it the second time.
        mutating func first(_ member: Seen, _ key: JSONKey, _ reader: JSONReader) throws(JSONReadError) {
            guard insert(member).inserted else { throw reader.duplicate(key) }
        }
    }
}
