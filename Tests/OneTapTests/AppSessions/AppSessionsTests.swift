import Foundation
import OneTapTesting
import Testing
@testable import OneTap

/// The app's sessions end to end: guests first, logins with new credentials, rotation with a grace, reuse
/// that revokes, and what a stranger who knows a session's id cannot do.
@Suite struct AppSessionsTests {
    static let keys = try! ServerKeyRing(parsing: Secret("k1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="))

    struct World {
        let clock = FakeClock()
        let store = InMemoryAppSessionStore()
        let events = RecordingEventSink()
        var sessions: AppSessions { AppSessions(keys: AppSessionsTests.keys, store: store, clock: clock, events: events) }

        /// The account step: the session of a grant logs in to an account with the grant's access token.
        func logIn(_ grant: AppSessionGrant, to account: AccountID, flow: LoginFlow = .mobile) async throws -> AppSessionGrant {
            try await sessions.loggedIn(try sessions.authenticate(grant.accessToken.reveal()), as: TestAppSession.outcome(account), flow: flow)
        }

        /// A new guest session that logs in to an account a fraction past a whole second (a minute after the clock's
        /// now), for tests that place instants around a second's edge.
        /// - Returns: The login's grant and that whole second.
        func guestLogsIn(to account: AccountID, atFraction fraction: Double) async throws -> (grant: AppSessionGrant, second: Date) {
            let guest = try await sessions.open()
            let second = Date(timeIntervalSince1970: clock.now().timeIntervalSince1970.rounded(.down) + 60)
            clock.setWallTime(second.addingTimeInterval(fraction))
            return (try await logIn(guest, to: account), second)
        }

        /// A login server on the world's clock, whose carrier exchange answers 13800138000.
        func loginServer() throws -> LoginServer {
            LoginServer(
                store: InMemoryLoginSessionStore(), exchange: ExchangeGuard(provider: MockTokenExchange(number: try PhoneNumber("13800138000"), clock: clock), clock: clock),
                clock: clock, events: DiscardingEventSink())
        }

        /// A China Mobile one-tap login started under `claims`, and its success reported.
        /// - Returns: The login's id and the server's answer to the success.
        func mobileLoginSucceeds(on logins: LoginServer, for claims: AccessClaims) async throws -> (id: LoginSessionID, done: LoginTransition) {
            let started = try await logins.start(DeviceSnapshot(sim: .present, plmn: try PLMN("46000")), for: claims)
            let success = LoginReport.result(.mobile, code: "103000", credential: CarrierCredential(flow: .mobile, token: Secret("T"), uniqueID: "u"))
            return (started.session.id, try await logins.report(success, to: started.session.id, version: started.session.version, from: claims))
        }

        /// The login's account step under `claims` (its success told again, then the session logged in to `acct-a`),
        /// and then the step's own new credentials refused it: the step is taken once.
        func accountStepIsTakenOnce(_ id: LoginSessionID, on logins: LoginServer, under claims: AccessClaims, sourceLocation: SourceLocation = #_sourceLocation) async throws {
            _ = try await logins.success(of: id, from: claims)
            let fresh = try await sessions.loggedIn(claims, as: TestAppSession.outcome("acct-a"), flow: .mobile)
            let freshClaims = try sessions.authenticate(fresh.accessToken.reveal())
            await #expect(sourceLocation: sourceLocation) { try await logins.success(of: id, from: freshClaims) } throws: { ($0 as? LoginRejection)?.kind == .ended }
        }
    }

    @Test func aFirstOpenIsAGuestWhoseAccessTokenVerifiesWithoutTheStore() async throws {
        let world = World()
        let grant = try await world.sessions.open()
        guard case .guest = grant.identity else {
            Issue.record("not a guest: \(grant.identity)")
            return
        }
        let claims = try world.sessions.authenticate(grant.accessToken.reveal())
        #expect(claims.session == grant.session && claims.identity == grant.identity)
        #expect(grant.accessExpiresAt == world.clock.now().addingTimeInterval(7200).rounded)
        #expect(world.store.count == 1)
        // Verified without a store read: another service with an empty store and the same keys agrees.
        #expect(try AppSessions(keys: Self.keys, store: InMemoryAppSessionStore(), clock: world.clock).authenticate(grant.accessToken.reveal()) == claims)
    }

