/// Where guests' and accounts' data live by kind (favourites, history, cart…), and the journals of
/// merges: what ``GuestMerger`` applies a ``MergePlan`` through.
///
/// OneTap ships ``InMemoryGuestDataStore``; `OneTapPostgres` ships one on PostgreSQL; an adapter for an
/// app's own database proves itself with `GuestDataStoreConformance` from `OneTapTesting`.
public protocol GuestDataStore: Sendable {
    /// Every kind of data an owner has.
    /// - Parameter owner: A guest or an account.
    /// - Returns: The data by kind (empty for an owner with none).
    /// - Throws: ``StoreError``.
    func data(of owner: Identity) async throws -> [String: JSONValue]

    /// Sets an owner's data of one kind (replacing it), whatever it holds: for data nothing else changes.
    /// To change data the app read (add a cart line to the cart it read), use
    /// ``replace(kind:of:expecting:with:)``: a merge that lands between the read and this write is overwritten.
    /// - Parameters:
    ///   - value: The data.
    ///   - kind: The kind: 1 to 64 lowercase ASCII letters, digits, hyphens and underscores
    ///     (``StoreError/check(dataKind:)``, which every store calls first).
    ///   - owner: A guest or an account.
    /// - Throws: ``StoreError`` (`invalid-kind` for a kind that is none; for a value JSON text cannot carry back, nested
    ///   deeper than 512 levels or holding infinity or NaN, `too-large` from the built-in stores: a store of its own
    ///   refuses such a value with a ``StoreError`` or reads it back unchanged); nothing is written then.
    func write(_ value: JSONValue, kind: String, of owner: Identity) async throws

    /// Deletes an owner's data of one kind (nothing happens when it has none).
    /// - Parameters:
    ///   - kind: The kind (as for ``write(_:kind:of:)``).
    ///   - owner: A guest or an account.
    /// - Throws: ``StoreError`` (`invalid-kind` for a kind that is none).
    func remove(kind: String, of owner: Identity) async throws

    /// Sets or deletes an owner's data of one kind only if it still holds what the caller read
    /// (compare-and-swap): how the app changes data it read, so that a merge landing between its read and its
    /// write is never overwritten. On false, read again and redo the change from what is there.
    /// - Parameters:
    ///   - kind: The kind (as for ``write(_:kind:of:)``).
    ///   - owner: A guest or an account.
    ///   - current: The owner's data of the kind as the caller read it; nil when it had none.
    ///   - value: The new data; nil deletes the kind.
    /// - Returns: False when the owner's data of the kind is no longer `current`, compared as JSON text byte for byte
    ///   (``JSONValue/json``'s UTF-8, as a database compares its text; not `==`, which takes `é` and `e` with a combining
    ///   accent for one string; nothing was written).
    /// - Throws: ``StoreError`` (`invalid-kind` for a kind that is none, `too-large` for a value as ``write(_:kind:of:)``
    ///   refuses); nothing is written then.
    func replace(kind: String, of owner: Identity, expecting current: JSONValue?, with value: JSONValue?) async throws -> Bool

    /// Merges one kind of a guest's data into an account and records it in the guest's journal, as one atomic
    /// change: when the guest's data of the kind is still `guestValue`, the account's is still `accountValue` and the
    /// guest's journal is still at `version`, sets the account's to `merged`, deletes the guest's and replaces the
    /// journal with `journal`; otherwise changes nothing (compare-and-swap on the three, so a value the app wrote after
    /// the merger read it is neither overwritten nor deleted unmerged, and a merge that stops between two kinds never
    /// leaves a kind merged that its journal does not record).
    /// - Parameters:
    ///   - kind: The kind (as for ``write(_:kind:of:)``).
    ///   - guest: The guest.
    ///   - guestValue: The guest's data of the kind, as the merger read it.
    ///   - account: The account.
    ///   - accountValue: The account's data of the kind, as the merger read it; nil when it had none.
    ///   - merged: The account's data of the kind after the merge.
    ///   - journal: The guest's journal after the merge of the kind (as for ``replaceJournal(_:expecting:)``).
    ///   - version: The journal's version the merger read.
    /// - Returns: False when a side or the journal no longer holds what the merger read (nothing was written).
    /// - Throws: ``StoreError`` (`invalid-kind` for a kind that is none); nothing is written then.
    func merge(
        kind: String, of guest: GuestID, expecting guestValue: JSONValue, into account: AccountID, expecting accountValue: JSONValue?,
        setting merged: JSONValue, recording journal: MergeJournal, over version: Int
    ) async throws -> Bool

    /// The journal of a guest's merge.
    /// - Parameter guest: The guest.
    /// - Returns: The journal, or nil when the guest never began one.
    /// - Throws: ``StoreError``.
    func journal(for guest: GuestID) async throws -> MergeJournal?

    /// Stores a new journal, unless the guest has one already; either way, returns the stored one (the
    /// first of two racing merges wins, and the second follows its plan).
    /// - Parameter journal: The new journal (version 1).
    /// - Returns: The journal stored for the guest.
    /// - Throws: ``StoreError``.
    func createJournal(_ journal: MergeJournal) async throws -> MergeJournal

    /// Replaces a guest's journal if it is still at `version` (compare-and-swap).
    /// - Parameters:
    ///   - journal: The journal after a change (its version one more).
    ///   - version: The version the change was made from.
    /// - Returns: False when the stored journal is at another version (someone else changed it).
    /// - Throws: ``StoreError``.
    func replaceJournal(_ journal: MergeJournal, expecting version: Int) async throws -> Bool
}

extension StoreError {
    /// Refuses a text that is not a data kind: what every ``GuestDataStore``'s `write`, `remove` and
    /// `replace` check first, so every store holds the same kinds (ASCII only, so no store can tell apart
    /// two kinds another takes for one, and every kind fits a database index). The rule is the merge
    /// rules' (the kinds of `Data/merge-rules.csv`).
    /// - Parameter kind: The kind.
    /// - Throws: ``StoreError`` of kind `invalid-kind`, naming the kind (quoted and escaped) and the rule.
    public static func check(dataKind kind: String) throws(StoreError) {
        if let problem = MergeRules.problem(kind) { throw StoreError(.invalidKind, message: problem + "; nothing was written") }
    }

    /// Checks that a guest-data value reads back as written, before a built-in store writes it: one a store wrote and
    /// could not read again would make every later read of its owner fail, each of its kinds lost with it.
    /// - Parameters:
    ///   - value: The value.
    ///   - kind: Its kind, for the message.
    /// - Throws: ``StoreError`` of kind `too-large` when the value is nested deeper than 512 levels or holds a number
    ///   JSON has no text for (infinity, NaN).
    package static func check(dataValue value: JSONValue, kind: String) throws(StoreError) {
        if let problem = value.unreadableAsJSON { throw StoreError(.tooLarge, message: "the \(QuotedInput(kind)) value cannot be stored: \(problem); nothing was written") }
    }

    /// What a built-in store checks first in a write, a replace or a merge: ``check(dataKind:)`` and
    /// ``check(dataValue:kind:)``.
    /// - Parameters:
    ///   - kind: The kind.
    ///   - value: The value to write, if any (nil deletes).
    /// - Throws: ``StoreError`` of kind `invalid-kind` or `too-large`.
    package static func check(dataKind kind: String, value: JSONValue?) throws(StoreError) {
        try check(dataKind: kind)
        if let value { try check(dataValue: value, kind: kind) }
    }
}
