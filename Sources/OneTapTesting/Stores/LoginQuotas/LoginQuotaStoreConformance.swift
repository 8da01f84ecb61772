import OneTap

/// The properties every ``LoginQuotaStore`` must have, as a suite an adapter runs against itself:
///
/// ```swift
/// @Test func myStoreConforms() async throws {
///     try await LoginQuotaStoreConformance.check { try await MyRedisLoginQuotaStore(namespace: UUID().uuidString) }
/// }
/// ```
/// It checks the store directly (empty read, round trip to the millisecond, keep-until, removal, no lost
/// update) and through ``LoginQuotas`` (concurrent starts never pass a quota).
package enum LoginQuotaStoreConformance {
    /// Runs every check, each on a fresh, empty store.
    /// - Parameters:
    ///   - concurrency: How many operations race in the concurrency checks.
    ///   - makeStore: Makes an empty store.
    /// - Throws: ``ConformanceFailure`` listing every property the store broke, or what `makeStore` throws.
    package static func check(concurrency: Int = 200, _ makeStore: () async throws -> any LoginQuotaStore) async throws {
        let suite = ConformanceHarness("LoginQuotaStoreConformance")
        let now = Date(timeIntervalSince1970: 1_796_083_200.125)
        let counter = LoginQuotaPolicy.Counter(counts: .starts, key: .ip, value: "203.0.113.7")
        let other = LoginQuotaPolicy.Counter(counts: .exchanges, key: .device, value: "unknown")

        try await suite.check("empty store", makeStore) { store in
            let state = try await store.update(counters: [counter, other], at: now) { $0 }
            suite.expect(state.events == [counter: [], other: []], "an empty store must read every counter asked for as empty, read \(state.events)")
        }

        try await suite.check("round trip", makeStore) { store in
            let times = [now, now.addingTimeInterval(1.5)]
            try await store.update(counters: [counter], at: now) { state in
                state.events[counter] = times
                state.keepUntil = now.addingTimeInterval(3600)
            }
            let state = try await store.update(counters: [counter, other], at: now) { $0 }
            let read = state.events[counter] ?? []
            suite.expect(read.count == 2 && zip(read, times).allSatisfy { abs($0.timeIntervalSince($1)) < 0.001 }, "events must read back to the millisecond, read \(read)")
            suite.expect(state.events[other] == [], "a counter never written must stay empty")
        }

        try await suite.check("keep-until", makeStore) { store in
            let until = now.addingTimeInterval(60)
            try await store.update(counters: [counter], at: now) { state in
                state.events[counter] = [now]
                state.keepUntil = until
            }
            let atEnd = try await store.update(counters: [counter], at: until) { $0.events[counter] ?? [] }
            suite.expect(atEnd.count == 1, "a counter must be kept until its keep-until instant, read \(atEnd)")
            let removed = try await store.removeExpired(before: until.addingTimeInterval(1), limit: 100)
            suite.expect(removed >= 1, "removeExpired after keep-until must remove the counter, removed \(removed)")
            let after = try await store.update(counters: [counter], at: until.addingTimeInterval(1)) { $0.events[counter] ?? [] }
            suite.expect(after.isEmpty, "a removed counter must read as empty, read \(after)")
        }

        try await suite.check("no lost update", makeStore) { store in
            _ = try await suite.race(concurrency) { _ in
                try await store.update(counters: [counter], at: now) { state in
                    state.events[counter, default: []].append(now)
                    state.keepUntil = now.addingTimeInterval(3600)
                }
            }
            let count = try await store.update(counters: [counter], at: now) { $0.events[counter]?.count ?? 0 }
            suite.expect(count == concurrency, "\(concurrency) concurrent updates must all land, \(count) did")
        }

        // Through the quotas: concurrent starts from one address never pass a quota of 5.
        try await suite.check("concurrent starts", makeStore) { store in
            let policy = try LoginQuotaPolicy(csv: "rule,key,counts,window_seconds,limit,source\nfive,ip,starts,60,5,test\n", file: "five.csv")
            let quotas = LoginQuotas(policy: policy, store: store)
            let session = try AppSessionID("ConformanceSession0000")
            let address = try IPAddress("203.0.113.7")
            let clock = FakeClock(now: now)
            let admitted = try await suite.race(concurrency) { _ in
                do {
                    try await quotas.admit(.starts, session: .random(), appSession: session, address: address, device: nil, clock: clock, events: DiscardingEventSink())
                    return true
                } catch let rejection as LoginRejection where rejection.kind == .overQuota {
                    return false
                }
            }.filter { $0 }.count
            suite.expect(admitted == 5, "\(concurrency) concurrent starts under a quota of 5 must admit exactly 5, admitted \(admitted)")
        }

        try suite.finish()
    }
}
