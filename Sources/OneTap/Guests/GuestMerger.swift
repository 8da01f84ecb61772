/// Moves a guest's data into the account it logged in to, kind by kind, each kind one atomic change of
/// the store (``GuestDataStore/merge(kind:of:expecting:into:expecting:setting:recording:over:)``), recorded in a
/// ``MergeJournal``.
///
/// - No lost updates: each kind is planned (``MergeRules``) from both sides' data as they are when it is
///   applied, and applied only if neither side nor the journal changed since it was read (compare-and-swap on the
///   three, the journal recording the kind in the same change: ``MergeJournal/applied``). A
///   change by the app meanwhile (the account written, the guest's data added to) makes that kind be
///   planned again from the data as it is now, up to four times; then the merge stops with
///   ``StoreError`` of kind `conflict`, nothing lost (every kind is with the guest or merged, whole),
///   and a later call resumes it. A kind the guest gains while the merge runs is merged too; data the
///   guest writes after its kind merged stays with the guest.
/// - Crash-safe: a merge that stopped (a crash, a store that failed) resumes with the kinds the guest
///   still has, each planned from the data as it is then, never from a plan made before the stop; its finished
///   journal reports the kinds merged before the stop too, each once (what its merges moved and discarded).
/// - Once only: a second login of the same guest finds the journal and waits while another applier holds
///   its lease, then finishes it or answers it; a merge that is done is answered from its journal.
/// - The same for a first login that creates the account (whose data is empty) and for an existing one.
/// - One kind never holds up the others: a kind whose data (the guest's or the account's) becomes
///   unreadable to its rule after the merge began (the app wrote a new shape) stays with the guest, reported
///   in the plan's ``MergePlan/kept`` beside the kinds with no rule.
public struct GuestMerger: Sendable {
    /// The merge rules.
    package let rules: MergeRules
    private let store: any GuestDataStore
    private let clock: any WallClock
    private let lease: Duration
    private let poll: Duration

    /// Creates a merger.
    /// - Parameters:
    ///   - store: The guest and account data and the journals; in memory by default.
    ///   - rules: The merge rules; `Data/merge-rules.csv` by default.
    ///   - clock: The time source (leases and waits).
    ///   - lease: How long an applier holds a journal before another may take over (renewed between kinds once half
    ///     of it has passed, so a merge that makes progress keeps it).
    ///   - poll: How often a second login waits for the first to finish.
    public init(
        store: any GuestDataStore = InMemoryStores.newGuestDataStore(), rules: MergeRules = .builtIn, clock: any WallClock = SystemClock(),
        lease: Duration = .seconds(30), poll: Duration = .milliseconds(50)
    ) {
        self.store = store
        self.rules = rules
        self.clock = clock
        self.lease = lease
        self.poll = poll
    }

    /// Merges a guest's data into an account, or finishes a merge that stopped, or answers one that is done.
    /// - Parameters:
    ///   - guest: The guest that logged in.
    ///   - account: The account it logged in to.
    /// - Returns: The finished journal: its plan says what moved, merged and stayed with the guest.
    /// - Throws: ``MergeError``: `unreadable` for data whose shape its rule cannot read when the merge begins
    ///   (nothing changed; a kind that becomes unreadable once it began stays with the guest, in the plan's
    ///   `kept`, and the other kinds merge), `merged-elsewhere` when the guest merged into another account, `busy` when another applier held
    ///   the journal for longer than two leases; ``StoreError`` when the store fails (call again to
    ///   resume); `CancellationError`.
    public func merge(_ guest: GuestID, into account: AccountID) async throws -> MergeJournal {
        try await merge(guest, into: account, waiting: true)
    }

