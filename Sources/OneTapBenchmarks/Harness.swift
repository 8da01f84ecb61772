#if canImport(Glibc)
import Glibc
#endif
import OneTapAllocationCounter

/// Counts heap allocations for real: `OneTapAllocationCounter` replaces malloc and friends with counting
/// wrappers over glibc's own, exported from this executable, so every allocation in the process passes
/// through it (the Swift runtime, the standard library, Foundation, OneTap).
enum Allocations {
    /// Allocation calls so far, by every thread.
    static var count: Int { Int(onetap_allocation_count()) }
    /// Allocation calls so far by the calling thread.
    static var countOnThisThread: Int { Int(onetap_thread_allocation_count()) }
    /// Whether counting works in this build (Linux with glibc) and in this process: a probe allocation must be
    /// counted, so a build where malloc stopped being intercepted reports no counts (and `--enforce-allocations`
    /// fails) instead of zero for every row.
    static let available: Bool = {
        guard onetap_allocation_counting_available() != 0 else { return false }
        let before = countOnThisThread
        let probe = UnsafeMutableRawPointer.allocate(byteCount: 64, alignment: 8)
        blackHole(probe)
        probe.deallocate()
        return countOnThisThread > before
    }()
}

/// Keeps a value alive so the optimizer cannot delete the work that made it.
@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

/// Monotonic nanoseconds.
@inline(__always)
func nanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

/// CPU time (user and system) in nanoseconds: this process's (`RUSAGE_SELF`), or that of its children
/// that were waited for (`RUSAGE_CHILDREN`).
func cpuNanoseconds(children: Bool = false) -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(truncatingIfNeeded: (children ? RUSAGE_CHILDREN : RUSAGE_SELF).rawValue), &usage)
    func ns(_ time: timeval) -> Double { Double(time.tv_sec) * 1e9 + Double(time.tv_usec) * 1e3 }
    return ns(usage.ru_utime) + ns(usage.ru_stime)
}

/// The command line of the benchmark executable.
struct BenchmarkOptions {
    var json = false
    var quick = false
    var skipCLI = false
    var enforce = false
    var enforceAllocations = false
    var help = false
    var filter: String? = nil
    var onetap: String? = nil
    var repetitions: Int? = nil
    /// What is wrong with the arguments (an unknown option, a bad number): the run stops with exit 64.
    var problem: String? = nil

    static let usage = """
        USAGE: swift run -c release OneTapBenchmarks [--json] [--quick] [--filter TEXT] [--skip-cli]
                                                     [--onetap PATH] [--enforce]
          --json       one JSON object per benchmark, one per line
          --quick      fewer repetitions (a smoke run)
          --filter     only benchmarks whose name contains TEXT
          --skip-cli   skip the process-level CLI benchmarks
          --onetap     the onetap binary to measure (default: beside this executable)
          --repetitions N   timed batches per benchmark (default 41; more for profiling)
          --enforce    exit 1 when a target is missed
          --enforce-allocations   exit 1 when a benchmark that promises no allocation allocates (CI)
        """

    init(_ arguments: ArraySlice<String>) {
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--json": json = true
            case "--quick": quick = true
            case "--skip-cli": skipCLI = true
            case "--enforce": enforce = true
            case "--enforce-allocations": enforceAllocations = true
            case "--filter": filter = iterator.next()
            case "--onetap": onetap = iterator.next()
            case "--repetitions":
                let value = iterator.next()
                guard let count = value.flatMap({ Int($0) }), (1...100_000).contains(count) else {
                    problem = "--repetitions takes a whole number from 1 to 100000; got \(value.map { "'\($0)'" } ?? "nothing")"
                    continue
                }
                repetitions = count
            case "-h", "--help": help = true
            default:
                if argument.hasPrefix("--filter=") { filter = String(argument.dropFirst(9)) }
                else if argument.hasPrefix("--onetap=") { onetap = String(argument.dropFirst(9)) }
                else { problem = "unknown argument '\(argument)'" }
            }
        }
    }

    func wants(_ name: String) -> Bool { filter.map { name.contains($0) } ?? true }
}

