import Foundation
import OneTap
import OneTapPostgres
import OneTapPostgresTestSupport
import OneTapTesting

/// Abuse run as load (issue 21): a bounded flood of fake logins (forty fake clients at once from four
/// IPv6 /64 blocks and no address, each trying 45 starts and reporting made-up successes, SDK time-outs
/// and garbage) against a ``LoginServer`` with the built-in quotas, the breaker and an ``ExchangeGuard``
/// whose carrier refuses made-up tokens, while one honest user logs in; over the in-memory stores and
/// over PostgreSQL's (login sessions and exchange ledger; quota counters in memory). Loopback only,
/// bounded by count.
///
/// Each row: the fake requests' median and p90 latency (p99 in `p99Ns`), requests a second, this
/// process's resident memory before and after (`VmRSS`, `VmHWM` from /proc/self/status), and the counts;
/// its target is "nothing lost" (every admitted start stored, every accepted report's transition stored,
/// the honest login `done success` with its number after one carrier call, one ledger row per exchange).
/// The reference, in the same run: the same honest login (a start and a success report) without a flood,
/// per request. A ratio above 1 says the flood's requests, most of them refused by the quotas, cost less
/// each than an honest login's; `honestSlowdown` is what the flood did to the honest login (its time
/// under the flood over its time alone).
enum AbuseFloodBenchmarks {
    static let memoryName = "flood in-memory (40 fake clients)"
    static let postgresName = "flood postgres (40 fake clients)"
    static let size = LoginFlood.Size(clients: 40, loginsPerClient: 45, addressBlocks: 4)

    static func run(_ options: BenchmarkOptions, _ report: inout Report, repetitions: Int) async {
        if options.wants(memoryName) {
            let ledger = InMemoryExchangeLedger()
            let sessions = InMemoryLoginSessionStore()
            await flood(memoryName, sessions: sessions, ledger: ledger, ledgerRows: { ledger.count }, freshLedger: { InMemoryExchangeLedger() }, &report, repetitions: repetitions)
        }
        if options.wants(postgresName) {
            await postgres(&report, repetitions: repetitions)
        }
    }

    private static func postgres(_ report: inout Report, repetitions: Int) async {
        await BenchmarkPostgres.run(
            postgresName, schemaPrefix: "bench_flood_", poolSize: 4, serverOptions: PostgresTestServer.Options(maxConnections: 20), &report
        ) { stores, _, _, report in
            let table = "\"\(stores.configuration.schema)\".exchange_ledger"
            await flood(
                postgresName, sessions: stores.loginSessionStore(), ledger: stores.exchangeLedger(),
                ledgerRows: {
                    do {
                        let rows = try await stores.pool.execute("SELECT count(*)::bigint FROM \(table)")
                        guard case .int64(let count)? = rows.first?.first else { return -1 }
                        return Int(count)
                    } catch {
                        print("\(postgresName): could not count the ledger's rows: \(error)")
                        return -1
                    }
                }, freshLedger: { stores.exchangeLedger() }, &report, repetitions: repetitions)
        }
    }

