/// Moves a guest's data into the account it logged in to: plans the merge once (``MergePlan``),
/// records the plan in a ``MergeJournal``, and applies it step by step, recording each step.
///
/// - Crash-safe: a merge that stopped (a crash, a store that failed) resumes at the first step not
///   recorded; steps are idempotent, so a step applied but not recorded is applied again harmlessly.
///   The guest's data is deleted only after the account's copy is stored.
/// - Once only: a second login of the same guest finds the journal and follows its plan (waiting while
///   another applier holds the journal's lease); a merge that is done is answered from its journal.
/// - The same for a first login that creates the account (whose data is empty) and for an existing one.
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
    ///   - lease: How long an applier holds a journal before another may take over (it renews at each step).
    ///   - poll: How often a second login waits for the first to finish.
    public init(
        store: any GuestDataStore = InMemoryGuestDataStore(), rules: MergeRules = .builtIn, clock: any WallClock = SystemClock(),
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
    /// - Throws: ``MergeError`` for data whose shape its rule cannot read (nothing changed);
    ///   ``GuestMergeError`` when the guest merged into another account, or another applier held the
    ///   journal for longer than two leases; ``StoreError`` when the store fails (call again to
    ///   resume); `CancellationError`.
    public func merge(_ guest: GuestID, into account: AccountID) async throws -> MergeJournal {
        let me = LoginSessionID.random().text
        var journal: MergeJournal
        if let existing = try await store.journal(for: guest) {
            journal = existing
        } else {
            let plan = try MergePlan.plan(guest: try await store.data(of: .guest(guest)), account: try await store.data(of: .account(account)), rules: rules)
            journal = try await store.createJournal(MergeJournal(guest: guest, account: account, plan: plan, startedAt: clock.now()))
        }
        guard journal.account == account else {
            throw GuestMergeError(kind: .mergedElsewhere, guest: guest, message: "the guest's data merged into another account already")
        }
        let giveUp = clock.now().addingTimeInterval(2 * lease.seconds)
        while !journal.done {
            try Task.checkCancellation()
            let now = clock.now()
            if let holder = journal.holder, holder != me, let until = journal.leaseUntil, until > now {
                guard now < giveUp else {
                    throw GuestMergeError(kind: .busy, guest: guest, message: "another login has been merging this guest for longer than \(Int(2 * lease.seconds)) s")
                }
                try await clock.sleep(for: poll)
                journal = try await reread(guest)
                continue
            }
            // Take (or renew) the lease, then apply the next step and record it, in that order.
            var claimed = journal
            claimed.holder = me
            claimed.leaseUntil = now.addingTimeInterval(lease.seconds)
            claimed.version += 1
            guard try await store.replaceJournal(claimed, expecting: journal.version) else {
                journal = try await reread(guest)
                continue
            }
            journal = claimed
            while journal.completed < journal.plan.steps.count {
                try Task.checkCancellation()
                switch journal.plan.steps[journal.completed] {
                case .write(let kind, let value): try await store.write(value, kind: kind, of: .account(account))
                case .removeGuest(let kind): try await store.remove(kind: kind, of: .guest(guest))
                }
                var next = journal
                next.completed += 1
                next.version += 1
                let now = clock.now()
                next.leaseUntil = now.addingTimeInterval(lease.seconds)
                if next.completed == next.plan.steps.count {
                    next.done = true
                    next.finishedAt = now
                    next.holder = nil
                    next.leaseUntil = nil
                }
                guard try await store.replaceJournal(next, expecting: journal.version) else {
                    // Someone took over (our lease ran out): follow the journal as it stands.
                    journal = try await reread(guest)
                    break
                }
                journal = next
            }
        }
        return journal
    }

    private func reread(_ guest: GuestID) async throws -> MergeJournal {
        guard let journal = try await store.journal(for: guest) else {
            throw StoreError(.corrupt, message: "the merge journal of guest \(guest) disappeared")
        }
        return journal
    }
}
