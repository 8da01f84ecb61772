/// What merging a guest's data into an account does: a value, computed from both sides' data and the
/// ``MergeRules`` before anything changes, then applied step by step (``GuestMerger`` in `OneTap`).
///
/// Every step is idempotent: a `write` sets the account's kind to its merged value (an absolute value,
/// never a delta), a `removeGuest` deletes the guest's copy. All writes come before any removal, so the
/// guest's data is deleted only after the account's copy is stored, and re-running the plan from any
/// step after a crash gives the same account data.
public struct MergePlan: Hashable, Sendable, CustomStringConvertible {
    /// One step.
    package enum Step: Hashable, Sendable, CustomStringConvertible {
        /// Set the account's data of a kind to this merged value.
        case write(kind: String, value: JSONValue)
        /// Delete the guest's data of a kind (its account copy is stored).
        case removeGuest(kind: String)

        /// `write history` / `remove-guest history`.
        package var description: String {
            switch self {
            case .write(let kind, _): "write \(kind)"
            case .removeGuest(let kind): "remove-guest \(kind)"
            }
        }
    }

    /// The steps, in order.
    package let steps: [Step]
    /// The kinds the plan writes, each with its merged value: the account's data of those kinds once the plan is
    /// applied (its other kinds stay as they are). Only these: a journal holds them, and one that held the account's
    /// every kind (an attacker's read: up to a mebibyte a kind, written at every change of the journal, kept 30 days)
    /// stored what the guest never brought. A kind the guest brings is journaled merged, the account's own items of it included.
    public let merged: [String: JSONValue]
    /// The guest's kinds with no rule, nesting deeper than ``maximumDepth`` or whose merge would be larger than
    /// ``maximumBytes``, and, in a login's merge, those whose data (the guest's or the account's) their rule cannot
    /// read, when the merge is planned or later: left in the guest's space, reported.
    public let kept: [String]
    /// For `move-unless-present` kinds, the guest's items that move to the account.
    public let moved: [String: [String]]
    /// For `move-unless-present` kinds, the guest's items deleted because the account has them.
    public let discarded: [String: [String]]

    /// `3 steps (write favourites, …), kept: notes`.
    public var description: String {
        "\(steps.count) step\(steps.count == 1 ? "" : "s") (\(steps.map(\.description).joined(separator: ", ")))"
            + (kept.isEmpty ? "" : ", kept: \(kept.joined(separator: ", "))")
    }

    /// How deep a kind's value may nest to be merged: 500 levels, so that a journal holding it (its steps and
    /// `merged`, a few levels down) reads back within the JSON reader's 512.
    package static let maximumDepth = 500

    /// How large a kind's merged value may be, in bytes of its JSON text as written: 1 MiB. A merge that would make
    /// it larger leaves the guest's kind with the guest, so repeated logins cannot grow an account's kind without
    /// bound (nor each journal holding it).
    package static let maximumBytes = 1 << 20

    /// Plans the merge of a guest's data into an account's.
    ///
    /// A guest's kind nesting deeper than ``maximumDepth`` (its own or the account's value of it), or whose merge
    /// would be larger than ``maximumBytes``, stays with the guest (`kept`); an account's kind nesting that deep
    /// holds up no other kind.
    /// - Parameters:
    ///   - guest: The guest's data by kind.
    ///   - account: The account's data by kind (empty for a first login that creates the account).
    ///   - rules: The merge rules.
    /// - Returns: The plan.
    /// - Throws: ``MergeError`` naming the kind and the side whose data does not have the shape its
    ///   rule reads (nothing is planned then).
    /// - Complexity: O(*n* log *n*) in the items of a kind (a sort for `newest-first`), O(*n*) otherwise.
    package static func plan(guest: [String: JSONValue], account: [String: JSONValue], rules: MergeRules) throws(MergeError) -> MergePlan {
        let (plan, unreadable) = planning(guest: guest, account: account, rules: rules)
        if let unreadable { throw unreadable }
        return plan
    }

