#if canImport(Glibc)
import Glibc
#endif
import OneTap
import OneTapChildProcess

/// Process-level benchmarks of the `onetap` binary: streaming 1,000,000 lines with `--json` (throughput
/// and peak memory), side by side with an `awk` hash-join printing the same JSON, and cold start.
enum CLIBenchmarks {
    /// What one process run cost.
    struct RunCost {
        var seconds: Double
        var peakKilobytes: Int
        var status: Int32
    }

    /// Runs a program with stdin and stdout redirected to files; waits and reads its rusage.
    static func spawn(_ path: String, _ arguments: [String], stdin: String, stdout: String) -> RunCost? {
        let start = nanoseconds()
        let ended: ChildProcess.Termination
        do {
            ended = try ChildProcess(path, arguments, input: .file(stdin), output: .file(stdout)).wait()
        } catch {
            print("cli: \(error)")
            return nil
        }
        let elapsed = Double(nanoseconds() - start) / 1e9
        return RunCost(seconds: elapsed, peakKilobytes: ended.peakResidentKilobytes, status: ended.shellStatus)
    }

    /// The best (fastest) of several runs, with the largest peak memory seen.
    static func best(_ runs: Int, _ body: () -> RunCost?) -> RunCost? {
        var best: RunCost? = nil
        for _ in 0..<runs {
            guard let cost = body() else { return nil }
            if best == nil || cost.seconds < best!.seconds { best = RunCost(seconds: cost.seconds, peakKilobytes: max(cost.peakKilobytes, best?.peakKilobytes ?? 0), status: cost.status) }
            else { best!.peakKilobytes = max(best!.peakKilobytes, cost.peakKilobytes) }
        }
        return best
    }

    static func write(_ path: String, _ text: String) {
        let file = fopen(path, "w")
        fputs(text, file)
        fclose(file)
    }

