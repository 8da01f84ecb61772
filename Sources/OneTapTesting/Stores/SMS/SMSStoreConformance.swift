import OneTap

/// The properties every ``SMSStore`` must have, as a suite an adapter runs against itself:
///
/// ```swift
/// @Test func myStoreConforms() async throws {
///     try await SMSStoreConformance.check { try await MyRedisSMSStore(namespace: UUID().uuidString) }
/// }
/// ```
/// It checks the store directly (round trip, keep-until, removal, no lost update) and through an
/// ``SMSCodeService`` (concurrent sends never pass a limit, concurrent verifies of one code succeed at
/// most once, a code's expiry is exact to the millisecond).
package enum SMSStoreConformance {
    /// Runs every check, each on a fresh, empty store.
    /// - Parameters:
    ///   - concurrency: How many operations race in the concurrency checks.
    ///   - makeStore: Makes an empty store.
    /// - Throws: ``ConformanceFailure`` listing every property the store broke, or what `makeStore` throws.
    package static func check(concurrency: Int = 200, _ makeStore: () async throws -> any SMSStore) async throws {
        let suite = ConformanceHarness("SMSStoreConformance")
        let now = Date(timeIntervalSince1970: 1_796_083_200.125)
        let number = try PhoneNumber("13800138000")
        let other = try PhoneNumber("13900139000")
        let counter = SMSPolicy.Counter(counts: .sends, key: .number, value: number.digits)
        let ipCounter = SMSPolicy.Counter(counts: .sends, key: .ip, value: "203.0.113.7")
        let key = ServerKey.random()
        // The one login session the checks' requests come from (a code and its limits are per number and session).
        let session = LoginSessionID.random()
        let rules = SMSCodeRules()
        /// Runs `count` calls at once and counts those that succeeded.
        func succeeding(_ count: Int, _ call: @escaping @Sendable (Int) async throws -> Bool) async throws -> Int {
            try await suite.race(count, call).filter { $0 }.count
        }
        /// An SMS code service over the store, with a sender that keeps the codes and a clock at `now`.
        func makeService(over store: any SMSStore) -> (SMSCodeService, ScriptedSMSSender, FakeClock) {
            let sender = ScriptedSMSSender()
            let clock = FakeClock(now: now)
            return (SMSCodeService(key: key, sender: sender, store: store, events: DiscardingEventSink(), clock: clock), sender, clock)
        }

        // An empty store reads every counter as empty and no record.
        try await suite.check("empty store", makeStore) { store in
            let state = try await store.update(counters: [counter, ipCounter], code: number, at: now) { $0 }
            suite.expect(state.events == [counter: [], ipCounter: []], "an empty store must read every counter asked for as empty, read \(state.events)")
            suite.expect(state.code == nil, "an empty store must read no code record")
        }

        // What is written reads back, to the millisecond; the other number and counters are untouched.
        try await suite.check("round trip", makeStore) { store in
            let session = LoginSessionID.random()
            let slot = SMSCodeKey(number: number, session: session)
            let (_, record) = rules.issue(to: number, session: session, key: key, at: now)
            let times = [now, now.addingTimeInterval(1.5)]
            try await store.update(counters: [counter], code: slot, at: now) { state in
                state.events[counter] = times
                state.code = record
                state.keepUntil = now.addingTimeInterval(3600)
            }
            let state = try await store.update(counters: [counter, ipCounter], code: slot, at: now) { $0 }
            let read = state.events[counter] ?? []
            suite.expect(read.count == 2 && zip(read, times).allSatisfy { abs($0.timeIntervalSince($1)) < 0.001 }, "events must read back to the millisecond, read \(read)")
            suite.expect(state.events[ipCounter] == [], "a counter never written must stay empty")
            suite.expect(state.code.map { sameRecord($0, record) } == true, "a code record must read back unchanged, read \(String(describing: state.code))")
            let elsewhere = try await store.update(counters: [], code: other, at: now) { $0.code }
            suite.expect(elsewhere == nil, "another number must have no record")
        }

        // One record per number and session: each session's reads back its own, none replaces another.
        try await suite.check("a record per session", makeStore) { store in
            let sessions = [LoginSessionID.random(), LoginSessionID.random(), nil]
            var records: [SMSCodeRecord] = []
            for session in sessions {
                let (_, record) = rules.issue(to: number, session: session, key: key, at: now)
                records.append(record)
                try await store.update(counters: [], code: SMSCodeKey(number: number, session: session), at: now) { state in
                    state.code = record
                    state.keepUntil = now.addingTimeInterval(600)
                }
            }
            for (session, record) in zip(sessions, records) {
                let read = try await store.update(counters: [], code: SMSCodeKey(number: number, session: session), at: now) { $0.code }
                suite.expect(read.map { sameRecord($0, record) } == true, "the record of \(SMSCodeKey(number: number, session: session)) must read back as written, read \(String(describing: read))")
            }
            let stranger = try await store.update(counters: [], code: SMSCodeKey(number: number, session: LoginSessionID.random()), at: now) { $0.code }
            suite.expect(stranger == nil, "a session that was sent nothing must read no record")
            // Through the service: a send in another session leaves the first session's code verifying.
            let (service, sender, clock) = makeService(over: store)
            let owner = SMSContext(session: LoginSessionID.random()), strangerContext = SMSContext(session: LoginSessionID.random())
            _ = try await service.send(to: other, context: owner)
            guard let ownersCode = sender.lastCode(to: other) else { return suite.problem("a send through the store must deliver a code") }
            clock.setWallTime(now.addingTimeInterval(1))
            _ = try await service.send(to: other, context: strangerContext)
            let verified = try await service.verify(ownersCode, for: other, context: owner)
            if case .verified = verified {} else { suite.problem("another session's send must leave a session's code verifying, got \(verified)") }
        }

        // Without a key (a login start's captcha check) counters are read and written, and no record is read or written.
        try await suite.check("counters only", makeStore) { store in
            let (_, record) = rules.issue(to: number, session: nil, key: key, at: now)
            try await store.update(counters: [], code: number, at: now) { state in
                state.code = record
                state.keepUntil = now.addingTimeInterval(600)
            }
            let (_, stray) = rules.issue(to: number, session: LoginSessionID.random(), key: key, at: now)
            let read = try await store.update(counters: [ipCounter], code: nil, at: now) { state -> SMSCodeRecord? in
                state.events[ipCounter, default: []].append(now)
                state.keepUntil = now.addingTimeInterval(600)
                let read = state.code
                state.code = stray   // a body that sets a record without a key: nothing is written
                return read
            }
            suite.expect(read == nil, "an update without a key must read no code record, read \(String(describing: read))")
            let after = try await store.update(counters: [ipCounter], code: number, at: now) { $0 }
            suite.expect(after.events[ipCounter]?.count == 1, "an update without a key must write its counters, read \(after.events)")
            suite.expect(after.code.map { sameRecord($0, record) } == true, "an update without a key must leave every record as it was")
            let strays = try await store.update(counters: [], code: SMSCodeKey(number: number, session: stray.session), at: now) { $0.code }
            suite.expect(strays == nil, "an update without a key must write no record, read \(String(describing: strays))")
        }

        // A captcha check is counted as rejected before the provider answers and taken back when it passes, at a time
        // finer than the store's milliseconds: twenty solved captchas from one address leave it no wait.
        try await suite.check("a solved captcha is taken back", makeStore) { store in
            let clock = FakeClock(now: now.addingTimeInterval(0.000_4))
            let service = SMSCodeService(
                key: key, sender: ScriptedSMSSender(), captcha: ScriptedCaptchaVerifier(accepting: ["solved"]), store: store, events: DiscardingEventSink(),
                clock: clock)
            let ip = try IPAddress("198.51.100.201")
            for index in 0..<20 {
                clock.setWallTime(now.addingTimeInterval(Double(index) + 0.000_4))
                let result = try await service.send(
                    to: try PhoneNumber(value: 13_700_000_000 + UInt64(index)), context: SMSContext(ip: ip, session: LoginSessionID.random(), captcha: Secret("solved")))
                guard result.name == "sent" else {
                    return suite.problem("send \(index + 1) with a solved captcha must be sent, got \(result): a passed check left counted")
                }
            }
        }

        // Kept until its instant and not after; removeExpired removes it.
        try await suite.check("keep-until", makeStore) { store in
            let until = now.addingTimeInterval(60)
            try await store.update(counters: [counter], code: number, at: now) { state in
                state.events[counter] = [now]
                state.keepUntil = until
            }
            let atEnd = try await store.update(counters: [counter], code: number, at: until) { $0.events[counter] ?? [] }
            suite.expect(atEnd.count == 1, "a counter must be kept until its keep-until instant, read \(atEnd)")
            let removed = try await store.removeExpired(before: until.addingTimeInterval(1), limit: 100)
            suite.expect(removed >= 1, "removeExpired after keep-until must remove the counter, removed \(removed)")
            let after = try await store.update(counters: [counter], code: number, at: until.addingTimeInterval(1)) { $0.events[counter] ?? [] }
            suite.expect(after.isEmpty, "a removed counter must read as empty, read \(after)")
        }

        // An update that leaves keep-until as it read it shortens nothing: the record outlives a read-only pass.
        try await suite.check("keep-until unchanged", makeStore) { store in
            let (_, record) = rules.issue(to: number, session: nil, key: key, at: now)
            try await store.update(counters: [counter], code: number, at: now) { state in
                state.code = record
                state.keepUntil = now.addingTimeInterval(600)
            }
            let seen = try await store.update(counters: [], code: number, at: now.addingTimeInterval(1)) { $0.keepUntil }
            suite.expect(abs(seen.timeIntervalSince(now.addingTimeInterval(600))) < 0.001, "keep-until must read as written, read \(seen)")
            let later = try await store.update(counters: [], code: number, at: now.addingTimeInterval(599)) { $0.code }
            suite.expect(later != nil, "a record must be kept until its keep-until even after an update that changed nothing")
        }

        // No lost update: concurrent appends all land.
        try await suite.check("no lost update", makeStore) { store in
            _ = try await suite.race(concurrency) { index in
                try await store.update(counters: [counter], code: number, at: now) { state in
                    state.events[counter, default: []].append(now.addingTimeInterval(Double(index) / 1000))
                    state.keepUntil = now.addingTimeInterval(3600)
                }
            }
            let count = try await store.update(counters: [counter], code: number, at: now) { $0.events[counter]?.count ?? 0 }
            suite.expect(count == concurrency, "\(concurrency) concurrent updates must all land, found \(count) events")
        }

        // Through the service: concurrent sends from one address never pass its hard limit.
        try await suite.check("concurrent sends", makeStore) { store in
            let policy = try SMSPolicy(
                csv: "rule,key,counts,window_seconds,limit,over,lock_seconds,source\nip-hour,ip,sends,3600,5,limit,,conformance\n", file: "conformance.csv")
            let sender = ScriptedSMSSender()
            let service = SMSCodeService(
                key: key, sender: sender, store: store, policy: policy, events: DiscardingEventSink(), clock: FakeClock(now: now))
            let ip = try IPAddress("203.0.113.7")
            let sent = try await succeeding(concurrency) { index in
                let target = try PhoneNumber(value: 13_800_000_000 + UInt64(index))
                if case .sent = try await service.send(to: target, context: SMSContext(ip: ip, session: session)) { return true }
                return false
            }
            suite.expect(sent == 5, "\(concurrency) concurrent sends from one address under a limit of 5 must send exactly 5, sent \(sent)")
        }

        // Through the service: concurrent verifies of the right code succeed once.
        try await suite.check("concurrent verifies", makeStore) { store in
            let (service, sender, clock) = makeService(over: store)
            _ = try await service.send(to: number, context: SMSContext(session: session))
            guard let code = sender.lastCode(to: number) else { return suite.problem("a send through the store must deliver a code") }
            clock.setWallTime(now.addingTimeInterval(10))
            let verified = try await succeeding(concurrency) { _ in
                if case .verified = try await service.verify(code, for: number, context: SMSContext(session: session)) { return true }
                return false
            }
            suite.expect(verified == 1, "\(concurrency) concurrent verifies of one code must succeed exactly once, succeeded \(verified)")
        }

        // Through the service: a code verifies a millisecond before its five minutes and not at them.
        try await suite.check("code expiry", makeStore) { store in
            let (service, sender, clock) = makeService(over: store)
            _ = try await service.send(to: number, context: SMSContext(ip: try IPAddress("203.0.113.1"), session: session))
            _ = try await service.send(to: other, context: SMSContext(ip: try IPAddress("203.0.113.2"), session: session))
            guard let code = sender.lastCode(to: number), let otherCode = sender.lastCode(to: other) else {
                return suite.problem("a send through the store must deliver a code")
            }
            clock.setWallTime(now.addingTimeInterval(300))
            let atEnd = try await service.verify(code, for: number, context: SMSContext(session: session))
            suite.expect(atEnd == .expired, "a code must be expired at exactly 5 minutes, got \(atEnd)")
            clock.setWallTime(now.addingTimeInterval(299.999))
            let before = try await service.verify(otherCode, for: other, context: SMSContext(session: session))
            if case .verified = before {} else { suite.problem("a code must verify 1 ms before its 5 minutes end, got \(before)") }
        }

        try suite.finish()
    }

    private static func sameRecord(_ lhs: SMSCodeRecord, _ rhs: SMSCodeRecord) -> Bool {
        lhs.id == rhs.id && lhs.number == rhs.number && lhs.digest == rhs.digest && lhs.session == rhs.session
            && abs(lhs.issuedAt.timeIntervalSince(rhs.issuedAt)) < 0.001 && abs(lhs.expiresAt.timeIntervalSince(rhs.expiresAt)) < 0.001
            && lhs.wrongAttempts == rhs.wrongAttempts
    }
}