    /// Plans a login's merge as ``plan(guest:account:rules:)`` does, but a kind whose data (the guest's or the
    /// account's) its rule cannot read stays with the guest (`kept`) instead of failing the whole plan: one kind in a
    /// shape its rule does not read (a guest's `favourites` of numbers, an account's `settings` in a newer shape)
    /// holds up neither the others nor every later merge into the account, as a kind that becomes unreadable while a
    /// merge is applied does not.
    /// - Parameters:
    ///   - guest: The guest's data by kind.
    ///   - account: The account's data by kind.
    ///   - rules: The merge rules.
    /// - Returns: The plan.
    /// - Complexity: As ``plan(guest:account:rules:)``.
    package static func planKeepingUnreadable(guest: [String: JSONValue], account: [String: JSONValue], rules: MergeRules) -> MergePlan {
        planning(guest: guest, account: account, rules: rules).plan
    }

    /// The plan with every kind whose data its rule cannot read kept, and the first such kind's error (in kind order).
    private static func planning(
        guest: [String: JSONValue], account: [String: JSONValue], rules: MergeRules
    ) -> (plan: MergePlan, unreadable: MergeError?) {
        var unreadable: MergeError?
        var writes: [Step] = []
        var removals: [Step] = []
        var merged: [String: JSONValue] = [:]
        var kept: [String] = []
        var moved: [String: [String]] = [:]
        var discarded: [String: [String]] = [:]
        for kind in guest.keys.sorted() {
            let guestValue = guest[kind]!
            guard let rule = rules.rule(for: kind), guestValue.depth <= maximumDepth, (account[kind]?.depth ?? 0) <= maximumDepth else {
                kept.append(kind)
                continue
            }
            let result: JSONValue
            var movedHere: [String]?, discardedHere: [String]?
            do {
                switch rule.strategy {
                case .union:
                    let mine = try strings(account[kind], kind, .account)
                    let theirs = try strings(guestValue, kind, .guest)
                    result = .array(union(mine, theirs).map(JSONValue.string))
                case .moveUnlessPresent:
                    let mine = try strings(account[kind], kind, .account)
                    let theirs = try strings(guestValue, kind, .guest)
                    let present = Set(mine)
                    var seen = Set<String>()
                    var moving: [String] = []
                    var deleting: [String] = []
                    for item in theirs where seen.insert(item).inserted {
                        if present.contains(item) { deleting.append(item) } else { moving.append(item) }
                    }
                    result = .array(union(mine, moving).map(JSONValue.string))
                    (movedHere, discardedHere) = (moving, deleting)
                case .newestFirst:
                    result = .array(try newestFirst(account[kind], guestValue, kind, cap: rule.cap ?? .max))
                case .addQuantities:
                    result = .array(try addQuantities(account[kind], guestValue, kind, cap: rule.cap ?? .max))
                case .accountWins:
                    let mine = try object(account[kind], kind, .account)
                    let theirs = try object(guestValue, kind, .guest)
                    result = .object(mine.merging(theirs) { accountValue, _ in accountValue })
                case .keepBoth:
                    let mine = try array(account[kind], kind, .account)
                    let theirs = try array(guestValue, kind, .guest)
                    result = .array(mine + theirs)
                }
            } catch {
                // Data its rule cannot read (the guest's or the account's): the kind stays with the guest, and `plan`
                // plans nothing.
                unreadable = unreadable ?? error
                kept.append(kind)
                continue
            }
            guard !result.isLonger(than: maximumBytes) else {
                kept.append(kind)
                continue
            }
            if let movedHere, let discardedHere { (moved[kind], discarded[kind]) = (movedHere, discardedHere) }
            merged[kind] = result
            writes.append(.write(kind: kind, value: result))
            removals.append(.removeGuest(kind: kind))
        }
        return (MergePlan(steps: writes + removals, merged: merged, kept: kept, moved: moved, discarded: discarded), unreadable)
    }

    // MARK: Reading each side

    private static func array(_ value: JSONValue?, _ kind: String, _ side: MergeError.Side) throws(MergeError) -> [JSONValue] {
        guard let value else { return [] }
        guard case .array(let elements) = value else { throw MergeError(kind: kind, side: side, "is not an array") }
        return elements
    }

