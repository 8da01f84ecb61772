import OneTap
import OneTapSupport
import OneTapTesting

/// The in-process benchmarks.
enum Suites {
    static func micro(_ options: BenchmarkOptions, _ report: inout Report) async {
        let repetitions = options.repetitions ?? (options.quick ? 9 : 41)
        let batch = 1024
        var random = SplitMix64(seed: 42)
        let plmnTable = PLMNTable.builtIn
        let segmentTable = NumberSegmentTable.builtIn
        let outcomeTable = OutcomeTable.builtIn
        let engine = LoginDecisionEngine()

        // PLMN inputs: mostly the Android form, some other accepted forms, some foreign and unknown.
        let plmnForms = ["46000", "46001", "46011", "46000", "46002", "46007", "46003", "46001", "460-00", " 46011", "460 01", "45412", "460001", "46099", "46020", "46015"]
        let plmnStrings = (0..<batch).map { _ in random.pick(plmnForms) }
        let plmnParsed = plmnStrings.map { try! PLMN($0) }
        let plmnSplit = plmnParsed.map { ($0.mcc, $0.mnc) }
        let plmnCompact = plmnParsed.map(\.compact)
        let seed = References.SeedChain(plmnTable)
        let dictionary = References.plmnDictionary(plmnTable)

        if options.wants("plmn.parsed") {
            let ours = measureSum(batch: batch, repetitions: repetitions, over: plmnParsed) { plmnTable.carrier(for: $0) == .mobile ? 1 : 0 }
            let reference = measureSum(batch: batch, repetitions: repetitions, over: plmnSplit) { seed.carrier(mcc: $0.0, mnc: $0.1) == .mobile ? 1 : 0 }
            report.add(row("plmn.parsed→carrier", batch, ours, "seed chain (pre-split)", reference, target: "≤ 3 ns, 0 allocs", met: ours.median <= 3 && ours.allocations ?? 0 == 0, promisesNoAllocation: true))
        }

        if options.wants("plmn.string") {
            let ours = measureSum(batch: batch, repetitions: repetitions, over: plmnStrings) { (try? plmnTable.carrier(forReported: $0)) == .mobile ? 1 : 0 }
            let seedTime = measureSum(batch: batch, repetitions: repetitions, over: plmnSplit) { seed.carrier(mcc: $0.0, mnc: $0.1) == .mobile ? 1 : 0 }
            let dictionaryTime = measureSum(batch: batch, repetitions: repetitions, over: plmnCompact) { (dictionary[$0] ?? .other) == .mobile ? 1 : 0 }
            var row1 = row("plmn.string→carrier", batch, ours, "seed chain (pre-split)", seedTime,
                           target: "≤ 20 ns, < seed, ≥ 2× dictionary, 0 allocs",
                           met: ours.median <= 20 && ours.median < seedTime.median && dictionaryTime.median / ours.median >= 2 && ours.allocations ?? 0 == 0)
            row1.promisesNoAllocation = true
            row1.extra = [("dictionaryMedianNs", format(dictionaryTime.median)), ("dictionaryRatio", format(dictionaryTime.median / ours.median))]
            report.add(row1)
        }

        if options.wants("number") {
            let numbers = (0..<batch).map { index -> String in
                let segment = segmentTable.segments[Int(random.next() % UInt64(segmentTable.segments.count))].prefix
                var digits = segment
                while digits.count < 11 { digits += String(random.next() % 10) }
                return index % 8 == 0 ? "+86 " + digits : digits
            }
            let scan = References.PrefixScan(segmentTable)
            let plain = numbers.map { $0.hasPrefix("+86 ") ? String($0.dropFirst(4)) : $0 }
            let ours = measureSum(batch: batch, repetitions: repetitions, over: numbers) { text in
                guard let number = try? PhoneNumber(text) else { return 0 }
                return segmentTable.carrier(for: number) == .mobile ? 1 : 0
            }
            let reference = measureSum(batch: batch, repetitions: max(5, repetitions / 4), over: plain) { scan.carrier($0) == .mobile ? 1 : 0 }
            report.add(row("number→carrier", batch, ours, "hasPrefix scan", reference, target: "≤ 30 ns, ≥ 20× scan, 0 allocs",
                           met: ours.median <= 30 && reference.median / ours.median >= 20 && ours.allocations ?? 0 == 0, promisesNoAllocation: true))
        }

        if options.wants("plan") {
            let snapshots: [DeviceSnapshot] = (0..<batch).map { _ in
                var snapshot = DeviceSnapshot(sim: .present, plmn: random.pick(plmnParsed), mobileData: true, cellularAccess: .allowed, network: random.pick([.both, .cellular, .wifi, .both]))
                switch random.next() % 16 {
                case 0: snapshot.sim = .absent; snapshot.plmn = nil
                case 1: snapshot.mobileData = false
                case 2: snapshot.cellularAccess = .restricted
                case 3: snapshot.plmn = nil; snapshot.network = .cellular; snapshot.clientIP = try! IPAddress("240e:400::1")
                case 4: snapshot.phoneHint = try! PhoneNumber("17012345678")
                case 5: snapshot.plmn = nil; snapshot.phoneHint = try! PhoneNumber("13800138000")
                default: break
                }
                return snapshot
            }
            let raw = snapshots.map { snapshot in
                References.RawSnapshot(
                    sim: snapshot.sim?.rawValue, plmn: snapshot.plmn?.compact, mobileData: snapshot.mobileData.map { $0 ? "on" : "off" },
                    access: snapshot.cellularAccess?.rawValue, network: snapshot.network?.rawValue)
            }
            let naive = References.NaivePlanner(RoutingPolicy.builtIn, plmnTable)
            let ours = measureSum(batch: batch, repetitions: repetitions, over: snapshots) { engine.plan(for: $0).flows.count }
            let reference = measureSum(batch: batch, repetitions: repetitions, over: raw) { naive.plan($0).1.count }
            report.add(row("plan(for:)", batch, ours, "strings + dictionaries", reference, target: "≤ 100 ns, 0 allocs",
                           met: ours.median <= 100 && ours.allocations ?? 0 == 0, promisesNoAllocation: true))
        }

        if options.wants("classify") {
            let listed = outcomeTable.entries.compactMap { entry in entry.code.map { (entry.flow, $0) } }
            let pairs: [(LoginFlow, ResultCode)] = (0..<batch).map { index in
                index % 10 == 0 ? (random.pick([.mobile, .tianyi]), ResultCode(integerLiteral: Int64(random.next() % 1_000_000))) : random.pick(listed)
            }
            let texts = pairs.map { ($0.0, $0.1.text) }
            let dictionaries = References.CodeDictionaries(outcomeTable)
            let oursCode = measureSum(batch: batch, repetitions: repetitions, over: pairs) { outcomeTable.action(for: $0.0, code: $0.1) == .fallback ? 1 : 0 }
            let referenceCode = measureSum(batch: batch, repetitions: repetitions, over: pairs) { dictionaries.action($0.0, $0.1.text) == .fallback ? 1 : 0 }
            report.add(row("classify(ResultCode)", batch, oursCode, "[String: Action] per flow", referenceCode, target: "≤ 15 ns, ≥ 2× dictionary, 0 allocs",
                           met: oursCode.median <= 15 && referenceCode.median / oursCode.median >= 2 && oursCode.allocations ?? 0 == 0,
                           promisesNoAllocation: true))
            let oursText = measureSum(batch: batch, repetitions: repetitions, over: texts) { outcomeTable.action(for: $0.0, code: $0.1) == .fallback ? 1 : 0 }
            let referenceText = measureSum(batch: batch, repetitions: repetitions, over: texts) { dictionaries.action($0.0, $0.1) == .fallback ? 1 : 0 }
            report.add(row("classify(string code)", batch, oursText, "[String: Action] per flow", referenceText, target: "≤ 15 ns, ≥ 2× dictionary, 0 allocs",
                           met: oursText.median <= 15 && referenceText.median / oursText.median >= 2 && oursText.allocations ?? 0 == 0,
                           promisesNoAllocation: true))
        }

        if options.wants("token.state") {
            let policy = TokenPolicy()
            let now = Date(timeIntervalSince1970: 1_796_083_200)
            let tokens = (0..<batch).map { index in
                AccessToken(value: Secret("t"), refreshToken: nil, flow: .tianyi, account: "a", issuedAt: now.addingTimeInterval(-Double(index) * 3000), expiresAt: now.addingTimeInterval(2_592_000 - Double(index) * 3000))
            }
            let ours = measureSum(batch: batch, repetitions: repetitions, over: tokens) { policy.state(of: $0, at: now) == .stale ? 1 : 0 }
            let reference = measureSum(batch: batch, repetitions: repetitions, over: tokens) { token in
                // The obvious way: recompute ages with Date arithmetic and Calendar-free constants.
                let age = now.timeIntervalSince(token.issuedAt)
                let left = token.expiresAt.timeIntervalSince(now)
                let lifetime = token.expiresAt.timeIntervalSince(token.issuedAt)
                let stale = age >= min(86_400, lifetime / 2) || left <= min(604_800, lifetime / 4)
                return (left > 60 && stale) ? 1 : 0
            }
            report.add(row("token.state", batch, ours, "inline Date arithmetic", reference, target: "0 allocs", met: ours.allocations ?? 0 == 0, promisesNoAllocation: true))
        }
    }

