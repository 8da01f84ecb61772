/// A login's guest-data merge that must not be forgotten: with a ``GuestMerger``, ``AppSessions`` merges
/// the former guest at the login, and a merge that failed there (the guest-data store down) is kept in the
/// session's record (``AppSessionRecord/pendingMerge``, with the account that login was to) and retried at the
/// session's next refresh, by ``AppSessions/mergeFormerGuest(_:)``, or by the background ``AppSessions/run(every:)``
/// (a session no call of its own comes back to), until one succeeds; the record then forgets
/// it. The guest's data stays with the guest meanwhile, and goes only to that login's account, even when the session
/// has logged in to another since. A merge is once-only (its journal), so a retry racing another merges once.
extension AppSessions {
    /// Merges the session's pending former guest into the account its login was to, if it has one: what the next refresh
    /// does anyway, for an integrator that wants the data now (after an error at the login, say).
    /// - Parameter claims: The verified claims of the session (``authenticate(_:)``).
    /// - Returns: The merge's journal, or nil when nothing is pending (or no merger was given). Nil too when the
    ///   merge went into another account than the session's (it logged in to a second account since): that
    ///   journal's plan holds the other account's data, which is not the caller's to see.
    /// - Throws: ``AppSessionError`` (`revoked`, `wrong-session`); what ``GuestMerger/merge(_:into:)``
    ///   throws (the guest stays pending; call again); ``StoreError``.
    public func mergeFormerGuest(_ claims: AccessClaims) async throws -> MergeJournal? {
        let record = try await liveRecord(claims)
        guard let merger, let pending = record.pendingMerge else { return nil }
        let journal = try await merger.merge(pending.guest, into: pending.account)
        try await acknowledge(pending, in: record.id, merged: journal)
        return pending.account == record.account ? journal : nil
    }

    /// ``retryPendingMerge(_:)`` run to its end whatever becomes of the caller (a login's: a caller gone after the
    /// session moved never gets the credentials that would try it again).
    /// - Parameter record: The session as stored.
    func mergeDespiteCancellation(_ record: AppSessionRecord) async {
        guard merger != nil, record.pendingMerge != nil else { return }
        do {
            _ = try await writeDespiteCancellation { await self.retryPendingMerge(record) }
        } catch {
            // retryPendingMerge throws nothing: a failed merge stays pending in the record.
        }
    }

    /// Whether the store holds `record` as it is (read after a write whose answer was lost, whatever becomes of the
    /// caller meanwhile); false when it cannot be read either. A record written elsewhere is never equal to it: each
    /// login draws its family's seed.
    /// - Parameter record: The record the write meant to store.
    func isStored(_ record: AppSessionRecord) async -> Bool {
        let store = self.store, id = record.id
        return await readsBack(record) { try await store.load(id) }
    }

    /// Merges the pending guest of `record` as it is stored (a login once it moved the session, a refresh before it
    /// rotates, a logout or a revocation before it ends the session, a refresh token presented after it expired, the
    /// background's ``run(every:)``), if any, and clears it from the record; a failure leaves it pending (the next
    /// refresh or round tries again).
    /// - Parameter record: The session as stored.
    /// - Returns: Whether this call cleared it.
    @discardableResult
    func retryPendingMerge(_ record: AppSessionRecord) async -> Bool {
        do {
            return try await finishPendingMerge(record)
        } catch {
            // Kept pending in the record: the next refresh, round or mergeFormerGuest(_:) tries again.
            return false
        }
    }

    /// ``retryPendingMerge(_:)``, telling why it failed.
    /// - Parameter record: The session as stored.
    /// - Returns: Whether this call cleared it (false with nothing pending, no merger, or another call first).
    /// - Throws: What the merge throws (`busy` when another applier holds its journal: never waited for, so a login or
    ///   refresh answers at once), or ``StoreError``; the merge stays pending.
    func finishPendingMerge(_ record: AppSessionRecord) async throws -> Bool {
        guard let merger, let pending = record.pendingMerge else { return false }
        let journal = try await merger.merge(pending.guest, into: pending.account, waiting: false)
        return try await acknowledge(pending, in: record.id, merged: journal)
    }

    /// Clears the session's pending guest once its merge is done (compare-and-swap, tried again when
    /// another instance changed the session meanwhile). The caller that clears it tells the kinds the merge left
    /// with the guest, if any (a `merge-kept` event), so that they are told once.
    /// - Returns: Whether this call cleared it (false when another did first).
    @discardableResult
    private func acknowledge(_ pending: AppSessionRecord.PendingMerge, in id: AppSessionID, merged journal: MergeJournal) async throws -> Bool {
        for _ in 0..<Self.attempts {
            guard let record = try await store.load(id), record.pendingMerge == pending else { return false }
            if try await replace(rules.merged(record), expecting: record.version) {
                if !journal.plan.kept.isEmpty { emit(.mergeKept(id, pending.account, kinds: journal.plan.kept), at: clock.now()) }
                return true
            }
        }
        throw StoreError(.conflict, subject: .appSession(id), message: "the session changed \(Self.attempts) times while its merged guest was being cleared; try again")
    }
}
