// OneTapBenchmarks: every hot path measured side by side with a reference doing the same work the
// obvious way, in one process. Run with `swift run -c release OneTapBenchmarks [--json] [--quick]
// [--filter NAME] [--skip-cli] [--enforce]`.

import Foundation
#if canImport(Glibc)
import Glibc
#endif

func runBenchmarks() async -> Int32 {
    let options = BenchmarkOptions(CommandLine.arguments.dropFirst())
    if options.help {
        print(BenchmarkOptions.usage)
        return 0
    }
    // A typo in CI's options (`--enforce-allocation`) must not pass as a run that checked nothing.
    if let problem = options.problem {
        FileHandle.standardError.write(Data("OneTapBenchmarks: \(problem)\n\(BenchmarkOptions.usage)\n".utf8))
        return 64
    }
    if options.enforceAllocations, !Allocations.available {
        FileHandle.standardError.write(Data("OneTapBenchmarks: --enforce-allocations, but allocations are not counted in this process\n".utf8))
        return 1
    }
    var report = Report(json: options.json)
    // Processes first, while this process is small (see CLIBenchmarks).
    if !options.skipCLI {
        CLIBenchmarks.run(options, &report)
    }
    InsightsBenchmarks.run(options, &report)
    await Suites.micro(options, &report)
    await Suites.async(options, &report)
    await PostgresBenchmarks.run(options, &report)
    await GatewayBenchmarks.run(options, &report)
    await StoreGrowthBenchmarks.run(options, &report)
    report.finish()
    // A row that failed fails the run, whatever the options: CI must not pass on a row that did not measure.
    if !report.failures.isEmpty { return 1 }
    if options.enforceAllocations, !report.allocationFailures.isEmpty { return 1 }
    return report.failedTargets.isEmpty || !options.enforce ? 0 : 1
}

exit(await runBenchmarks())