    private static func strings(_ value: JSONValue?, _ kind: String, _ side: MergeError.Side) throws(MergeError) -> [String] {
        var out: [String] = []
        for (index, element) in try array(value, kind, side).enumerated() {
            guard case .string(let item) = element, !item.isEmpty else {
                throw MergeError(kind: kind, side: side, "element \(index + 1) is not an item id (a non-empty string)")
            }
            out.append(item)
        }
        return out
    }

    private static func object(_ value: JSONValue?, _ kind: String, _ side: MergeError.Side) throws(MergeError) -> [String: JSONValue] {
        guard let value else { return [:] }
        guard case .object(let members) = value else { throw MergeError(kind: kind, side: side, "is not an object") }
        return members
    }

    /// The account's items in order, then the guest's the account lacks, each once.
    private static func union(_ mine: [String], _ theirs: [String]) -> [String] {
        var seen = Set<String>()
        var out: [String] = []
        out.reserveCapacity(mine.count + theirs.count)
        for item in mine + theirs where seen.insert(item).inserted { out.append(item) }
        return out
    }

    private static func entry(_ element: JSONValue, _ index: Int, _ kind: String, _ side: MergeError.Side) throws(MergeError) -> (item: String, at: Date, value: JSONValue) {
        guard case .object(let members) = element, case .string(let item)? = members["item"], !item.isEmpty,
            case .string(let at)? = members["at"]
        else {
            throw MergeError(kind: kind, side: side, "entry \(index + 1) is not {\"item\": ID, \"at\": ISO 8601 time}")
        }
        do {
            return (item, try Timestamp.parse(at), element)
        } catch {
            // The kind of fault, never the value: the data may be another account's (``MergeError``'s rule).
            throw MergeError(kind: kind, side: side, "entry \(index + 1)'s at is not an ISO 8601 time (\(error.kind))")
        }
    }

    /// One entry per item (its newest), newest first (ties by item), at most `cap`.
    private static func newestFirst(_ account: JSONValue?, _ guest: JSONValue, _ kind: String, cap: Int) throws(MergeError) -> [JSONValue] {
        var newest: [String: (at: Date, value: JSONValue)] = [:]
        for (side, value) in [(MergeError.Side.account, account), (.guest, guest)] {
            for (index, element) in try array(value, kind, side).enumerated() {
                let (item, at, original) = try entry(element, index, kind, side)
                if let current = newest[item], current.at >= at { continue }
                newest[item] = (at, original)
            }
        }
        let ordered = newest.sorted { $0.value.at != $1.value.at ? $0.value.at > $1.value.at : $0.key < $1.key }
        return ordered.prefix(cap).map(\.value.value)
    }

    /// One line per item, quantities added and capped; the account's order, then the guest's new items.
    private static func addQuantities(_ account: JSONValue?, _ guest: JSONValue, _ kind: String, cap: Int) throws(MergeError) -> [JSONValue] {
        var order: [String] = []
        var quantities: [String: Int] = [:]
        var lines: [String: [String: JSONValue]] = [:]
        for (side, value) in [(MergeError.Side.account, account), (.guest, guest)] {
            for (index, element) in try array(value, kind, side).enumerated() {
                guard case .object(let members) = element, case .string(let item)? = members["item"], !item.isEmpty,
                    case .number(let qty)? = members["qty"], qty >= 1, qty <= 1_000_000, qty == qty.rounded()
                else {
                    throw MergeError(kind: kind, side: side, "line \(index + 1) is not {\"item\": ID, \"qty\": a whole number from 1 to 1000000}")
                }
                if quantities[item] == nil {
                    order.append(item)
                    lines[item] = members
                }
                quantities[item] = min(cap, quantities[item, default: 0] + Int(qty))
            }
        }
        return order.map { item in
            var members = lines[item]!
            members["qty"] = .number(Double(quantities[item]!))
            return .object(members)
        }
    }
}
