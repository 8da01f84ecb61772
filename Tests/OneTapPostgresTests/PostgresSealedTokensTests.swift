import Foundation
import OneTap
@testable import OneTapPostgres
import OneTapTesting
import Testing

/// Issue 21, scenario 6 (at rest): carrier tokens in PostgreSQL are sealed with AES-256-GCM, a key id per row.
@Suite(.connectionBudget) struct PostgresSealedTokensTests {
    let now = Tokens.now
    static let key1 = [UInt8](repeating: 0x11, count: 32)
    static let key2 = [UInt8](repeating: 0x22, count: 32)
    static let access = "CARRIER-ACCESS-TOKEN-7f3a9c"
    static let refresh = "CARRIER-REFRESH-TOKEN-b81e4d"

    func keyring(_ current: String = "k1", _ keys: [String: [UInt8]] = ["k1": key1]) throws -> PostgresTokenKeyring {
        try PostgresTokenKeyring(currentKeyID: current, keys: keys)
    }

    func token(_ account: AccountID = "u1") -> AccessToken { Tokens.make(account, Self.access, refresh: Self.refresh) }

    func table(_ stores: PostgresStores) -> String { "\"\(stores.configuration.schema)\".tokens" }

    static func hex(_ text: String) -> String { text.utf8.map { String(format: "%02x", $0) }.joined() }

