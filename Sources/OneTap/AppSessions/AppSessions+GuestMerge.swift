/// A login's guest-data merge that must not be forgotten: with a ``GuestMerger``, ``AppSessions`` merges
/// the former guest at the login, and a merge that failed there (the guest-data store down) is kept in the
/// session's record (``AppSessionRecord/unmergedGuest``) and retried at the session's next refresh, or by
/// ``AppSessions/mergeFormerGuest(_:)``, until one succeeds; the record then forgets it. The guest's data
/// stays with the guest meanwhile. A merge is once-only (its journal), so a retry racing another merges once.
extension AppSessions {
    /// Merges the session's pending former guest into its account, if it has one: what the next refresh
    /// does anyway, for an integrator that wants the data now (after an error at the login, say).
    /// - Parameter claims: The verified claims of the session (``authenticate(_:)``).
    /// - Returns: The merge's journal, or nil when nothing is pending (or no merger was given).
    /// - Throws: ``AppSessionError`` (`revoked`, `wrong-session`); what ``GuestMerger/merge(_:into:)``
    ///   throws (the guest stays pending; call again); ``StoreError``.
    public func mergeFormerGuest(_ claims: AccessClaims) async throws -> MergeJournal? {
        let record = try await liveRecord(claims)
        guard let merger, let guest = record.unmergedGuest, let account = record.account else { return nil }
        let journal = try await merger.merge(guest, into: account)
        try await acknowledge(guest, in: record.id)
        return journal
    }

    /// After a login or a refresh stored `record`: merges its pending guest, if any; a failure leaves it
    /// pending (the login or refresh succeeded; the next refresh tries again).
    func retryPendingMerge(_ record: AppSessionRecord) async {
        guard let merger, let guest = record.unmergedGuest, let account = record.account else { return }
        do {
            // Never waits for another applier: a login or refresh answers at once (the next one retries).
            _ = try await merger.merge(guest, into: account, waiting: false)
            try await acknowledge(guest, in: record.id)
        } catch {
            // Kept pending in the record: the next refresh or mergeFormerGuest(_:) tries again.
        }
    }

    /// Clears the session's pending guest once its merge is done (compare-and-swap, tried again when
    /// another instance changed the session meanwhile).
    private func acknowledge(_ guest: GuestID, in id: AppSessionID) async throws {
        for _ in 0..<Self.attempts {
            guard let record = try await store.load(id), record.unmergedGuest == guest else { return }
            var next = record
            next.unmergedGuest = nil
            next.version += 1
            if try await replace(next, expecting: record.version) { return }
        }
        throw StoreError(.conflict, subject: .appSession(id), message: "the session changed \(Self.attempts) times while its merged guest was being cleared; try again")
    }
}
