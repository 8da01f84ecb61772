import Foundation
import OneTapTesting
import Testing
@testable import OneTap

/// Issue 23, item 3: a server reports on the copy of a session it stored last (``RecentLoginSessions``), with
/// no read of the store, and a copy that is behind the store (another instance took a report since) never
/// decides alone: a report the machine refuses on it, or one that writes nothing, is decided on the stored
/// session, and a write from it loses its compare-and-swap with nothing written.
@Suite(.timeLimit(.minutes(3))) struct LoginServerKeptCopyTests {
    static let mobileSIM = DeviceSnapshot(sim: .present, plmn: try! PLMN("46000"))

    let clock = FakeClock()
    let store = FaultyLoginSessionStore(InMemoryLoginSessionStore())

    /// One of several instances over the shared store, each with its own kept copies.
    func instance() -> LoginServer {
        LoginServer(store: store, clock: clock, events: DiscardingEventSink())
    }

    @Test func aReportOnTheInstanceThatStartedTheLoginReadsNothing() async throws {
        let server = instance()
        let started = try await server.start(Self.mobileSIM, for: TestAppSession.me)
        let next = try await server.report(.timeout(.mobile), to: started.session.id, version: 1, from: TestAppSession.me)
        #expect(next.session.version == 2)
        #expect(store.faults.calls(.load) == 0)
        #expect(store.faults.calls(.replace) == 1)
        #expect(try await store.load(started.session.id) == next.session)
    }

    /// Another app session is never answered from the copy: it gets what the store says (no such login).
    @Test func aStrangerIsNotAnsweredFromTheCopy() async throws {
        let server = instance()
        let started = try await server.start(Self.mobileSIM, for: TestAppSession.me)
        await #expect {
            try await server.report(.timeout(.mobile), to: started.session.id, version: 1, from: TestAppSession.stranger)
        } throws: { error in (error as? LoginRejection)?.kind == .unknownSession }
        #expect(store.faults.calls(.load) == 1)
        #expect(try await store.load(started.session.id) == started.session)
    }

    /// Instance A started the login; instance B took its next report. A's copy is behind: the app's next
    /// report, at the version B gave it, is decided on the stored session.
    @Test func aReportAnotherInstanceTookIsSeen() async throws {
        let a = instance(), b = instance()
        let started = try await a.start(Self.mobileSIM, for: TestAppSession.me)
        let onB = try await b.report(.timeout(.mobile), to: started.session.id, version: 1, from: TestAppSession.me)
        #expect(onB.session.version == 2)
        let loadsBefore = store.faults.calls(.load)
        let onA = try await a.report(.cancel(.sms), to: started.session.id, version: 2, from: TestAppSession.me)
        #expect(onA.session.version == 3)
        #expect(onA.session.ending == .cancelled)
        #expect(store.faults.calls(.load) == loadsBefore + 1, "A read the stored session once")
        #expect(try await store.load(started.session.id) == onA.session)
    }

    /// A's copy and the app's report are both at version 1, but B stored version 2 in between: A's write loses
    /// its compare-and-swap, nothing is written, and the report is refused as stale, as a fresh read's would be.
    @Test func aWriteFromACopyBehindLosesItsCompareAndSwap() async throws {
        let a = instance(), b = instance()
        let started = try await a.start(Self.mobileSIM, for: TestAppSession.me)
        let onB = try await b.report(.timeout(.mobile), to: started.session.id, version: 1, from: TestAppSession.me)
        await #expect {
            try await a.report(.unavailable(.mobile), to: started.session.id, version: 1, from: TestAppSession.me)
        } throws: { error in (error as? LoginRejection)?.kind == .staleVersion }
        #expect(try await store.load(started.session.id) == onB.session, "B's write stands")
    }

    /// A progress report (200087: the authorisation page is shown) writes nothing, so it is never answered
    /// from a copy: on the stored session, which B moved on, it is stale.
    @Test func aReportThatWritesNothingIsDecidedOnTheStoredSession() async throws {
        let a = instance(), b = instance()
        let started = try await a.start(Self.mobileSIM, for: TestAppSession.me)
        let progress = try await a.report(.result(.mobile, code: "200087"), to: started.session.id, version: 1, from: TestAppSession.me)
        #expect(progress.session == started.session, "a progress report changes nothing")
        #expect(store.faults.calls(.load) == 1, "decided on the stored session")
        _ = try await b.report(.timeout(.mobile), to: started.session.id, version: 1, from: TestAppSession.me)
        await #expect {
            try await a.report(.result(.mobile, code: "200087"), to: started.session.id, version: 1, from: TestAppSession.me)
        } throws: { error in (error as? LoginRejection)?.kind == .staleVersion }
        #expect(store.faults.calls(.replace) == 1, "only B wrote")
    }

    /// The login was swept from the store (another instance's clock judged it expired) while this instance
    /// still holds a copy: the report is answered as the store stands, `unknown-session`, not with the
    /// write's `not-found`.
    @Test func aLoginSweptFromTheStoreIsUnknownThoughACopyIsKept() async throws {
        let server = instance()
        let started = try await server.start(Self.mobileSIM, for: TestAppSession.me)
        #expect(try await store.removeExpired(before: clock.now().addingTimeInterval(3600), limit: 10) == 1)
        await #expect {
            try await server.report(.timeout(.mobile), to: started.session.id, version: 1, from: TestAppSession.me)
        } throws: { error in (error as? LoginRejection)?.kind == .unknownSession }
        #expect(try await store.load(started.session.id) == nil)
    }

    /// A store that fails the write: the report fails with the store's error and the copy is not advanced, so
    /// the next report (the app's retry) writes from the same version.
    @Test func aFailedWriteLeavesTheCopyWhereItWas() async throws {
        let server = instance()
        let started = try await server.start(Self.mobileSIM, for: TestAppSession.me)
        store.faults.inject(.refuse(.io, "the database is down (scripted)"), into: [.replace], times: 1)
        await #expect {
            try await server.report(.timeout(.mobile), to: started.session.id, version: 1, from: TestAppSession.me)
        } throws: { error in (error as? StoreError)?.kind == .io }
        let next = try await server.report(.timeout(.mobile), to: started.session.id, version: 1, from: TestAppSession.me)
        #expect(next.session.version == 2)
        #expect(store.faults.calls(.load) == 0)
        #expect(try await store.load(started.session.id) == next.session)
    }

    /// Instances over one store, one exchange ledger and one carrier, as a deployment runs them.
    func exchangingInstance(_ carrier: MockTokenExchange, _ ledger: InMemoryExchangeLedger, quotas: LoginQuotas? = nil) -> LoginServer {
        LoginServer(store: store, exchange: ExchangeGuard(provider: carrier, ledger: ledger, clock: clock), quotas: quotas, clock: clock, events: DiscardingEventSink())
    }

    static let number = try! PhoneNumber("13800138000")

    static func success(_ token: String) -> LoginReport {
        .result(.mobile, code: "103000", credential: CarrierCredential(flow: .mobile, token: Secret(token), uniqueID: "uid-1"))
    }

    /// A started the login; B took its success and the account step followed, with credentials issued after
    /// the login. A replay of the success to A (whose copy is still at the start) is decided on the stored
    /// session: refused as `ended` under the newer credentials, told again under the ones that ran the login,
    /// and the carrier is called once.
    @Test func aReplayedSuccessIsDecidedOnTheStoredSessionNotTheCopy() async throws {
        let carrier = MockTokenExchange(number: Self.number)
        let ledger = InMemoryExchangeLedger()
        let a = exchangingInstance(carrier, ledger), b = exchangingInstance(carrier, ledger)
        let started = try await a.start(Self.mobileSIM, for: TestAppSession.me)
        let done = try await b.report(Self.success("T-replay"), to: started.session.id, version: 1, from: TestAppSession.me)
        #expect(done.session.ending == .success && done.session.version == 3)
        clock.advance(by: .seconds(5))
        let newer = TestAppSession.keys.accessToken(
            session: TestAppSession.me.session, identity: .account("account-1"), epoch: Int64(clock.now().timeIntervalSince1970), issuedAt: clock.now(),
            expiresAt: clock.now().addingTimeInterval(7200)).claims
        await #expect {
            try await a.report(Self.success("T-replay"), to: started.session.id, version: 1, from: newer)
        } throws: { error in (error as? LoginRejection)?.kind == .ended }
        let again = try await a.report(Self.success("T-replay"), to: started.session.id, version: 1, from: TestAppSession.me)
        #expect(again.session == done.session)
        #expect(carrier.tokensSent == ["T-replay": 1])
        #expect(try await store.load(started.session.id) == done.session)
    }

    /// A's copy is at the start; B moved the login to SMS. Success reports for the old version sent to A, over
    /// and over, are stale, and count in the exchange quota once at most (the stored session replaces A's
    /// copy): the app session's next login still exchanges under a quota of two.
    @Test func staleSuccessReportsCountTheExchangeQuotaOnceAtMost() async throws {
        let policy = try LoginQuotaPolicy(csv: """
            rule,key,counts,window_seconds,limit,source
            session-exchanges,session,exchanges,3600,2,test
            """, file: "kept-copy-quotas.csv")
        let quotas = LoginQuotas(policy: policy, store: InMemoryLoginQuotaStore())
        let carrier = MockTokenExchange(number: Self.number)
        let ledger = InMemoryExchangeLedger()
        let a = exchangingInstance(carrier, ledger, quotas: quotas), b = exchangingInstance(carrier, ledger, quotas: quotas)
        let first = try await a.start(Self.mobileSIM, for: TestAppSession.me)
        _ = try await b.report(.timeout(.mobile), to: first.session.id, version: 1, from: TestAppSession.me)
        for attempt in 0..<5 {
            await #expect {
                try await a.report(Self.success("T-stale-\(attempt)"), to: first.session.id, version: 1, from: TestAppSession.me)
            } throws: { error in (error as? LoginRejection)?.kind == .staleVersion }
        }
        #expect(carrier.tokensSent.isEmpty)
        let second = try await a.start(Self.mobileSIM, for: TestAppSession.me)
        let done = try await a.report(Self.success("T-second"), to: second.session.id, version: 1, from: TestAppSession.me)
        #expect(done.session.ending == .success)
        #expect(carrier.tokensSent == ["T-second": 1])
    }

    /// A moved the login to its exchange and called the carrier; the app's retry reached B, which read the
    /// session at its exchange and waited for A's answer. After the account step, a replay of the success to
    /// B under the newer credentials is refused (`ended`), as a fresh read's would be: B's copy at the
    /// exchange never tells the success again (it did before, from the guard's kept answer). The carrier is
    /// called once.
    @Test func aRetryThatWaitedOnAnotherInstanceLeavesNoCopyThatTellsTheSuccessAgain() async throws {
        let carrier = HeldTokenExchange()
        let exchange = ExchangeGuard(provider: carrier, timeout: .seconds(5), clock: clock)
        let a = LoginServer(store: store, exchange: exchange, clock: clock, events: DiscardingEventSink())
        let b = LoginServer(store: store, exchange: exchange, clock: clock, events: DiscardingEventSink())
        let id = try await a.start(Self.mobileSIM, for: TestAppSession.me).session.id
        let first = Task { try await a.report(Self.success("T-held"), to: id, version: 1, from: TestAppSession.me) }
        await carrier.waitForCalls(1)
        let retry = Task { try await b.report(Self.success("T-held"), to: id, version: 1, from: TestAppSession.me) }
        await clock.waitForSleepers(2, orEndOf: retry)   // or the retry answered at once, as before
        carrier.release(ExchangeResponse(code: "103000", phoneNumber: Self.number))
        let done = try await first.value
        #expect(done.session.ending == .success && done.session.version == 3)
        let answered = await clock.step(by: exchange.pollInterval, until: retry)   // the first is done: the retry sleeps alone
        #expect(try answered.get().session == done.session, "the retry answered the same success")
        clock.advance(by: .seconds(5))
        let newer = TestAppSession.keys.accessToken(
            session: TestAppSession.me.session, identity: .account("account-1"), epoch: Int64(clock.now().timeIntervalSince1970), issuedAt: clock.now(), expiresAt: clock.now().addingTimeInterval(7200)).claims
        await #expect {
            try await b.report(Self.success("T-held"), to: id, version: 1, from: newer)
        } throws: { error in (error as? LoginRejection)?.kind == .ended }
        #expect(carrier.calls == 1)
    }
}
