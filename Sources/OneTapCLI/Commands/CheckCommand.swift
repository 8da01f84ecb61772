import OneTap

/// `onetap check FILE...`: runs decision tables against the engine.
enum CheckCommand {
    static func run(_ options: CheckOptions, output: OutputBuffer, io: any CommandIO) async -> ExitCode {
        let engine: LoginDecisionEngine
        do {
            engine = try TableLoader(options: options.tables).engine()
        } catch {
            io.writeError("onetap: error: \(error.message)")
            return error.code
        }
        var tables: [DecisionTable] = []
        for file in options.files {
            do {
                tables.append(try DecisionTable(contentsOf: file))
            } catch {
                io.writeError("onetap: error: \(error)")
                return error.kind == .unreadable ? .noInput : .dataError
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
