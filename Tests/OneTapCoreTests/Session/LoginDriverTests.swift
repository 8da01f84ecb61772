import Foundation
import Testing
@testable import OneTapCore

/// The one driver of the instruction → report → advance loop: what it asks for at each instruction, how
/// it applies answers (admissions in, channel reports out), when it is done, what it hands back at the
/// end, and a refused answer stopping the drive. Expectations come from the machine's rules and
/// `Data/*.csv`, as in `LoginSessionMachineTests`.
@Suite struct LoginDriverTests {
    typealias F = Fixture
    let server = LoginSessionMachine()
    let device = LoginSessionMachine(exchanges: nil)

    /// `run mobile (attempt 1)`, `sms`, `exchange mobile`, or `-` when the drive is over.
    static func summary(_ request: LoginDriver.Request?) -> String { request.map(\.description) ?? "-" }

    func at(_ seconds: Double) -> Date { F.now.addingTimeInterval(seconds) }

    // MARK: Every instruction

    /// Run, exchange, run again, SMS, done: one request for each instruction the machine gives.
    @Test func eachInstructionIsARequest() throws {
        var driver = LoginDriver(server, starting: F.mobileSIM, at: F.now, id: F.id)
        #expect(Self.summary(driver.request) == "run mobile (attempt 1)")
        guard case .run(.mobile, attempt: 1)? = driver.request else { Issue.record("expected run mobile 1"); return }
        #expect(driver.end == nil)

        driver.answer(F.success(.mobile, "T1"), at: at(2))
        guard case .exchange(let credential, let receivedAt)? = driver.request else {
            Issue.record("expected an exchange, got \(Self.summary(driver.request))")
            return
        }
        #expect(credential.token.reveal() == "T1" && credential.flow == .mobile)
        #expect(receivedAt == at(2), "the token's age runs from the receipt of its success report")

        driver.answer(F.exchange("104201").bound(to: driver.session), at: at(3))   // spent or stale: run the flow once more
        #expect(Self.summary(driver.request) == "run mobile (attempt 2)")

        driver.answer(.result(.mobile, code: "102101"), at: at(5))   // no network: fall back
        guard case .sms(let session)? = driver.request else { Issue.record("expected sms, got \(Self.summary(driver.request))"); return }
        #expect(session == F.id)
        #expect(driver.end == nil)

        driver.answer(F.verdict(), at: at(40))
        #expect(driver.request == nil)
        let end = try #require(driver.end)
        #expect(end.ending == .success && end.flow == .sms)
        #expect(end.verified == VerifiedLogin(phoneNumber: F.number))
        #expect(end.refusal == nil && driver.refusal == nil)
        #expect(driver.session.trace.map(F.summary) == [
            "mobile:103000:success", "mobile:exchange-104201:retry", "mobile:102101:fallback", "sms:0:success",
        ])
        #expect(driver.session.version == 5)
    }

    /// `progress` codes keep the login waiting; the third in a row for one attempt is the SDK's fault, and the
    /// count starts again after any other answer (200087, the page shown, and 200089, an overlap, are from
    /// `Data/result-codes.csv`).
    @Test func theThirdProgressAnswerInARowIsTheSDKsFault() throws {
        var driver = LoginDriver(device, starting: F.mobileSIM, at: F.now, id: F.id)
        driver.answer(.result(.mobile, code: "200087"), at: at(1))
        driver.answer(.result(.mobile, code: "200089"), at: at(2))
        #expect(Self.summary(driver.request) == "run mobile (attempt 1)" && driver.session.trace.isEmpty)
        driver.answer(.result(.mobile, code: "200023"), at: at(3))   // transient: the flow runs again
        #expect(Self.summary(driver.request) == "run mobile (attempt 2)")
        driver.answer(.result(.mobile, code: "200089"), at: at(4))
        driver.answer(.result(.mobile, code: "200089"), at: at(5))
        #expect(Self.summary(driver.request) == "run mobile (attempt 2)", "two in a row since the last result: still waiting")
        let answered = driver.answer(.result(.mobile, code: "200089"), at: at(6))
        let third = try #require(answered)
        #expect(Self.summary(driver.request) == "sms")
        #expect(driver.session.trace.map(F.summary) == ["mobile:200023:retry", "mobile:provider-error:fallback"])
        #expect(driver.session.trace.last?.meaning.contains("200089 (progress) 3 times in a row") == true)
        #expect(third.events.contains { if case .progress = $0 { true } else { false } } == false)
    }

    @Test func anExchangedSuccessEndsWithWhoLoggedIn() throws {
        var driver = LoginDriver(server, starting: F.mobileSIM, at: F.now, id: F.id)
        driver.answer(F.success(.mobile, "T1"), at: at(1))
        let answered = driver.answer(LoginReport.exchanged(.answered("103000", phoneNumber: F.number, account: "acc-1")).bound(to: driver.session), at: at(2))
        let transition = try #require(answered)
        #expect(transition.session == driver.session)
        #expect(driver.request == nil)
        let end = try #require(driver.end)
        #expect(end.ending == .success && end.flow == .mobile)
        #expect(end.verified == VerifiedLogin(phoneNumber: F.number, account: "acc-1"))
    }

    /// A machine without exchanges (a device that exchanges nothing, a simulation): a success is the end.
    @Test func withoutExchangesASuccessIsTheEnd() throws {
        var driver = LoginDriver(device, starting: F.telecomSIM, at: F.now, id: F.id)
        #expect(Self.summary(driver.request) == "run tianyi (attempt 1)")
        driver.answer(F.success(.tianyi, "T1"), at: at(1))
        #expect(driver.request == nil)
        let end = try #require(driver.end)
        #expect(end.ending == .success && end.flow == .tianyi && end.verified == nil)
    }

    @Test func aCancelEndsWithoutAFlowToRun() throws {
        var driver = LoginDriver(server, starting: F.plan([.mobile, .sms]), at: F.now, id: F.id, platform: .ios)
        #expect(driver.session.platform == .ios)
        driver.answer(.cancel(.mobile), at: at(1))
        #expect(driver.request == nil)
        #expect(driver.end?.ending == .cancelled && driver.end?.flow == .mobile)
    }

    /// The pending action a login gate interrupted comes back in the end of a successful login (the session keeps it
    /// while it is live, for a telling of the success again).
    @Test func theInterruptedActionIsHandedBackAtTheEnd() throws {
        let action = try PendingAction(action: "favourite", payload: .object(["item": .string("v42")]), at: F.now)
        var driver = LoginDriver(server, starting: F.noSIM, at: F.now, id: F.id, pending: action)
        #expect(driver.end == nil)
        driver.answer(F.verdict(), at: at(30))
        #expect(driver.end?.continued == action)
        #expect(driver.session.pending == action)

        var cancelled = LoginDriver(server, starting: F.noSIM, at: F.now, id: F.id, pending: action)
        cancelled.answer(.cancel(.sms), at: at(30))
        #expect(cancelled.end?.ending == .cancelled && cancelled.end?.continued == nil)
    }

    // MARK: The breaker

    /// What the breaker says goes in with each answer; what it should learn comes out in the transition.
    @Test func admissionsGoInAndChannelReportsComeOut() throws {
        let plan = F.plan([.mobile, .tianyi, .unicom, .sms])
        var driver = LoginDriver(server, starting: plan, at: F.now, id: F.id, channels: ChannelAdmissions([Channel(carrier: .mobile, flow: .mobile): .probe]))
        #expect(driver.transition.channelReports == [.probing(Channel(carrier: .mobile, flow: .mobile))])
        let closedTianyi = ChannelAdmissions([Channel(carrier: .mobile, flow: .tianyi): .rejected])
        let answered = driver.answer(.result(.mobile, code: "102101"), at: at(1), channels: closedTianyi)
        let transition = try #require(answered)
        #expect(transition.channelReports == [.ended(Channel(carrier: .mobile, flow: .mobile), .fallback, .client)])
        #expect(driver.session.trace.map(F.summary) == ["mobile:102101:fallback", "tianyi:circuit-open:fallback"])
        #expect(Self.summary(driver.request) == "run unicom (attempt 1)")
    }

    // MARK: Refusals

    /// An answer the session does not wait for is the answerer's defect: the drive stops, failed at the
    /// flow the session stood at, and says why; nothing more is applied.
    @Test func aRefusedAnswerStopsTheDriveAsFailed() throws {
        var driver = LoginDriver(server, starting: F.mobileSIM, at: F.now, id: F.id)
        let before = driver.session
        #expect(driver.answer(.timeout(.tianyi), at: at(1)) == nil)
        #expect(driver.refusal?.kind == .wrongFlow)
        #expect(driver.session == before, "a refusal changes nothing")
        #expect(driver.request == nil)
        let end = try #require(driver.end)
        #expect(end.ending == .failed && end.flow == .mobile && end.verified == nil && end.continued == nil)
        #expect(end.refusal?.kind == .wrongFlow)
        #expect(driver.answer(.timeout(.mobile), at: at(2)) == nil, "the drive is over")
        #expect(driver.session == before)
    }

    /// A provider that answers the same token twice in one login: the machine refuses the second, so
    /// that token is never exchanged twice.
    @Test func aRepeatedTokenIsRefused() throws {
        var driver = LoginDriver(server, starting: F.mobileSIM, at: F.now, id: F.id)
        driver.answer(F.success(.mobile, "T1"), at: at(1))
        driver.answer(F.exchange("104201").bound(to: driver.session), at: at(2))
        #expect(Self.summary(driver.request) == "run mobile (attempt 2)")
        #expect(driver.answer(F.success(.mobile, "T1"), at: at(3)) == nil)
        #expect(driver.refusal?.kind == .alreadyExchanged)
        #expect(driver.end?.ending == .failed && driver.end?.flow == .mobile)
    }

    /// A report from outside (a transcript's line) may be refused: it throws, and the drive goes on.
    @Test func aReportFromOutsideMayBeRefusedAndTheDriveGoesOn() throws {
        var driver = LoginDriver(server, starting: F.mobileSIM, at: F.now, id: F.id)
        #expect(throws: LoginRejection.self) { try driver.take(.timeout(.mobile), version: 7, at: at(1)) }
        #expect(driver.refusal == nil && driver.session.version == 1)
        #expect(Self.summary(driver.request) == "run mobile (attempt 1)")
        let next = try driver.take(.result(.mobile, code: "200023"), version: 1, at: at(2))
        #expect(next.session.version == 2 && driver.session == next.session)
        do {
            try driver.take(.result(.mobile, code: "200023"), version: 1, at: at(3))
            Issue.record("a stale version was taken")
        } catch {
            #expect(error.kind == .staleVersion)
        }
        #expect(Self.summary(driver.request) == "run mobile (attempt 2)")
    }

    // MARK: The loop

    /// The loop asks for every request's answer, applies each at its instant with the admissions of that
    /// instant, and hands every transition over, until the login is done.
    @Test func theLoopRunsALoginToItsEnd() throws {
        var driver = LoginDriver(server, starting: F.mobileSIM, at: F.now, id: F.id)
        var asked: [String] = []
        var admitted: [Date] = []
        var applied: [(String, Date)] = []
        var clock = 0.0
        driver.run(admissions: { now in
            admitted.append(now)
            return .allAllowed
        }, answering: { request -> (report: LoginReport, at: Date)? in
            asked.append(request.description)
            clock += 1
            switch request {
            case .run(_, attempt: 1): return (F.success(.mobile, "T1"), at(clock))
            case .run: return (.result(.mobile, code: "102101"), at(clock))
            case .exchange(let credential, let receivedAt):
                #expect(receivedAt == at(1))
                return (.exchange(ExchangeOutcome(.timeout, for: credential)), at(clock))
            case .sms(let session): return (F.verdict(for: session), at(clock))
            }
        }, applied: { transition, now in
            applied.append((transition.instruction.next, now))
        })
        #expect(asked == ["run mobile (attempt 1)", "exchange mobile", "sms"])
        #expect(admitted == [at(1), at(2), at(3)])
        #expect(applied.map(\.0) == ["exchange", "sms", "done"])
        #expect(applied.map(\.1) == [at(1), at(2), at(3)])
        #expect(driver.end?.ending == .success && driver.end?.flow == .sms)
        #expect(driver.session.trace.map(F.summary) == ["mobile:103000:success", "mobile:exchange-timeout:switch", "sms:0:success"])
        #expect(driver.session.unknownExchanges.map(\.token) == [F.digest("T1")])
    }

    /// An answerer that stops leaves the login where it stands (an app that went away).
    @Test func theLoopStopsWhenTheAnswererDoes() throws {
        var driver = LoginDriver(server, starting: F.mobileSIM, at: F.now, id: F.id)
        var calls = 0
        driver.run { _ -> (report: LoginReport, at: Date)? in
            calls += 1
            return calls == 1 ? (.result(.mobile, code: "200023"), at(1)) : nil
        }
        #expect(calls == 2)
        #expect(Self.summary(driver.request) == "run mobile (attempt 2)")
        #expect(driver.end == nil && driver.refusal == nil)
    }

    /// The loop stops at a refusal without asking again.
    @Test func theLoopStopsAtARefusal() throws {
        var driver = LoginDriver(server, starting: F.mobileSIM, at: F.now, id: F.id)
        var calls = 0
        var applied = 0
        driver.run { _ -> (report: LoginReport, at: Date)? in
            calls += 1
            return (.timeout(.sms), at(Double(calls)))
        } applied: { _, _ in
            applied += 1
        }
        #expect(calls == 1 && applied == 0)
        #expect(driver.refusal?.kind == .wrongFlow)
        #expect(driver.end?.ending == .failed)
    }

    struct Stop: Error, Equatable {}

    @Test func theLoopPassesOnWhatTheAnswererThrows() throws {
        var driver = LoginDriver(server, starting: F.mobileSIM, at: F.now, id: F.id)
        #expect(throws: Stop()) {
            try driver.run { (_) throws(Stop) -> (report: LoginReport, at: Date)? in throw Stop() }
        }
        #expect(Self.summary(driver.request) == "run mobile (attempt 1)")
    }

    @Test func aRequestNeverShowsAToken() throws {
        var driver = LoginDriver(server, starting: F.mobileSIM, at: F.now, id: F.id)
        driver.answer(F.success(.mobile, "TOKEN-SECRET-1"), at: at(1))
        let request = try #require(driver.request)
        var dumped = ""
        dump(request, to: &dumped)
        for text in [request.description, "\(request)", String(reflecting: request), dumped] {
            #expect(!text.contains("TOKEN-SECRET-1"), "leaked: \(text)")
        }
    }
}