    static func read(_ path: String, lines: Int) -> [String] {
        guard let file = fopen(path, "r") else { return [] }
        defer { fclose(file) }
        var result: [String] = []
        var buffer = [CChar](repeating: 0, count: 4096)
        while result.count < lines, fgets(&buffer, 4096, file) != nil {
            result.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return result
    }

    static func locate(_ name: String, _ candidates: [String]) -> String? {
        candidates.first { access($0, X_OK) == 0 }
    }

    static func run(_ options: BenchmarkOptions, _ report: inout Report) {
        guard options.wants("cli") else { return }
        let here = (try? realpath("/proc/self/exe")).flatMap { $0 }.map { String($0.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")) } ?? "."
        guard let onetap = options.onetap ?? locate("onetap", [here + "/onetap"]) else {
            print("cli: skipped: no onetap binary beside the benchmark; run `swift build -c release` first (or pass --onetap PATH)")
            return
        }
        let awk = locate("mawk", ["/usr/bin/mawk", "/bin/mawk"]) ?? locate("awk", ["/usr/bin/awk", "/bin/awk"])
        let directory = String(cString: mkdtemp(strdup("/tmp/onetap-bench-XXXXXX")))
        defer { _ = system("rm -rf '\(directory)'") }
        let lines = options.quick ? 200_000 : 1_000_000
        let runs = options.quick ? 2 : 5
        var random = SplitMix64(seed: 7)

        // Inputs, written line by line so this process stays small: the peak memory the kernel reports
        // for a spawned child is at least its spawner's own (posix_spawn shares the address space until
        // exec), so the spawner must be lighter than the child for the figure to be the child's.
        let plmns = PLMNTable.builtIn.entries.map(\.plmn.compact) + ["45412", "46099", "46692", "310260", "20801"]
        let segments = NumberSegmentTable.builtIn.segments.map(\.prefix)
        for (file, make) in [("plmn.txt", { (random: inout SplitMix64) in random.pick(plmns) }),
                             ("numbers.txt", { (random: inout SplitMix64) in
                                 var digits = random.pick(segments)
                                 while digits.count < 11 { digits += String(random.next() % 10) }
                                 return digits
                             })] as [(String, (inout SplitMix64) -> String)] {
            guard let handle = fopen(directory + "/" + file, "w") else { continue }
            for _ in 0..<lines { fputs(make(&random) + "\n", handle) }
            fclose(handle)
        }
        let spawner = ownResidentKilobytes()

        // The awk references: a hash join on the same tables printing the same JSON.
        var plmnTable = ""
        for entry in PLMNTable.builtIn.entries { plmnTable += "\(entry.plmn.compact),\(entry.carrier.rawValue),\(entry.carrier.englishName)\n" }
        write(directory + "/plmn.csv", plmnTable)
        var segmentTable = ""
        for segment in NumberSegmentTable.builtIn.segments { segmentTable += "\(segment.prefix),\(segment.carrier.rawValue),\(segment.carrier.englishName),\(segment.kind.rawValue)\n" }
        write(directory + "/segments.csv", segmentTable)
        write(directory + "/carrier.awk", #"""
            BEGIN { FS = "," }
            NR == FNR { carrier[$1] = $2; name[$1] = $3; next }
            {
              if ($0 in carrier) { c = carrier[$0]; n = name[$0] }
              else if (substr($0, 1, 3) == "460") { c = "unknown"; n = "Unknown" }
              else { c = "other"; n = "Other" }
              printf "{\"input\":\"%s\",\"mcc\":\"%s\",\"mnc\":\"%s\",\"carrier\":\"%s\",\"name\":\"%s\"}\n", $0, substr($0, 1, 3), substr($0, 4), c, n
            }
            """#)
        write(directory + "/number.awk", #"""
            BEGIN { FS = "," }
            NR == FNR { carrier[$1] = $2; name[$1] = $3; kind[$1] = $4; next }
            {
              c = "unknown"; n = "Unknown"; k = "null"
              for (length_ = 7; length_ >= 3; length_--) {
                p = substr($0, 1, length_)
                if (p in carrier) { c = carrier[p]; n = name[p]; k = "\"" kind[p] "\""; break }
              }
              printf "{\"input\":\"%s\",\"number\":\"%s\",\"carrier\":\"%s\",\"name\":\"%s\",\"kind\":%s}\n", $0, $0, c, n, k
            }
            """#)

        for (command, input, table, script) in [("carrier", "plmn.txt", "plmn.csv", "carrier.awk"), ("number", "numbers.txt", "segments.csv", "number.awk")] {
            let name = "cli.\(command) - --json (\(lines / 1000)k lines)"
            guard options.wants(name) || options.wants("cli") else { continue }
            guard let ours = best(runs, { spawn(onetap, [command, "-", "--json"], stdin: directory + "/" + input, stdout: directory + "/ours.out") }) else {
                print("\(name): could not run \(onetap)")
                continue
            }
            var reference: RunCost? = nil
            var same = "n/a"
            if let awk {
                reference = best(runs, { spawn(awk, ["-f", directory + "/" + script, directory + "/" + table, "-"], stdin: directory + "/" + input, stdout: directory + "/awk.out") })
                same = read(directory + "/ours.out", lines: 1000) == read(directory + "/awk.out", lines: 1000) ? "true" : "false"
            }
            let linesPerSecond = Double(lines) / ours.seconds
            let referenceRate = reference.map { Double(lines) / $0.seconds }
            let ratio = referenceRate.map { linesPerSecond / $0 } ?? 0
            // A quick run's input is too small for a throughput verdict (process start-up dominates).
            let met: Bool? = options.quick ? nil
                : linesPerSecond >= 5_000_000 && ours.peakKilobytes <= 30 * 1024 && ratio >= 2 && same == "true" && ours.status == 0
            var row = Measurement(
                name: name, ops: lines, medianNanoseconds: ours.seconds * 1e9 / Double(lines), p90Nanoseconds: ours.seconds * 1e9 / Double(lines),
                allocationsPerOp: nil, reference: awk.map { String($0.split(separator: "/").last!) + " hash-join" }, referenceMedian: reference.map { $0.seconds * 1e9 / Double(lines) },
                referenceAllocations: nil, target: "≥ 5M lines/s, ≤ 30 MiB peak, ≥ 2× awk", met: met)
            row.extra = [
                ("linesPerSecond", format(linesPerSecond)), ("peakRSSKB", String(ours.peakKilobytes)),
                ("awkLinesPerSecond", referenceRate.map(format) ?? "null"), ("awkPeakRSSKB", reference.map { String($0.peakKilobytes) } ?? "null"),
                ("sameJSON", same), ("spawnerRSSKB", String(spawner)),
            ]
            report.add(row)
        }

        // Bounded memory: four times the input, same peak.
        if options.wants("cli") && !options.quick {
            let big = directory + "/plmn4.txt"
            _ = system("cat '\(directory)/plmn.txt' '\(directory)/plmn.txt' '\(directory)/plmn.txt' '\(directory)/plmn.txt' > '\(big)'")
            if let cost = spawn(onetap, ["carrier", "-", "--json"], stdin: big, stdout: "/dev/null") {
                var row = Measurement(
                    name: "cli.carrier - --json (\(4 * lines / 1000)k lines)", ops: 4 * lines, medianNanoseconds: cost.seconds * 1e9 / Double(4 * lines),
                    p90Nanoseconds: cost.seconds * 1e9 / Double(4 * lines), allocationsPerOp: nil, target: "≤ 30 MiB peak", met: cost.peakKilobytes <= 30 * 1024)
                row.extra = [("linesPerSecond", format(Double(4 * lines) / cost.seconds)), ("peakRSSKB", String(cost.peakKilobytes)), ("spawnerRSSKB", String(spawner))]
                report.add(row)
            }
        }

        // Cold start.
        if options.wants("cli") {
            let samples = options.quick ? 11 : 51
            var ours: [Double] = []
            var floor: [Double] = []
            for _ in 0..<samples {
                if let cost = spawn(onetap, ["carrier", "46000"], stdin: "/dev/null", stdout: "/dev/null") { ours.append(cost.seconds * 1e9) }
                if let cost = spawn("/bin/true", [], stdin: "/dev/null", stdout: "/dev/null") { floor.append(cost.seconds * 1e9) }
            }
            ours.sort()
            floor.sort()
            if !ours.isEmpty, !floor.isEmpty {
                let median = ours[ours.count / 2]
                report.add(Measurement(
                    name: "cli.cold start (carrier 46000)", ops: samples, medianNanoseconds: median, p90Nanoseconds: ours[ours.count * 9 / 10],
                    allocationsPerOp: nil, reference: "/bin/true", referenceMedian: floor[floor.count / 2], referenceAllocations: nil,
                    target: "≤ 10 ms", met: median <= 10_000_000))
            }
        }
    }
}

/// This process's resident memory now (VmRSS), in KiB.
func ownResidentKilobytes() -> Int {
    guard let file = fopen("/proc/self/status", "r") else { return 0 }
    defer { fclose(file) }
    var line = [CChar](repeating: 0, count: 256)
    while fgets(&line, 256, file) != nil {
        let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if text.hasPrefix("VmRSS:") { return Int(text.dropFirst(6).filter(\.isNumber)) ?? 0 }
    }
    return 0
}

/// `realpath(3)` as a Swift string.
func realpath(_ path: String) throws -> String? {
    guard let resolved = Glibc.realpath(path, nil) else { return nil }
    defer { free(resolved) }
    return String(cString: resolved)
}
