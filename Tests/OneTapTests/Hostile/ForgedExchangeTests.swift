import Foundation
import OneTapTesting
import Testing
@testable import OneTap

/// Issue 20: an exchange answer cannot be forged. Whoever can reach the report endpoint (or a request
/// decoder that maps a field to an exchange answer) must not log in as a number of their choosing.
@Suite struct ForgedExchangeTests {
    let clock = FakeClock()
    static let mobileSIM = DeviceSnapshot(sim: .present, plmn: try! PLMN("46000"))
    static let attacker = try! PhoneNumber("13900139000")
    static let victim = try! PhoneNumber("13800138000")
    static let credential = CarrierCredential(flow: .mobile, token: Secret("victim-token"), uniqueID: "u")

    /// A server that exchanges outside (no guard), with a session waiting at its exchange.
    func exchanging() async throws -> (LoginServer, LoginSessionID) {
        let logins = LoginServer(clock: clock, events: RecordingEventSink())
        let started = try await logins.start(Self.mobileSIM, for: TestAppSession.me)
        let asked = try await logins.report(.result(.mobile, code: "103000", credential: Self.credential), to: started.session.id, version: 1, from: TestAppSession.me)
        guard case .exchange = asked.instruction else { throw Unexpected(instruction: "\(asked.instruction)") }
        return (logins, started.session.id)
    }

    struct Unexpected: Error { let instruction: String }

    /// The attack as filed: a report that claims the exchange answered with the attacker's number. Even one
    /// bound to the right token (a request decoder inside the server) is refused at the report entry point.
    @Test func aReportedExchangeAnswerIsRefused() async throws {
        let (logins, id) = try await exchanging()
        for forged in [LoginReport.exchanged(.answered("103000", phoneNumber: Self.attacker)),
                       .exchange(ExchangeOutcome(.answered("103000", phoneNumber: Self.attacker), for: Self.credential))] {
            await #expect { try await logins.report(forged, to: id, version: 2, from: TestAppSession.me) } throws: { ($0 as? LoginRejection)?.kind == .unexpected }
        }
        let after = try #require(try await logins.session(id))
        #expect(after.ending == nil && after.version == 2)
    }

    /// The machine takes an exchange answer only for the token the session is exchanging: not one unbound,
    /// not one from another login's exchange.
    @Test func theMachineRefusesAnAnswerForAnotherToken() async throws {
        let (logins, id) = try await exchanging()
        let session = try #require(try await logins.session(id))
        let machine = LoginSessionMachine()
        for forged in [LoginReport.exchanged(.answered("103000", phoneNumber: Self.attacker)),
                       .exchange(ExchangeOutcome(.answered("103000", phoneNumber: Self.attacker), token: SHA256.hash(Array("attacker-token".utf8))))] {
            #expect(throws: LoginRejection.self) { try machine.advance(session, forged, version: 2, at: clock.now()) }
        }
        let bound = LoginReport.exchange(ExchangeOutcome(.answered("103000", phoneNumber: Self.victim), for: Self.credential))
        #expect(try machine.advance(session, bound, version: 2, at: clock.now()).session.ending == .success)
    }

    /// A server that calls the carrier itself hands the raw answer and the token it sent; another token's
    /// answer is refused.
    @Test func anOutsideExchangeIsTakenOnlyForTheSessionsToken() async throws {
        let (logins, id) = try await exchanging()
        let answer = Result<ExchangeResponse, any Error>.success(ExchangeResponse(code: "103000", phoneNumber: Self.attacker))
        await #expect { try await logins.exchanged(answer, token: Secret("attacker-token"), session: id, version: 2, from: TestAppSession.me) } throws: {
            ($0 as? LoginRejection)?.kind == .unexpected
        }
        let done = try await logins.exchanged(
            .success(ExchangeResponse(code: "103000", phoneNumber: Self.victim)), token: Self.credential.token, session: id, version: 2, from: TestAppSession.me)
        guard case .done(.success, .mobile, let verified) = done.instruction else {
            Issue.record("expected done success, got \(done.instruction)")
            return
        }
        #expect(verified?.phoneNumber == Self.victim)
    }

    @Test func theGuardsOutcomeIsBoundToTheTokenItExchanged() async throws {
        let exchange = ExchangeGuard(provider: MockTokenExchange(number: Self.victim, clock: clock), clock: clock)
        let outcome = try await exchange.exchange(Self.credential, receivedAt: clock.now(), rules: ExchangeRules())
        // SHA-256("victim-token"), computed with Python's hashlib.
        #expect(outcome.token?.hex == "d7fdeed493347204968d64681a56a60df95aa3916821f29300b9e104dcd37ec8")
    }
}
