/// The record of one guest's merge into an account, kept by the guest-data store: the plan, whether it
/// is done, and who is applying it. What makes a merge once-only (a second login of the same guest finds
/// the journal and joins or answers it instead of merging again) and resumable (a restart merges the kinds
/// the guest still has, each planned from the data as it is then: each kind's merge is one atomic change
/// of the store, ``GuestDataStore/merge(kind:of:expecting:into:expecting:setting:recording:over:)`` in `OneTap`).
public struct MergeJournal: Hashable, Sendable, CustomStringConvertible {
    /// The guest whose data merges.
    public let guest: GuestID
    /// The account it merges into.
    public let account: AccountID
    /// The plan: made from the data when the merge began, then, once the merge is done, what it applied
    /// (each kind planned again from the data as it was when that kind was merged: nothing the app wrote
    /// meanwhile is overwritten).
    public package(set) var plan: MergePlan
    /// When the merge began.
    package let startedAt: Date
    /// While the merge runs, what it applied so far, kind by kind (each kind's plan recorded in the same atomic change
    /// of the store that merged it), so that a merge resumed after a stop still reports the kinds merged before it;
    /// nil before the first kind and once the merge is done (its ``plan`` holds them then).
    package var applied: MergePlan?
    /// How many steps are applied: 0 until the merge is done, then every step (a journal an earlier
    /// version left half applied may hold another count: its first `completed` steps are applied).
    package var completed: Int
    /// Whether every step is applied.
    public package(set) var done: Bool
    /// When the last step was applied (the start, for a plan with no steps); nil while the merge runs.
    package var finishedAt: Date?
    /// Who applies it now (a random id per applier), while its lease lasts.
    package var holder: String?
    /// Until when the holder's lease lasts; after it another applier takes over.
    package var leaseUntil: Date?
    /// Goes up by one at every change: stores replace a journal only at the version read (compare-and-swap).
    public package(set) var version: Int

    /// How long a finished merge's journal is kept after the merge finished, so a late login of the same guest
    /// still finds it (and merges nothing twice): 30 days. Every guest-data store removes it then.
    package static let finishedRetention: Duration = .seconds(30 * 86_400)

    /// When the merge finished, as stores keep it (its start when a done journal records no finish); nil while it
    /// runs.
    package var finished: Date? { done ? finishedAt ?? startedAt : nil }

    /// Until when a store keeps the journal: ``finishedRetention`` after ``finished``, the distant future while the
    /// merge runs.
    package var keepUntil: Date { finished.map { $0.addingTimeInterval(Self.finishedRetention.seconds) } ?? .distantFuture }

    package init(guest: GuestID, account: AccountID, plan: MergePlan, startedAt: Date) {
        self.guest = guest
        self.account = account
        self.plan = plan
        self.startedAt = startedAt
        applied = nil
        completed = 0
        done = plan.steps.isEmpty
        finishedAt = plan.steps.isEmpty ? startedAt : nil
        holder = nil
        leaseUntil = nil
        version = 1
    }

    /// Records a kind's plan among what the merge applied, renewing the lease, for the store change that merges it.
    /// - Parameters:
    ///   - kind: The plan of the kind merged (``MergePlan/plan(kind:guest:account:rules:)``).
    ///   - lease: Until when the applier holds the journal now.
    package mutating func record(_ kind: MergePlan, until lease: Date) {
        applied = (applied ?? MergePlan.applied([], kept: [])).recording(kind)
        leaseUntil = lease
        version += 1
    }

    /// `merge guest … into account 42: 3 of 8 steps`.
    public var description: String {
        "merge guest \(guest) into account \(account): \(done ? "done" : "\(completed) of \(plan.steps.count) steps")"
    }
}