/// One measured result.
struct Measurement {
    var name: String
    var ops: Int
    var medianNanoseconds: Double
    var p90Nanoseconds: Double
    var allocationsPerOp: Double?
    var reference: String? = nil
    var referenceMedian: Double? = nil
    var referenceAllocations: Double? = nil
    var target: String? = nil
    var met: Bool? = nil
    var extra: [(String, String)] = []
    /// Whether the benchmark promises no heap allocation per operation: a deterministic count, which
    /// `--enforce-allocations` (CI) holds it to. Times are never enforced in CI.
    var promisesNoAllocation = false

    /// The reference's time over ours: how many times faster we are.
    var ratio: Double? { referenceMedian.map { $0 / medianNanoseconds } }
}

/// What one side of a row measured: the median and 90th percentile nanoseconds per operation, and the
/// allocations per operation (nil where they cannot be counted).
typealias BatchTiming = (median: Double, p90: Double, allocations: Double?)

/// The timed batches of one side: each batch's time per operation.
struct BatchSamples {
    private let batch: Int
    private var times: [Double] = []

    /// Room for `repetitions` batches of `batch` operations.
    init(batch: Int, repetitions: Int) {
        self.batch = batch
        times.reserveCapacity(repetitions)
    }

    /// Adds a batch that started at `start` and ended now.
    mutating func add(since start: UInt64) {
        times.append(Double(nanoseconds() - start) / Double(batch))
    }

    /// The median and 90th percentile per operation, with the allocations one batch made.
    func timing(allocations: Int) -> BatchTiming {
        let sorted = times.sorted()
        return (sorted[sorted.count / 2], sorted[min(sorted.count - 1, sorted.count * 9 / 10)], Allocations.available ? Double(allocations) / Double(batch) : nil)
    }
}

/// The untimed batches before the timed ones.
private func warmUps(_ repetitions: Int) -> Int { max(2, repetitions / 5) }

/// Measures `body`, which runs `batch` operations per call. Warm-up first, then `repetitions` timed
/// batches; the median and 90th percentile are per operation. Allocations are counted over one batch, on this
/// thread only: a background thread of an earlier suite (URLSession's, a pool's) cannot make a row that
/// promises none allocate.
func measure(batch: Int, repetitions: Int, _ body: () -> Void) -> BatchTiming {
    for _ in 0..<warmUps(repetitions) { body() }
    var samples = BatchSamples(batch: batch, repetitions: repetitions)
    for _ in 0..<repetitions {
        let start = nanoseconds()
        body()
        samples.add(since: start)
    }
    let before = Allocations.countOnThisThread
    body()
    return samples.timing(allocations: Allocations.countOnThisThread - before)
}

/// ``measure(batch:repetitions:_:)`` of one pass over `inputs` (a batch) that adds up what `count` gives each input,
/// the sum kept from the optimizer by ``blackHole(_:)``: the timed loop of every lookup benchmark.
/// - Parameters:
///   - batch: The inputs' number.
///   - repetitions: Timed passes.
///   - inputs: The batch.
///   - count: What one input adds: 1 for a hit, a flow count, …
/// - Returns: As ``measure(batch:repetitions:_:)``.
@inline(__always)
func measureSum<Inputs: Sequence>(
    batch: Int, repetitions: Int, over inputs: Inputs, _ count: (Inputs.Element) -> Int
) -> BatchTiming {
    measure(batch: batch, repetitions: repetitions) {
        var sum = 0
        for input in inputs { sum &+= count(input) }
        blackHole(sum)
    }
}

/// The same for async bodies; allocations are counted on every thread (the body may resume on another).
func measureAsync(batch: Int, repetitions: Int, _ body: () async -> Void) async -> BatchTiming {
    for _ in 0..<warmUps(repetitions) { await body() }
    var samples = BatchSamples(batch: batch, repetitions: repetitions)
    for _ in 0..<repetitions {
        let start = nanoseconds()
        await body()
        samples.add(since: start)
    }
    let before = Allocations.count
    await body()
    return samples.timing(allocations: Allocations.count - before)
}

