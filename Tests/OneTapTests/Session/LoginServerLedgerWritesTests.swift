import Foundation
import OneTapTesting
import Testing
@testable import OneTap

/// Issue 23, item 3: with a store that writes a session together with the guard's ledger
/// (``LoginSessionLedgerStore``), a one-tap success stores its move to the exchange with the token's claim, and
/// the exchange's answer with the settle: two joint writes, no write alone. When a joint write fails, nothing of
/// it was written: a claim's failure leaves the session and the ledger as they were (the carrier never called),
/// a settle's is followed by the settle and the session's compare-and-swap alone, and the login ends as before.
@Suite(.timeLimit(.minutes(3))) struct LoginServerLedgerWritesTests {
    static let mobileSIM = DeviceSnapshot(sim: .present, plmn: try! PLMN("46000"))
    static let number = try! PhoneNumber("13800138000")
    static let credential = CarrierCredential(flow: .mobile, token: Secret("T-joint-1"), uniqueID: "uid-1")
    static let success = LoginReport.result(.mobile, code: "103000", credential: credential)

    let clock = FakeClock()
    let ledger = InMemoryExchangeLedger()
    let store = JointStore()

    func server(_ carrier: MockTokenExchange, ledger: (any ExchangeLedger)? = nil) -> LoginServer {
        LoginServer(
            store: store, exchange: ExchangeGuard(provider: carrier, ledger: ledger ?? self.ledger, clock: clock), clock: clock, events: DiscardingEventSink())
    }

    /// Reports the success and expects the login done with the number.
    func reportDone(_ logins: LoginServer, _ id: LoginSessionID) async throws -> LoginTransition {
        let done = try await logins.report(Self.success, to: id, version: 1, from: TestAppSession.me)
        #expect(LoginServerExchangeRetryTests.summary(.success(done)) == "v3 done success mobile 13800138000")
        return done
    }

    @Test func aSuccessIsTwoJointWritesAndNoneAlone() async throws {
        let carrier = MockTokenExchange(number: Self.number)
        let logins = server(carrier)
        let id = try await logins.start(Self.mobileSIM, for: TestAppSession.me).session.id
        let done = try await reportDone(logins, id)
        #expect(store.calls == ["create", "replace claiming", "replace settling"])
        #expect(try await store.load(id) == done.session)
        let entry = try await ledger.claim(Self.credential.tokenDigest, for: .random(), at: clock.now())
        #expect(entry?.state == .answered(ExchangeResponse(code: ResultCode("103000"), phoneNumber: Self.number)))
        #expect(entry?.session == id)
        #expect(carrier.tokensSent == ["T-joint-1": 1])
    }

    /// A ledger the store cannot write with (a wrapper) takes today's path: one write after the other.
    @Test func aLedgerTheStoreCannotWriteWithGoesAlone() async throws {
        let carrier = MockTokenExchange(number: Self.number)
        let logins = server(carrier, ledger: FaultyExchangeLedger(ledger))
        let id = try await logins.start(Self.mobileSIM, for: TestAppSession.me).session.id
        _ = try await reportDone(logins, id)
        #expect(store.calls == ["create", "replace", "replace"])
    }

    /// A token past its lifetime at the guard's check is claimed by nobody: the move to the exchange is stored
    /// alone, then the answer (`token-expired`, run the flow again); the carrier never hears of it.
    @Test func anExpiredTokenIsNotClaimedAndTheMoveIsStoredAlone() async throws {
        let lifetimes = try TokenLifetimeTable(
            csv: "flow,gateway,lifetime_seconds,single_use,source\nmobile,cmcc,10,yes,s\ntianyi,tianyi,10,yes,s\nunicom,unicom,10,yes,s\n", file: "t.csv")
        let ticking = TickingClock(start: clock.now(), step: .seconds(11))   // every reading 11 s after the one before
        let carrier = MockTokenExchange(number: Self.number)
        let logins = LoginServer(
            machine: LoginSessionMachine(exchanges: ExchangeRules(lifetimes: lifetimes)), store: store,
            exchange: ExchangeGuard(provider: carrier, ledger: ledger, clock: ticking), clock: ticking, events: DiscardingEventSink())
        let id = try await logins.start(Self.mobileSIM, for: TestAppSession.me).session.id
        let next = try await logins.report(Self.success, to: id, version: 1, from: TestAppSession.me)
        #expect(next.session.trace.map { "\($0.flow):\($0.result.code):\($0.action)" } == ["mobile:103000:success", "mobile:token-expired:retry"])
        #expect(next.session.version == 3)
        #expect(store.calls == ["create", "replace", "replace"])
        #expect(carrier.tokensSent.isEmpty)
        #expect(try await ledger.claim(Self.credential.tokenDigest, for: id, at: clock.now()) == nil, "the token was never claimed")
    }

    /// A login started and its success reported while the joint claim fails: the report throws.
    private func failedJointClaim(_ carrier: MockTokenExchange) async throws -> (LoginServer, LoginSessionID) {
        let logins = server(carrier)
        let id = try await logins.start(Self.mobileSIM, for: TestAppSession.me).session.id
        store.failing.withLock { $0 = ["replace claiming"] }
        await #expect(throws: StoreError.self) { try await logins.report(Self.success, to: id, version: 1, from: TestAppSession.me) }
        return (logins, id)
    }

    @Test func aFailedJointClaimWritesNothingAndCallsNoCarrier() async throws {
        let carrier = MockTokenExchange(number: Self.number)
        let (_, id) = try await failedJointClaim(carrier)
        #expect(try await store.load(id)?.version == 1, "the session did not move")
        #expect(carrier.tokensSent.isEmpty)
        #expect(try await ledger.claim(Self.credential.tokenDigest, for: id, at: clock.now()) == nil, "the token was never claimed")
    }

    /// The app asks again after a failed joint claim: the login goes through as the first time.
    @Test func theAppsRetryAfterAFailedJointClaimSucceeds() async throws {
        let carrier = MockTokenExchange(number: Self.number)
        let (logins, id) = try await failedJointClaim(carrier)
        store.failing.withLock { $0 = [] }
        _ = try await reportDone(logins, id)
        #expect(carrier.tokensSent == ["T-joint-1": 1])
    }

    /// A review of two instances on one login: the joint settle of a success committed, but its answer was lost (the
    /// connection broke after the commit). The session's compare-and-swap that follows finds the very move stored and
    /// was told a stale version: the report was answered as a retry, and the login's success events (and the breaker's
    /// success) were never emitted. The server reads the session back: stored as this move, the login ended as it says.
    /// An attacker's read of the login server found the same without joint writes (a ledger the store cannot write
    /// with, `replace v3`): the session's own write of the answer, committed, its answer lost, failed the request.
    @Test(arguments: [("replace settling", true), ("replace v3", false)])
    func aWriteOfTheAnswerWhoseAnswerWasLostEndsTheLoginAsItsMoveSays(lost: String, joint: Bool) async throws {
        let carrier = MockTokenExchange(number: Self.number)
        let events = RecordingEventSink()
        let logins = LoginServer(
            store: store, exchange: ExchangeGuard(provider: carrier, ledger: joint ? ledger : FaultyExchangeLedger(ledger), clock: clock), clock: clock,
            events: events)
        let id = try await logins.start(Self.mobileSIM, for: TestAppSession.me).session.id
        store.answerLost.withLock { $0 = [lost] }
        let done = try await reportDone(logins, id)
        #expect(try await store.load(id) == done.session)
        #expect(events.names.filter { $0 == "succeeded" }.count == 1, "\(events.names)")
        #expect(carrier.tokensSent == ["T-joint-1": 1])
    }

    /// An attacker's read of the login server: the joint claim committed but its answer was lost, so the token was
    /// claimed for the login and never sent. The request failed (503), and the app's retry found the login's own claim
    /// pending, waited for an answer none would give, and was refused at every retry until the token expired (China
    /// Mobile's 2 minutes, then a second flow) or, for Tianyi's and Unicom's longer-lived tokens, until the login ended.
    /// The request reads the session back: stored as its move, the claim is its own, and it sends the token.
    @Test func aJointClaimWhoseAnswerWasLostIsSentAtOnce() async throws {
        let carrier = MockTokenExchange(number: Self.number)
        let logins = server(carrier)
        let id = try await logins.start(Self.mobileSIM, for: TestAppSession.me).session.id
        store.answerLost.withLock { $0 = ["replace claiming"] }
        _ = try await reportDone(logins, id)
        #expect(carrier.tokensSent == ["T-joint-1": 1])
        let entry = try await ledger.claim(Self.credential.tokenDigest, for: id, at: clock.now())
        #expect(entry?.state == .answered(ExchangeResponse(code: ResultCode("103000"), phoneNumber: Self.number)))
    }

    /// The review of that fix: the joint write moves the session all the same when another login claimed the token
    /// first (a replay), and its answer lost, the move read back as stored was taken for the token's own claim, so the
    /// replayed token was sent. The ledger's entry is read again: another login's claim is `replayed`, nothing sent.
    @Test func aJointClaimOfAReplayedTokenWhoseAnswerWasLostSendsNothing() async throws {
        let carrier = MockTokenExchange(number: Self.number)
        let logins = server(carrier)
        #expect(try await ledger.claim(Self.credential.tokenDigest, for: .random(), at: clock.now()) == nil)   // another login's
        let id = try await logins.start(Self.mobileSIM, for: TestAppSession.me).session.id
        store.answerLost.withLock { $0 = ["replace claiming"] }
        let replayed = try await logins.report(Self.success, to: id, version: 1, from: TestAppSession.me)
        #expect(replayed.session.trace.last.map { "\($0.result.code):\($0.action)" } == "token-replayed:switch")
        #expect(carrier.tokensSent.isEmpty)
    }

    /// The same without joint writes: the ledger's claim committed, its answer lost (`io`: the connection broke; `timeout`:
    /// PostgreSQL's ledger past its deadline with the statement sent, the review's finding). The claim is read again: this
    /// very claim, the token is sent (before, the request failed and the app's every retry waited for the claim in vain).
    @Test(arguments: [ErrorKind<StoreError>.io, .timeout])
    func aLedgerClaimWhoseAnswerWasLostIsSentAtOnce(lostAs kind: ErrorKind<StoreError>) async throws {
        struct ClaimAnswerLost: ExchangeLedger {
            let base: InMemoryExchangeLedger
            let kind: ErrorKind<StoreError>
            let lost = LockedValue(true)
            func claim(_ token: SHA256Digest, for session: LoginSessionID, at now: Date) async throws -> ExchangeLedgerEntry? {
                let entry = try await base.claim(token, for: session, at: now)
                if lost.withLock({ lost in defer { lost = false }; return lost }) {
                    throw StoreError(kind, message: "the ledger's write may or may not have been recorded")
                }
                return entry
            }
            func resend(_ token: SHA256Digest, for session: LoginSessionID, at now: Date) async throws -> Bool {
                try await base.resend(token, for: session, at: now)
            }
            func settle(_ token: SHA256Digest, _ state: ExchangeLedgerState, at now: Date) async throws {
                try await base.settle(token, state, at: now)
            }
            func unknownExchanges(since: Date, pendingClaimedBefore: Date, after: ExchangeLedgerEntry?, limit: Int) async throws -> [ExchangeLedgerEntry] {
                try await base.unknownExchanges(since: since, pendingClaimedBefore: pendingClaimedBefore, after: after, limit: limit)
            }
        }
        let carrier = MockTokenExchange(number: Self.number)
        let logins = server(carrier, ledger: ClaimAnswerLost(base: ledger, kind: kind))
        let id = try await logins.start(Self.mobileSIM, for: TestAppSession.me).session.id
        _ = try await reportDone(logins, id)
        #expect(carrier.tokensSent == ["T-joint-1": 1])
    }

    @Test func aFailedJointSettleIsWrittenAloneAndTheLoginEndsAsBefore() async throws {
        let carrier = MockTokenExchange(number: Self.number)
        let logins = server(carrier)
        let id = try await logins.start(Self.mobileSIM, for: TestAppSession.me).session.id
        store.failing.withLock { $0 = ["replace settling"] }
        let done = try await reportDone(logins, id)
        #expect(store.calls == ["create", "replace claiming", "replace settling", "replace"])
        #expect(try await store.load(id) == done.session)
        let entry = try await ledger.claim(Self.credential.tokenDigest, for: id, at: clock.now())
        #expect(entry?.state == .answered(ExchangeResponse(code: ResultCode("103000"), phoneNumber: Self.number)), "the settle went alone")
    }
}