    /// No session fixation: every login issues new credentials, and the guest's stop counting.
    @Test func aLoginIssuesNewCredentialsAndTheGuestsStopCounting() async throws {
        let world = World()
        let guest = try await world.sessions.open()
        let claims = try world.sessions.authenticate(guest.accessToken.reveal())
        let account = try await world.sessions.loggedIn(claims, as: TestAppSession.outcome("42"), flow: .mobile)
        #expect(account.session == guest.session)
        #expect(account.identity == .account("42"))
        #expect(account.accessToken != guest.accessToken && account.refreshToken != guest.refreshToken)
        #expect(account.formerGuest.map(Identity.guest) == guest.identity)
        await #expect(throws: AppSessionError.self) { try await world.sessions.refresh(guest.refreshToken) }
        await #expect { try await world.sessions.live(guest.accessToken.reveal()) } throws: { ($0 as? AppSessionError)?.kind == .wrongSession }
        #expect(try await world.sessions.live(account.accessToken.reveal()).claims.identity == .account("42"))
        // The session is intact: the account's refresh token works.
        #expect(try await world.sessions.refresh(account.refreshToken).identity == .account("42"))
    }

    /// A number that lay dormant (二次号) with no second factor passed for its account: `loggedIn` hands out no
    /// credentials and changes nothing, whatever the account step forgot to check; once the account's own second
    /// factor passed, the same login is handed them.
    @Test func aDormantNumbersAccountGetsNoCredentials() async throws {
        let world = World()
        let accounts = AccountLogin(directory: InMemoryAccountDirectory(), newAccountID: { "owner" }, clock: world.clock, events: DiscardingEventSink())
        let number = try PhoneNumber("13800138000")
        _ = try await accounts.resolve(VerifiedLogin(phoneNumber: number))
        world.clock.advance(by: .seconds(200 * 86_400))
        let guest = try await world.sessions.open()
        let claims = try world.sessions.authenticate(guest.accessToken.reveal())
        let dormant = try await accounts.resolve(VerifiedLogin(phoneNumber: number))
        let refused = await #expect(throws: AppSessionError.self) { try await world.sessions.loggedIn(claims, as: dormant, flow: .mobile) }
        #expect(refused?.kind == .dormantNumber && refused?.description.contains("13800138000") == false && refused?.description.contains("owner") == false)
        #expect(try await world.sessions.live(guest.accessToken.reveal()).claims.identity == guest.identity, "still the guest")
        let confirmed = try await accounts.resolve(VerifiedLogin(phoneNumber: number)) { $0 == "owner" }
        #expect(try await world.sessions.loggedIn(claims, as: confirmed, flow: .mobile).identity == .account("owner"))
    }

    @Test func aRetryWithinTheGraceGetsTheSameSuccessorAndAReuseAfterItRevokesEveryCredential() async throws {
        let world = World()
        let first = try await world.sessions.open()
        world.clock.advance(by: .seconds(3600))
        let second = try await world.sessions.refresh(first.refreshToken)
        world.clock.advance(by: .seconds(29))
        let retried = try await world.sessions.refresh(first.refreshToken)
        #expect(retried.refreshToken == second.refreshToken)
        world.clock.advance(by: .seconds(2))
        await #expect { try await world.sessions.refresh(first.refreshToken) } throws: { ($0 as? AppSessionError)?.kind == .reused }
        await #expect { try await world.sessions.refresh(second.refreshToken) } throws: { ($0 as? AppSessionError)?.kind == .revoked }
        await #expect { try await world.sessions.live(second.accessToken.reveal()) } throws: { ($0 as? AppSessionError)?.kind == .revoked }
        #expect(world.events.recorded.contains { $0.json().contains(#""event":"revoked""#) && $0.json().contains(#""reason":"reuse""#) })
    }

    /// The attacker's read of 2026-12-04: a thief refreshes a stolen token in a burst, more times than a
    /// session remembers older tokens. The victim's token, presented next, still revokes the session, and
    /// the thief's newest token stops working.
    @Test func aBurstOfRefreshesByAThiefDoesNotHideTheVictimsToken() async throws {
        let world = World()
        let victim = try await world.sessions.open()
        var stolen = victim.refreshToken
        for _ in 0..<20 {
            world.clock.advance(by: .seconds(1))
            stolen = try await world.sessions.refresh(stolen).refreshToken
        }
        world.clock.advance(by: .seconds(60))
        await #expect { try await world.sessions.refresh(victim.refreshToken) } throws: { ($0 as? AppSessionError)?.kind == .reused }
        await #expect { try await world.sessions.refresh(stolen) } throws: { ($0 as? AppSessionError)?.kind == .revoked }
    }

