import Foundation
import OneTap

/// `onetap route`: the login plan for one snapshot, or for each NDJSON snapshot on standard input.
enum RouteCommand {
    static func run(_ options: RouteOptions, output: OutputBuffer, io: any CommandIO) throws(CommandFailure) -> ExitCode {
        let engine = try TableLoader(options: options.tables).engine()
        guard options.readsStandardInput else {
            let snapshot: DeviceSnapshot
            do {
                snapshot = try options.snapshot.snapshot()
            } catch {
                throw CommandFailure(error)
            }
            write(engine.plan(for: snapshot), engine: engine, json: options.json, output: output)
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
                    write(engine.plan(for: snapshot), engine: engine, json: options.json, output: output, input: bytes)
                    return !output.failed
                } catch {
                    problem = "line \(number): " + describe(error)
                }
            }
            bad += 1
            if options.json {
                output.raw("{\"input\":")
                output.jsonString(cut ? UnsafeBufferPointer(rebasing: bytes[0..<64]) : bytes)
                output.raw(",\"error\":")
                output.jsonString(problem)
                output.raw("}\n")
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
            let keys = context.codingPath.map(\.stringValue).filter { !$0.isEmpty }
            return keys.isEmpty ? "" : "key '\(keys.joined(separator: "."))': "
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
