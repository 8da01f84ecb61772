#if canImport(Glibc)
import Glibc
#endif
import Foundation
import OneTap
import OneTapInsights
import OneTapTesting

/// `onetap stats`' engine over a stream of login events: 10,000,000 events (1,000,000 with `--quick`)
/// read from a file in a fixed buffer and counted by `LoginStats` on this one thread, against `mawk`
/// and `jq` counting logins by carrier on the same file in the same run (the ratio is of rates: ours
/// over theirs). The events are the traffic generator's (the real session machine's events), repeated
/// a day apart with fresh session ids until there are enough. Memory: the process's resident growth
/// while counting, and the most logins open at once.
enum InsightsBenchmarks {
    static func run(_ options: BenchmarkOptions, _ report: inout Report) {
        guard options.wants("stats") else { return }
        let events = options.quick ? 1_000_000 : 10_000_000
        let directory = String(cString: mkdtemp(strdup("/tmp/onetap-stats-bench-XXXXXX")))
        defer { _ = system("rm -rf '\(directory)'") }
        let path = directory + "/events.ndjson"
        guard let bytes = write(events: events, to: path) else {
            print("stats: skipped: could not write \(path)")
            return
        }

        // Ours: read(2) into one buffer, lines split with memchr, each counted; the buffer is all we hold.
        var stats = LoginStats()
        var rssBefore = ownResidentKilobytes()
        var rssPeak = rssBefore
        let allocationsBefore = Allocations.count
        let start = nanoseconds()
        var malformed = 0
        let lines = forEachLine(path) { line, number in
            do throws(LoginStats.LineError) {
                try stats.add(line: line)
            } catch {
                malformed += 1
            }
            if number & 0xFFFFF == 0 { rssPeak = max(rssPeak, ownResidentKilobytes()) }
        }
        stats.finish()
        let elapsed = Double(nanoseconds() - start)
        let allocations = Allocations.count - allocationsBefore
        rssPeak = max(rssPeak, ownResidentKilobytes())
        let funnel = stats.funnel()
        rssBefore = min(rssBefore, rssPeak)

        // The references: logins by carrier, counted from each line's "event" and "carrier".
        let mawk = CLIBenchmarks.locate("mawk", ["/usr/bin/mawk", "/bin/mawk", "/usr/local/bin/mawk"])
        let jq = CLIBenchmarks.locate("jq", ["/usr/bin/jq", "/usr/local/bin/jq"])
        let script = directory + "/count.awk"
        CLIBenchmarks.write(script, #"""
            BEGIN { FS = "\"" }
            {
              event = ""; carrier = ""
              for (i = 2; i < NF; i += 2) {
                if ($i == "event") event = $(i + 2)
                else if ($i == "carrier") carrier = $(i + 2)
              }
              if (event == "planned") logins[carrier]++
              else if (event == "succeeded") succeeded[carrier]++
            }
            END { for (c in logins) print c, logins[c], succeeded[c] + 0 }
            """#)
        var mawkRun: CLIBenchmarks.RunCost? = nil
        var sameCounts = "n/a"
        if let mawk {
            mawkRun = CLIBenchmarks.spawn(mawk, ["-f", script], stdin: path, stdout: directory + "/mawk.out")
            let theirs = CLIBenchmarks.read(directory + "/mawk.out", lines: 100).map { $0.split(separator: " ").map(String.init) }
            var byCarrier: [String: Int] = [:]
            for row in stats.funnel(by: [.carrier]).rows { byCarrier[row.carrier?.rawValue ?? ""] = row.logins }
            sameCounts = theirs.allSatisfy({ $0.count == 3 && byCarrier[$0[0]] == Int($0[1].filter(\.isNumber)) }) && theirs.count == byCarrier.count ? "true" : "false"
        } else {
            print("stats: reference mawk is not installed (apt-get install -y mawk): no mawk ratio this run")
        }
        // jq is slower by far: it runs on the first 200,000 lines, and its rate is compared.
        var jqRate: Double? = nil
        let slice = min(events, 200_000)
        if let jq {
            let part = directory + "/slice.ndjson"
            _ = system("head -n \(slice) '\(path)' > '\(part)'")
            if let cost = CLIBenchmarks.spawn(jq, ["-n", "reduce (inputs | select(.area == \"login\" and .event == \"planned\")) as $e ({}; .[$e.carrier] += 1)"],
                                              stdin: part, stdout: directory + "/jq.out"), cost.status == 0 {
                jqRate = Double(slice) / cost.seconds
            }
        } else {
            print("stats: reference jq is not installed (apt-get install -y jq): no jq ratio this run")
        }

        let seconds = elapsed / 1e9
        let rate = Double(lines) / seconds
        let budget = 10.0 * Double(events) / 10_000_000  // 10 s for 10M events, pro rata
        let growthMB = Double(max(0, rssPeak - rssBefore)) / 1024
        var row = Measurement(
            name: "stats (\(events / 1_000_000)M events, one core)", ops: lines, medianNanoseconds: elapsed / Double(lines), p90Nanoseconds: elapsed / Double(lines),
            allocationsPerOp: Allocations.available ? Double(allocations) / Double(lines) : nil, reference: mawk == nil ? nil : "mawk count by carrier",
            referenceMedian: mawkRun.map { $0.seconds * 1e9 / Double(lines) }, referenceAllocations: nil,
            target: "≤ 10 s per 10M events, memory bounded", met: seconds <= budget && growthMB <= 64 && malformed == 0)
        row.extra = [
            ("seconds", format(seconds)), ("eventsPerSecond", format(rate)), ("fileMB", format(Double(bytes) / 1_048_576)),
            ("logins", String(funnel.summary.logins)), ("peakOpenLogins", String(funnel.summary.peakOpenLogins)), ("rows", String(funnel.rows.count)),
            ("rssGrowthMB", format(growthMB)), ("malformed", String(malformed)),
            ("mawkSeconds", mawkRun.map { format($0.seconds) } ?? "null"), ("mawkRatio", mawkRun.map { format($0.seconds / seconds) } ?? "null"),
            ("mawkSameCounts", sameCounts),
            ("jqEventsPerSecond", jqRate.map(format) ?? "null"), ("jqRatio", jqRate.map { format(rate / $0) } ?? "null"),
        ]
        report.add(row)
    }

    /// Writes `events` lines of generated traffic: the generator's events for 20,000 logins (one
    /// day's part), then the same again a day later with fresh session ids, and so on.
    /// - Returns: The bytes written, or nil when the file cannot be written.
    static func write(events: Int, to path: String) -> Int? {
        let base = LoginTrafficGenerator(seed: 42, start: Date(timeIntervalSince1970: 1_796_083_200 + 6 * 3600)).events(logins: 20_000)
            .map { Array(StandardErrorEventSink.line($0).utf8) }
        let sessionKey = Array(#""session":""#.utf8)
        // Where each line's date ("2026-12-01") and session id are.
        let dateOffset = Array(#"{"v":2,"at":""#.utf8).count
        let sessionOffsets = base.map { line in line.firstRange(of: sessionKey)?.upperBound ?? -1 }
        guard let file = fopen(path, "w") else { return nil }
        defer { fclose(file) }
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        var buffer: [UInt8] = []
        buffer.reserveCapacity(1 << 22)
        var written = 0
        var bytes = 0
        var copy = 0
        let startDay = Int64(1_796_083_200 / 86_400)
        while written < events {
            let date = Array(Timestamp.format(milliseconds: (startDay + Int64(copy)) * 86_400_000).prefix(10).utf8)
            for (index, line) in base.enumerated() where written < events {
                var line = line
                for offset in 0..<10 { line[dateOffset + offset] = date[offset] }
                if sessionOffsets[index] >= 0 {
                    // Three characters of the id become the copy's number: the ids stay apart.
                    line[sessionOffsets[index]] = alphabet[copy & 63]
                    line[sessionOffsets[index] + 1] = alphabet[(copy >> 6) & 63]
                    line[sessionOffsets[index] + 2] = alphabet[(copy >> 12) & 63]
                }
                buffer += line
                written += 1
                if buffer.count >= 1 << 22 {
                    guard fwrite(buffer, 1, buffer.count, file) == buffer.count else { return nil }
                    bytes += buffer.count
                    buffer.removeAll(keepingCapacity: true)
                }
            }
            copy += 1
        }
        guard fwrite(buffer, 1, buffer.count, file) == buffer.count else { return nil }
        return bytes + buffer.count
    }

    /// Calls `body` with every line of a file (without its line break), read in one 1 MiB buffer.
    /// - Returns: How many lines.
    static func forEachLine(_ path: String, _ body: (UnsafeBufferPointer<UInt8>, Int) -> Void) -> Int {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { return 0 }
        defer { close(descriptor) }
        let capacity = 1 << 20
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        defer { buffer.deallocate() }
        var filled = 0
        var number = 0
        while true {
            let count = read(descriptor, buffer + filled, capacity - filled)
            if count <= 0 { break }
            filled += count
            var start = 0
            while start < filled, let newline = memchr(buffer + start, 0x0A, filled - start) {
                let end = buffer.distance(to: newline.assumingMemoryBound(to: UInt8.self))
                number += 1
                body(UnsafeBufferPointer(start: buffer + start, count: end - start), number)
                start = end + 1
            }
            if start > 0 {
                memmove(buffer, buffer + start, filled - start)
                filled -= start
            }
            if filled == capacity { filled = 0 }  // a line longer than the buffer: no event; dropped
        }
        if filled > 0 {
            number += 1
            body(UnsafeBufferPointer(start: buffer, count: filled), number)
        }
        return number
    }
}
