// What a merge applied, kind by kind: each kind is planned (``MergePlan/plan(guest:account:rules:)``) from
// the data as it is when that kind is applied, so a journal that is done reports the plans of its kinds
// put together, not the plan made when the merge began.

extension MergePlan {
    /// The plan of one kind's merge: its merged value, when its rule applies.
    /// - Parameters:
    ///   - kind: The kind.
    ///   - guest: The guest's data of the kind.
    ///   - account: The account's data of the kind; nil when it has none.
    ///   - rules: The merge rules.
    /// - Returns: The kind's plan and its merged value, or nil when the kind has no rule (it stays with the guest).
    /// - Throws: ``MergeError`` `unreadable` for data whose shape the kind's rule cannot read, that nests deeper
    ///   than ``maximumDepth`` (on either side), or whose merge would be larger than ``maximumBytes`` (it stays with
    ///   the guest, reported as kept).
    package static func plan(kind: String, guest: JSONValue, account: JSONValue?, rules: MergeRules) throws(MergeError) -> (plan: MergePlan, merged: JSONValue)? {
        guard rules.rule(for: kind) != nil else { return nil }
        let plan = try MergePlan.plan(guest: [kind: guest], account: account.map { [kind: $0] } ?? [:], rules: rules)
        guard let merged = plan.merged[kind], plan.kept.isEmpty else {
            throw MergeError(kind: kind, side: .guest, "nests deeper than \(maximumDepth) levels, or its merge would be larger than \(maximumBytes) bytes")
        }
        return (plan, merged)
    }

    /// The plans of kinds applied one by one, as one plan: every write, then every removal, in kind order, and the
    /// values they wrote.
    /// - Parameters:
    ///   - kinds: Each applied kind's plan (``plan(kind:guest:account:rules:)``).
    ///   - kept: The guest's kinds left with the guest: with no rule, or unreadable when applied.
    /// - Returns: The plan.
    package static func applied(_ kinds: [MergePlan], kept: [String]) -> MergePlan {
        var writes: [Step] = [], removals: [Step] = []
        var merged: [String: JSONValue] = [:]
        var moved: [String: [String]] = [:], discarded: [String: [String]] = [:]
        for plan in kinds {
            for step in plan.steps {
                if case .write = step { writes.append(step) } else { removals.append(step) }
            }
            merged.merge(plan.merged) { _, new in new }
            moved.merge(plan.moved) { _, new in new }
            discarded.merge(plan.discarded) { _, new in new }
        }
        return MergePlan(steps: writes + removals, merged: merged, kept: kept.sorted(), moved: moved, discarded: discarded)
    }

    /// What a merge applied so far with one more kind's plan (``MergeJournal/applied``): one entry per kind, so a
    /// journal holds each kind once however often its merge stops. A kind merged again (the merge stopped, and the guest
    /// wrote the kind anew before it resumed) keeps what its earlier merge moved and discarded beside what this one does
    /// (an attacker's read: the later merge's lists replaced the earlier's, and a file moved before the stop was never
    /// named again); its write is this one's, whose value holds the earlier's.
    /// - Parameter kind: The kind's plan (``plan(kind:guest:account:rules:)``, or ``written(kind:value:)``).
    /// - Returns: The plan of every kind applied so far, `kept` as it was.
    /// - Complexity: O(*n*) in the steps and items of both plans.
    package func recording(_ kind: MergePlan) -> MergePlan {
        let kinds = Set(kind.merged.keys)
        var writes: [Step] = [], removals: [Step] = []
        for step in steps {
            switch step {
            case .write(let name, _) where !kinds.contains(name): writes.append(step)
            case .removeGuest(let name) where !kinds.contains(name): removals.append(step)
            default: break
            }
        }
        for step in kind.steps {
            if case .write = step { writes.append(step) } else { removals.append(step) }
        }
        func joined(_ earlier: [String: [String]], _ later: [String: [String]]) -> [String: [String]] {
            earlier.merging(later) { earlier, later in
                let seen = Set(earlier)
                return earlier + later.filter { !seen.contains($0) }
            }
        }
        return MergePlan(
            steps: writes + removals, merged: merged.merging(kind.merged) { _, new in new }, kept: kept, moved: joined(moved, kind.moved),
            discarded: joined(discarded, kind.discarded))
    }

    /// The plan of a kind whose merged value an earlier version's journal wrote to the account already:
    /// the write, and the removal of the guest's copy.
    /// - Parameters:
    ///   - kind: The kind.
    ///   - value: The value written.
    /// - Returns: The kind's plan.
    package static func written(kind: String, value: JSONValue) -> MergePlan {
        MergePlan(steps: [.write(kind: kind, value: value), .removeGuest(kind: kind)], merged: [kind: value], kept: [], moved: [:], discarded: [:])
    }
}
