#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// An SMS code record's JSON, `onetap-sms-code/2`:
//
//     {"format":"onetap-sms-code/2","id":"4c4d36476fce4d70","number":"13800138000","digest":"326d…",
//      "session":"…","issuedAtMs":1796112000250,"expiresAtMs":1796112300250,"wrongAttempts":2}
//
// (`session` only when the code is bound to one). The form before it, what `JSONEncoder` wrote (no
// `format`; `issuedAt` and `expiresAt` as seconds since 2001-01-01), is read too: a store may hold it.

extension SMSCodeRecord: JSONRecord {
    /// A byte order mark is skipped, as `JSONDecoder` skipped it when it read this record.
    package static var skipsByteOrderMark: Bool { true }

    /// `onetap-sms-code/2`.
    static let format = "onetap-sms-code/2"

    /// The record as one line of compact JSON (`onetap-sms-code/2`): what a store keeps. It holds the
    /// code's HMAC, never the code.
    /// - Returns: The JSON text.
    /// - Throws: `EncodingError.invalidValue` for an instant that is infinite or NaN.
    public func json() throws(EncodingError) -> String {
        do {
            return try jsonText()
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
            writer.key("id")
            writer.string(id)
            writer.key("number")
            writer.string(number.digits)
            writer.key("digest")
            writer.string(digest.hex)
            if let session {
                writer.key("session")
                writer.string(session.text)
            }
            writer.key("issuedAtMs")
            try writer.instant(issuedAt)
            writer.key("expiresAtMs")
            try writer.instant(expiresAt)
            writer.key("wrongAttempts")
            writer.int(wrongAttempts)
        }
    }

    package init(reading reader: inout JSONReader) throws(JSONReadError) {
        var format: String?, id: String?, number: PhoneNumber?, digest: SHA256Digest?, session: LoginSessionID??
        var issuedAt: Date?, expiresAt: Date?, wrongAttempts: Int?
        var instants = StoredInstants(legacy: .reference)
        var members = try reader.beginObject()
        while let key = try reader.nextKey(in: &members) {
            switch key {
            case "format":
                try reader.unseen(format != nil, key)
                format = try reader.string()
            case "id":
                try reader.unseen(id != nil, key)
                id = try reader.string()
            case "number":
                try reader.unseen(number != nil, key)
                number = try reader.parsed { (text) throws(ParseError) in try PhoneNumber(text) }
            case "digest":
                try reader.unseen(digest != nil, key)
                digest = try reader.digest()
            case "session":
                try reader.unseen(session != nil, key)
                session = .some(try reader.null() ? nil : try reader.parsed { (text) throws(ParseError) in try LoginSessionID(text) })
            case "issuedAtMs", "issuedAt":
                try reader.unseen(issuedAt != nil, key)
                issuedAt = try instants.read(milliseconds: "issuedAtMs" ~= key, &reader)
            case "expiresAtMs", "expiresAt":
                try reader.unseen(expiresAt != nil, key)
                expiresAt = try instants.read(milliseconds: "expiresAtMs" ~= key, &reader)
            case "wrongAttempts":
                try reader.unseen(wrongAttempts != nil, key)
                wrongAttempts = try reader.int()
            default: break
            }
        }
        let current = try reader.storedFormat(format, Self.format, instants)
        self.init(
            id: try reader.required(id, "id"), number: try reader.required(number, "number"), digest: try reader.required(digest, "digest"),
            session: session ?? nil, issuedAt: try reader.required(issuedAt, current ? "issuedAtMs" : "issuedAt"),
            expiresAt: try reader.required(expiresAt, current ? "expiresAtMs" : "expiresAt"), wrongAttempts: try reader.required(wrongAttempts, "wrongAttempts"))
    }
}
