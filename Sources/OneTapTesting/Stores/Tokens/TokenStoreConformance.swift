import OneTap

/// The properties every ``TokenStore`` must have, as a suite an adapter (Redis, PostgreSQL, DynamoDB…) runs
/// against itself:
///
/// ```swift
/// @Test func myStoreConforms() async throws {
///     try await TokenStoreConformance.check { try await MyRedisStore(namespace: UUID().uuidString) }
/// }
/// ```
package enum TokenStoreConformance {
    /// Runs every check, each on a fresh, empty store.
    /// - Parameter makeStore: Makes an empty store.
    /// - Throws: ``ConformanceFailure`` listing every property the store broke, or what `makeStore` throws.
    package static func check(_ makeStore: () async throws -> any TokenStore) async throws {
        let suite = ConformanceHarness("TokenStoreConformance")
        let now = Date(timeIntervalSince1970: 1_796_083_200)
        @Sendable func token(_ account: AccountID, _ value: String, refresh: String? = "r", issued: Date = now, lifetime: Double = 30 * 86_400) -> AccessToken {
            AccessToken(
                value: Secret(value), refreshToken: refresh.map(Secret.init), flow: .tianyi, account: account, issuedAt: issued,
                expiresAt: issued.addingTimeInterval(lifetime))
        }

        // A missing account loads as nil, and removing it reports nothing removed.
        try await suite.check("absent accounts", makeStore) { store in
            suite.expect(try await store.load("absent") == nil, "load of an account never written must be nil")
            suite.expect(try await store.remove("absent", replacing: nil) == false, "remove of an absent account must return false")
            await suite.expect(throws: .conflict, "remove expecting a version of an absent account must throw conflict") {
                _ = try await store.remove("absent", replacing: TokenVersion(1))
            }
        }

        // Round trip: what is saved is what loads, to the millisecond, secrets included.
        try await suite.check("round trip", makeStore) { store in
            let original = token("a", "value-α", refresh: "refresh-β", issued: Date(timeIntervalSince1970: 1_796_083_200.123))
            let version = try await store.save(original, replacing: nil, dueAt: now)
            let loaded = try await store.load("a")
            suite.expect(loaded?.token == original, "a saved token must load unchanged, got \(String(describing: loaded))")
            suite.expect(loaded?.token.value.reveal() == "value-α" && loaded?.token.refreshToken?.reveal() == "refresh-β", "secrets must round-trip")
            suite.expect(loaded?.version == version, "load must return the version save returned")
            let noRefresh = token("b", "v", refresh: nil)
            _ = try await store.save(noRefresh, replacing: nil, dueAt: now)
            suite.expect(try await store.load("b")?.token.refreshToken == nil, "a token without a refresh token must load without one")
        }

        // Compare-and-swap.
        try await suite.check("compare-and-swap", makeStore) { store in
            let v1 = try await store.save(token("a", "1"), replacing: nil, dueAt: now)
            await suite.expect(throws: .conflict, "save expecting no token must conflict when one is stored") {
                _ = try await store.save(token("a", "x"), replacing: nil, dueAt: now)
            }
            let v2 = try await store.save(token("a", "2"), replacing: v1, dueAt: now)
            suite.expect(v2 > v1, "each write must make a greater version (\(v1) then \(v2))")
            await suite.expect(throws: .conflict, "save with a stale version must conflict") {
                _ = try await store.save(token("a", "stale"), replacing: v1, dueAt: now)
            }
            suite.expect(try await store.load("a")?.token.value.reveal() == "2", "a refused write must change nothing")
            await suite.expect(throws: .conflict, "remove with a stale version must conflict") {
                _ = try await store.remove("a", replacing: v1)
            }
            suite.expect(try await store.remove("a", replacing: v2), "remove with the current version must remove")
            suite.expect(try await store.load("a") == nil, "a removed token must not load")
            let v3 = try await store.save(token("a", "3"), replacing: nil, dueAt: now)
            suite.expect(v3 != v1 && v3 != v2, "a token saved after a removal must get a version the account never had (got \(v3) again)")
            await suite.expect(throws: .conflict, "a write based on a version from before a removal must conflict") {
                _ = try await store.save(token("a", "from before the logout"), replacing: v1, dueAt: now)
            }
            await suite.expect(throws: .conflict, "a removal based on a version from before a removal must conflict") {
                _ = try await store.remove("a", replacing: v2)
            }
            suite.expect(try await store.load("a")?.token.value.reveal() == "3", "the token stored after the removal must survive")
        }

        // Accounts are independent.
        try await suite.check("independent accounts", makeStore) { store in
            _ = try await store.save(token("a", "A"), replacing: nil, dueAt: now)
            _ = try await store.save(token("b", "B"), replacing: nil, dueAt: now)
            _ = try await store.remove("a", replacing: nil)
            suite.expect(try await store.load("b")?.token.value.reveal() == "B", "removing one account must not touch another")
        }

        // Concurrent writers from one version: exactly one wins; every other one loses with `conflict` (an `io` or any
        // other error is no lost race, and is a broken property).
        try await suite.check("concurrent writers", makeStore) { store in
            let v1 = try await store.save(token("race", "0"), replacing: nil, dueAt: now)
            let ends = try await suite.race(16) { index in
                await ConformanceHarness.RaceEnd { _ = try await store.save(token("race", "w\(index)"), replacing: v1, dueAt: now) }
            }
            let wins = ends.filter { $0 == .won }.count
            suite.expect(wins == 1, "16 concurrent saves from one version must let exactly one win, \(wins) did")
            for case .failed(let error) in ends { suite.problem("a concurrent save that loses must throw conflict, threw \(error)") }
        }

        // The due index.
        try await suite.check("due index", makeStore) { store in
            for (index, account) in ["d1", "d2", "d3", "d4"].enumerated() {
                _ = try await store.save(token(AccountID(account), account), replacing: nil, dueAt: now.addingTimeInterval(Double(index) * 3600))
            }
            let due = try await store.accounts(dueBefore: now.addingTimeInterval(2 * 3600), limit: 10)
            suite.expect(due == ["d1", "d2"], "accounts(dueBefore:) must list accounts due strictly before the instant, soonest first; got \(due)")
            suite.expect(try await store.accounts(dueBefore: now.addingTimeInterval(10 * 3600), limit: 3) == ["d1", "d2", "d3"], "accounts(dueBefore:) must honour the limit")
            let v = try await store.load("d1")!.version
            _ = try await store.save(token("d1", "later"), replacing: v, dueAt: now.addingTimeInterval(20 * 3600))
            _ = try await store.remove("d2", replacing: nil)
            let after = try await store.accounts(dueBefore: now.addingTimeInterval(10 * 3600), limit: 10)
            suite.expect(after == ["d3", "d4"], "a rewrite must move an account in the due index and a removal must drop it; got \(after)")
            suite.expect(try await store.accounts(dueBefore: now, limit: 0).isEmpty, "a zero limit must list nothing")
        }

        // The record limit: a token up to 64 KiB of record is kept whole, a larger one refused at save.
        try await suite.check("record limit", makeStore) { store in
            var value = String(repeating: "v", count: TokenRecordLimit.bytes - 400)
            while TokenRecordLimit.size(of: token("big", value, refresh: nil)) < TokenRecordLimit.bytes { value += "v" }
            while TokenRecordLimit.size(of: token("big", value, refresh: nil)) > TokenRecordLimit.bytes { value.removeLast() }
            let largest = token("big", value, refresh: nil)
            let version = try await store.save(largest, replacing: nil, dueAt: now)
            suite.expect(try await store.load("big")?.token.value.reveal() == value, "a token whose record is exactly \(TokenRecordLimit.bytes) bytes must load whole")
            do {
                _ = try await store.save(token("big", value + "vv", refresh: nil), replacing: version, dueAt: now)
                suite.problem("a token whose record exceeds \(TokenRecordLimit.bytes) bytes must be refused at save")
            } catch {
                suite.expect((error as? StoreError)?.kind == .tooLarge, "a token over the record limit must throw too-large, threw \(error)")
            }
            suite.expect(try await store.load("big")?.version == version, "a refused save must leave the stored token as it was")
        }

        // A token dated outside what a record holds (1970-01-01 … 9999-12-31; 253,402,300,800 s is 10000-01-01), or
        // due before 1970, is refused at save: a store that wrote it refused it at the next read, and the token, its
        // refresh token with it, was lost (a review's finding).
        try await suite.check("instants a record holds", makeStore) { store in
            let kept = try await store.save(token("dated", "kept"), replacing: nil, dueAt: now)
            let issued = now.addingTimeInterval(-60)
            for (issuedAt, expiresAt) in [(Date.distantPast, issued), (issued, Date(timeIntervalSince1970: 253_402_300_800)), (Date(timeIntervalSince1970: -1), issued)] {
                let dated = AccessToken(value: Secret("dated"), refreshToken: Secret("R"), flow: .tianyi, account: "dated", issuedAt: issuedAt, expiresAt: expiresAt)
                do {
                    _ = try await store.save(dated, replacing: kept, dueAt: now)
                    suite.problem("a token issued \(issuedAt) and expiring \(expiresAt) must be refused at save")
                } catch {
                    suite.expect((error as? StoreError)?.kind == .tooLarge, "a token dated outside 1970 … 9999 must throw too-large, threw \(error)")
                }
            }
            do {
                _ = try await store.save(token("dated", "early"), replacing: kept, dueAt: Date(timeIntervalSince1970: -1))
                suite.problem("a token due before 1970 must be refused at save")
            } catch {
                suite.expect((error as? StoreError)?.kind == .tooLarge, "a token due before 1970 must throw too-large, threw \(error)")
            }
            // An empty access token is none a store reads back (the review of the fix that made the database's rows
            // refuse it as the file store's records did: both stores wrote it, then failed every read).
            await suite.expect(throws: .tooLarge, "a token with an empty access token must be refused at save as too-large") {
                _ = try await store.save(token("dated", ""), replacing: kept, dueAt: now)
            }
            suite.expect(try await store.load("dated")?.token.value.reveal() == "kept", "a refused save must leave the stored token as it was")
        }

        // Account ids are compared by their UTF-8 bytes: canonically equivalent spellings are two accounts.
        try await suite.check("ids by bytes", makeStore) { store in
            let composed: AccountID = "caf\u{E9}"
            let decomposed: AccountID = "cafe\u{301}"
            _ = try await store.save(token(composed, "composed"), replacing: nil, dueAt: now)
            _ = try await store.save(token(decomposed, "decomposed"), replacing: nil, dueAt: now)
            let first = try await store.load(composed)?.token.value.reveal()
            let second = try await store.load(decomposed)?.token.value.reveal()
            suite.expect(first == "composed" && second == "decomposed", "composed and decomposed `café` are two accounts (ids compare by bytes)")
            let longest = AccountID(stringLiteral: String(repeating: "长", count: 33))   // 99 bytes
            _ = try await store.save(token(longest, "long"), replacing: nil, dueAt: now)
            suite.expect(try await store.load(longest)?.token.account == longest, "an id of up to \(AccountID.maximumBytes) bytes must round-trip")
        }

        // Concurrent writers of many accounts: every account ends with exactly one of its writers' tokens.
        try await suite.check("concurrent first writes", makeStore) { store in
            let accounts = (0..<8).map { AccountID(stringLiteral: "many-\($0)") }
            let ends = try await suite.race(accounts.count * 4) { index in
                let account = accounts[index / 4]
                return await ConformanceHarness.RaceEnd { _ = try await store.save(token(account, "\(account)-\(index % 4)"), replacing: nil, dueAt: now) }
            }
            for case .failed(let error) in ends { suite.problem("a concurrent first write that loses must throw conflict, threw \(error)") }
            for account in accounts {
                let value = try await store.load(account)?.token.value.reveal()
                suite.expect(value?.hasPrefix("\(account)-") == true, "concurrent first writes of \(account) must leave one of them, got \(value ?? "nothing")")
            }
        }

        // The refresh lock runs its body and returns its value.
        try await suite.check("refresh lock", makeStore) { store in
            let value = try await store.withRefreshLock(for: "lock") { 42 }
            suite.expect(value == 42, "withRefreshLock must return the body's value")
        }

        try suite.finish()
    }
}
