import Foundation
import OneTapTesting
import Testing
@testable import OneTap

@Suite struct AccountLoginTests {
    let number = PhoneNumber(unchecked: 13_800_138_000)
    let day = Duration.seconds(86_400)

    /// Ids `acct-1`, `acct-2`, … in the order they are drawn.
    final class Counter: Sendable {
        private let next = LockedValue(0)
        func draw() -> AccountID {
            let index = next.withLock { value -> Int in
                value += 1
                return value
            }
            return AccountID(stringLiteral: "acct-\(index)")
        }
        var drawn: Int { next.withLock { $0 } }
    }

    func login(_ directory: any AccountDirectory, _ clock: FakeClock, _ events: RecordingEventSink = RecordingEventSink(), ids: Counter = Counter()) -> AccountLogin {
        AccountLogin(directory: directory, newAccountID: { ids.draw() }, clock: clock, events: events)
    }

    /// Seed 002: a number never seen gets an account, created, bound and logged in.
    @Test func aFirstLoginCreatesTheAccount() async throws {
        let directory = InMemoryAccountDirectory()
        let clock = FakeClock()
        let outcome = try await login(directory, clock).resolve(VerifiedLogin(phoneNumber: number))
        #expect(outcome.account == "acct-1" && outcome.number == number)
        #expect(outcome.created && outcome.previouslyVerifiedAt == nil && !outcome.dormant)
        let entry = try #require(try await directory.account(for: number))
        #expect(entry == AccountEntry(account: "acct-1", number: number, createdAt: FakeClock.epoch, lastVerifiedAt: FakeClock.epoch))
    }

    /// Seed 002: a number seen before logs in to its account, and the login is recorded.
    @Test func aSecondLoginFindsTheAccount() async throws {
        let directory = InMemoryAccountDirectory()
        let clock = FakeClock()
        let accounts = login(directory, clock)
        _ = try await accounts.resolve(VerifiedLogin(phoneNumber: number))
        clock.advance(by: day)
        let second = try await accounts.resolve(VerifiedLogin(phoneNumber: number))
        #expect(second.account == "acct-1" && !second.created && second.previouslyVerifiedAt == FakeClock.epoch && !second.dormant)
        #expect(try await directory.account(for: number)?.lastVerifiedAt == FakeClock.epoch.addingTimeInterval(86_400))
        #expect(directory.count == 1)
    }

