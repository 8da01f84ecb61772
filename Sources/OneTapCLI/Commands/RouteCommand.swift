import Foundation
import OneTap

/// `onetap route`: plan a login for a snapshot given as options, or for NDJSON snapshots on standard input.
package struct RouteOptions: Hashable, Sendable {
    /// The snapshot options.
    package var snapshot: SnapshotArguments
    /// Whether `-` asked to read NDJSON snapshots from standard input.
    package var readsStandardInput: Bool
    /// `--json` and the tables.
    package var common: CommonOptions
}

/// `onetap route`: the login plan for one snapshot, or for each NDJSON snapshot on standard input.
enum RouteCommand: CommandDescription {
    static let name = "route"
    static let summary = "which login flows a device should try, in order, and why"
    static let help = """
        USAGE: onetap route [--plmn P | --mcc M --mnc N | --no-sim] [--sim absent|not-ready|present]
                            [--mobile-data on|off] [--cellular-access allowed|restricted|unknown]
                            [--network wifi|cellular|both|none] [--ip ADDRESS] [--phone NUMBER] [--json]
               onetap route - [--json]          (one JSON DeviceSnapshot per line on standard input)

        Prints the resolved carrier, the flows to try in order (always ending with sms) and the
        reason. Unreported options never block one-tap. Carrier evidence: the PLMN, then an IPv6
        --ip when --network is cellular, then the --phone segment.

        JSON fields: carrier, evidence, flows, reason, condition.
        Snapshot JSON: {"sim":"present","plmn":"46000","mobileData":true,"cellularAccess":"allowed",
                        "network":"both","ip":"2409:8900::1","phone":"13800138000"}
        """
    static let options: [OptionSpec] = [.flag("json")] + SnapshotArguments.specs + TableOptions.specs

    static func parse(_ arguments: ParsedArguments) throws(UsageError) -> RouteOptions {
        let snapshot = try SnapshotArguments(arguments, command: name)
        let stdin = arguments.operands == ["-"]
        if !arguments.operands.isEmpty && !stdin {
            throw UsageError("route takes options, or - to read NDJSON snapshots; unexpected \(quoted(arguments.operands[0]))", command: name)
        }
        if stdin && !snapshot.isEmpty {
            throw UsageError("route - reads snapshots from standard input; snapshot options cannot be combined with it", command: name)
        }
        return RouteOptions(snapshot: snapshot, readsStandardInput: stdin, common: CommonOptions(arguments))
    }

    /// Prints the plan of the snapshot, or of each snapshot on standard input.
    /// - Returns: 0, or 65 when a line of standard input was malformed (its error is printed and the rest go on).
    static func run(_ options: RouteOptions, output: OutputBuffer, io: any CommandIO) throws(CommandFailure) -> ExitCode {
        let engine = try TableLoader(options: options.common.tables).engine()
        guard options.readsStandardInput else {
            let snapshot: DeviceSnapshot
            do {
                snapshot = try options.snapshot.snapshot()
            } catch {
                throw CommandFailure(error)
            }
            write(engine.plan(for: snapshot), engine: engine, json: options.common.json, output: output)
            return .success
        }
        var total = 0
        var bad = 0
        let ending = LineReader(io: io).forEachLine { bytes, number, cut in
            if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) && !cut { return true }  // blank line
            total += 1
            let problem: String
            if cut {
                problem = "line \(number) is too long to be a snapshot; it was skipped"
            } else {
                do {
                    let snapshot = try DeviceSnapshot(json: bytes)
                    write(engine.plan(for: snapshot), engine: engine, json: options.common.json, output: output, input: bytes)
                    return !output.failed
                } catch {
                    problem = "line \(number): " + describe(error)
                }
            }
            bad += 1
            if options.common.json {
                output.refusal(input: cut ? UnsafeBufferPointer(rebasing: bytes[0..<64]) : bytes, error: problem)
            } else {
                output.flush()
                io.writeError("onetap: error: \(problem)")
            }
            return !output.failed  // a closed output pipe: stop reading at once
        }
        if let failure = ending.failure(output: output, io: io) { return failure }
        if bad > 0 {
            output.flush()
            io.writeError("onetap: error: \(bad) of \(total) snapshots were malformed")
            return .dataError
        }
        return .success
    }

    /// Prints a plan; a plan for a line of standard input starts with that line as `input`, as the
    /// records of `carrier -` and `number -` do.
    static func write(_ plan: LoginPlan, engine: LoginDecisionEngine, json: Bool, output: OutputBuffer, input: UnsafeBufferPointer<UInt8>? = nil) {
        if json {
            var object = JSONObject()
            if let input { object.add("input", String(decoding: input, as: UTF8.self)) }
            object.merge(planJSON(plan))
            output.line(object.json)
        } else {
            let rule = engine.policy.rule(for: plan.condition)
            output.line("""
                carrier:  \(plan.carrier.rawValue) (\(plan.carrier.englishName), \(plan.carrier.chineseName)) from \(plan.evidence)
                flows:    \(plan.flows)
                reason:   \(plan.reason) (policy row \(plan.condition): \(rule.source))
                """)
        }
    }

    /// The JSON fields of a plan: carrier, evidence, flows, reason, condition.
    static func planJSON(_ plan: LoginPlan) -> JSONObject {
        var object = JSONObject()
        object.add("carrier", plan.carrier.rawValue)
        object.add("evidence", plan.evidence.rawValue)
        object.add("flows", plan.flows.map(\.rawValue))
        object.add("reason", plan.reason.rawValue)
        object.add("condition", plan.condition.description)
        return object
    }

    /// A one-line account of why a snapshot did not decode.
    static func describe(_ error: any Error) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.filter { !$0.stringValue.isEmpty || $0.intValue != nil }
            return keys.isEmpty ? "" : "key '\(QuotedInput.path(keys))': "
        }
        switch error {
        case DecodingError.dataCorrupted(let context):
            if context.codingPath.isEmpty {
                return "not a JSON object: \(context.underlyingError.map { "\($0)" } ?? context.debugDescription)"
            }
            return path(context) + context.debugDescription
        case DecodingError.typeMismatch(let type, let context):
            return path(context) + "expected \(type == String.self ? "a string" : type == Bool.self ? "a boolean" : "\(type)")"
                + (context.codingPath.isEmpty ? " (a snapshot is a JSON object)" : "")
        case DecodingError.keyNotFound(let key, let context):
            return "key '\(key.stringValue)' is missing: \(context.debugDescription)"
        case DecodingError.valueNotFound(_, let context):
            return path(context) + "is null"
        default:
            return "\(error)"
        }
    }
}