/// Measures ours and its reference together, batch by batch: ours first in even repetitions, the reference
/// first in odd ones. A burst of load from elsewhere on a shared machine (these move a row 2× between runs)
/// then falls on both sides alike, and the ratio of their medians holds where each side's own time moves.
/// Each side runs as often as ``measure(batch:repetitions:_:)`` runs a body, so a cursor sized for that suffices.
/// - Parameters:
///   - batch: The operations each call of either side runs.
///   - repetitions: Timed batches per side.
///   - ours: One batch of ours.
///   - reference: One batch of the reference.
/// - Returns: Each side's timing; allocations counted over one batch on this thread.
func measurePair(batch: Int, repetitions: Int, _ ours: () -> Void, reference: () -> Void) -> (ours: BatchTiming, reference: BatchTiming) {
    for _ in 0..<warmUps(repetitions) {
        ours()
        reference()
    }
    var oursSamples = BatchSamples(batch: batch, repetitions: repetitions)
    var referenceSamples = BatchSamples(batch: batch, repetitions: repetitions)
    for repetition in 0..<repetitions {
        for side in [repetition % 2, 1 - repetition % 2] {
            let start = nanoseconds()
            if side == 0 { ours() } else { reference() }
            if side == 0 { oursSamples.add(since: start) } else { referenceSamples.add(since: start) }
        }
    }
    var before = Allocations.countOnThisThread
    ours()
    let oursAllocations = Allocations.countOnThisThread - before
    before = Allocations.countOnThisThread
    reference()
    return (oursSamples.timing(allocations: oursAllocations), referenceSamples.timing(allocations: Allocations.countOnThisThread - before))
}

/// ``measurePair(batch:repetitions:_:reference:)`` for async sides; allocations are counted on every thread.
func measurePairAsync(
    batch: Int, repetitions: Int, _ ours: () async -> Void, reference: () async -> Void
) async -> (ours: BatchTiming, reference: BatchTiming) {
    for _ in 0..<warmUps(repetitions) {
        await ours()
        await reference()
    }
    var oursSamples = BatchSamples(batch: batch, repetitions: repetitions)
    var referenceSamples = BatchSamples(batch: batch, repetitions: repetitions)
    for repetition in 0..<repetitions {
        for side in [repetition % 2, 1 - repetition % 2] {
            let start = nanoseconds()
            if side == 0 { await ours() } else { await reference() }
            if side == 0 { oursSamples.add(since: start) } else { referenceSamples.add(since: start) }
        }
    }
    var before = Allocations.count
    await ours()
    let oursAllocations = Allocations.count - before
    before = Allocations.count
    await reference()
    return (oursSamples.timing(allocations: oursAllocations), referenceSamples.timing(allocations: Allocations.count - before))
}

/// Collects measurements and prints them as a table or as NDJSON.
struct Report {
    let json: Bool
    var rows: [Measurement] = []
    var failedTargets: [String] = []
    /// Benchmarks that promise no allocation and allocated.
    var allocationFailures: [String] = []
    /// Rows (or suites) that could not measure what they meant to: each printed its failure, and the run
    /// exits non-zero (`main.swift`), whatever the other options.
    var failures: [String] = []

    init(json: Bool) {
        self.json = json
        if !json {
            print("OneTap benchmarks — release build, one core; times are per operation (median, p90); ratio = reference / ours")
            print("allocations: \(Allocations.available ? "every malloc, calloc, realloc and aligned allocation counted" : "not counted on this platform")")
            print("")
            print(pad("benchmark", 34) + pad("ops", 10) + lpad("median", 12) + lpad("p90", 12) + lpad("allocs/op", 11) + "   reference (median, allocs/op, ratio)   target")
        }
    }