    /// ``merge(_:into:)``, or, when `waiting` is false, `busy` at once instead of waiting while another
    /// applier holds the journal (for a merge retried on the way of a refresh, which must not wait).
    /// - Parameters:
    ///   - guest: The guest.
    ///   - account: The account.
    ///   - waiting: Whether to wait (up to two leases) for another applier.
    /// - Returns: The finished journal.
    /// - Throws: As ``merge(_:into:)``.
    package func merge(_ guest: GuestID, into account: AccountID, waiting: Bool) async throws -> MergeJournal {
        let me = LoginSessionID.random().text
        var journal: MergeJournal
        if let existing = try await store.journal(for: guest) {
            journal = existing
        } else {
            // A kind whose data its rule cannot read stays with the guest; the others merge (a review: one such kind
            // failed the whole merge at every refresh, for good).
            let plan = MergePlan.planKeepingUnreadable(
                guest: try await store.data(of: .guest(guest)), account: try await store.data(of: .account(account)), rules: rules)
            let planned = MergeJournal(guest: guest, account: account, plan: plan, startedAt: clock.now())
            if plan.steps.isEmpty {
                // Nothing to write or remove (a guest with no data, or only kinds no rule takes): done, and no
                // journal is stored (an attacker's read: every login wrote one, kept for 30 days). Unless another
                // login merged the guest meanwhile: it created its journal before it removed the guest's data.
                if let merged = try await store.journal(for: guest) {
                    journal = merged
                } else {
                    var done = planned
                    done.done = true
                    done.finishedAt = planned.startedAt
                    return done
                }
            } else {
                journal = try await store.createJournal(planned)
            }
        }
        guard journal.account == account else {
            throw MergeError(.mergedElsewhere, message: "guest \(guest)'s data merged into another account already")
        }
        let giveUp = clock.now().addingTimeInterval(waiting ? 2 * lease.seconds : 0)
        while !journal.done {
            try Task.checkCancellation()
            let now = clock.now()
            if let holder = journal.holder, holder != me, let until = journal.leaseUntil, until > now {
                guard now < giveUp else {
                    throw MergeError(
                        .busy,
                        message: waiting
                            ? "another login has been merging guest \(guest) for longer than \(Int(2 * lease.seconds)) s" : "another login is merging guest \(guest)")
                }
                try await clock.sleep(for: poll)
                journal = try await reread(guest)
                continue
            }
            // Take (or renew) the lease, merge every kind the guest has, then record the merge done.
            var claimed = journal
            claimed.holder = me
            claimed.leaseUntil = now.addingTimeInterval(lease.seconds)
            claimed.version += 1
            guard try await store.replaceJournal(claimed, expecting: journal.version) else {
                journal = try await reread(guest)
                continue
            }
            journal = claimed
            let applied: MergePlan
            do {
                applied = try await apply(&journal)
            } catch is LeaseLost {
                // Someone took over between two kinds (our lease ran out): follow the journal as it stands.
                journal = try await reread(guest)
                continue
            }
            var next = journal
            next.plan = applied
            next.applied = nil
            next.completed = applied.steps.count
            next.version += 1
            next.done = true
            next.finishedAt = clock.now()
            next.holder = nil
            next.leaseUntil = nil
            guard try await store.replaceJournal(next, expecting: journal.version) else {
                // Someone took over (our lease ran out): follow the journal as it stands.
                journal = try await reread(guest)
                continue
            }
            journal = next
        }
        return journal
    }

    /// How many times one kind is planned again when a side changed under it before the merge gives up.
    package static let attempts = 4

    /// Another applier took the journal over between two kinds.
    private struct LeaseLost: Error {}

    /// Renews the lease once half of it has passed: a merge of many kinds, or of a slow store, keeps the journal
    /// for as long as it makes progress, and no second applier joins it.
    /// - Throws: ``LeaseLost`` when another applier changed the journal since; the store's errors.
    private func renewLease(_ journal: inout MergeJournal) async throws {
        let now = clock.now()
        guard let until = journal.leaseUntil, now >= until.addingTimeInterval(-lease.seconds / 2) else { return }
        var renewed = journal
        renewed.leaseUntil = now.addingTimeInterval(lease.seconds)
        renewed.version += 1
        guard try await store.replaceJournal(renewed, expecting: journal.version) else { throw LeaseLost() }
        journal = renewed
    }

