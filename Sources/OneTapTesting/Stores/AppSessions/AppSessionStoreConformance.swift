import OneTap

/// The properties every ``AppSessionStore`` must have, as a suite an adapter runs against itself
/// (`try await AppSessionStoreConformance.check { try await MyStore(…) }`), each on a fresh, empty store;
/// every broken property is listed, not only the first.
package enum AppSessionStoreConformance {
    /// Runs every check, each on a fresh, empty store.
    /// - Parameter makeStore: Makes an empty store.
    /// - Throws: ``ConformanceFailure`` listing every property the store broke, or what `makeStore` throws.
    package static func check(_ makeStore: () async throws -> any AppSessionStore) async throws {
        let suite = ConformanceHarness("AppSessionStoreConformance")
        // An instant with a fraction of a second, as a server's clock gives it.
        let now = Date(timeIntervalSinceReferenceDate: 786_000_000.1)
        let rules = AppSessionRules(policy: .standard, keys: try ServerKeyRing([(try KeyID("conformance"), ServerKey(bytes: Array(repeating: 7, count: 32)))]))
        // A last-login hint, kept in the record: its number masked.
        let hint = LastLoginHint(flow: .mobile, number: try PhoneNumber("13800138000"), at: now)
        func opened(at start: Date = now) -> (record: AppSessionRecord, token: Secret) {
            let (record, token) = rules.open(id: .random(), guest: .random(), secret: systemRandomBytes(32), at: start)
            return (record, token)
        }
        func rotated(_ record: AppSessionRecord, _ token: Secret, at instant: Date) -> (record: AppSessionRecord, token: Secret)? {
            guard let presented = PresentedRefreshToken(token), case .rotated(let next, let successor) = rules.refresh(record, presented: presented, nonce: systemRandomBytes(32), at: instant) else {
                return nil
            }
            return (next, successor)
        }

        // What is created or replaced is what loads: a guest, a rotated session with its previous token and
        // ancestors, a logged-in one, a revoked one.
        try await suite.check("round trip", makeStore) { store in
            var (record, token) = opened()
            suite.expect(try await store.load(record.id) == nil, "load of an id never created must be nil")
            try await store.create(record)
            suite.expect(try await store.load(record.id) == record, "a created session must load unchanged")
            for step in 1...3 {
                guard let next = rotated(record, token, at: now.addingTimeInterval(Double(step) * 60.25)) else {
                    suite.expect(false, "the rules refused to rotate the conformance session")
                    return
                }
                try await store.replace(next.record, expecting: record.version)
                (record, token) = next
                suite.expect(try await store.load(record.id) == record, "a rotated session (\(step) rotations, previous token and ancestors) must load unchanged")
            }
            let login = rules.login(record, account: "账户 42", hint: hint, number: try PhoneNumber("13800138000"), secret: systemRandomBytes(32), at: now.addingTimeInterval(400))
            try await store.replace(login.record, expecting: record.version)
            suite.expect(try await store.load(record.id) == login.record, "a logged-in session (its hint and its number's digest) must load unchanged")
            let revoked = rules.revoke(login.record, .reuse, at: now.addingTimeInterval(500.5))
            try await store.replace(revoked, expecting: login.record.version)
            suite.expect(try await store.load(record.id) == revoked, "a revoked session must load unchanged")
        }

        try await suite.check("duplicate create", makeStore) { store in
            let first = opened().record
            try await store.create(first)
            let impostor = rules.login(first, account: "impostor", hint: hint, secret: systemRandomBytes(32), at: now).record
            await suite.expect(throws: .duplicate, "create of an id that exists must throw duplicate") { try await store.create(impostor) }
            suite.expect(try await store.load(first.id) == first, "a refused duplicate create must leave the first session as it was")
        }

        try await suite.check("compare-and-swap", makeStore) { store in
            let (v1, token) = opened()
            try await store.create(v1)
            guard let v2 = rotated(v1, token, at: now.addingTimeInterval(1)) else { return }
            try await store.replace(v2.record, expecting: 1)
            let stale = rules.revoke(v1, .logout, at: now.addingTimeInterval(2))
            await suite.expect(throws: .conflict, "replace with a stale version must throw conflict") { try await store.replace(stale, expecting: 1) }
            suite.expect(try await store.load(v1.id) == v2.record, "a replace refused as stale must write nothing")
            let missing = opened().record
            await suite.expect(throws: .notFound, "replace of an id no session has must throw notFound") {
                try await store.replace(rules.revoke(missing, .logout, at: now), expecting: 1)
            }
            suite.expect(try await store.load(missing.id) == nil, "a replace refused as not found must create nothing")
        }

        // 50 concurrent replaces from one version: exactly one wins; every other one loses with `conflict` (an `io` or any
        // other error is no lost race, and is a broken property: `AppSessions` reads a conflict as "read again").
        try await suite.check("concurrent replaces", makeStore) { store in
            let v1 = opened().record
            try await store.create(v1)
            let candidates = (0..<50).map { rules.login(v1, account: AccountID(stringLiteral: "account-\($0)"), hint: hint, secret: systemRandomBytes(32), at: now).record }
            let ends = try await suite.race(candidates.count) { index in
                (index, await ConformanceHarness.RaceEnd { try await store.replace(candidates[index], expecting: 1) })
            }
            let winners = ends.filter { $0.1 == .won }.map(\.0)
            suite.expect(winners.count == 1, "50 concurrent replaces from one version must let exactly one win, \(winners.count) did")
            for case (_, .failed(let error)) in ends { suite.problem("a concurrent replace that loses must throw conflict, threw \(error)") }
            if let winner = winners.first {
                suite.expect(try await store.load(v1.id) == candidates[winner], "the session stored must be the winning replace's")
            }
        }

        try await suite.check("sessions of an account", makeStore) { store in
            var ids: Set<AppSessionID> = []
            for index in 0..<3 {
                let guest = opened().record
                try await store.create(guest)
                let login = rules.login(guest, account: "42", hint: hint, secret: systemRandomBytes(32), at: now)
                try await store.replace(login.record, expecting: 1)
                if index == 2 {
                    try await store.replace(rules.revoke(login.record, .logout, at: now), expecting: login.record.version)
                } else {
                    ids.insert(guest.id)
                }
            }
            let other = opened().record
            try await store.create(other)
            try await store.replace(rules.login(other, account: "420", hint: hint, secret: systemRandomBytes(32), at: now).record, expecting: 1)
            try await store.create(opened().record)
            let found = try await store.sessions(of: "42")
            suite.expect(Set(found) == ids && found.count == ids.count, "sessions(of:) must list the account's sessions that are not revoked, each once; listed \(found.count) of \(ids.count)")
            suite.expect(try await store.sessions(of: "4").isEmpty, "sessions(of:) must match the account id exactly")
        }

        // The sessions holding a pending merge are listed a page at a time, in order, each once; clearing it or removing
        // the session takes it off the list.
        try await suite.check("pending merges", makeStore) { store in
            var pending: [AppSessionRecord] = []
            for index in 0..<5 {
                let guest = opened().record
                try await store.create(guest)
                var login = rules.login(guest, account: "42", hint: hint, secret: systemRandomBytes(32), at: now).record
                if index != 2, case .guest(let former) = guest.identity {
                    login.pendingMerge = .init(guest: former, account: "42")
                    pending.append(login)
                }
                try await store.replace(login, expecting: 1)
            }
            try await store.create(opened().record)
            suite.expect(try await store.pendingMerges(after: nil, limit: 0).isEmpty, "pendingMerges with a zero limit must list nothing")
            let expected = pending.map(\.id).sorted()
            var listed: [AppSessionID] = []
            var cursor: AppSessionID? = nil
            var sizes: [Int] = []
            for _ in 0..<4 {
                let page = try await store.pendingMerges(after: cursor, limit: 3)
                listed += page
                sizes.append(page.count)
                guard page.count == 3, let last = page.last else { break }
                cursor = last
            }
            suite.expect(sizes == [3, 1], "pendingMerges must list 3 a page when asked for 3, then the 1 left: pages of \(sizes)")
            suite.expect(listed == expected, "pendingMerges must list the sessions with a pending merge, in order, each once, 3 a page: listed \(listed.count) of \(expected.count)")
            let cleared = pending[0]
            var next = cleared
            next.pendingMerge = nil
            next.version += 1
            try await store.replace(next, expecting: cleared.version)
            let revoked = rules.revoke(pending[1], .logout, at: now.addingTimeInterval(1))
            try await store.replace(revoked, expecting: pending[1].version)
            let after = try await store.pendingMerges(after: nil, limit: 10)
            suite.expect(
                after == pending.dropFirst().map(\.id).sorted(),
                "a session whose pending merge was cleared must no longer be listed, a revoked one that keeps it must be")
            // The cursor is the last id of a page, which the next page need not find pending still (a round clears each).
            let afterCleared = try await store.pendingMerges(after: cleared.id, limit: 10)
            suite.expect(
                afterCleared == expected.filter { $0 > cleared.id },
                "pendingMerges after a cursor whose merge was cleared must list the ids after it")
            let gone = try await store.removeExpired(before: now.addingTimeInterval(rules.policy.refreshLifetime.seconds + 7_200), limit: 100)
            let left = try await store.pendingMerges(after: nil, limit: 10)
            suite.expect(gone > 0 && left.isEmpty, "a removed session must no longer be listed")
        }

        try await suite.check("removeExpired", makeStore) { store in
            let instant = Date(timeIntervalSince1970: 1_796_083_200)
            let lifetime = rules.policy.refreshLifetime.seconds
            let expired = [-3600, -2, -0.5].map { opened(at: instant.addingTimeInterval($0 - lifetime)).record }
            let kept = [0, 0.5, 3600].map { opened(at: instant.addingTimeInterval($0 - lifetime)).record }
            for record in expired + kept { try await store.create(record) }
            suite.expect(try await store.removeExpired(before: instant, limit: 0) == 0, "removeExpired with a zero limit must remove nothing")
            let first = try await store.removeExpired(before: instant, limit: 2)
            let second = try await store.removeExpired(before: instant, limit: 10)
            suite.expect(first == 2 && second == 1, "removeExpired must honour its limit and remove the rest next time: removed \(first), then \(second)")
            for record in expired { suite.expect(try await store.load(record.id) == nil, "a session that expired before the instant must be removed") }
            for record in kept { suite.expect(try await store.load(record.id) == record, "a session expiring at or after the instant must be kept") }
        }

        try suite.finish()
    }
}