    /// The attacker's read of 2026-12-04: a session logged in to an account that logs in to the same account
    /// again kept every access token issued before, so one stolen before the new login still passed `live` and
    /// could take the login's account step again for a refresh family of its own, logging the owner out. A login
    /// now ends the tokens issued before it, whatever account it is to (and an account's tokens from before a
    /// login to another one never come back).
    @Test func aLoginToTheSameAccountEndsTheAccessTokensIssuedBeforeIt() async throws {
        let world = World()
        let guest = try await world.sessions.open()
        world.clock.advance(by: .seconds(5))
        let first = try await world.logIn(guest, to: "acct-a")
        let stolen = try world.sessions.authenticate(first.accessToken.reveal())
        world.clock.advance(by: .seconds(600))
        let again = try await world.sessions.loggedIn(stolen, as: TestAppSession.outcome("acct-a"), flow: .mobile)
        await #expect { try await world.sessions.live(first.accessToken.reveal()) } throws: { ($0 as? AppSessionError)?.kind == .wrongSession }
        await #expect { try await world.sessions.loggedIn(stolen, as: TestAppSession.outcome("acct-a"), flow: .mobile) } throws: {
            ($0 as? AppSessionError)?.kind == .wrongSession
        }
        // Nor can it log the owner out (the review of this fix: `logout` checked the identity only).
        await #expect { try await world.sessions.logout(stolen) } throws: { ($0 as? AppSessionError)?.kind == .wrongSession }
        #expect(try await world.sessions.live(again.accessToken.reveal()).claims.identity == .account("acct-a"))
        #expect(try await world.sessions.refresh(again.refreshToken).identity == .account("acct-a"))
        // A → B → A: the first period's tokens stay ended.
        world.clock.advance(by: .seconds(60))
        let other = try await world.logIn(again, to: "acct-b", flow: .sms)
        world.clock.advance(by: .seconds(60))
        _ = try await world.logIn(other, to: "acct-a")
        await #expect { try await world.sessions.live(again.accessToken.reveal()) } throws: { ($0 as? AppSessionError)?.kind == .wrongSession }
    }

    /// An instance whose clock is behind the one that logged the session in (by less than a second, across the
    /// login's second) issues access tokens that stand: they carry the login's epoch, and are dated by the issuing
    /// instance's own clock (they were dated from the second after the login, which stretched them when that
    /// login's clock was far ahead).
    @Test func anInstanceWhoseClockIsBehindIssuesTokensThatStand() async throws {
        let world = World()
        let (login, second) = try await world.guestLogsIn(to: "acct-a", atFraction: 0.2)
        world.clock.setWallTime(second.addingTimeInterval(-0.1))   // another instance, 0.3 s behind
        let refreshed = try await world.sessions.refresh(login.refreshToken)
        let refreshedClaims = try world.sessions.authenticate(refreshed.accessToken.reveal())
        #expect(refreshedClaims.issuedAt == second.addingTimeInterval(-1), "dated now (rounded down)")
        #expect(refreshedClaims.epoch == Int64(second.timeIntervalSince1970) + 1, "in the login's epoch")
        #expect(refreshedClaims.expiresAt == second.addingTimeInterval(7200 - 1), "the access lifetime from now (rounded down), never longer")
        #expect(try await world.sessions.live(refreshed.accessToken.reveal()).claims.identity == .account("acct-a"))
    }

    /// The attacker's read of the app sessions: a login stamped by an instance whose clock is three hours ahead made an
    /// instance on time mint access tokens dated three hours on and lasting until then (a token living past the
    /// access lifetime, and past a logout by as much). A token now expires the access lifetime after the minting
    /// instance's now, never later, and still stands (its login epoch says it is of this login).
    @Test func aLoginStampedByAClockFarAheadNeverStretchesAnAccessToken() async throws {
        let world = World()
        let start = world.clock.now()
        world.clock.setWallTime(start.addingTimeInterval(3 * 3_600))   // the instance that runs the login
        let login = try await world.logIn(try await world.sessions.open(), to: "acct-a")
        world.clock.setWallTime(start.addingTimeInterval(60))          // an instance on time
        let refreshed = try await world.sessions.refresh(login.refreshToken)
        #expect(refreshed.accessExpiresAt <= start.addingTimeInterval(60 + 7_200), "expires \(refreshed.accessExpiresAt)")
        #expect(try await world.sessions.live(refreshed.accessToken.reveal()).claims.identity == .account("acct-a"))
    }

    /// The attacker's read of the `identitySince` fix: a token issued in the login's own second, before the
    /// login (a thief refreshing in a loop), still stood, since tokens carry whole seconds. It no longer does. The
    /// owner's next login finishes, and the account step's own new credentials (dated from the second after the
    /// login) cannot run that step again for a second refresh family (the review of the fix's second version,
    /// which dated a login's start from its credentials and so let them).
    @Test func aTokenIssuedInTheLoginsOwnSecondBeforeItDoesNotStand() async throws {
        let world = World()
        let (first, second) = try await world.guestLogsIn(to: "acct-a", atFraction: 0.1)
        world.clock.setWallTime(second.addingTimeInterval(30.1))
        let stolen = try await world.sessions.refresh(first.refreshToken)        // the thief's refresh, at 30.1
        world.clock.setWallTime(second.addingTimeInterval(30.6))
        let owner = try await world.logIn(stolen, to: "acct-a")
        await #expect { try await world.sessions.live(stolen.accessToken.reveal()) } throws: { ($0 as? AppSessionError)?.kind == .wrongSession }
        await #expect { try await world.sessions.logout(try world.sessions.authenticate(stolen.accessToken.reveal())) } throws: {
            ($0 as? AppSessionError)?.kind == .wrongSession
        }
        // The owner logs in again a little later: the login finishes, and its account step is done once.
        world.clock.setWallTime(second.addingTimeInterval(35))
        let logins = try world.loginServer()
        let claims = try await world.sessions.live(owner.accessToken.reveal()).claims
        let (id, done) = try await world.mobileLoginSucceeds(on: logins, for: claims)
        guard case .done(.success, _, _) = done.instruction else {
            Issue.record("the owner's login did not finish: \(done.instruction)")
            return
        }
        world.clock.setWallTime(second.addingTimeInterval(35.4))
        try await world.accountStepIsTakenOnce(id, on: logins, under: claims)
    }

    /// A token minted before a login by an instance whose clock is ahead (a thief's refresh there) is dated after
    /// the login's second, yet it was issued before the login: it must not stand after it. Tokens carry the session's
    /// login epoch, and a login moves it on.
    @Test func aTokenMintedBeforeALoginByAnInstanceWhoseClockIsAheadDoesNotStandAfterIt() async throws {
        let world = World()
        let (first, second) = try await world.guestLogsIn(to: "acct-a", atFraction: 0.1)
        world.clock.setWallTime(second.addingTimeInterval(35))   // the thief's refresh, on an instance 5 s ahead
        let stolen = try await world.sessions.refresh(first.refreshToken)
        world.clock.setWallTime(second.addingTimeInterval(30.5))  // the owner logs in again, on an instance on time
        _ = try await world.logIn(first, to: "acct-a")
        await #expect { try await world.sessions.live(stolen.accessToken.reveal()) } throws: { ($0 as? AppSessionError)?.kind == .wrongSession }
        await #expect { try await world.sessions.logout(try world.sessions.authenticate(stolen.accessToken.reveal())) } throws: {
            ($0 as? AppSessionError)?.kind == .wrongSession
        }
    }

    /// A refresh retry within the grace (`.repeated`, which writes nothing) that read the session just before a login
    /// wrote it, on an instance whose clock is a few seconds ahead: it answered a token of the epoch before the login
    /// (which did not stand after it: its date alone, after the login's second, would have let it). The retry now reads
    /// the session again before it answers: after the login the token it presents is none the session issued, and it
    /// is refused, minting nothing.
    @Test func aRepeatedRefreshThatReadTheSessionBeforeALoginMintsNoToken() async throws {
        let world = World()
        let (first, second) = try await world.guestLogsIn(to: "acct-a", atFraction: 0.1)
        world.clock.setWallTime(second.addingTimeInterval(30))
        let rotated = try await world.sessions.refresh(first.refreshToken)   // the owner's refresh: first's token is now the previous one
        let ahead = FakeClock(now: second.addingTimeInterval(33))             // the instance the retry reaches
        let store = LoginBeforeTheAnswer(base: world.store)
        let retrying = AppSessions(keys: Self.keys, store: store, clock: ahead, events: world.events)
        store.afterLoad.withLock { $0 = { _ = try await world.logIn(rotated, to: "acct-a") } }   // the owner logs in again meanwhile
        await #expect { try await retrying.refresh(first.refreshToken) } throws: { ($0 as? AppSessionError)?.kind == .invalid }
        #expect(store.afterLoad.withLock { $0 == nil }, "the login ran between the retry's read and its answer")
    }

    /// An attacker's read: the app's refresh sent twice (a retry reaching another instance) read the session while its
    /// token was current; the other copy rotated it first, this one's compare-and-swap lost, and its next read came
    /// past the grace (a slow store): the token was judged reused and the honest session revoked. A token found current
    /// by a refresh is judged as of then on its retries, as a merge's is.
    @Test func aSlowLoserOfADoubleRefreshIsNotTakenForTheft() async throws {
        let world = World()
        let opened = try await world.sessions.open()
        let store = LoginBeforeTheAnswer(base: world.store)
        let slow = AppSessions(keys: Self.keys, store: store, clock: world.clock, events: world.events)
        let other = LockedValue<AppSessionGrant?>(nil)
        store.afterLoad.withLock {
            $0 = {
                let rotated = try await world.sessions.refresh(opened.refreshToken)   // the other copy rotates first
                other.withLock { $0 = rotated }
                world.clock.advance(by: .seconds(31))                                  // this copy's round trips took 31 s
            }
        }
        let answer = try await slow.refresh(opened.refreshToken)
        #expect(answer.session == opened.session)
        let rotated = try #require(other.withLock { $0 })
        #expect(answer.refreshToken == rotated.refreshToken, "the repeat answers the rotation's refresh token")
        _ = try await world.sessions.refresh(rotated.refreshToken)   // the session stands
        #expect(!world.events.names.contains("revoked"), "\(world.events.names)")
    }

    /// The review of that fix: a refresh found its token within the grace (a repeat), its answer waited on a version
    /// another write had moved meanwhile (a merge's acknowledgement), and its next read came past the grace: it was
    /// taken for a reuse and the session revoked. A repeat found within the grace is judged as of then, as a current
    /// token is.
    @Test func aRepeatWhoseSessionMovedIsJudgedAsOfItsFirstRead() async throws {
        let world = World()
        let opened = try await world.sessions.open()
        let rotated = try await world.sessions.refresh(opened.refreshToken)
        world.clock.advance(by: .seconds(10))   // the app's retry of that refresh, within the grace
        let store = LoginBeforeTheAnswer(base: world.store)
        let slow = AppSessions(keys: Self.keys, store: store, clock: world.clock, events: world.events)
        store.afterLoad.withLock {
            $0 = {
                // Another write moves the version meanwhile, and this request's round trips take 31 s.
                var moved = try #require(try await world.store.load(opened.session))
                let read = moved.version
                moved.version += 1
                try await world.store.replace(moved, expecting: read)
                world.clock.advance(by: .seconds(31))
            }
        }
        let answer = try await slow.refresh(opened.refreshToken)
        #expect(answer.refreshToken == rotated.refreshToken, "the repeat answers the rotation's refresh token")
        #expect(!world.events.names.contains("revoked"), "\(world.events.names)")
    }

    /// An attacker's read: a refresh retry within the grace (`.repeated`, which writes nothing) that read the session
    /// just before a logout revoked it answered a fresh access token, which `authenticate` takes for its whole lifetime
    /// after the logout. The retry reads the session again before it answers, and is refused.
    @Test func aRepeatedRefreshThatReadTheSessionBeforeALogoutIsRefused() async throws {
        let world = World()
        let guest = try await world.sessions.open()
        let rotated = try await world.sessions.refresh(guest.refreshToken)
        let store = LoginBeforeTheAnswer(base: world.store)
        let retrying = AppSessions(keys: Self.keys, store: store, clock: world.clock, events: world.events)
        store.afterLoad.withLock {
            $0 = { _ = try await world.sessions.logout(try world.sessions.authenticate(rotated.accessToken.reveal())) }
        }
        await #expect { try await retrying.refresh(guest.refreshToken) } throws: { ($0 as? AppSessionError)?.kind == .revoked }
        #expect(store.afterLoad.withLock { $0 == nil }, "the logout ran between the retry's read and its answer")
    }

    /// A login started on an instance whose clock is ahead, and its account step taken on one whose clock is behind:
    /// the account step's own new credentials are dated before the login's start, yet they must not run that step
    /// again (a second refresh family, logging the owner's out).
    @Test func anAccountStepUnderSkewedClocksIsTakenOnce() async throws {
        let world = World()
        let guest = try await world.sessions.open()
        let claims = try world.sessions.authenticate(guest.accessToken.reveal())
        let start = world.clock.now()
        world.clock.setWallTime(start.addingTimeInterval(5))   // the instance that runs the login is 5 s ahead
        let logins = try world.loginServer()
        let (id, _) = try await world.mobileLoginSucceeds(on: logins, for: claims)
        world.clock.setWallTime(start.addingTimeInterval(1))   // the account step, on an instance on time
        try await world.accountStepIsTakenOnce(id, on: logins, under: claims)
    }

    /// Four requests refreshing one token at once: one rotation, one successor for all.
    @Test func concurrentRefreshesOfOneTokenMakeOneRotation() async throws {
        let world = World()
        let first = try await world.sessions.open()
        let sessions = world.sessions
        let successors = try await withThrowingTaskGroup(of: Secret.self) { group in
            for _ in 0..<4 { group.addTask { try await sessions.refresh(first.refreshToken).refreshToken } }
            var all: [Secret] = []
            for try await successor in group { all.append(successor) }
            return all
        }
        #expect(Set(successors.map { $0.reveal() }).count == 1)
        #expect(try await world.store.load(first.session)?.version == 2)
    }

    /// The session's id is in every access token and event: knowing it lets no one refresh, revoke or log in.
    @Test func aStrangerWhoKnowsTheSessionsIdCannotEndIt() async throws {
        let world = World()
        let victim = try await world.sessions.open()
        for guess in ["otr1.\(victim.session.text).\(String(repeating: "A", count: 43))", "otr1.\(victim.session.text).\(String(repeating: "_", count: 43))"] {
            await #expect { try await world.sessions.refresh(Secret(guess)) } throws: { ($0 as? AppSessionError)?.kind == .invalid }
        }
        #expect(try await world.store.load(victim.session)?.revoked == nil)
        #expect(try await world.sessions.refresh(victim.refreshToken).session == victim.session)
    }

    /// Nor learn whether it was revoked (its user logged out): a made-up token is `invalid` either way; only a
    /// token the session issued hears `revoked`.
    @Test func aMadeUpTokenDoesNotTellARevokedSessionFromALiveOne() async throws {
        let world = World()
        let victim = try await world.sessions.open()
        _ = try await world.sessions.logout(try world.sessions.authenticate(victim.accessToken.reveal()))
        let guess = Secret("otr1.\(victim.session.text).\(String(repeating: "A", count: 43))")
        await #expect { try await world.sessions.refresh(guess) } throws: { ($0 as? AppSessionError)?.kind == .invalid }
        await #expect { try await world.sessions.refresh(victim.refreshToken) } throws: { ($0 as? AppSessionError)?.kind == .revoked }
    }

    @Test func logoutRevokesAndOpensAFreshGuestAndLogoutEverywhereRevokesEveryFamily() async throws {
        let world = World()
        var grants: [AppSessionGrant] = []
        for _ in 0..<3 {
            let guest = try await world.sessions.open()
            grants.append(try await world.logIn(guest, to: "42", flow: .sms))
        }
        let fresh = try await world.sessions.logout(try world.sessions.authenticate(grants[0].accessToken.reveal()))
        #expect(fresh.session != grants[0].session)
        guard case .guest = fresh.identity else {
            Issue.record("logout did not open a guest session")
            return
        }
        await #expect { try await world.sessions.refresh(grants[0].refreshToken) } throws: { ($0 as? AppSessionError)?.kind == .revoked }
        #expect(try await world.sessions.logoutEverywhere("42") == 2)
        for grant in grants {
            await #expect { try await world.sessions.live(grant.accessToken.reveal()) } throws: { ($0 as? AppSessionError)?.kind == .revoked }
        }
        #expect(try await world.sessions.refresh(fresh.refreshToken).session == fresh.session)
    }

    /// An attacker's read of what strangers can make grow: each logout revoked its session and opened a fresh guest's,
    /// and the revoked record was kept for its refresh token's 30 days, so one session logged out in a loop (each
    /// logout's grant the next one's credential) left a new row for 30 days per request, whatever limit the proxy set
    /// on opening sessions. A revoked record now goes once the access tokens issued before it are out (2 h by
    /// default): its refresh token is refused as `revoked` until then and as `invalid` after; its access tokens are
    /// refused as `revoked` while it is kept, and have expired by the time it goes.
    @Test func aLoopOfLogoutsLeavesOneSessionOnceTheAccessLifetimePasses() async throws {
        let world = World()
        var grant = try await world.sessions.open()
        var first: AppSessionGrant?
        for _ in 0..<5 {
            let next = try await world.sessions.logout(try world.sessions.authenticate(grant.accessToken.reveal()))
            first = first ?? grant
            grant = next
        }
        #expect(world.store.count == 6)
        let revokedFirst = try #require(first)
        await #expect { try await world.sessions.live(revokedFirst.accessToken.reveal()) } throws: { ($0 as? AppSessionError)?.kind == .revoked }
        await #expect { try await world.sessions.refresh(revokedFirst.refreshToken) } throws: { ($0 as? AppSessionError)?.kind == .revoked }
        world.clock.advance(by: .seconds(7_199))
        #expect(try await world.store.removeExpired(before: world.clock.now(), limit: 100) == 0)
        world.clock.advance(by: .seconds(2))
        #expect(try await world.store.removeExpired(before: world.clock.now(), limit: 100) == 5)
        #expect(world.store.count == 1)
        // The live one stays, and refreshes; the revoked ones' tokens are refused.
        #expect(try await world.sessions.refresh(grant.refreshToken).session == grant.session)
        await #expect { try await world.sessions.refresh(revokedFirst.refreshToken) } throws: { ($0 as? AppSessionError)?.kind == .invalid }
        await #expect { try await world.sessions.live(revokedFirst.accessToken.reveal()) } throws: { ($0 as? AppSessionError)?.kind == .unauthenticated }
    }

    /// The attacker's read of the app sessions: "log out everywhere" stopped at the first session the store failed
    /// to revoke, leaving every later session of the account live (a stolen one among them) and the count of those
    /// already revoked lost. It now goes on through every session, then throws, naming how many it revoked and how
    /// many failed; called again, it revokes the rest.
    @Test func logoutEverywhereGoesOnPastASessionTheStoreFailsToRevoke() async throws {
        let world = World()
        let faulty = FaultyAppSessionStore(world.store)
        let sessions = AppSessions(keys: Self.keys, store: faulty, clock: world.clock, events: world.events)
        var grants: [AppSessionGrant] = []
        for _ in 0..<3 {
            let guest = try await sessions.open()
            grants.append(try await sessions.loggedIn(try sessions.authenticate(guest.accessToken.reveal()), as: TestAppSession.outcome("42"), flow: .sms))
        }
        faulty.faults.inject(.refuse(.io, "the database is down"), into: [.replace], after: 0, times: 1)
        let error = await #expect(throws: StoreError.self) { try await sessions.logoutEverywhere("42") }
        #expect(error?.kind == .io)
        #expect(error.map { "\($0)".contains("revoked 2 of 3") } == true, "\(String(describing: error))")
        var live = 0
        for grant in grants {
            do {
                _ = try await sessions.live(grant.accessToken.reveal())
                live += 1
            } catch let error as AppSessionError where error.kind == .revoked {}
        }
        #expect(live == 1, "one session (the one the store failed on) is still live")
        #expect(try await sessions.logoutEverywhere("42") == 1)
    }

    /// "Log out everywhere" finishes once begun, whatever happens to its caller: a caller cancelled while the store was
    /// slow (a client that hung up) stopped it after the first session, the others live (an attacker's read: the
    /// response to a stolen session undone by a slow store).
    @Test func logoutEverywhereFinishesWhenItsCallerIsCancelled() async throws {
        let world = World()
        let faulty = FaultyAppSessionStore(world.store, clock: world.clock)
        let sessions = AppSessions(keys: Self.keys, store: faulty, clock: world.clock, events: world.events)
        var grants: [AppSessionGrant] = []
        for _ in 0..<3 {
            let guest = try await sessions.open()
            grants.append(try await sessions.loggedIn(try sessions.authenticate(guest.accessToken.reveal()), as: TestAppSession.outcome("42"), flow: .sms))
        }
        faulty.faults.inject(.delay(.seconds(10)), into: [.load], after: 1, times: 1)
        let caller = Task { try await sessions.logoutEverywhere("42") }
        await world.clock.waitForSleepers(1)
        caller.cancel()
        world.clock.advance(by: .seconds(10))
        #expect(try await caller.value == 3)
        for grant in grants {
            await #expect(throws: AppSessionError.self) { _ = try await sessions.live(grant.accessToken.reveal()) }
        }
    }

    /// A world whose sessions write through a store that fails a `replace` with `fault` once, after `passing` others, and
    /// a session opened in it.
    static func sessionFacing(_ fault: Faults.Fault, after passing: Int = 0) async throws -> (world: World, sessions: AppSessions, first: AppSessionGrant) {
        let world = World()
        let faulty = FaultyAppSessionStore(world.store)
        let sessions = AppSessions(keys: Self.keys, store: faulty, clock: world.clock, events: world.events)
        let first = try await sessions.open()
        faulty.faults.inject(fault, into: [.replace], after: passing, times: 1)
        return (world, sessions, first)
    }

    /// A store that fails mid-refresh changes nothing: the token still works once the store is back.
    @Test func aFailingStoreLosesNothing() async throws {
        let (_, sessions, first) = try await Self.sessionFacing(.refuse(.io, "the database is down"))
        await #expect { try await sessions.refresh(first.refreshToken) } throws: { ($0 as? StoreError)?.kind == .io }
        #expect(try await sessions.refresh(first.refreshToken).session == first.session)
    }

    /// An attacker's read of the app sessions: a rotation whose write went in but whose answer was lost (a failover, a
    /// reset after the commit) threw `io`, "nothing changed; try again", and the app's retry of the same refresh token
    /// after the 30 s grace (a failover takes longer) was taken for reuse: the session revoked, an honest user logged out.
    /// Read back as the login is: landed, the refresh stands as answered, and the retry later is the grace's repeat.
    @Test func aRotationWhoseAnswerWasLostStandsAndItsRetryIsNoReuse() async throws {
        let (world, sessions, first) = try await Self.sessionFacing(.land())
        let answered = try await sessions.refresh(first.refreshToken)
        #expect(answered.session == first.session && answered.refreshToken != first.refreshToken)
        // A copy of the request that reached another instance within the grace is its repeat, answered the same.
        world.clock.advance(by: .seconds(10))
        let retried = try await sessions.refresh(first.refreshToken)
        #expect(retried.refreshToken == answered.refreshToken)
        #expect(try await sessions.refresh(answered.refreshToken).session == first.session)
    }

    /// A revocation for reuse whose answer was lost is read back too: landed, the reuse is answered as one (the session
    /// revoked), never `io` with the session said to be unchanged.
    @Test func aRevocationWhoseAnswerWasLostIsAnsweredAsAReuse() async throws {
        let (world, sessions, first) = try await Self.sessionFacing(.land(), after: 1)  // the rotation passes, the revocation lands
        let second = try await sessions.refresh(first.refreshToken)
        world.clock.advance(by: .seconds(31))
        await #expect { try await sessions.refresh(first.refreshToken) } throws: { ($0 as? AppSessionError)?.kind == .reused }
        await #expect { try await sessions.refresh(second.refreshToken) } throws: { ($0 as? AppSessionError)?.kind == .revoked }
    }

    /// A rotation whose write did not go in (its answer lost, nothing written) still throws: nothing changed.
    @Test func aRotationWhoseWriteWasLostThrows() async throws {
        let (_, sessions, first) = try await Self.sessionFacing(.lose())
        await #expect { try await sessions.refresh(first.refreshToken) } throws: { ($0 as? StoreError)?.kind == .io }
        #expect(try await sessions.refresh(first.refreshToken).session == first.session)
    }

    @Test func noTokenInAnyDescriptionEventOrError() async throws {
        let world = World()
        let guest = try await world.sessions.open()
        let account = try await world.logIn(guest, to: "42", flow: .sms)
        world.clock.advance(by: .seconds(60))
        let next = try await world.sessions.refresh(account.refreshToken)
        var texts = [guest, account, next].flatMap { ["\($0)", String(reflecting: $0)] }
        texts += world.events.recorded.flatMap { ["\($0)", $0.json()] }
        do {
            _ = try await world.sessions.refresh(guest.refreshToken)
        } catch {
            texts.append("\(error)")
        }
        texts.append("\(try #require(try await world.store.load(guest.session)))")
        for grant in [guest, account, next] {
            for secret in [grant.accessToken.reveal(), grant.refreshToken.reveal()] {
                let tail = String(secret.suffix(20))
                #expect(!texts.contains { $0.contains(tail) }, "a token's tail appears in \(texts.first { $0.contains(tail) } ?? "")")
            }
        }
    }
}

