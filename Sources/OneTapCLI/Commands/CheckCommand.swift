import OneTap

/// `onetap check FILE...`: runs decision tables (and `.transcript` files) against the engine.
enum CheckCommand {
    static func run(_ options: CheckOptions, output: OutputBuffer) throws(CommandFailure) -> ExitCode {
        let engine = try TableLoader(options: options.tables).engine()
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
        func report(file: String, line: Int, text: String, problems: [String]) {
            if problems.isEmpty { passed += 1 } else { failed += 1 }
            if options.json {
                var object = JSONObject()
                object.add("file", file)
                object.add("line", Int64(line))
                object.add("case", text)
                object.add("passed", problems.isEmpty)
                object.add("problems", problems)
                output.line(object.json)
            } else if !problems.isEmpty {
                output.line("FAIL \(file):\(line): \(text)")
                for problem in problems { output.line("     \(problem)") }
            }
        }
        for table in tables {
            var rows: [(line: Int, run: () -> Void)] = table.problems.map { problem in
                (problem.line, { report(file: problem.file, line: problem.line, text: problem.text, problems: ["cannot run: \(problem.message)"]) })
            }
            rows += table.cases.map { testCase in
                (testCase.line, { report(file: testCase.file, line: testCase.line, text: testCase.text, problems: DecisionTable.evaluate(testCase, engine: engine)) })
            }
            for row in rows.sorted(by: { $0.line < $1.line }) { row.run() }
        }
        if options.json {
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
