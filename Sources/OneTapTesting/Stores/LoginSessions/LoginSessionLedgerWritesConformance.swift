import OneTap

/// The properties every ``LoginSessionLedgerStore`` must have with its exchange ledger, as a suite an
/// adapter runs against itself: the joint writes are offered for the store's own ledger and not for a
/// wrapper; a claim and a settle go with the session's compare-and-swap, both or neither (a refused
/// compare-and-swap claims or settles nothing); the claim answers as the ledger's own does; of many joint
/// claims racing from one version exactly one lands, with its token alone claimed.
///
/// ```swift
/// @Test func jointWrites() async throws {
///     try await LoginSessionLedgerWritesConformance.check {
///         let stores = try await MyStores.open(schema: UUID().uuidString)
///         return (stores.loginSessionStore(), stores.exchangeLedger())
///     }
/// }
/// ```
package enum LoginSessionLedgerWritesConformance {
    /// Runs every check, each on a fresh, empty store and ledger.
    /// - Parameters:
    ///   - concurrency: How many joint claims race from one version.
    ///   - makeStores: Makes an empty store and the ledger it writes with.
    /// - Throws: ``ConformanceFailure`` listing every property broken, or what `makeStores` throws.
    package static func check(
        concurrency: Int = 20, _ makeStores: () async throws -> (store: any LoginSessionLedgerStore, ledger: any ExchangeLedger)
    ) async throws {
        let suite = ConformanceHarness("LoginSessionLedgerWritesConformance")
        let now = Date(timeIntervalSinceReferenceDate: 786_000_000.25)
        let machine = LoginSessionMachine()
        let mobile = DeviceSnapshot(sim: .present, plmn: try PLMN("46000"))
        let number = try PhoneNumber("13800138000")
        func started() -> LoginSession { machine.start(mobile, at: now, id: .random()).session }
        func advanced(_ session: LoginSession, _ report: LoginReport) throws -> LoginSession {
            try machine.advance(session, report.bound(to: session), version: session.version, at: now.addingTimeInterval(1.5)).session
        }
        func credential(_ name: String) -> CarrierCredential { CarrierCredential(flow: .mobile, token: Secret("joint-\(name)"), uniqueID: "u") }
        func exchanging(_ session: LoginSession, _ name: String = "token") throws -> LoginSession {
            try advanced(session, .result(.mobile, code: "103000", credential: credential(name)))
        }
        let token = credential("token").tokenDigest
        let answered = ExchangeLedgerState.answered(ExchangeResponse(code: ResultCode("103000"), phoneNumber: number))
        /// The joint writes of a store with its ledger; a problem when it offers none.
        func writes(_ stores: (store: any LoginSessionLedgerStore, ledger: any ExchangeLedger)) throws -> any LoginSessionLedgerWrites {
            guard let writes = stores.store.ledgerWrites(with: stores.ledger) else { throw ConformanceFailure(suite: "LoginSessionLedgerWritesConformance", problems: ["no joint writes"]) }
            return writes
        }

        try await suite.check("offered for its own ledger alone", makeStores) { stores in
            suite.expect(stores.store.ledgerWrites(with: stores.ledger) != nil, "the store must offer joint writes with its own ledger")
            let wrapped = FaultyExchangeLedger(stores.ledger)
            suite.expect(stores.store.ledgerWrites(with: wrapped) == nil, "the store must offer no joint writes with a ledger it cannot write atomically (a wrapper)")
        }

        try await suite.check("a claim with the replace", makeStores) { stores in
            let v1 = started()
            try await stores.store.create(v1)
            let v2 = try exchanging(v1)
            let held = try await writes(stores).replace(v2, expecting: 1, claiming: token, at: now)
            suite.expect(held == nil, "a joint claim of a token never claimed must answer nil, got \(held.map(String.init(describing:)) ?? "nil")")
            suite.expect(try await stores.store.load(v1.id) == v2, "a joint claim must replace the session")
            let entry = try await stores.ledger.claim(token, for: .random(), at: now)
            suite.expect(entry?.state == .pending && entry?.session == v1.id && entry?.sends == 1,
                "a joint claim must leave the token pending for the session, got \(entry.map(String.init(describing:)) ?? "nothing")")
        }

        try await suite.check("a refused replace claims nothing", makeStores) { stores in
            let v1 = started()
            try await stores.store.create(v1)
            let other = try advanced(v1, .result(.mobile, code: "200023"))
            try await stores.store.replace(other, expecting: 1)
            let stale = try exchanging(v1)
            await suite.expect(throws: .conflict, "a joint claim from a stale version must throw conflict") {
                _ = try await writes(stores).replace(stale, expecting: 1, claiming: token, at: now)
            }
            suite.expect(try await stores.store.load(v1.id) == other, "a refused joint claim must leave the session as it was")
            suite.expect(try await stores.ledger.claim(token, for: v1.id, at: now) == nil, "a refused joint claim must claim nothing")
            let missing = try exchanging(started(), "missing")
            await suite.expect(throws: .notFound, "a joint claim for a session not stored must throw notFound") {
                _ = try await writes(stores).replace(missing, expecting: 1, claiming: credential("missing").tokenDigest, at: now)
            }
            suite.expect(try await stores.store.load(missing.id) == nil, "a joint claim refused as not found must create nothing")
            suite.expect(try await stores.ledger.claim(credential("missing").tokenDigest, for: missing.id, at: now) == nil,
                "a joint claim refused as not found must claim nothing")
        }

        try await suite.check("a token claimed before", makeStores) { stores in
            let owner = LoginSessionID.random()
            _ = try await stores.ledger.claim(token, for: owner, at: now)
            let v1 = started()
            try await stores.store.create(v1)
            let v2 = try exchanging(v1)
            let held = try await writes(stores).replace(v2, expecting: 1, claiming: token, at: now.addingTimeInterval(2))
            suite.expect(held?.session == owner && held?.state == .pending && held?.claimedAt == now,
                "a joint claim of a token claimed before must answer its entry unchanged, got \(held.map(String.init(describing:)) ?? "nil")")
            suite.expect(try await stores.store.load(v1.id) == v2, "a joint claim of a token claimed before must replace the session all the same")
        }

        try await suite.check("a settle with the replace", makeStores) { stores in
            let v1 = started()
            try await stores.store.create(v1)
            let v2 = try exchanging(v1)
            _ = try await writes(stores).replace(v2, expecting: 1, claiming: token, at: now)
            let v3 = try advanced(v2, .exchanged(.timeout))
            try await writes(stores).replace(v3, expecting: 2, settling: token, answered, at: now.addingTimeInterval(1))
            suite.expect(try await stores.store.load(v1.id) == v3, "a joint settle must replace the session")
            let entry = try await stores.ledger.claim(token, for: v1.id, at: now.addingTimeInterval(2))
            suite.expect(entry?.state == answered && entry?.session == v1.id,
                "a joint settle must record the answer, got \(entry.map(String.init(describing:)) ?? "nothing")")
        }

        try await suite.check("a refused replace settles nothing", makeStores) { stores in
            let v1 = started()
            try await stores.store.create(v1)
            let v2 = try exchanging(v1)
            _ = try await writes(stores).replace(v2, expecting: 1, claiming: token, at: now)
            let stale = try advanced(v1, .fault(.mobile, "stale"))
            await suite.expect(throws: .conflict, "a joint settle from a stale version must throw conflict") {
                try await writes(stores).replace(stale, expecting: 1, settling: token, answered, at: now)
            }
            suite.expect(try await stores.store.load(v1.id) == v2, "a refused joint settle must leave the session as it was")
            let entry = try await stores.ledger.claim(token, for: v1.id, at: now)
            suite.expect(entry?.state == .pending, "a refused joint settle must leave the token pending, got \(entry.map(String.init(describing:)) ?? "nothing")")
        }

        try await suite.check("concurrent joint claims", makeStores) { stores in
            let v1 = started()
            try await stores.store.create(v1)
            let writes = try writes(stores)
            let candidates = try (0..<concurrency).map { try exchanging(v1, "race-\($0)") }
            let tokens = (0..<concurrency).map { credential("race-\($0)").tokenDigest }
            let outcomes = try await suite.race(concurrency) { index -> (Int, StoreError.Kind?) in
                do {
                    _ = try await writes.replace(candidates[index], expecting: 1, claiming: tokens[index], at: now)
                    return (index, nil)
                } catch let error as StoreError {
                    return (index, error.kind)
                }
            }
            let winners = outcomes.filter { $0.1 == nil }.map(\.0)
            suite.expect(winners.count == 1, "of \(concurrency) joint claims from one version exactly one must land, \(winners.count) did")
            suite.expect(outcomes.allSatisfy { $0.1 == nil || $0.1 == .conflict }, "every losing joint claim must throw conflict, got \(outcomes.compactMap(\.1))")
            guard let winner = winners.first else { return }
            suite.expect(try await stores.store.load(v1.id) == candidates[winner], "the session must be the winner's")
            for index in 0..<concurrency {
                let entry = try await stores.ledger.claim(tokens[index], for: .random(), at: now)
                suite.expect((entry != nil) == (index == winner), "the winner's token alone must be claimed (token \(index): \(entry.map(String.init(describing:)) ?? "not claimed"))")
            }
        }
        try suite.finish()
    }
}