    /// Merges every kind the guest has that has a rule (kinds it gains meanwhile too), each from the
    /// data as it is, renewing the lease between kinds, and recording each kind in the journal as it merges it
    /// (``MergeJournal/applied``); returns what was applied, in this run and in the runs a stop cut short.
    private func apply(_ journal: inout MergeJournal) async throws -> MergePlan {
        let guest = journal.guest
        // A journal an earlier version left half applied: the kinds its applied steps wrote to the
        // account hold the guest's data already; only the guest's copy is left to delete.
        var legacy: [String: JSONValue] = [:]
        for step in journal.plan.steps.prefix(journal.done ? 0 : journal.completed) {
            if case .write(let kind, let value) = step { legacy[kind] = value }
        }
        var handled = Set<String>()
        // Kinds whose data became unreadable to their rule after the merge began (the app wrote a new shape):
        // each stays with the guest, reported as kept, so that it does not stop every other kind for good.
        var unreadable = Set<String>()
        var guestData = try await store.data(of: .guest(guest))
        for _ in 0..<Self.attempts {
            let kinds = guestData.keys.sorted().filter { !handled.contains($0) && rules.rule(for: $0) != nil }
            if kinds.isEmpty { break }
            for kind in kinds {
                try Task.checkCancellation()
                try await renewLease(&journal)
                handled.insert(kind)
                if let written = legacy[kind] {
                    try await removeWrittenKind(kind, written, of: &journal)
                } else {
                    do {
                        try await mergeKind(kind, of: &journal)
                    } catch let error as MergeError where error.kind == .unreadable {
                        unreadable.insert(kind)
                    }
                }
            }
            guestData = try await store.data(of: .guest(guest))
        }
        let kept = guestData.keys.filter { rules.rule(for: $0) == nil || unreadable.contains($0) }
        return MergePlan.applied(journal.applied.map { [$0] } ?? [], kept: kept)
    }

    /// Merges one kind and records it in the journal: plans it from both sides as they are, applies it if neither
    /// side nor the journal changed meanwhile, else plans again. Nothing when the guest no longer has the kind
    /// (merged by another applier).
    /// - Throws: ``LeaseLost`` when another applier changed the journal; the store's errors.
    private func mergeKind(_ kind: String, of journal: inout MergeJournal) async throws {
        let rules = self.rules
        try await applyKind(kind, of: &journal) { guestValue, accountValue throws(MergeError) in
            try MergePlan.plan(kind: kind, guest: guestValue, account: accountValue, rules: rules)
        }
    }

    /// Deletes the guest's copy of a kind an earlier version's journal wrote to the account already, recording it in
    /// the journal in the same atomic change (the account's data of the kind set to what it holds), so that a stop
    /// between the two never leaves the kind gone from the guest and missing from the journal.
    /// - Throws: As ``mergeKind(_:of:)``.
    private func removeWrittenKind(_ kind: String, _ written: JSONValue, of journal: inout MergeJournal) async throws {
        try await applyKind(kind, of: &journal) { _, accountValue throws(MergeError) in
            (MergePlan.written(kind: kind, value: written), accountValue ?? written)
        }
    }

    /// Applies one kind as `plan` says from both sides' data as they are (its plan and the account's value after it;
    /// nil for nothing to do), recording the plan in the journal in the same change, and plans again when a side
    /// changed meanwhile, up to ``attempts`` times.
    /// - Throws: ``LeaseLost`` when another applier changed the journal; ``StoreError`` of kind `conflict` when a side
    ///   changed at every attempt (nothing lost: the kind is still with the guest; merge again); what `plan` throws;
    ///   the store's errors.
    private func applyKind(
        _ kind: String, of journal: inout MergeJournal, plan: (JSONValue, JSONValue?) throws(MergeError) -> (plan: MergePlan, merged: JSONValue)?
    ) async throws {
        let guest = journal.guest, account = journal.account
        for _ in 0..<Self.attempts {
            guard let guestValue = try await store.data(of: .guest(guest))[kind] else { return }
            let accountValue = try await store.data(of: .account(account))[kind]
            guard let (planned, merged) = try plan(guestValue, accountValue) else { return }
            var recorded = journal
            recorded.record(planned, until: clock.now().addingTimeInterval(lease.seconds))
            if try await store.merge(
                kind: kind, of: guest, expecting: guestValue, into: account, expecting: accountValue, setting: merged, recording: recorded,
                over: journal.version)
            {
                journal = recorded
                return
            }
            guard try await reread(guest).version == journal.version else { throw LeaseLost() }
        }
        throw StoreError(
            .conflict, subject: .account(account),
            message: "the \(kind) of guest \(guest) or of the account changed \(Self.attempts) times while it was being merged; nothing was lost (the kind is still with the guest); merge again")
    }

    private func reread(_ guest: GuestID) async throws -> MergeJournal {
        guard let journal = try await store.journal(for: guest) else {
            throw StoreError(.corrupt, message: "the merge journal of guest \(guest) disappeared")
        }
        return journal
    }
}
