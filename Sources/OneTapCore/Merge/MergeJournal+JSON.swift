// A merge journal's JSON, `onetap-merge-journal/2`:
//
//     {"format":"onetap-merge-journal/2","guest":"Eye6…","account":"42","plan":{…},"startedAtMs":…,
//      "applied":{…},"completed":2,"done":false,"finishedAtMs":…,"holder":"…","leaseUntilMs":…,"version":4}
//
// (`applied`, `finishedAtMs`, `holder` and `leaseUntilMs` only when set; a journal without `applied`, as versions
// before it wrote, has applied nothing it records). The form before it, what `JSONEncoder`
// wrote (no `format`; `startedAt`, `finishedAt` and `leaseUntil` as seconds since 2001-01-01), is read
// too: a store may hold it. The plan is the same in both (see `MergePlan+JSON.swift`).

extension MergeJournal: JSONStoredRecord {
    /// `onetap-merge-journal/2`.
    package static let format = "onetap-merge-journal/2"

    /// The largest version a stored journal may hold: 2^53, far above any merge's count of changes and far below
    /// `Int.max`, so that no increment of one read back can overflow.
    package static let largestVersion = 1 << 53

    /// The journal as one line of compact JSON (`onetap-merge-journal/2`): what a store keeps.
    /// - Returns: The JSON text.
    /// - Throws: `EncodingError.invalidValue` for an instant, or a number in the plan's data, that is
    ///   infinite or NaN.
    public func json() throws(EncodingError) -> String { try encodedJSON(capacity: 512) }

    /// Reads a journal from its JSON: what ``json()`` wrote, or what `JSONEncoder` wrote of it in earlier versions.
    /// - Parameter json: The JSON text.
    /// - Throws: `DecodingError` whose coding path names the member at fault.
    public init(json: String) throws(DecodingError) { try self.init(decoding: json.utf8) }

    package func writeMembers(to writer: inout JSONWriter) throws(JSONWriteError) {
        writer.member("guest", guest.text)
        writer.member("account", account.rawValue)
        try writer.member("plan", plan)
        try writer.instant("startedAtMs", startedAt)
        try writer.member("applied", applied)
        writer.member("completed", completed)
        writer.member("done", done)
        try writer.instant("finishedAtMs", finishedAt)
        writer.member("holder", holder)
        try writer.instant("leaseUntilMs", leaseUntil)
        writer.member("version", version)
    }

    package init(reading reader: inout JSONReader) throws(JSONReadError) {
        var guest: GuestID?, account: AccountID?, plan: MergePlan?, applied: MergePlan??, startedAt: Date?, completed: Int?, done: Bool?
        var finishedAt: Date??, holder: String??, leaseUntil: Date??, version: Int?
        let current = try reader.storedRecord(Self.format, legacy: .reference) { (key, reader, instants) throws(JSONReadError) in
            switch key {
            case "guest": try reader.parsed(&guest, key)
            case "account": try reader.parsed(&account, key)
            case "plan": try reader.record(&plan, key)
            case "applied": try reader.record(&applied, key)
            case "startedAtMs", "startedAt": try instants.read(&startedAt, key, "startedAtMs", &reader)
            case "completed": try reader.member(&completed, key)
            case "done": try reader.member(&done, key)
            case "finishedAtMs", "finishedAt": try instants.read(&finishedAt, key, "finishedAtMs", &reader)
            case "holder": try reader.member(&holder, key)
            case "leaseUntilMs", "leaseUntil": try instants.read(&leaseUntil, key, "leaseUntilMs", &reader)
            case "version": try reader.member(&version, key)
            default: break
            }
        }
        self.init(
            guest: try reader.required(guest, "guest"), account: try reader.required(account, "account"), plan: try reader.required(plan, "plan"),
            startedAt: try reader.required(startedAt, current ? "startedAtMs" : "startedAt"))
        let steps = try reader.required(completed, "completed")
        // Counts OneTap never writes: a resume would trap on them (a negative prefix, a version's increment).
        guard steps >= 0 else { throw reader.invalid("the steps completed count from 0, not \(steps)").at("completed") }
        self.completed = steps
        self.applied = applied ?? nil
        self.done = try reader.required(done, "done")
        self.finishedAt = finishedAt ?? nil
        self.holder = holder ?? nil
        self.leaseUntil = leaseUntil ?? nil
        let stored = try reader.required(version, "version")
        // A merge adds one per kind, its lease and its end: a version near `Int.max` would trap on an increment.
        guard stored >= 1, stored <= Self.largestVersion else {
            throw reader.invalid("a version counts from 1 to \(Self.largestVersion), not \(stored)").at("version")
        }
        self.version = stored
    }
}