/// The joint writes of an in-memory store and ledger, on the in-memory store's model.
@Suite struct InMemoryLoginSessionLedgerWritesTests {
    @Test func conforms() async throws {
        try await LoginSessionLedgerWritesConformance.check(concurrency: 100) { (InMemoryLoginSessionStore(), InMemoryExchangeLedger()) }
    }
}

/// An in-memory store whose joint writes fail on demand (`io`, nothing written), recording every call.
final class JointStore: LoginSessionLedgerStore {
    let base = InMemoryLoginSessionStore()
    let failing = LockedValue<Set<String>>([])
    /// Writes that commit, then throw as a connection lost before the commit's answer does: `replace claiming`,
    /// `replace settling`, or `replace vN` (the plain compare-and-swap of version N).
    let answerLost = LockedValue<Set<String>>([])
    private let log = LockedValue<[String]>([])

    var calls: [String] { log.withLock { $0 } }

    private func note(_ call: String) throws {
        log.withLock { $0.append(call) }
        if failing.withLock({ $0.contains(call) }) { throw StoreError(.io, message: "the store is down (\(call))") }
    }

    func create(_ session: LoginSession) async throws {
        try note("create")
        try await base.create(session)
    }

    func load(_ id: LoginSessionID) async throws -> LoginSession? {
        try note("load")
        return try await base.load(id)
    }

