import OneTap

/// The properties every ``LoginSessionStore`` must have, as a suite an adapter (PostgreSQL, Redis…) runs
/// against itself:
///
/// ```swift
/// @Test func myStoreConforms() async throws {
///     try await LoginSessionStoreConformance.check { try await MyPostgresSessionStore(schema: UUID().uuidString) }
/// }
/// ```
///
/// Each property is checked on a fresh, empty store; every broken property is listed, not only the first.
package enum LoginSessionStoreConformance {
    /// Runs every check, each on a fresh, empty store.
    /// - Parameter makeStore: Makes an empty store.
    /// - Throws: ``ConformanceFailure`` listing every property the store broke, or what `makeStore` throws.
    package static func check(_ makeStore: () async throws -> any LoginSessionStore) async throws {
        let suite = ConformanceHarness("LoginSessionStoreConformance")

        // An instant with a fraction of a second, as a server's clock gives it; this one does not survive a
        // conversion to seconds since 1970 and back unless the session keeps it in its stored form.
        let now = Date(timeIntervalSinceReferenceDate: 786_000_000.1)
        let machine = LoginSessionMachine()
        let mobile = DeviceSnapshot(sim: .present, plmn: try PLMN("46000"))
        let telecom = DeviceSnapshot(sim: .present, plmn: try PLMN("46011"))
        func started(_ snapshot: DeviceSnapshot = mobile, at start: Date = now, id: LoginSessionID = .random()) -> LoginSession {
            machine.start(snapshot, at: start, id: id).session
        }
        func advanced(_ session: LoginSession, _ report: LoginReport) throws -> LoginSession {
            try machine.advance(session, report.bound(to: session), version: session.version, at: session.createdAt.addingTimeInterval(1.5)).session
        }

        // Round trip: what is created or replaced is what loads, in every stage.
        try await suite.check("round trip", makeStore) { store in
            let first = started()
            suite.expect(try await store.load(first.id) == nil, "load of an id never created must be nil")
            try await store.create(first)
            let loaded = try await store.load(first.id)
            suite.expect(loaded == first, "a created session must load unchanged, got \(loaded.map(String.init(describing:)) ?? "nothing")")
            let credential = CarrierCredential(flow: .mobile, token: Secret("conformance-token"), uniqueID: "u")
            var previous = first
            for report: LoginReport in [
                .result(.mobile, code: "103000", credential: credential), .exchanged(.timeout),
                .smsVerified(SMSVerdict(phoneNumber: try PhoneNumber("13800138000"), session: first.id, verifiedAt: now)),
            ] {
                let next = try advanced(previous, report)
                try await store.replace(next, expecting: previous.version)
                let loaded = try await store.load(next.id)
                suite.expect(loaded == next, "a replaced session (\(next.stage)) must load unchanged, got \(loaded.map(String.init(describing:)) ?? "nothing")")
                previous = next
            }
            let other = started(telecom)
            try await store.create(other)
            suite.expect(try await store.load(other.id) == other, "a second session must load unchanged")
            suite.expect(try await store.load(first.id) == previous, "creating a session must not touch another")
        }

        // A duplicate id is refused, and the first session stays.
        try await suite.check("duplicate create", makeStore) { store in
            let first = started()
            try await store.create(first)
            let impostor = started(telecom, id: first.id)
            await suite.expect(throws: .duplicate, "create of an id that exists must throw duplicate") { try await store.create(impostor) }
            suite.expect(try await store.load(first.id) == first, "a refused duplicate create must leave the first session as it was")
        }

        // Compare-and-swap on the version.
        try await suite.check("compare-and-swap", makeStore) { store in
            let v1 = started()
            try await store.create(v1)
            let v2 = try advanced(v1, .result(.mobile, code: "200023"))
            try await store.replace(v2, expecting: 1)
            suite.expect(try await store.load(v1.id) == v2, "replace expecting the stored version must write")
            let stale = try advanced(v1, .result(.mobile, code: "102101"))
            await suite.expect(throws: .conflict, "replace with a stale version must throw conflict") {
                try await store.replace(stale, expecting: 1)
            }
            suite.expect(try await store.load(v1.id) == v2, "a replace refused as stale must write nothing")
            let v3 = try advanced(v2, .result(.mobile, code: "102101"))
            await suite.expect(throws: .conflict, "replace expecting a version the session never had must throw conflict") {
                try await store.replace(v3, expecting: 3)
            }
            suite.expect(try await store.load(v1.id) == v2, "a replace refused as from the future must write nothing")
            try await store.replace(v3, expecting: 2)
            suite.expect(try await store.load(v1.id) == v3, "replace expecting the stored version must write each time")
        }

        // A replace of a session that is not there is refused, and creates nothing.
        try await suite.check("replace of a missing session", makeStore) { store in
            let missing = try advanced(started(), .result(.mobile, code: "200023"))
            await suite.expect(throws: .notFound, "replace of an id no session has must throw notFound") {
                try await store.replace(missing, expecting: 1)
            }
            suite.expect(try await store.load(missing.id) == nil, "a replace refused as not found must create nothing")
        }

        // 100 concurrent replaces from one version: exactly one wins, the others conflict.
        try await suite.check("concurrent replaces", makeStore) { store in
            let v1 = started()
            try await store.create(v1)
            let candidates = try (0..<100).map { try advanced(v1, .fault(.mobile, "writer \($0)")) }
            let outcomes = await withTaskGroup(of: (Int, StoreError.Kind?, String?).self) { group in
                for (index, candidate) in candidates.enumerated() {
                    group.addTask {
                        do {
                            try await store.replace(candidate, expecting: 1)
                            return (index, nil, nil)
                        } catch {
                            return (index, (error as? StoreError)?.kind, "\(error)")
                        }
                    }
                }
                var outcomes: [(Int, StoreError.Kind?, String?)] = []
                for await outcome in group { outcomes.append(outcome) }
                return outcomes
            }
            let winners = outcomes.filter { $0.2 == nil }.map(\.0)
            let conflicts = outcomes.filter { $0.1 == .conflict }.count
            suite.expect(winners.count == 1, "100 concurrent replaces from one version must let exactly one win, \(winners.count) did")
            suite.expect(conflicts == 100 - winners.count, "the concurrent replaces that lost must throw conflict; \(100 - winners.count - conflicts) threw otherwise")
            if let winner = winners.first {
                suite.expect(try await store.load(v1.id) == candidates[winner], "the session stored must be the winning replace's")
            }
        }

        // removeExpired removes the sessions that expired strictly before the instant, no more than the limit.
        try await suite.check("removeExpired", makeStore) { store in
            let instant = Date(timeIntervalSince1970: 1_796_083_200)
            let lifetime = machine.sessionLifetime.seconds
            func expiring(at offset: Double) -> LoginSession { started(at: instant.addingTimeInterval(offset - lifetime)) }
            let expired = [-3600, -2, -0.5].map(expiring)
            let kept = [0, 0.5, 3600].map(expiring)
            for session in expired + kept { try await store.create(session) }
            let removed = try await store.removeExpired(before: instant, limit: 10)
            suite.expect(removed == expired.count, "removeExpired must remove the \(expired.count) sessions that expired before the instant, removed \(removed)")
            for session in expired {
                suite.expect(try await store.load(session.id) == nil, "a session that expired before the instant must be removed")
            }
            for session in kept {
                suite.expect(try await store.load(session.id) == session, "a session expiring at or after the instant must be kept (expiring \(session.expiresAt.timeIntervalSince(instant)) s after it)")
            }
            suite.expect(try await store.removeExpired(before: instant, limit: 10) == 0, "a second removeExpired with nothing expired must remove nothing")
        }
        try await suite.check("removeExpired limit", makeStore) { store in
            let instant = Date(timeIntervalSince1970: 1_796_083_200)
            let old = (0..<5).map { started(at: instant.addingTimeInterval(-86_400 - Double($0))) }
            let fresh = started(at: instant)
            for session in old + [fresh] { try await store.create(session) }
            suite.expect(try await store.removeExpired(before: instant, limit: 0) == 0, "removeExpired with a zero limit must remove nothing")
            let first = try await store.removeExpired(before: instant, limit: 3)
            var left = 0
            for session in old where try await store.load(session.id) != nil { left += 1 }
            suite.expect(first == 3 && left == 2, "removeExpired must honour its limit: limit 3 of 5 expired removed \(first), left \(left)")
            let second = try await store.removeExpired(before: instant, limit: 3)
            suite.expect(second == 2, "removeExpired must remove the rest on the next call, removed \(second) of 2")
            suite.expect(try await store.load(fresh.id) == fresh, "removeExpired must not touch a session that has not expired")
        }

        try suite.finish()
    }
}
