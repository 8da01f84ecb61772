import OneTap

/// `onetap check FILE...`.
package struct CheckOptions: Hashable, Sendable {
    /// The decision-table files.
    package var files: [String]
    /// `--json` (one JSON record per case, NDJSON, and a summary object) and the tables to check against.
    package var common: CommonOptions
}

/// `onetap check FILE...`: runs decision tables (and `.transcript` files) against the engine.
enum CheckCommand: CommandDescription {
    static let name = "check"
    static let summary = "run decision-table files against the engine"
    static let help = """
        USAGE: onetap check FILE... [--data DIR] [--policy FILE] [--json]

        Runs decision-table files against the engine and prints each failing case with expected
        and actual, then "N passed, M failed". Exit 1 if any case failed (a line that cannot run
        fails as its case, file and line named), 65 for a file with no case, not UTF-8 or over 64
        MiB (or a bad --data table), 66 for an unreadable file. A line that does not start with route,
        outcome or simulate fails by its file and line alone: its text is not printed (a file
        that is no table, a key or an .env, must not reach a CI log). In a .transcript, a line
        that is neither a snapshot nor a report fails by its line the same way, wherever it stands.

        One case per line; # starts a comment. Left of => the inputs, right of it the
        expectations (only those given are checked):
          route --plmn 46000 --network wifi => carrier=mobile flows=mobile,sms reason=policy
          route --no-sim => flows=sms reason=no-sim
          outcome tianyi -8994014 => action=fallback
          simulate --plmn 46000 --mobile 200023,103000 => outcome=success steps=mobile:200023:retry,mobile:103000:success
        route expects carrier, flows, reason, evidence, condition; outcome expects action, default;
        simulate expects outcome, flow, steps (flow:code:action,…) and alerts (flow:code,… or none).

        --json: one record per case (file, line, case, passed, problems), failing or not, then a
        summary (passed, failed).
        """
    static let options: [OptionSpec] = CommonOptions.specs

    static func parse(_ arguments: ParsedArguments) throws(UsageError) -> CheckOptions {
        guard !arguments.operands.isEmpty else { throw UsageError("check needs at least one decision-table file", command: name) }
        if arguments.operands.contains("-") { throw UsageError("check reads files, not standard input", command: name) }
        return CheckOptions(files: arguments.operands, common: CommonOptions(arguments))
    }

    /// Runs every case of the files.
    /// - Returns: 0 when every case passed, 1 when one failed; a file that cannot be read or parsed is thrown.
    static func run(_ options: CheckOptions, output: OutputBuffer, io _: any CommandIO) throws(CommandFailure) -> ExitCode {
        let engine = try TableLoader(options: options.common.tables).engine()
        var tables: [DecisionTable] = []
        for file in options.files {
            do {
                tables.append(try DecisionTable(contentsOf: file))
            } catch {
                throw CommandFailure(error)
            }
        }
        var passed = 0
        var failed = 0
        func report(file: String, line: Int, text: String?, problems: [String]) {
            if problems.isEmpty { passed += 1 } else { failed += 1 }
            if options.common.json {
                var object = JSONObject()
                object.add("file", file)
                object.add("line", Int64(line))
                object.add("case", text)
                object.add("passed", problems.isEmpty)
                object.add("problems", problems)
                output.line(object.json)
            } else if !problems.isEmpty {
                output.line("FAIL \(file):\(line)" + (text.map { ": \($0)" } ?? ""))
                for problem in problems { output.line("     \(problem)") }
            }
        }
        for table in tables {
            var rows: [(line: Int, run: () -> Void)] = (table.problems + table.unreadableLines(engine: engine)).map { problem in
                (problem.line, { report(file: problem.file, line: problem.line, text: problem.text, problems: ["cannot run: \(problem.message)"]) })
            }
            rows += zip(table.cases, DecisionTable.evaluate(table.cases, engine: engine)).map { testCase, problems in
                (testCase.line, { report(file: testCase.file, line: testCase.line, text: testCase.text, problems: problems) })
            }
            for row in rows.sorted(by: { $0.line < $1.line }) { row.run() }
        }
        if options.common.json {
            var summary = JSONObject()
            summary.add("passed", Int64(passed))
            summary.add("failed", Int64(failed))
            output.line(summary.json)
        } else {
            output.line("\(passed) passed, \(failed) failed")
        }
        return failed > 0 ? .checkFailed : .success
    }
}
