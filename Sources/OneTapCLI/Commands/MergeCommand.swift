import Foundation
import OneTap

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

    static let specs: [OptionSpec] = [.flag("json"), .value("guest"), .value("account"), .value("rules")]

    init(_ parsed: ParsedArguments) throws(UsageError) {
        guard let guest = parsed.value("guest"), let account = parsed.value("account") else {
            throw UsageError("merge needs --guest FILE and --account FILE (JSON objects keyed by kind)", command: "merge")
        }
        guard parsed.operands.isEmpty else { throw UsageError("merge takes options only; unexpected \(quoted(parsed.operands[0]))", command: "merge") }
        guestFile = guest
        accountFile = account
        rulesFile = parsed.value("rules")
        json = parsed.has("json")
    }
}

enum MergeCommand {
    /// Plans the merge and prints the merged account data and the plan; changes nothing.
    /// - Returns: 0; the failures (65 malformed data, 66 an unreadable file) are thrown.
    static func run(_ options: MergeOptions, output: OutputBuffer) throws(CommandFailure) -> ExitCode {
        let rules = try TableLoader(options: TableOptions()).mergeRules(file: options.rulesFile)
        let guest = try read(options.guestFile, side: "guest")
        let account = try read(options.accountFile, side: "account")
        let plan: MergePlan
        do {
            plan = try MergePlan.plan(guest: guest, account: account, rules: rules)
        } catch {
            throw CommandFailure(message: "\(error)", code: .dataError)
        }
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
            object.add("account", json: JSONValue.object(plan.merged).json)
            object.add("plan", json: "[" + steps.joined(separator: ",") + "]")
            object.add("kept", plan.kept)
            output.line(object.json)
            return .success
        }
        output.line("plan (\(plan.steps.count) step\(plan.steps.count == 1 ? "" : "s"); a dry run, nothing is changed):")
        for step in plan.steps {
            switch step {
            case .write(let kind, _):
                var line = "  write \(kind) to the account (\(rules.rule(for: kind)?.strategy.rawValue ?? "?"))"
                if let moved = plan.moved[kind], !moved.isEmpty { line += "; moves \(moved.joined(separator: ", "))" }
                if let discarded = plan.discarded[kind], !discarded.isEmpty { line += "; deletes the guest's copy of \(discarded.joined(separator: ", ")) (the account has it)" }
                output.line(line)
            case .removeGuest(let kind):
                output.line("  remove \(kind) from the guest")
            }
        }
        if !plan.kept.isEmpty {
            output.line("kept with the guest (no merge rule): \(plan.kept.joined(separator: ", "))")
        }
        output.line("account after the merge:")
        for kind in plan.merged.keys.sorted() {
            output.line("  \(kind): \(plan.merged[kind]!.json)")
        }
        return .success
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