    /// Expects `load` to fail with `corrupt`, its message holding every fragment and no token.
    func expectCorrupt(_ store: any TokenStore, _ account: AccountID, _ fragments: [String], sourceLocation: SourceLocation = #_sourceLocation) async {
        await #expect(sourceLocation: sourceLocation) {
            _ = try await store.load(account)
        } throws: { error in
            guard let error = error as? StoreError else { return false }
            return error.kind == .corrupt && fragments.allSatisfy { error.message.contains($0) } && !"\(error)".contains(Self.access)
                && !"\(error)".contains(Self.refresh)
        }
    }

    @Test func aSealedRowReadStraightFromTheTableHoldsNoTokenText() async throws {
        try await TestDatabase.withStores { stores in
            let store = stores.tokenStore(keyring: try keyring())
            _ = try await store.save(token(), replacing: nil, dueAt: now)
            // Every column of the row, as the database gives it (bytea as hex) and as raw bytes.
            let rows = try await stores.pool.execute("SELECT to_jsonb(t)::text, access_token, refresh_token, key_id FROM \(table(stores)) t")
            let json = try #require(rows.first?[0].text)
            for secret in [Self.access, Self.refresh] {
                #expect(!json.contains(secret) && !json.contains(Self.hex(secret)), "\(json)")
            }
            let sealedAccess = try #require(rows.first?[1].bytes)
            let sealedRefresh = try #require(rows.first?[2].bytes)
            #expect(sealedAccess.count == Self.access.utf8.count + 28 && sealedRefresh.count == Self.refresh.utf8.count + 28)
            #expect(String(decoding: sealedAccess, as: UTF8.self) != Self.access)
            #expect(rows.first?[3] == .text("k1"))
            let loaded = try #require(try await store.load("u1"))
            #expect(loaded.token.value.reveal() == Self.access && loaded.token.refreshToken?.reveal() == Self.refresh)
            // Two saves of one token never give the same bytes: a fresh nonce each time.
            _ = try await store.save(token(), replacing: loaded.version, dueAt: now)
            #expect(try await stores.pool.execute("SELECT access_token FROM \(table(stores))").first?[0].bytes != sealedAccess)
        }
    }

    @Test func aChangedByteIsRefusedAsCorrupt() async throws {
        try await TestDatabase.withStores { stores in
            let store = stores.tokenStore(keyring: try keyring())
            _ = try await store.save(token(), replacing: nil, dueAt: now)
            for (column, position) in [("access_token", 0), ("access_token", 20), ("refresh_token", 40)] {
                try await stores.pool.execute(
                    "UPDATE \(table(stores)) SET \(column) = set_byte(\(column), \(position), get_byte(\(column), \(position)) # 1)")
                await expectCorrupt(store, "u1", ["does not open with token key \"k1\"", "left as it is"])
                try await stores.pool.execute(
                    "UPDATE \(table(stores)) SET \(column) = set_byte(\(column), \(position), get_byte(\(column), \(position)) # 1)")
                #expect(try await store.load("u1")?.token.value.reveal() == Self.access)
            }
        }
    }

    @Test func aRowMovedToAnotherAccountFieldOrKeyIdIsRefused() async throws {
        try await TestDatabase.withStores { stores in
            // Two ids of the same key bytes: only the additional data tells them apart.
            let store = stores.tokenStore(keyring: try keyring("k1", ["k1": Self.key1, "k1b": Self.key1]))
            let tokens = table(stores)
            for account: AccountID in ["u1", "u2", "u3", "u4"] { _ = try await store.save(token(account), replacing: nil, dueAt: now) }
            // Another account's sealed token, the row's own refresh token in the access column, another key id.
            try await stores.pool.execute(
                "UPDATE \(tokens) SET access_token = (SELECT access_token FROM \(tokens) WHERE account = 'u1') WHERE account = 'u2'")
            try await stores.pool.execute("UPDATE \(tokens) SET access_token = refresh_token WHERE account = 'u3'")
            try await stores.pool.execute("UPDATE \(tokens) SET key_id = 'k1b' WHERE account = 'u4'")
            await expectCorrupt(store, "u2", ["access token", "does not open with token key \"k1\""])
            await expectCorrupt(store, "u3", ["access token", "does not open"])
            await expectCorrupt(store, "u4", ["does not open with token key \"k1b\""])
            #expect(try await store.load("u1")?.token.value.reveal() == Self.access)
        }
    }

    @Test func keysRotateAndAMissingKeyIsNamed() async throws {
        try await TestDatabase.withStores { stores in
            let old = stores.tokenStore(keyring: try keyring("k1", ["k1": Self.key1]))
            let rotated = stores.tokenStore(keyring: try keyring("k2", ["k1": Self.key1, "k2": Self.key2]))
            let onlyNew = stores.tokenStore(keyring: try keyring("k2", ["k2": Self.key2]))
            let unkeyed = stores.tokenStore()
            let first = try await old.save(token(), replacing: nil, dueAt: now)
            // The rotated keyring reads the old row and seals the next save with its current key.
            let read = try #require(try await rotated.load("u1"))
            #expect(read.version == first && read.token.value.reveal() == Self.access)
            await expectCorrupt(onlyNew, "u1", ["sealed with token key \"k1\"", "does not hold (it holds k2)"])
            await expectCorrupt(unkeyed, "u1", ["sealed with token key \"k1\"", "no keyring"])
            _ = try await rotated.save(token(), replacing: first, dueAt: now)
            #expect(try await stores.pool.execute("SELECT key_id FROM \(table(stores))").first == [.text("k2")])
            #expect(try await onlyNew.load("u1")?.token.refreshToken?.reveal() == Self.refresh)
            await expectCorrupt(old, "u1", ["sealed with token key \"k2\"", "does not hold (it holds k1)"])
        }
    }

    /// A login replaces a row no key of the keyring opens (a rolling deploy's, or one whose key was dropped): the
    /// vault's write of the login's token went through `load` first, and every login of the account failed.
    @Test func aLoginReplacesARowNoKeyOpens() async throws {
        try await TestDatabase.withStores { stores in
            _ = try await stores.tokenStore(keyring: try keyring("k1", ["k1": Self.key1])).save(token(), replacing: nil, dueAt: now)
            let onlyNew = stores.tokenStore(keyring: try keyring("k2", ["k2": Self.key2]))
            await expectCorrupt(onlyNew, "u1", ["sealed with token key \"k1\""])
            let vault = TokenVault(store: onlyNew, refresher: MockRefresher(), clock: FakeClock(now: now), events: DiscardingEventSink())
            try await vault.store(Tokens.make("u1", "NEW-ACCESS", refresh: "NEW-REFRESH"))
            let read = try #require(try await onlyNew.load("u1"))
            #expect(read.token.value.reveal() == "NEW-ACCESS" && read.token.refreshToken?.reveal() == "NEW-REFRESH")
            #expect(try await stores.pool.execute("SELECT key_id FROM \(table(stores))").first == [.text("k2")])
        }
    }

    @Test func aRowWrittenUnsealedIsReadAndSealedAtItsNextSave() async throws {
        try await TestDatabase.withStores { stores in
            let sealed = stores.tokenStore(keyring: try keyring())
            let version = try await stores.tokenStore().save(token(), replacing: nil, dueAt: now)
            #expect(try await stores.pool.execute("SELECT key_id, access_token FROM \(table(stores))").first == [.null, .bytes(Array(Self.access.utf8))])
            let read = try #require(try await sealed.load("u1"))
            #expect(read.token.value.reveal() == Self.access && read.token.refreshToken?.reveal() == Self.refresh)
            _ = try await sealed.save(read.token, replacing: version, dueAt: now)
            let row = try #require(try await stores.pool.execute("SELECT to_jsonb(t)::text, key_id FROM \(table(stores)) t").first)
            #expect(row[1] == .text("k1") && !(row[0].text ?? "").contains(Self.hex(Self.access)))
        }
    }

    @Test func conformsToTheStoreContractWhenSealing() async throws {
        let url = try await TestDatabase.url()
        let keyring = try keyring()
        try await checkConformance(url, { $0.tokenStore(keyring: keyring) }) { make in
            try await StoreConformance.check { try await make() }
        }
    }

    // MARK: The cipher

    /// AES-256-GCM computed outside the project (python3's `cryptography`, `AESGCM(bytes(range(32)))`, nonce
    /// `bytes(range(100, 112))`, the additional data `onetap-token-v1\0access\0k1\0account-42`).
    static let pinnedKey = [UInt8](0..<32)
    static let pinnedNonce = [UInt8](100..<112)
    static let pinnedSealed = "6465666768696a6b6c6d6e6f2b7aac14108c24b35f013c8da91647892da96364a65dc1419982c71fe6d4456b915f919714698f9a"
    /// The empty refresh token, field `refresh`: the tag alone.
    static let pinnedEmpty = "6465666768696a6b6c6d6e6f182499e596af9db1b299a9b86204c27b"

    static func bytes(hex: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }

    @Test func aVectorComputedOutsideTheProjectOpensAndSealsTheSame() throws {
        let keyring = try PostgresTokenKeyring(currentKeyID: "k1", keys: ["k1": Self.pinnedKey])
        let sealed = Self.bytes(hex: Self.pinnedSealed)
        let opened = try keyring.open(sealed, keyID: "k1", field: .access, account: "account-42", table: "tokens")
        #expect(String(decoding: opened, as: UTF8.self) == "carrier-access-token-123")
        let aad = PostgresTokenKeyring.additionalData(field: .access, keyID: "k1", account: "account-42")
        #expect(AESGCM.seal(Array("carrier-access-token-123".utf8), key: Self.pinnedKey, nonce: Self.pinnedNonce, aad: aad) == sealed)
        let empty = Self.bytes(hex: Self.pinnedEmpty)
        #expect(try keyring.open(empty, keyID: "k1", field: .refresh, account: "account-42", table: "tokens") == [])
        // Another account, another field, a changed tag: refused.
        #expect(throws: StoreError.self) { try keyring.open(sealed, keyID: "k1", field: .access, account: "account-43", table: "tokens") }
        #expect(throws: StoreError.self) { try keyring.open(sealed, keyID: "k1", field: .refresh, account: "account-42", table: "tokens") }
        var changed = sealed
        changed[changed.count - 1] ^= 0x80
        #expect(AESGCM.open(changed, key: Self.pinnedKey, aad: aad) == nil)
        #expect(AESGCM.open(Array(sealed.prefix(27)), key: Self.pinnedKey, aad: aad) == nil)
    }

    @Test(arguments: [
        ("k1", ["k1": [UInt8](repeating: 1, count: 31)], "token key \"k1\" has 31 bytes; an AES-256 key has 32"),
        ("k 1", ["k 1": [UInt8](repeating: 1, count: 32)], "token key id \"k 1\": a key id holds only"),
        ("", ["": [UInt8](repeating: 1, count: 32)], "token key id \"\": a key id has 1 to 32 characters"),
        ("k2", ["k1": [UInt8](repeating: 1, count: 32)], "the current token key id \"k2\" is not among the keys given (k1)"),
    ] as [(String, [String: [UInt8]], String)])
    func aBadKeyringIsRefusedNamingTheKeyId(current: String, keys: [String: [UInt8]], reason: String) {
        #expect {
            _ = try PostgresTokenKeyring(currentKeyID: current, keys: keys)
        } throws: { error in
            (error as? StoreError)?.kind == .invalidConfiguration && (error as? StoreError)?.message.contains(reason) == true
        }
    }

    @Test func aKeyringNeverShowsItsKeys() throws {
        let keyring = try keyring("k2", ["k1": [UInt8](repeating: 0xAB, count: 32), "k2": [UInt8](repeating: 0xCD, count: 32)])
        var dumped = ""
        dump(keyring, to: &dumped)
        for form in ["\(keyring)", String(reflecting: keyring), dumped] {
            #expect(form.contains("k1") && form.contains("k2"))
            #expect(!form.contains("171") && !form.contains("205") && !form.lowercased().contains("abab") && !form.lowercased().contains("cdcd"))
        }
    }
}

