import Foundation
import OneTapTesting
import Testing
@testable import OneTap

@Suite struct InMemoryTokenStoreTests {
    @Test func conformsToTheStoreContract() async throws {
        try await StoreConformance.check { InMemoryTokenStore() }
    }

    /// An in-memory store whose saves (and, with `removesWhatever`, removes) break the contract as `save` says.
    struct BrokenStore: TokenStore {
        let base = InMemoryTokenStore()
        var removesWhatever = false
        let save: @Sendable (InMemoryTokenStore, AccessToken, TokenVersion?, Date) async throws -> TokenVersion

        func load(_ account: AccountID) async throws -> StoredToken? { try await base.load(account) }
        func save(_ token: AccessToken, replacing expected: TokenVersion?, dueAt: Date) async throws -> TokenVersion {
            try await save(base, token, expected, dueAt)
        }
        func remove(_ account: AccountID, replacing expected: TokenVersion?) async throws -> Bool {
            try await base.remove(account, replacing: removesWhatever ? nil : expected)
        }
        func accounts(dueBefore instant: Date, limit: Int) async throws -> [AccountID] { try await base.accounts(dueBefore: instant, limit: limit) }
    }

    @Test func conformanceSuiteCatchesABrokenStore() async {
        /// A store that ignores versions (the last write wins): the suite must say so.
        let lastWriteWins: @Sendable () -> BrokenStore = {
            BrokenStore(removesWhatever: true) { base, token, _, dueAt in
                try await base.save(token, replacing: try await base.load(token.account)?.version, dueAt: dueAt)
            }
        }
        await #expect {
            try await StoreConformance.check { lastWriteWins() }
        } throws: { error in
            let failure = error as! ConformanceFailure
            return failure.problems.contains { $0.contains("save with a stale version must conflict") }
        }
    }

    /// A store whose losing concurrent saves fail with `io` (its own lock timing out, say) instead of `conflict` keeps one
    /// winner, but breaks the contract the vault reads (a conflict means "read again", an `io` "the store failed"): the suite
    /// must say so (an audit: it counted any throw as a lost race).
    @Test func conformanceSuiteCatchesALosingSaveThatIsNoConflict() async {
        let losersFailIO: @Sendable () -> BrokenStore = {
            BrokenStore { base, token, expected, dueAt in
                do {
                    return try await base.save(token, replacing: expected, dueAt: dueAt)
                } catch let error as StoreError where error.kind == .conflict && token.value.reveal().hasPrefix("w") {
                    throw StoreError(.io, account: token.account, message: "the lock was not granted")
                }
            }
        }
        await #expect {
            try await StoreConformance.check { losersFailIO() }
        } throws: { error in
            let failure = error as! ConformanceFailure
            return failure.problems.count == 15 && failure.problems.allSatisfy { $0.hasPrefix("a concurrent save that loses must throw conflict, threw io") }
        }
    }

    /// The vault's fast path: the token when the policy calls it fresh, nil when it is stale (from a day after its
    /// issue), expired (60 s before its end) or not stored.
    @Test func aFreshTokenIsHandedOutAndNoOther() async throws {
        let store = InMemoryTokenStore()
        let issued = Date(timeIntervalSince1970: 1_796_083_200)
        let token = AccessToken(
            value: Secret("AT"), refreshToken: Secret("RT"), flow: .tianyi, account: "u1", issuedAt: issued, expiresAt: issued.addingTimeInterval(30 * 86_400))
        _ = try await store.save(token, replacing: nil, dueAt: issued)
        let policy = TokenPolicy()
        #expect(store.freshToken("u1", at: issued.addingTimeInterval(3600), policy: policy) == token)
        #expect(store.freshToken("u1", at: issued.addingTimeInterval(86_399), policy: policy) == token)
        #expect(store.freshToken("u1", at: issued.addingTimeInterval(86_400), policy: policy) == nil)
        #expect(store.freshToken("u1", at: issued.addingTimeInterval(30 * 86_400 - 30), policy: policy) == nil)
        #expect(store.freshToken("u2", at: issued.addingTimeInterval(3600), policy: policy) == nil)
    }

    @Test func dueIndexOrdersAndMoves() {
        var index = DueIndex()
        let base = Date(timeIntervalSince1970: 1_796_083_200)
        index.set("c", dueAt: base.addingTimeInterval(30))
        index.set("a", dueAt: base.addingTimeInterval(10))
        index.set("b", dueAt: base.addingTimeInterval(10))
        index.set("late", dueAt: base.addingTimeInterval(86_400 * 40))
        #expect(index.accounts(dueBefore: base.addingTimeInterval(31), limit: 10) == ["a", "b", "c"])
        #expect(index.accounts(dueBefore: base.addingTimeInterval(30), limit: 10) == ["a", "b"])
        index.set("a", dueAt: base.addingTimeInterval(86_400))
        index.remove("b")
        index.remove("never")
        #expect(index.accounts(dueBefore: base.addingTimeInterval(86_401), limit: 10) == ["c", "a"])
        #expect(index.accounts(dueBefore: base.addingTimeInterval(86_400 * 41), limit: 2) == ["c", "a"])
    }

    /// The refresh lock is one holder at a time, in order; a waiter cancelled while it waits runs nothing and
    /// leaves the lock to the next one.
    @Test(.timeLimit(.minutes(3))) func theRefreshLockIsHeldByOneAtATimeAndACancelledWaiterLeavesIt() async throws {
        let store = InMemoryTokenStore()
        let holding = Gate(), release = Gate()
        let ran = LockedValue<[String]>([])
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await store.withRefreshLock(for: "u1") {
                    holding.open()
                    await release.wait()
                    ran.withLock { $0.append("first") }
                }
            }
            await holding.wait()
            let cancelled = Task { try await store.withRefreshLock(for: "u1") { ran.withLock { $0.append("cancelled") } } }
            cancelled.cancel()
            await #expect(throws: CancellationError.self) { try await cancelled.value }
            try await store.withRefreshLock(for: "u2") { ran.withLock { $0.append("other account") } }
            group.addTask { try await store.withRefreshLock(for: "u1") { ran.withLock { $0.append("third") } } }
            release.open()
            try await group.waitForAll()
        }
        #expect(ran.withLock { $0 } == ["other account", "first", "third"])
    }
}