    /// Runs the reference (honest logins alone), then the flood, and adds the row.
    private static func flood(
        _ name: String, sessions: any LoginSessionStore, ledger: any ExchangeLedger, ledgerRows: () async -> Int,
        freshLedger: () -> any ExchangeLedger, _ report: inout Report, repetitions: Int
    ) async {
        let clock = SystemClock()
        let flood: LoginFlood
        do {
            flood = try LoginFlood(now: clock.now())
        } catch {
            report.fail(name, error)
            return
        }
        // The reference: honest users logging in one after another, no flood; the same kind of server.
        let referenceCarrier = FloodCarrier()
        let referenceServer = LoginServer(
            store: sessions, exchange: ExchangeGuard(provider: referenceCarrier, ledger: freshLedger(), clock: clock), health: ChannelHealth(),
            quotas: LoginQuotas(), clock: clock, events: DiscardingEventSink())
        var alone: [Double] = []
        var referenceProblems = 0
        for user in 1...max(5, min(repetitions, 41)) {
            let start = nanoseconds()
            let (done, problem) = await flood.honestLogin(referenceServer, user: user)
            alone.append(Double(nanoseconds() - start) / 2)  // a start and a report: two requests
            if done == nil || problem != nil { referenceProblems += 1 }
        }
        alone.sort()

        let carrier = FloodCarrier()
        let health = ChannelHealth()
        let server = LoginServer(
            store: sessions, exchange: ExchangeGuard(provider: carrier, ledger: ledger, clock: clock), health: health,
            quotas: LoginQuotas(), clock: clock, events: DiscardingEventSink())
        let before = ProcessMemory.read()
        let rowsBefore = await ledgerRows()
        let outcome = await flood.run(server, store: sessions, size: size)
        let after = ProcessMemory.read()
        let rows = await ledgerRows() - rowsBefore

        var honestDone = false
        if let honest = outcome.honest, case .done(.success, .mobile, let verified) = honest.instruction, verified?.phoneNumber == LoginFlood.honestNumber {
            honestDone = outcome.honestStored == honest.session
        }
        let honestCalls = carrier.calls(for: LoginFlood.honestToken)
        let breakerClosed = health.state(of: .mobile, for: .mobile, at: clock.now()) == .closed
        let nothingLost = outcome.problems.isEmpty && outcome.storedSessions == outcome.admittedStarts && honestDone && honestCalls == 1
            && rows == outcome.exchanges + 1 && breakerClosed
        var row = Measurement(
            name: name, ops: outcome.requests, medianNanoseconds: Double(outcome.latency(0.5)), p90Nanoseconds: Double(outcome.latency(0.9)),
            allocationsPerOp: nil, reference: "an honest login alone, per request", referenceMedian: alone[alone.count / 2], referenceAllocations: nil,
            target: "nothing lost; honest login done success, 1 carrier call; breaker closed", met: nothingLost)
        let seconds = Double(outcome.elapsed) / 1e9
        row.extra = [
            ("requestsPerSecond", format(Double(outcome.requests) / max(seconds, 1e-9))), ("p99Ns", String(outcome.latency(0.99))),
            ("elapsedMs", format(seconds * 1000)), ("honestLoginNs", String(outcome.honestLatency)),
            ("honestSlowdown", format(Double(outcome.honestLatency) / (2 * alone[alone.count / 2]))),
            ("rssBeforeKiB", String(before.residentKiB)), ("rssAfterKiB", String(after.residentKiB)), ("hwmKiB", String(after.highWaterKiB)),
            ("admittedStarts", String(outcome.admittedStarts)), ("refusedOverQuota", String(outcome.refusedStarts + outcome.refusedExchanges)),
            ("refusedExchanges", String(outcome.refusedExchanges)), ("rejectedGarbage", String(outcome.rejectedReports)),
            ("storedSessions", String(outcome.storedSessions)), ("exchanges", String(outcome.exchanges)), ("ledgerRows", String(rows)),
            ("honestDone", honestDone ? "true" : "false"), ("honestCarrierCalls", String(honestCalls)), ("breakerClosed", breakerClosed ? "true" : "false"),
            ("problems", String(outcome.problems.count)), ("referenceProblems", String(referenceProblems)),
        ]
        for problem in outcome.problems.prefix(3) { print("\(name): \(problem)") }
        report.add(row)
    }
}

/// This process's resident memory, from /proc/self/status (Linux); zero where it cannot be read.
struct ProcessMemory {
    /// `VmRSS`: resident now, KiB.
    var residentKiB = 0
    /// `VmHWM`: the most ever resident, KiB.
    var highWaterKiB = 0

    /// Resets `VmHWM` to the resident memory now (writes `5` to /proc/self/clear_refs, Linux 4.0 and later).
    /// - Returns: Whether it was reset.
    static func resetPeak() -> Bool {
        guard let file = fopen("/proc/self/clear_refs", "w") else { return false }
        let written = fputs("5", file) >= 0
        return fclose(file) == 0 && written
    }

    static func read() -> ProcessMemory {
        var memory = ProcessMemory()
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return memory }
        for line in status.split(separator: "\n") {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count >= 2, let value = Int(fields[1]) else { continue }
            if fields[0] == "VmRSS:" { memory.residentKiB = value }
            if fields[0] == "VmHWM:" { memory.highWaterKiB = value }
        }
        return memory
    }
}