    static func async(_ options: BenchmarkOptions, _ report: inout Report) async {
        let repetitions = options.repetitions ?? (options.quick ? 5 : 21)
        let now = Date(timeIntervalSince1970: 1_796_083_200)
        let clock = FakeClock(now: now)

        if options.wants("token.fastPath") {
            // The public call an app makes, `TokenVault.validToken(for:)`, and the reference's, each given the
            // same account value (made once, outside the timed loops).
            let account: AccountID = "me"
            let fresh = AccessToken(value: Secret("t"), refreshToken: Secret("r"), flow: .tianyi, account: account, issuedAt: now, expiresAt: now.addingTimeInterval(2_592_000))
            let vault = TokenVault(refresher: MockRefresher(), clock: clock, events: DiscardingEventSink())
            try? await vault.store(fresh)
            let naive = References.NaiveTokenManager(token: fresh, refresher: MockRefresher(), clock: clock)
            let batch = 1000
            let (ours, reference) = await measurePairAsync(batch: batch, repetitions: repetitions) {
                for _ in 0..<batch { blackHole(try? await vault.validToken(for: account)) }
            } reference: {
                for _ in 0..<batch { blackHole(try? await naive.validToken(for: account)) }
            }
            report.add(row("token.validToken (fresh)", batch, ours, "one actor + dictionary", reference, target: "≤ 1 µs, ≥ 1× the actor",
                           met: ours.median <= 1000 && ours.median <= reference.median))
        }

        for (label, age) in [("stale", 2 * 86_400.0), ("expired", 30 * 86_400.0 - 30)] where options.wants("token.stampede") {
            // 10,000 callers at once on one account: a stale token is served to all at once while one
            // refresh runs behind; an expired one makes all wait for that one refresh.
            let callers = 10_000
            let token = AccessToken(
                value: Secret("t"), refreshToken: Secret("r"), flow: .tianyi, account: "me", issuedAt: now.addingTimeInterval(-age),
                expiresAt: now.addingTimeInterval(30 * 86_400 - age))
            let refresher = YieldingRefresher()
            let events = RecordingEventSink()
            let vault = TokenVault(refresher: refresher, clock: clock, background: .init(scanInterval: .seconds(86_400)), events: events)
            try? await vault.store(token)
            var ours = 0.0
            var refreshed = false
            try? await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await vault.run() }
                await clock.waitForSleepers(1)
                let start = nanoseconds()
                await withTaskGroup(of: Void.self) { callersGroup in
                    for _ in 0..<callers { callersGroup.addTask { blackHole(try? await vault.validToken(for: "me")) } }
                }
                refreshed = await events.wait(for: "refreshed")
                ours = Double(nanoseconds() - start)
                await vault.shutdown()
                try await group.waitForAll()
            }
            let naiveRefresher = YieldingRefresher()
            let naive = References.NaiveTokenManager(token: token, refresher: naiveRefresher, clock: clock)
            let referenceStart = nanoseconds()
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<callers { group.addTask { blackHole(try? await naive.validToken(for: "me")) } }
            }
            let reference = Double(nanoseconds() - referenceStart)
            var result = Measurement(
                name: "token.stampede (\(label), 10k)", ops: callers, medianNanoseconds: ours / Double(callers), p90Nanoseconds: ours / Double(callers),
                allocationsPerOp: nil, reference: "no single flight", referenceMedian: reference / Double(callers), referenceAllocations: nil,
                target: "1 refresh call", met: refreshed && refresher.calls == 1)
            result.extra = [("refreshCalls", String(refresher.calls)), ("referenceRefreshCalls", String(naiveRefresher.calls)), ("totalMs", format(ours / 1e6))]
            report.add(result)
        }

        await SessionBenchmarks.run(options, &report, repetitions: repetitions)
        await SMSBenchmarks.run(options, &report, repetitions: repetitions)
        await DigestBenchmarks.run(options, &report, repetitions: repetitions)
        await ExchangeBenchmarks.run(options, &report, repetitions: repetitions)
        await SMSKeyBenchmarks.run(options, &report, repetitions: repetitions)
        GuestBenchmarks.run(options, &report, repetitions: repetitions)
        CredentialBenchmarks.run(options, &report, repetitions: repetitions)
        await SealedTokenBenchmarks.run(options, &report, repetitions: repetitions)
        await LoginQuotaBenchmarks.run(options, &report, repetitions: repetitions)
        await AbuseFloodBenchmarks.run(options, &report, repetitions: repetitions)
    }

    static func row(
        _ name: String, _ ops: Int, _ ours: BatchTiming, _ referenceName: String,
        _ reference: BatchTiming, target: String?, met: Bool?, promisesNoAllocation: Bool = false
    ) -> Measurement {
        var measurement = Measurement(
            name: name, ops: ops, medianNanoseconds: ours.median, p90Nanoseconds: ours.p90, allocationsPerOp: ours.allocations,
            reference: referenceName, referenceMedian: reference.median, referenceAllocations: reference.allocations, target: target, met: met)
        measurement.promisesNoAllocation = promisesNoAllocation
        return measurement
    }
}

/// A refresher that really suspends (as a network call does), counting its calls.
final class YieldingRefresher: TokenRefresher {
    private let counter = LockedValue(0)
    var calls: Int { counter.withLock { $0 } }

    func refresh(_ token: AccessToken) async throws -> RefreshResponse {
        let number = counter.withLock { count -> Int in
            count += 1
            return count
        }
        for _ in 0..<10 { await Task.yield() }
        return RefreshResponse(accessToken: Secret("refreshed-\(number)"))
    }
}
