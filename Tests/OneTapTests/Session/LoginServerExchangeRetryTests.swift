import Foundation
import OneTapTesting
import Testing
@testable import OneTap

/// Issue 21: the app's retry of a success report while the server's exchange is under way, through the
/// server's report handler, on a fake clock.
@Suite(.timeLimit(.minutes(3))) struct LoginServerExchangeRetryTests {
    let clock = FakeClock()
    let store = InMemoryLoginSessionStore()
    let events = RecordingEventSink()
    static let mobileSIM = DeviceSnapshot(sim: .present, plmn: try! PLMN("46000"))
    static let number = try! PhoneNumber("13800138000")
    static let success = LoginReport.result(.mobile, code: "103000", credential: CarrierCredential(flow: .mobile, token: Secret("T-slow-1"), uniqueID: "uid-1"))

    /// What a report came to: the session's ending and the verified number, or the rejection.
    static func summary(_ result: Result<LoginTransition, any Error>) -> String {
        switch result {
        case .success(let transition):
            guard case .done(let ending, let flow, let verified) = transition.instruction else { return "v\(transition.session.version) \(transition.instruction)" }
            return "v\(transition.session.version) done \(ending) \(flow.map(\.rawValue) ?? "-") \(verified?.phoneNumber.digits ?? "-")"
        case .failure(let error):
            return "\(error)"
        }
    }

    /// A report's transition, or what it threw.
    static func attempt(_ report: () async throws -> LoginTransition) async -> Result<LoginTransition, any Error> {
        do { return .success(try await report()) } catch { return .failure(error) }
    }

    /// The retried success during a slow exchange ends in `done success` with the number, billed once:
    /// the carrier holds the first request's exchange, the retry of the same report waits for it, and
    /// both requests answer the login's success. Before, the retry was answered `replayed` and moved the
    /// login to SMS (and the first request's billed success then lost its compare-and-swap).
    @Test func theRetriedSuccessDuringASlowExchangeEndsInDoneSuccessBilledOnce() async throws {
        let carrier = HeldTokenExchange()
        let exchange = ExchangeGuard(provider: carrier, timeout: .seconds(5), clock: clock)
        let logins = LoginServer(store: store, exchange: exchange, clock: clock, events: events)
        let started = try await logins.start(Self.mobileSIM, for: TestAppSession.me)
        let id = started.session.id
        let first = Task { await Self.attempt { try await logins.report(Self.success, to: id, version: 1, from: TestAppSession.me) } }
        await carrier.waitForCalls(1)
        let retry = Task { await Self.attempt { try await logins.report(Self.success, to: id, version: 1, from: TestAppSession.me) } }
        let finished = LockedValue(false)
        let watcher = Task { let answer = await retry.value; finished.withLock { $0 = true }; return answer }
        // The retry waits (a second sleeper beside the exchange's time limit), or, as before, answers at once.
        while clock.sleeperCount < 2, !finished.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(1)) }  // bounded by the suite's time limit
        carrier.release(ExchangeResponse(code: "103000", phoneNumber: Self.number))
        let firstAnswer = Self.summary(await first.value)
        while !finished.withLock({ $0 }) {  // no real-time bound: the retry sleeps on this clock (the suite's time limit bounds it)
            clock.advance(by: exchange.pollInterval)
            try await Task.sleep(for: .milliseconds(2))
        }
        let retryAnswer = Self.summary(await watcher.value)
        #expect(firstAnswer == "v3 done success mobile 13800138000")
        #expect(retryAnswer == "v3 done success mobile 13800138000")
        #expect(carrier.calls == 1, "billed once")
        let stored = try #require(try await store.load(id))
        #expect(stored.ending == .success && stored.verified?.phoneNumber == Self.number && stored.version == 3)
        #expect(events.names.filter { $0 == "succeeded" }.count == 1, "one success announced")
    }

    /// The app retries its success report after the login succeeded (the answer was lost on the way): it
    /// is told the same success, with the number, and the carrier is not called again; a report of another
    /// token is still refused as `ended`. Before, the retry was refused as `ended`.
    @Test func aRetryAfterTheLoginSucceededIsToldTheSameSuccess() async throws {
        let carrier = MockTokenExchange(number: Self.number, clock: clock)
        let logins = LoginServer(store: store, exchange: ExchangeGuard(provider: carrier, clock: clock), clock: clock, events: events)
        let started = try await logins.start(Self.mobileSIM, for: TestAppSession.me)
        let id = started.session.id
        let done = try await logins.report(Self.success, to: id, version: 1, from: TestAppSession.me)
        #expect(Self.summary(.success(done)) == "v3 done success mobile 13800138000")
        let retried = await Self.attempt { try await logins.report(Self.success, to: id, version: 1, from: TestAppSession.me) }
        #expect(Self.summary(retried) == "v3 done success mobile 13800138000")
        #expect(carrier.tokensSent == ["T-slow-1": 1])
        let other = LoginReport.result(.mobile, code: "103000", credential: CarrierCredential(flow: .mobile, token: Secret("T-other"), uniqueID: "uid-1"))
        await #expect { try await logins.report(other, to: id, version: 1, from: TestAppSession.me) } throws: { ($0 as? LoginRejection)?.kind == .ended }
        await #expect { try await logins.report(Self.success, to: id, version: 3, from: TestAppSession.me) } throws: { ($0 as? LoginRejection)?.kind == .ended }
    }

    /// An attacker's read of the login server: the interrupted action came back once, in the success answer itself; a
    /// mobile network that dropped that answer lost it, since the retry of the report (and the account step told
    /// again) carried none: the action seed 000 is about was lost after all. Every telling of the success hands it back
    /// while it is live, with the same key.
    @Test func aRetryAfterTheLoginSucceededIsHandedTheInterruptedActionToo() async throws {
        let carrier = MockTokenExchange(number: Self.number, clock: clock)
        let logins = LoginServer(store: store, exchange: ExchangeGuard(provider: carrier, clock: clock), clock: clock, events: events)
        let action = try PendingAction(action: "favourite", payload: .object(["item": .string("v42")]), at: clock.now())
        let id = try await logins.start(Self.mobileSIM, for: TestAppSession.me, pending: action).session.id
        let done = try await logins.report(Self.success, to: id, version: 1, from: TestAppSession.me)
        #expect(done.continued == action)
        let retried = try await logins.report(Self.success, to: id, version: 1, from: TestAppSession.me)   // the answer was lost
        #expect(retried.continued == action)
        #expect(try await logins.success(of: id, from: TestAppSession.me).continued == action)
        #expect(carrier.tokensSent == ["T-slow-1": 1])
    }

    /// A settle the ledger cannot write is told through the server's event sink.
    @Test func aSettleFailureIsAnEventOfTheServer() async throws {
        let ledger = FaultyExchangeLedger(InMemoryExchangeLedger())
        ledger.faults.inject(.refuse(.io, "the database is down"), into: [.settle], times: nil)
        let exchange = ExchangeGuard(provider: MockTokenExchange(number: Self.number, clock: clock), ledger: ledger, clock: clock)
        let logins = LoginServer(store: store, exchange: exchange, clock: clock, events: events)
        let started = try await logins.start(Self.mobileSIM, for: TestAppSession.me)
        let done = try await logins.report(Self.success, to: started.session.id, version: 1, from: TestAppSession.me)
        #expect(done.session.ending == .success)
        let failed = events.recorded.filter { $0.area == "exchange" && $0.name != "quota-missing" }
        // SHA-256("T-slow-1") begins 4aa3d2a7 (Python's hashlib).
        #expect(failed.map { $0.json().contains(#""event":"settle-failed","token":"4aa3d2a7","state":"answered""#) } == [true], "\(failed.map { $0.json() })")
        #expect(!events.recorded.map { $0.json() }.joined().contains("T-slow-1"))
    }
}