    func replace(_ session: LoginSession, expecting version: Int) async throws {
        try note("replace")
        try await base.replace(session, expecting: version)
        if answerLost.withLock({ $0.contains("replace v\(session.version)") }) {
            throw StoreError(.io, message: "the connection was lost after COMMIT was sent; the outcome of the write is unknown")
        }
    }

    func removeExpired(before instant: Date, limit: Int) async throws -> Int {
        try await base.removeExpired(before: instant, limit: limit)
    }

    func ledgerWrites(with ledger: any ExchangeLedger) -> (any LoginSessionLedgerWrites)? {
        base.ledgerWrites(with: ledger).map { Writes(store: self, base: $0) }
    }

    private struct Writes: LoginSessionLedgerWrites {
        let store: JointStore
        let base: any LoginSessionLedgerWrites

        func replace(_ session: LoginSession, expecting version: Int, claiming token: SHA256Digest, at now: Date) async throws -> ExchangeLedgerEntry? {
            try store.note("replace claiming")
            let entry = try await base.replace(session, expecting: version, claiming: token, at: now)
            if store.answerLost.withLock({ $0.contains("replace claiming") }) {
                throw StoreError(.io, message: "the connection was lost after COMMIT was sent; the outcome of the write is unknown")
            }
            return entry
        }

        func replace(_ session: LoginSession, expecting version: Int, settling token: SHA256Digest, _ state: ExchangeLedgerState, at now: Date) async throws {
            try store.note("replace settling")
            try await base.replace(session, expecting: version, settling: token, state, at: now)
            if store.answerLost.withLock({ $0.contains("replace settling") }) {
                throw StoreError(.io, message: "the connection was lost after COMMIT was sent; the outcome of the write is unknown")
            }
        }
    }
}