    /// Last verified 81 days ago: dormant, flagged, one event with the masked number. 79 and exactly 80 days: not
    /// dormant, no event. (An attacker's read: at 180 days, a number its owner cancelled the day of a last login here
    /// and the carrier reissued after the 90 days' freeze commonly cited gave the new holder the owner's account.)
    @Test(arguments: [(79, false), (80, false), (81, true), (100, true)])
    func aNumberUnverifiedLongerThan80DaysIsDormant(days: Int, dormant: Bool) async throws {
        let directory = InMemoryAccountDirectory()
        let clock = FakeClock()
        let events = RecordingEventSink()
        let accounts = login(directory, clock, events)
        _ = try await accounts.resolve(VerifiedLogin(phoneNumber: number))
        clock.advance(by: day * days)
        let outcome = try await accounts.resolve(VerifiedLogin(phoneNumber: number))
        #expect(outcome.dormant == dormant && !outcome.created && outcome.previouslyVerifiedAt == FakeClock.epoch)
        let recorded = events.recorded.filter { $0.area == "account" }
        let stamp = days == 81 ? "2027-02-20T00:00:00.000Z" : "2027-03-11T00:00:00.000Z"  // 2026-12-01 plus the days
        if dormant {
            #expect(recorded.map { $0.json() } == [
                #"{"v":2,"at":"\#(stamp)","area":"account","event":"dormant-number","account":"acct-1","number":"138****8000","previouslyVerifiedAt":"2026-12-01T00:00:00.000Z"}"#
            ])
            #expect(recorded.map(\.description) == ["\(stamp) account dormant-number account acct-1 138****8000 (last verified 2026-12-01T00:00:00.000Z)"])
        } else {
            #expect(recorded.isEmpty)
        }
        // A dormant login is not recorded: logging in again a minute later is still dormant (the review's
        // bypass); once the account's own second factor passed, that login is recorded and the next is not dormant.
        clock.advance(by: .seconds(60))
        #expect(try await accounts.resolve(VerifiedLogin(phoneNumber: number)).dormant == dormant)
        if dormant {
            let confirmed = try await accounts.resolve(VerifiedLogin(phoneNumber: number)) { $0 == "acct-1" }
            #expect(!confirmed.dormant && confirmed.account == "acct-1" && confirmed.previouslyVerifiedAt == FakeClock.epoch)
        }
        clock.advance(by: day)
        #expect(try await accounts.resolve(VerifiedLogin(phoneNumber: number)).dormant == false)
    }

    /// An attacker's read: the second factor is asked of the number's own account, never one the caller names, and
    /// only for a dormant number. A check that fails (the new holder's own password) or throws confirms nothing: the
    /// verification stays unrecorded and the number dormant. The account's own check does: the login is recorded,
    /// with a `dormant-number-confirmed` event.
    @Test func theSecondFactorIsAskedOfTheDormantNumbersOwnAccount() async throws {
        let directory = InMemoryAccountDirectory()
        let clock = FakeClock()
        let events = RecordingEventSink()
        let accounts = login(directory, clock, events)
        let asked = LockedValue<[AccountID]>([])
        let ownersPassword = Secret("owner's password")
        @Sendable func check(_ typed: Secret) -> @Sendable (AccountID) async throws -> Bool {
            { account in
                asked.withLock { $0.append(account) }
                return account == "acct-1" && typed == ownersPassword
            }
        }
        _ = try await accounts.resolve(VerifiedLogin(phoneNumber: number), secondFactor: check(ownersPassword))
        #expect(asked.withLock { $0 }.isEmpty, "a number not dormant asks for no second factor")
        clock.advance(by: day * 200)
        #expect(try await accounts.resolve(VerifiedLogin(phoneNumber: number), secondFactor: check(Secret("the new holder's own"))).dormant)
        // A login naming an account (a binding) of the dormant number: the check is asked of the number's account too.
        #expect(try await accounts.resolve(VerifiedLogin(phoneNumber: number, account: "acct-2"), secondFactor: check(Secret("x"))).dormant)
        await #expect(throws: StoreError.self) {
            try await accounts.resolve(VerifiedLogin(phoneNumber: number)) { _ in throw StoreError(.io, message: "the password store is down") }
        }
        #expect(asked.withLock { $0 } == ["acct-1", "acct-1"])
        #expect(try await directory.account(for: number)?.lastVerifiedAt == FakeClock.epoch)
        #expect(events.recorded.map(\.name) == ["dormant-number", "dormant-number"], "no event for the check that threw")

        let confirmed = try await accounts.resolve(VerifiedLogin(phoneNumber: number), secondFactor: check(ownersPassword))
        #expect(!confirmed.dormant && !confirmed.created && confirmed.account == "acct-1" && confirmed.previouslyVerifiedAt == FakeClock.epoch)
        #expect(try await directory.account(for: number)?.lastVerifiedAt == FakeClock.epoch.addingTimeInterval(200 * 86_400))
        #expect(events.recorded.last?.json() ==
            #"{"v":2,"at":"2027-06-19T00:00:00.000Z","area":"account","event":"dormant-number-confirmed","account":"acct-1","number":"138****8000","previouslyVerifiedAt":"2026-12-01T00:00:00.000Z"}"#)
        clock.advance(by: day)
        #expect(try await accounts.resolve(VerifiedLogin(phoneNumber: number), secondFactor: check(ownersPassword)).dormant == false)
        #expect(asked.withLock { $0.count } == 3 && events.recorded.count == 3)
    }

    /// A directory whose read lags its writes (a replica, which ``AccountDirectory`` rules out) answers no entry for a
    /// dormant number: the write finds it lapsed, and the answer is dormant all the same, with its event.
    @Test func aDormantNumberTheReadMissedIsStillFlagged() async throws {
        struct Lagging: AccountDirectory {
            let base: InMemoryAccountDirectory
            func account(for number: PhoneNumber) async throws -> Optional<AccountEntry> { .none }  // the read lags: never found
            func findOrCreate(_ number: PhoneNumber, newID: AccountID, at now: Date) async throws -> AccountResolution {
                try await base.findOrCreate(number, newID: newID, at: now)
            }
            func bind(_ number: PhoneNumber, to account: AccountID, at now: Date) async throws -> AccountResolution {
                try await base.bind(number, to: account, at: now)
            }
        }
        let base = InMemoryAccountDirectory()
        let clock = FakeClock()
        _ = try await base.findOrCreate(number, newID: "owner", at: clock.now())
        clock.advance(by: day * 200)
        let events = RecordingEventSink()
        let outcome = try await login(Lagging(base: base), clock, events).resolve(VerifiedLogin(phoneNumber: number)) { _ in true }
        #expect(outcome.dormant && outcome.account == "owner" && events.recorded.map(\.name) == ["dormant-number"])
    }

    /// A server that runs the SMS code service on its own (no `LoginServer`): the verdict of a right code is the
    /// verified login; its account is found or created, and the app session moves to it (a review: with
    /// `loggedIn` taking only `AccountLogin`'s answer, such a server had no way to log anyone in).
    @Test func anSMSCodeVerifiedOnItsOwnLogsIn() async throws {
        let clock = FakeClock()
        let sender = ScriptedSMSSender()
        let sms = SMSCodeService(key: .random(), sender: sender, events: DiscardingEventSink(), clock: clock)
        let sessions = AppSessions(keys: TestAppSession.keys, clock: clock, events: DiscardingEventSink())
        let accounts = login(InMemoryAccountDirectory(), clock)
        let context = SMSContext(ip: try IPAddress("203.0.113.7"), session: LoginSessionID.random())
        guard case .sent = try await sms.send(to: number, context: context) else { Issue.record("not sent"); return }
        guard case .verified(let verdict) = try await sms.verify(try #require(sender.lastCode(to: number)), for: number, context: context) else {
            Issue.record("not verified")
            return
        }
        let verified = VerifiedLogin(verdict)
        #expect(verified.phoneNumber == number && verified.account == nil)
        let outcome = try await accounts.resolve(verified)
        let me = try sessions.authenticate(try await sessions.open().accessToken.reveal())
        let grant = try await sessions.loggedIn(me, as: outcome, flow: .sms)
        #expect(outcome.created && grant.identity == .account("acct-1"))
        #expect(grant.lastLogin?.description.contains("138****8000") == true)
    }

    /// The limit is configurable: 30 days.
    @Test func theDormancyLimitIsConfigurable() async throws {
        let clock = FakeClock()
        let accounts = AccountLogin(directory: InMemoryAccountDirectory(), dormantAfter: day * 30, clock: clock, events: RecordingEventSink())
        _ = try await accounts.resolve(VerifiedLogin(phoneNumber: number))
        clock.advance(by: day * 31)
        #expect(try await accounts.resolve(VerifiedLogin(phoneNumber: number)).dormant)
    }

    /// Two (and twenty) first logins of one number at once: one account, created once.
    @Test(arguments: [2, 20])
    func concurrentFirstLoginsCreateOneAccount(count: Int) async throws {
        let directory = InMemoryAccountDirectory()
        let accounts = login(directory, FakeClock())
        let outcomes = try await withThrowingTaskGroup(of: AccountOutcome.self) { group in
            for _ in 0..<count { group.addTask { try await accounts.resolve(VerifiedLogin(phoneNumber: self.number)) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(Set(outcomes.map(\.account)).count == 1)
        #expect(outcomes.filter(\.created).count == 1)
        #expect(try await directory.account(for: number)?.account == outcomes.first?.account)
        #expect(directory.count == 1)
    }

    /// A directory that fails: the error comes out, nothing is written, no event.
    @Test func aFailingDirectoryFailsTheLoginAndWritesNothing() async throws {
        let base = InMemoryAccountDirectory()
        let directory = FaultyAccountDirectory(base)
        let clock = FakeClock()
        let events = RecordingEventSink()
        let accounts = login(directory, clock, events)
        directory.faults.inject(.refuse(.io, "the database is down"), into: [.findOrCreate])
        let error = await #expect(throws: StoreError.self) { _ = try await accounts.resolve(VerifiedLogin(phoneNumber: number)) }
        #expect(error?.kind == .io && error?.entry == .number(number))
        #expect(!"\(String(describing: error))".contains("13800138000"))
        #expect(try await base.account(for: number) == nil && base.count == 0)

        // A confirmed dormant login whose recording fails: no event, the stored verification unchanged.
        let owner = try await accounts.resolve(VerifiedLogin(phoneNumber: number)).account
        clock.advance(by: day * 200)
        directory.faults.inject(.lose(), into: [.findOrCreate])
        await #expect(throws: StoreError.self) { _ = try await accounts.resolve(VerifiedLogin(phoneNumber: number)) { $0 == owner } }
        #expect(events.recorded.isEmpty)
        #expect(try await base.account(for: number)?.lastVerifiedAt == FakeClock.epoch)
    }

    /// A login whose exchange named the account binds the number to it; a number another account has is refused.
    @Test func aLoginNamingAnAccountBindsTheNumber() async throws {
        let directory = InMemoryAccountDirectory()
        let ids = Counter()
        let accounts = login(directory, FakeClock(), ids: ids)
        let bound = try await accounts.resolve(VerifiedLogin(phoneNumber: number, account: "owner"))
        #expect(bound.account == "owner" && !bound.created && bound.previouslyVerifiedAt == nil && ids.drawn == 0)
        let again = try await accounts.resolve(VerifiedLogin(phoneNumber: number, account: "owner"))
        #expect(again.account == "owner" && again.previouslyVerifiedAt == FakeClock.epoch)
        await #expect(throws: StoreError(.conflict, subject: .number(number), message: "the number belongs to another account; nothing was written")) {
            _ = try await accounts.resolve(VerifiedLogin(phoneNumber: number, account: "intruder"))
        }
        #expect(try await accounts.resolve(VerifiedLogin(phoneNumber: number)).account == "owner")
    }

    /// A drawn id that is already an account's is drawn again; a generator that only repeats one fails.
    @Test func aTakenIDIsDrawnAgain() async throws {
        let directory = InMemoryAccountDirectory()
        _ = try await directory.findOrCreate(try PhoneNumber("13900139000"), newID: "acct-1", at: FakeClock.epoch)
        let ids = Counter()
        let outcome = try await login(directory, FakeClock(), ids: ids).resolve(VerifiedLogin(phoneNumber: number))
        #expect(outcome.account == "acct-2" && outcome.created && ids.drawn == 2)

        let stuck = AccountLogin(directory: directory, newAccountID: { "acct-1" }, clock: FakeClock(), events: RecordingEventSink())
        let error = await #expect(throws: StoreError.self) { _ = try await stuck.resolve(VerifiedLogin(phoneNumber: try PhoneNumber("13700137000"))) }
        #expect(error?.kind == .duplicate)
    }

    /// The default ids: `acct_` and 22 URL-safe characters of 16 bytes (pinned against Python's
    /// `base64.urlsafe_b64encode(bytes(range(16)))`), different at every draw.
    @Test func defaultIDsAre128RandomBits() {
        #expect(AccountID.generated(from: Array(0..<16)).rawValue == "acct_AAECAwQFBgcICQoLDA0ODw")
        #expect(AccountID.generated(from: [UInt8](repeating: 0xFF, count: 16)).rawValue == "acct_" + String(repeating: "_", count: 21) + "w")
        let drawn = (0..<1000).map { _ in AccountLogin.randomAccountID().rawValue }
        #expect(Set(drawn).count == 1000)
        let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        #expect(drawn.allSatisfy { $0.hasPrefix("acct_") && $0.count == 27 && $0.dropFirst(5).allSatisfy(alphabet.contains) })
    }
}

@Suite struct AccountEventTests {
    /// An event made with a whole number by mistake still writes and describes it masked.
    @Test func aWholeNumberGivenByMistakeIsMasked() {
        let event = OneTapEvent(at: FakeClock.epoch, .account(.dormantNumber("42", maskedNumber: "13800138000", previouslyVerifiedAt: FakeClock.epoch)))
        #expect(event.json() == #"{"v":2,"at":"2026-12-01T00:00:00.000Z","area":"account","event":"dormant-number","account":"42","number":"138****8000","previouslyVerifiedAt":"2026-12-01T00:00:00.000Z"}"#)
        #expect(!event.description.contains("13800138000") && event.description.contains("138****8000"))
        #expect(event.name == "dormant-number" && event.area == "account")
    }
}