    mutating func add(_ row: Measurement) {
        rows.append(row)
        if row.met == false { failedTargets.append(row.name) }
        if row.promisesNoAllocation, let allocations = row.allocationsPerOp, allocations > 0 { allocationFailures.append(row.name) }
        if json {
            var fields: [String] = [
                "\"name\":\"\(row.name)\"", "\"ops\":\(row.ops)", "\"medianNs\":\(format(row.medianNanoseconds))", "\"p90Ns\":\(format(row.p90Nanoseconds))",
                "\"allocationsPerOp\":\(row.allocationsPerOp.map { format($0) } ?? "null")",
            ]
            if let reference = row.reference {
                fields.append("\"reference\":\"\(reference)\"")
                fields.append("\"referenceMedianNs\":\(row.referenceMedian.map { format($0) } ?? "null")")
                fields.append("\"referenceAllocationsPerOp\":\(row.referenceAllocations.map { format($0) } ?? "null")")
                fields.append("\"ratio\":\(row.ratio.map { format($0) } ?? "null")")
            }
            if let target = row.target {
                fields.append("\"target\":\"\(target)\"")
                fields.append("\"met\":\(row.met.map { $0 ? "true" : "false" } ?? "null")")
            }
            for (key, value) in row.extra { fields.append("\"\(key)\":\(value)") }
            print("{" + fields.joined(separator: ",") + "}")
        } else {
            var line = pad(row.name, 34) + pad(String(row.ops), 10) + lpad(time(row.medianNanoseconds), 12) + lpad(time(row.p90Nanoseconds), 12)
                + lpad(row.allocationsPerOp.map { format($0) } ?? "n/a", 11)
            if let reference = row.reference, let median = row.referenceMedian {
                line += "   \(reference): \(time(median)), \(row.referenceAllocations.map { format($0) } ?? "n/a"), ×\(format(row.ratio ?? 0))"
            }
            if let target = row.target {
                line += "   [\(row.met == true ? "ok" : row.met == false ? "MISSED" : "—")] \(target)"
            }
            for (key, value) in row.extra { line += "  \(key)=\(value)" }
            print(line)
        }
    }

    /// Records a row (or suite) that failed: prints `name: failed: error` and counts it in ``failures``, so
    /// the run goes on with the next row and exits non-zero at the end.
    /// - Parameters:
    ///   - name: The row's (or suite's) name.
    ///   - error: Why it failed.
    mutating func fail(_ name: String, _ error: any Error) {
        fail(name, "\(error)")
    }

    /// Records a row (or suite) that failed, with the reason as text (as the other `fail`).
    mutating func fail(_ name: String, _ reason: String) {
        failures.append(name)
        print("\(name): failed: \(reason)")
    }

    func finish() {
        guard !json else { return }
        print("")
        if !failures.isEmpty { print("FAILED: \(failures.joined(separator: ", "))") }
        print(failedTargets.isEmpty ? "all targets met" : "targets missed: \(failedTargets.joined(separator: ", "))")
        print(allocationFailures.isEmpty ? "every allocation promise kept" : "ALLOCATED though promised not to: \(allocationFailures.joined(separator: ", "))")
    }

    private func time(_ nanoseconds: Double) -> String {
        nanoseconds >= 1_000_000 ? format(nanoseconds / 1_000_000) + " ms" : nanoseconds >= 1000 ? format(nanoseconds / 1000) + " µs" : format(nanoseconds) + " ns"
    }
}

func format(_ value: Double) -> String {
    if value == 0 { return "0" }
    let digits = value >= 100 ? 0 : value >= 10 ? 1 : 2
    var scaled = value
    for _ in 0..<digits { scaled *= 10 }
    let rounded = Int64(scaled.rounded())
    if digits == 0 { return String(rounded) }
    var text = String(rounded.magnitude)
    while text.count <= digits { text = "0" + text }
    text.insert(".", at: text.index(text.endIndex, offsetBy: -digits))
    return (rounded < 0 ? "-" : "") + text
}

func pad(_ text: String, _ width: Int) -> String { text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count) }
func lpad(_ text: String, _ width: Int) -> String { text.count >= width ? " " + text : String(repeating: " ", count: width - text.count) + text }
