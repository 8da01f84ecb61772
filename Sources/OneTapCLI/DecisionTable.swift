import OneTap

/// A decision-table file: one case per line, inputs left of `=>`, expectations right of it.
///
/// ```
/// # comment
/// route --plmn 46000 --network wifi => carrier=mobile flows=mobile,sms reason=policy
/// outcome tianyi -8994014 => action=fallback
/// ```
/// The inputs are written exactly as the `onetap route` / `onetap outcome` command lines, so a case can be
/// pasted into a shell and back. Only the expectations given are checked. This is the format of the test
/// suite's own tables and of `onetap check`.
package struct DecisionTable: Sendable {
    /// What a case runs.
    package enum Input: Hashable, Sendable {
        /// `route <snapshot options>`.
        case route(SnapshotArguments)
        /// `outcome <flow> <code>`.
        case outcome(LoginFlow, ResultCode)
        /// `simulate <simulate options>`.
        case simulate(SimulateOptions)
    }

    /// One case.
    package struct Case: Hashable, Sendable {
        /// The file it came from.
        package let file: String
        /// Its 1-based line.
        package let line: Int
        /// The line's text, trimmed.
        package let text: String
        /// What it runs.
        package let input: Input
        /// Expected values by key, in the order written.
        package let expectations: [(key: String, value: String)]

        /// Cases are equal when they come from the same file, line and text.
        package static func == (lhs: Case, rhs: Case) -> Bool {
            lhs.file == rhs.file && lhs.line == rhs.line && lhs.text == rhs.text
        }

        /// Hashes the file and line.
        package func hash(into hasher: inout Hasher) {
            hasher.combine(file)
            hasher.combine(line)
        }
    }

    /// The keys each input kind may expect.
    static let keys: [String: [String]] = [
        "route": ["carrier", "flows", "reason", "evidence", "condition"],
        "outcome": ["action", "default"],
        "simulate": ["outcome", "flow", "steps", "alerts"],
    ]

    /// The cases, in file order.
    package let cases: [Case]

    /// Reads a decision table.
    /// - Parameters:
    ///   - text: The file's text.
    ///   - file: The name used in errors.
    /// - Throws: ``TableError`` naming the file and line of a malformed case.
    package init(text: String, file: String) throws(TableError) {
        var cases: [Case] = []
        var number = 0
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            number += 1
            let line = rawLine.trimmingCharacters(in: " \t\r")
            if line.isEmpty || line.hasPrefix("#") { continue }
            cases.append(try Self.parseCase(line, file: file, line: number))
        }
        self.cases = cases
    }

    /// Loads a decision-table file.
    /// - Parameter path: The file's path.
    /// - Throws: ``TableError`` when the file is unreadable (kind `unreadable`) or malformed.
    package init(contentsOf path: String) throws(TableError) {
        try self.init(text: TableFile.read(path), file: path)
    }

    private static func parseCase(_ text: String, file: String, line: Int) throws(TableError) -> Case {
        func fail(_ message: String) -> TableError {
            TableError(file: file, line: line, kind: .invalidValue, message: message)
        }
        let tokens = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard let arrow = tokens.firstIndex(of: "=>") else {
            throw fail("a case is `<inputs> => <expectations>`; this line has no =>")
        }
        guard arrow > 0, let allowed = keys[tokens[0]] else {
            throw fail("a case starts with route, outcome or simulate, not \(quoted(tokens.first ?? ""))")
        }
        let kind = tokens[0]
        let arguments = tokens[1..<arrow]
        var expectations: [(key: String, value: String)] = []
        for token in tokens[(arrow + 1)...] {
            guard let equals = token.firstIndex(of: "="), equals != token.startIndex else {
                throw fail("expectation \(quoted(token)) is not key=value")
            }
            let key = String(token[..<equals])
            guard allowed.contains(key) else {
                throw fail("\(kind) cases expect \(allowed.joined(separator: ", ")), not \(quoted(key))")
            }
            guard !expectations.contains(where: { $0.key == key }) else { throw fail("\(key) is expected twice") }
            expectations.append((key, String(token[token.index(after: equals)...])))
        }
        guard !expectations.isEmpty else { throw fail("a case must expect something after =>") }
        let input: Input
        do {
            switch kind {
            case "route":
                let parsed = try ParsedArguments.parse(arguments, options: SnapshotArguments.specs, command: "route")
                guard parsed.operands.isEmpty, !parsed.help else { throw UsageError("route cases take snapshot options only", command: "route") }
                let snapshot = try SnapshotArguments(parsed, command: "route")
                do {
                    _ = try snapshot.snapshot()
                } catch {
                    throw fail(error.description)
                }
                input = .route(snapshot)
            case "simulate":
                let parsed = try ParsedArguments.parse(arguments, options: SimulateOptions.specs, command: "simulate")
                guard !parsed.help else { throw UsageError("simulate cases take simulate options only", command: "simulate") }
                let options = try SimulateOptions(parsed)
                do {
                    _ = try options.snapshot.snapshot()
                    for flow in LoginFlow.allCases { _ = try options.codes(flow) }
                } catch {
                    throw fail(error.description)
                }
                input = .simulate(options)
            default:
                let parsed = try ParsedArguments.parse(arguments, options: [], command: "outcome")
                guard parsed.operands.count == 2, let flow = LoginFlow(rawValue: parsed.operands[0]) else {
                    throw UsageError("outcome cases are `outcome <flow> <code>` with flow one of \(LoginFlow.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                do {
                    input = .outcome(flow, try ResultCode(parsed.operands[1]))
                } catch {
                    throw fail(error.description)
                }
            }
        } catch let error as UsageError {
            throw fail(error.message)
        } catch let error as TableError {
            throw error
        } catch {
            throw fail("\(error)")
        }
        return Case(file: file, line: line, text: text, input: input, expectations: expectations)
    }

    /// Runs one case.
    /// - Parameters:
    ///   - testCase: The case.
    ///   - engine: The engine to check.
    /// - Returns: One message per expectation that did not hold (empty when the case passed).
    package static func evaluate(_ testCase: Case, engine: LoginDecisionEngine) async -> [String] {
        var actual: [String: String] = [:]
        switch testCase.input {
        case .route(let arguments):
            guard let snapshot = try? arguments.snapshot() else { return ["the snapshot is malformed"] }
            let plan = engine.plan(for: snapshot)
            actual = [
                "carrier": plan.carrier.rawValue, "flows": plan.flows.map(\.rawValue).joined(separator: ","),
                "reason": plan.reason.rawValue, "evidence": plan.evidence.rawValue, "condition": plan.condition.description,
            ]
        case .outcome(let flow, let code):
            let outcome = engine.outcome(for: flow, code: code)
            actual = ["action": outcome.action.rawValue, "default": outcome.isDefault ? "true" : "false"]
        case .simulate(let options):
            guard let outcome = try? await SimulateCommand.simulate(options, engine: engine) else { return ["the case is malformed"] }
            actual = [
                "outcome": outcome.ending.rawValue, "flow": outcome.flow?.rawValue ?? "none",
                "steps": outcome.trace.map { "\($0.flow):\($0.result.code):\($0.action)" }.joined(separator: ","),
                "alerts": outcome.alerts.isEmpty ? "none" : outcome.alerts.map { "\($0.flow):\($0.code)" }.joined(separator: ","),
            ]
        }
        return testCase.expectations.compactMap { key, value in
            let got = actual[key] ?? ""
            return got == value ? nil : "\(key): expected \(value), got \(got)"
        }
    }
}

extension StringProtocol {
    /// The text without leading and trailing characters from `set`.
    func trimmingCharacters(in set: String) -> String {
        let scalars = Set(set.unicodeScalars)
        let view = String(self).unicodeScalars
        guard let first = view.firstIndex(where: { !scalars.contains($0) }) else { return "" }
        let last = view.lastIndex(where: { !scalars.contains($0) })!
        return String(view[first...last])
    }
}
