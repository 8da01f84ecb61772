import OneTap

/// `onetap check FILE...`: runs decision tables against the engine.
enum CheckCommand {
    static func run(_ options: CheckOptions, output: OutputBuffer) async throws(CommandFailure) -> ExitCode {
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
        for table in tables {
            for testCase in table.cases {
                let problems = await DecisionTable.evaluate(testCase, engine: engine)
                if problems.isEmpty {
                    passed += 1
                } else {
                    failed += 1
                    output.line("FAIL \(testCase.file):\(testCase.line): \(testCase.text)")
                    for problem in problems { output.line("     \(problem)") }
                }
            }
        }
        output.line("\(passed) passed, \(failed) failed")
        return failed > 0 ? .checkFailed : .success
    }
}