extension Date {
    /// Rounded down to the second, as access tokens keep times.
    fileprivate var rounded: Date { Date(timeIntervalSince1970: timeIntervalSince1970.rounded(.down)) }
}

/// An app-session store that runs a step once, right after a load returns (another request's write landing
/// between a read and what the reader does with it).
final class LoginBeforeTheAnswer: AppSessionStore, @unchecked Sendable {
    let base: any AppSessionStore
    let afterLoad = LockedValue<(@Sendable () async throws -> Void)?>(nil)

    init(base: any AppSessionStore) { self.base = base }

    func create(_ record: AppSessionRecord) async throws { try await base.create(record) }

    func load(_ id: AppSessionID) async throws -> AppSessionRecord? {
        let record = try await base.load(id)
        if let step = afterLoad.withLock({ step -> (@Sendable () async throws -> Void)? in defer { step = nil }; return step }) { try await step() }
        return record
    }

    func replace(_ record: AppSessionRecord, expecting version: Int) async throws { try await base.replace(record, expecting: version) }

    func sessions(of account: AccountID) async throws -> [AppSessionID] { try await base.sessions(of: account) }

    func pendingMerges(after cursor: AppSessionID?, limit: Int) async throws -> [AppSessionID] { try await base.pendingMerges(after: cursor, limit: limit) }

    func removeExpired(before instant: Date, limit: Int) async throws -> Int { try await base.removeExpired(before: instant, limit: limit) }
}