extension PostgresSealedTokensTests {
    @Test func sealingStoredTokensSealsUnsealedAndOlderKeysRowsAndKeepsTheirTokens() async throws {
        try await TestDatabase.withStores { stores in
            let plain = stores.tokenStore()
            let old = stores.tokenStore(keyring: try keyring("k1", ["k1": Self.key1]))
            let rotated = try keyring("k2", ["k1": Self.key1, "k2": Self.key2])
            var versions: [AccountID: TokenVersion] = [:]
            for account: AccountID in ["a", "b", "c"] { versions[account] = try await plain.save(token(account), replacing: nil, dueAt: now) }
            versions["d"] = try await old.save(Tokens.make("d", Self.access, refresh: nil), replacing: nil, dueAt: now)
            versions["e"] = try await stores.tokenStore(keyring: rotated).save(token("e"), replacing: nil, dueAt: now)
            // Batches of 2: three statements' worth.
            #expect(try await stores.sealStoredTokens(keyring: rotated, batch: 2) == 4)
            let rows = try await stores.pool.execute("SELECT account, key_id, to_jsonb(t)::text FROM \(table(stores)) t ORDER BY account")
            #expect(rows.rows.map { $0[1] } == Array(repeating: .text("k2"), count: 5))
            for row in rows.rows { #expect(!(row[2].text ?? "").contains(Self.hex(Self.access))) }
            let onlyNew = stores.tokenStore(keyring: try keyring("k2", ["k2": Self.key2]))
            for account: AccountID in ["a", "b", "c", "d", "e"] {
                let loaded = try #require(try await onlyNew.load(account))
                #expect(loaded.version == versions[account] && loaded.token.value.reveal() == Self.access)
                #expect(loaded.token.refreshToken?.reveal() == (account == "d" ? nil : Self.refresh))
            }
            #expect(try await stores.sealStoredTokens(keyring: rotated) == 0)
            // A row of a key the keyring lacks is reported, naming the key.
            try await stores.pool.execute("UPDATE \(table(stores)) SET key_id = 'k9' WHERE account = 'c'")
            await #expect {
                try await stores.sealStoredTokens(keyring: rotated)
            } throws: { error in
                (error as? StoreError)?.kind == .corrupt && (error as? StoreError)?.message.contains("token key \"k9\"") == true
            }
        }
    }

