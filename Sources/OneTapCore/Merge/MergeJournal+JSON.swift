#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// A merge journal's JSON, `onetap-merge-journal/2`:
//
//     {"format":"onetap-merge-journal/2","guest":"Eye6…","account":"42","plan":{…},"startedAtMs":…,
//      "completed":2,"done":false,"finishedAtMs":…,"holder":"…","leaseUntilMs":…,"version":4}
//
// (`finishedAtMs`, `holder` and `leaseUntilMs` only when set). The form before it, what `JSONEncoder`
// wrote (no `format`; `startedAt`, `finishedAt` and `leaseUntil` as seconds since 2001-01-01), is read
// too: a store may hold it. The plan is the same in both (see `MergePlan+JSON.swift`).

extension MergeJournal: JSONRecord {
    /// A byte order mark is skipped, as `JSONDecoder` skipped it when it read this record.
    package static var skipsByteOrderMark: Bool { true }

    /// `onetap-merge-journal/2`.
    static let format = "onetap-merge-journal/2"

    /// The journal as one line of compact JSON (`onetap-merge-journal/2`): what a store keeps.
    /// - Returns: The JSON text.
    /// - Throws: `EncodingError.invalidValue` for an instant, or a number in the plan's data, that is
    ///   infinite or NaN.
    public func json() throws(EncodingError) -> String {
        do {
            return try jsonText(capacity: 512)
        } catch {
            throw error.encodingError
        }
    }

    /// Reads a journal from its JSON: what ``json()`` wrote, or what `JSONEncoder` wrote of it in earlier versions.
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
            writer.key("guest")
            writer.string(guest.text)
            writer.key("account")
            writer.string(account.rawValue)
            writer.key("plan")
            try plan.write(to: &writer)
            writer.key("startedAtMs")
            try writer.instant(startedAt)
            writer.key("completed")
            writer.int(completed)
            writer.key("done")
            writer.bool(done)
            if let finishedAt {
                writer.key("finishedAtMs")
                try writer.instant(finishedAt)
            }
            if let holder {
                writer.key("holder")
                writer.string(holder)
            }
            if let leaseUntil {
                writer.key("leaseUntilMs")
                try writer.instant(leaseUntil)
            }
            writer.key("version")
            writer.int(version)
        }
    }

    package init(reading reader: inout JSONReader) throws(JSONReadError) {
        var format: String?, guest: GuestID?, account: AccountID?, plan: MergePlan?, startedAt: Date?, completed: Int?, done: Bool?
        var finishedAt: Date??, holder: String??, leaseUntil: Date??, version: Int?
        var instants = StoredInstants(legacy: .reference)
        var members = try reader.beginObject()
        while let key = try reader.nextKey(in: &members) {
            switch key {
            case "format":
                try reader.unseen(format != nil, key)
                format = try reader.string()
            case "guest":
                try reader.unseen(guest != nil, key)
                guest = try reader.parsed { (text) throws(ParseError) in try GuestID(text) }
            case "account":
                try reader.unseen(account != nil, key)
                account = try reader.parsed { (text) throws(ParseError) in try AccountID(text) }
            case "plan":
                try reader.unseen(plan != nil, key)
                plan = try MergePlan(reading: &reader)
            case "startedAtMs", "startedAt":
                try reader.unseen(startedAt != nil, key)
                startedAt = try instants.read(milliseconds: "startedAtMs" ~= key, &reader)
            case "completed":
                try reader.unseen(completed != nil, key)
                completed = try reader.int()
            case "done":
                try reader.unseen(done != nil, key)
                done = try reader.bool()
            case "finishedAtMs", "finishedAt":
                try reader.unseen(finishedAt != nil, key)
                finishedAt = .some(try reader.null() ? nil : try instants.read(milliseconds: "finishedAtMs" ~= key, &reader))
            case "holder":
                try reader.unseen(holder != nil, key)
                holder = .some(try reader.null() ? nil : try reader.string())
            case "leaseUntilMs", "leaseUntil":
                try reader.unseen(leaseUntil != nil, key)
                leaseUntil = .some(try reader.null() ? nil : try instants.read(milliseconds: "leaseUntilMs" ~= key, &reader))
            case "version":
                try reader.unseen(version != nil, key)
                version = try reader.int()
            default: break
            }
        }
        let current = try reader.storedFormat(format, Self.format, instants)
        self.init(
            guest: try reader.required(guest, "guest"), account: try reader.required(account, "account"), plan: try reader.required(plan, "plan"),
            startedAt: try reader.required(startedAt, current ? "startedAtMs" : "startedAt"))
        self.completed = try reader.required(completed, "completed")
        self.done = try reader.required(done, "done")
        self.finishedAt = finishedAt ?? nil
        self.holder = holder ?? nil
        self.leaseUntil = leaseUntil ?? nil
        self.version = try reader.required(version, "version")
    }
}
