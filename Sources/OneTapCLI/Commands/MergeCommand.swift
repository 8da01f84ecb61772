import Foundation
import OneTap
import OneTapSupport

/// `onetap merge --guest FILE --account FILE`: a dry run of merging a guest's data into an account.
package struct MergeOptions: Hashable, Sendable {
    /// The guest's data (a JSON object keyed by kind).
    package var guestFile: String
    /// The account's data.
    package var accountFile: String
    /// Replacement merge rules.
    package var rulesFile: String?
    /// Whether to print one JSON object.
    package var json: Bool
}

/// `onetap merge --guest FILE --account FILE`: the merge plan and the account's data after it.
enum MergeCommand: CommandDescription {
    static let name = "merge"
    static let summary = "dry-run merging a guest's data into an account"
    static let help = """
        USAGE: onetap merge --guest FILE --account FILE [--rules FILE] [--json]

        A dry run of merging a guest's data into an account at login: prints the plan and the
        account's data after it; nothing is changed. The files are JSON objects keyed by kind:
          {"favourites":["a","b"],"history":[{"item":"n1","at":"2026-11-30T10:00:00Z"}],
           "cart":[{"item":"x","qty":2}],"downloads":["v1"],"settings":{"theme":"dark"},"drafts":["…"]}
        The rules (Data/merge-rules.csv, or --rules FILE): favourites union; history newest first,
        one per item, at most 1,000; cart quantities added, at most 99 per item; downloads move
        unless the account has them (then the guest's copy is deleted); settings: the account's
        value wins; drafts: both kept. A kind with no rule stays with the guest and is reported, as
        does one whose merge would pass 1 MiB or that nests deeper than 500 levels. A kind whose
        data has the wrong shape for its rule is an error here, to be fixed; a login's merge leaves
        it with the guest and merges the rest.

        JSON: {"account":{…merged…},"plan":[{"step":"write"|"remove-guest","kind":…},…],"kept":[…]}.

        EXIT STATUS: 0; 65 a file is not a JSON object or a kind's data has the wrong shape;
                     66 a file is unreadable.

        EXAMPLE: onetap merge --guest guest.json --account account.json --json
        """
    static let options: [OptionSpec] = [.flag("json"), .value("guest"), .value("account"), .value("rules")]

    static func parse(_ arguments: ParsedArguments) throws(UsageError) -> MergeOptions {
        guard let guest = arguments.value("guest"), let account = arguments.value("account") else {
            throw UsageError("merge needs --guest FILE and --account FILE (JSON objects keyed by kind)", command: name)
        }
        guard arguments.operands.isEmpty else { throw UsageError("merge takes options only; unexpected \(quoted(arguments.operands[0]))", command: name) }
        return MergeOptions(guestFile: guest, accountFile: account, rulesFile: arguments.value("rules"), json: arguments.has("json"))
    }

    /// Plans the merge and prints the merged account data and the plan; changes nothing.
    /// - Returns: 0; the failures (65 malformed data, 66 an unreadable file) are thrown.
    static func run(_ options: MergeOptions, output: OutputBuffer, io _: any CommandIO) throws(CommandFailure) -> ExitCode {
        let rules = try TableLoader(options: TableOptions()).table(MergeRules.builtIn, file: options.rulesFile)
        let guest = try read(options.guestFile, side: "guest")
        let account = try read(options.accountFile, side: "account")
        let plan: MergePlan
        do {
            plan = try MergePlan.plan(guest: guest, account: account, rules: rules)
        } catch {
            throw CommandFailure(message: "\(error)", code: .dataError)
        }
        // The account as the merge leaves it: its kinds the plan does not write (however deep) as they were.
        let after = account.merging(plan.merged) { _, merged in merged }
        var steps: [String] = []
        for step in plan.steps {
            var object = JSONObject()
            switch step {
            case .write(let kind, _):
                object.add("step", "write")
                object.add("kind", kind)
                object.add("rule", rules.rule(for: kind)?.strategy.rawValue)
                if let moved = plan.moved[kind] { object.add("moved", moved) }
                if let discarded = plan.discarded[kind] { object.add("discarded", discarded) }
            case .removeGuest(let kind):
                object.add("step", "remove-guest")
                object.add("kind", kind)
            }
            steps.append(object.json)
        }
        if options.json {
            var object = JSONObject()
            object.add("account", json: JSONValue.object(after).json)
            object.add("plan", json: "[" + steps.joined(separator: ",") + "]")
            object.add("kept", plan.kept)
            output.line(object.json)
            return .success
        }
        output.line("plan (\(plan.steps.count) step\(plan.steps.count == 1 ? "" : "s"); a dry run, nothing is changed):")
        for step in plan.steps {
            switch step {
            case .write(let kind, _):
                // Kinds and item ids are input: each shown through QuotedInput.name, so none forges a line.
                var line = "  write \(QuotedInput.name(kind)) to the account (\(rules.rule(for: kind)?.strategy.rawValue ?? "?"))"
                if let moved = plan.moved[kind], !moved.isEmpty { line += "; moves \(Self.names(moved))" }
                if let discarded = plan.discarded[kind], !discarded.isEmpty { line += "; deletes the guest's copy of \(Self.names(discarded)) (the account has it)" }
                output.line(line)
            case .removeGuest(let kind):
                output.line("  remove \(QuotedInput.name(kind)) from the guest")
            }
        }
        let noRule = plan.kept.filter { rules.rule(for: $0) == nil }, refused = plan.kept.filter { rules.rule(for: $0) != nil }
        if !noRule.isEmpty { output.line("kept with the guest (no merge rule): \(Self.names(noRule))") }
        if !refused.isEmpty { output.line("kept with the guest (too deep or too large to merge): \(Self.names(refused))") }
        output.line("account after the merge:")
        for kind in after.keys.sorted() {
            output.line("  \(QuotedInput.name(kind)): \(after[kind]!.json)")
        }
        return .success
    }

    /// Names from the input (kinds, item ids), each as ``QuotedInput/name(_:)`` shows it, comma-separated.
    private static func names(_ names: [String]) -> String {
        names.map(QuotedInput.name).joined(separator: ", ")
    }

    private static func read(_ path: String, side: String) throws(CommandFailure) -> [String: JSONValue] {
        let text: String
        do {
            text = try TableFile.read(path)
        } catch {
            throw CommandFailure(error)
        }
        let value: JSONValue
        do {
            value = try JSONValue.parse(text)
        } catch {
            throw CommandFailure(message: "\(path): the \(side)'s data is not JSON: \(RouteCommand.describe(error))", code: .dataError)
        }
        guard case .object(let members) = value else {
            throw CommandFailure(message: "\(path): the \(side)'s data must be a JSON object keyed by kind ({\"favourites\": […], …})", code: .dataError)
        }
        return members
    }
}