    /// A row that does not open is reported and the rest are sealed: the sealing stopped at it, and every rerun
    /// stopped there again (the rows before it done), so the rows after it never left the old key and the old key
    /// could never leave the keyring (a review of the PostgreSQL adapter).
    @Test func aRowThatDoesNotOpenIsReportedAndTheRestAreSealed() async throws {
        try await TestDatabase.withStores { stores in
            let plain = stores.tokenStore()
            let rotated = try keyring("k2", ["k1": Self.key1, "k2": Self.key2])
            for account: AccountID in ["a", "b", "c"] { _ = try await plain.save(token(account), replacing: nil, dueAt: now) }
            try await stores.pool.execute("UPDATE \(table(stores)) SET key_id = 'gone' WHERE account = 'a'")
            for _ in 1...2 {  // a rerun reports the same row and seals nothing more
                await #expect {
                    try await stores.sealStoredTokens(keyring: rotated, batch: 1)
                } throws: { error in
                    let error = error as? StoreError
                    return error?.kind == .corrupt && error?.message.contains("token key \"gone\"") == true
                        && error?.message.contains("1 row was left as it is (account a)") == true
                }
                let keys = try await stores.pool.execute("SELECT key_id FROM \(table(stores)) ORDER BY account").rows.map { $0[0] }
                #expect(keys == [.text("gone"), .text("k2"), .text("k2")])
            }
        }
    }
}
