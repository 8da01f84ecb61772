#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// A last-login hint's JSON, `onetap-last-login/2`:
//
//     {"format":"onetap-last-login/2","flow":"mobile","maskedNumber":"138****8000","atMs":1796112000125}
//
// (`maskedNumber` only when known). The form before it, what `JSONEncoder` wrote (no `format`; `at` as
// seconds since 2001-01-01), is read too: a store may hold it.

extension LastLoginHint: JSONRecord {
    /// A byte order mark is skipped, as `JSONDecoder` skipped it when it read this record.
    package static var skipsByteOrderMark: Bool { true }

    /// `onetap-last-login/2`.
    static let format = "onetap-last-login/2"

    /// The hint as one line of compact JSON (`onetap-last-login/2`): what a store keeps.
    /// - Returns: The JSON text.
    /// - Throws: `EncodingError.invalidValue` for an instant that is infinite or NaN.
    public func json() throws(EncodingError) -> String {
        do {
            return try jsonText(capacity: 128)
        } catch {
            throw error.encodingError
        }
    }

    /// Reads a hint from its JSON: what ``json()`` wrote, or what `JSONEncoder` wrote of it in earlier versions.
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
            writer.key("flow")
            writer.string(flow.rawValue)
            if let maskedNumber {
                writer.key("maskedNumber")
                writer.string(maskedNumber)
            }
            writer.key("atMs")
            try writer.instant(at)
        }
    }

    package init(reading reader: inout JSONReader) throws(JSONReadError) {
        var format: String?, flow: LoginFlow?, maskedNumber: String??, at: Date?
        var instants = StoredInstants(legacy: .reference)
        var members = try reader.beginObject()
        while let key = try reader.nextKey(in: &members) {
            switch key {
            case "format":
                try reader.unseen(format != nil, key)
                format = try reader.string()
            case "flow":
                try reader.unseen(flow != nil, key)
                flow = try reader.raw(LoginFlow.self)
            case "maskedNumber":
                try reader.unseen(maskedNumber != nil, key)
                maskedNumber = .some(try reader.null() ? nil : try reader.string())
            case "atMs", "at":
                try reader.unseen(at != nil, key)
                at = try instants.read(milliseconds: "atMs" ~= key, &reader)
            default: break
            }
        }
        let current = try reader.storedFormat(format, Self.format, instants)
        self.init(flow: try reader.required(flow, "flow"), maskedNumber: maskedNumber ?? nil, at: try reader.required(at, current ? "atMs" : "at"))
    }

    /// A hint as its JSON holds it.
    private init(flow: LoginFlow, maskedNumber: String?, at: Date) {
        self.flow = flow
        self.maskedNumber = maskedNumber
        self.at = at
    }
}
