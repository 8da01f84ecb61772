import Foundation
import OneTapTesting
import Testing
@testable import OneTap

/// Issue 20's five device-id attacks, played on the app sessions that replace the device-keyed guests. A
/// device id is no secret (analytics SDKs, logs, support tickets and backups carry it), so each scenario
/// hands the attacker the victim's device id and everything a stranger can get (their own sessions, a
/// login of their own), and checks that it buys nothing: who acts comes only from a verified access token.
@Suite struct DeviceIDTests {
    static let keys = try! ServerKeyRing(parsing: Secret("k1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="))
    /// The victim's device id, as an analytics export shows it.
    static let victimDevice = "9774d56d682e549c"

    struct World {
        let clock = FakeClock()
        let store = InMemoryAppSessionStore()
        let data = InMemoryGuestDataStore()
        var sessions: AppSessions { AppSessions(keys: DeviceIDTests.keys, store: store, clock: clock, events: DiscardingEventSink()) }

        func claims(_ grant: AppSessionGrant) throws -> AccessClaims { try sessions.authenticate(grant.accessToken.reveal()) }

        func guest(_ grant: AppSessionGrant) throws -> GuestID {
            guard case .guest(let guest) = grant.identity else { throw ExpectedGuest(identity: grant.identity) }
            return guest
        }
    }

    struct ExpectedGuest: Error { let identity: Identity }

    static let favourites: JSONValue = .array([.string("victim-item-1"), .string("victim-item-2")])

    /// Attack 1: acting as the account logged in on the victim's device. Every request is authorised by
    /// `authenticate`/`live`, which take a verified access token only: the device id, alone or dressed as
    /// a token or a refresh token, is refused, and the victim's session is untouched.
    @Test func knowingTheDeviceIDGivesNoWayToActAsItsAccount() async throws {
        let world = World()
        let victim = try await world.sessions.open()
        let account = try await world.sessions.loggedIn(try world.claims(victim), as: TestAppSession.outcome("victim", "13800138000"), flow: .mobile)
        let device = Self.victimDevice
        let forgedBearers = [
            device, "Bearer \(device)", "ota1.k1.\(account.session.text).a.dmljdGlt.1796112000.1796119200.\(String(repeating: "A", count: 43))",
            "ota1.k1.\(device).a.dmljdGlt.1796112000.1796119200.\(String(repeating: "A", count: 43))",
        ]
        for bearer in forgedBearers {
            #expect(throws: AppSessionError.self, "\(bearer)") { try world.sessions.authenticate(bearer) }
            await #expect { try await world.sessions.live(bearer) } throws: { ($0 as? AppSessionError)?.kind == .unauthenticated }
        }
        for refresh in [device, "otr1.\(device).\(String(repeating: "A", count: 43))", "otr1.\(account.session.text).\(device)"] {
            await #expect { try await world.sessions.refresh(Secret(refresh)) } throws: { ($0 as? AppSessionError)?.kind == .invalid }
        }
        // The only way to the account: the victim's own access token.
        #expect(try await world.sessions.live(account.accessToken.reveal()).claims.identity == .account("victim"))
        #expect(try await world.store.load(account.session)?.revoked == nil)
    }

    /// Attack 2: the attacker logs in to their own account hoping to merge the victim's guest data. The
    /// guest a login merges is the attacker's own session's (`formerGuest`), never the victim's: the
    /// victim's favourites stay, and the victim's own login later merges them (not `merged-elsewhere`).
    @Test func anAttackersLoginMergesOnlyTheAttackersOwnGuest() async throws {
        let world = World()
        let victim = try await world.sessions.open()
        let victimGuest = try world.guest(victim)
        try await world.data.write(Self.favourites, kind: "favourites", of: .guest(victimGuest))

        let attacker = try await world.sessions.open()
        let attackerGuest = try world.guest(attacker)
        let attackerLogin = try await world.sessions.loggedIn(try world.claims(attacker), as: TestAppSession.outcome("attacker", "13900139000"), flow: .sms)
        #expect(attackerLogin.formerGuest == attackerGuest)
        #expect(attackerLogin.formerGuest != victimGuest)
        let merger = GuestMerger(store: world.data)
        _ = try await merger.merge(try #require(attackerLogin.formerGuest), into: "attacker")
        #expect(try await world.data.data(of: .guest(victimGuest)) == ["favourites": Self.favourites], "the victim's guest data is untouched")
        #expect(try await world.data.data(of: .account("attacker"))["favourites"] == nil, "nothing of the victim reached the attacker")

        let victimLogin = try await world.sessions.loggedIn(try world.claims(victim), as: TestAppSession.outcome("victim", "13800138000"), flow: .mobile)
        #expect(victimLogin.formerGuest == victimGuest)
        let journal = try await merger.merge(victimGuest, into: "victim")
        #expect(journal.done)
        #expect(try await world.data.data(of: .account("victim"))["favourites"] == Self.favourites)
    }

    /// Attack 3: the attacker's login binding the victim's device to the attacker's account. A login moves
    /// only the app session whose verified claims it was given: the victim's session is still the
    /// victim's guest, and stays so across a refresh.
    @Test func theAttackerLoggingInDoesNotChangeTheVictimsSession() async throws {
        let world = World()
        let victim = try await world.sessions.open()
        let victimClaims = try world.claims(victim)
        let attacker = try await world.sessions.open()
        _ = try await world.sessions.loggedIn(try world.claims(attacker), as: TestAppSession.outcome("attacker", "13300133000"), flow: .tianyi)

        #expect(try await world.sessions.live(victim.accessToken.reveal()).claims.identity == victim.identity)
        #expect(try await world.store.load(victim.session)?.identity == victim.identity)
        world.clock.advance(by: .seconds(60))
        let refreshed = try await world.sessions.refresh(victim.refreshToken)
        #expect(refreshed.identity == victim.identity && refreshed.session == victim.session)
        #expect(try world.sessions.authenticate(refreshed.accessToken.reveal()).identity == victimClaims.identity)
    }

    /// Attack 4: the attacker's logout wiping the victim's guest. A logout revokes the session of the
    /// claims it is given, the attacker's: the victim's session and its guest data are untouched.
    @Test func theAttackersLogoutRevokesOnlyTheAttackersSession() async throws {
        let world = World()
        let victim = try await world.sessions.open()
        try await world.data.write(Self.favourites, kind: "favourites", of: .guest(try world.guest(victim)))
        let attacker = try await world.sessions.open()
        let fresh = try await world.sessions.logout(try world.claims(attacker))

        #expect(fresh.session != attacker.session && fresh.session != victim.session)
        #expect(try world.guest(fresh) != (try world.guest(victim)), "the attacker's fresh guest is a new random one")
        await #expect { try await world.sessions.refresh(attacker.refreshToken) } throws: { ($0 as? AppSessionError)?.kind == .revoked }
        #expect(try await world.store.load(victim.session)?.revoked == nil)
        #expect(try await world.sessions.live(victim.accessToken.reveal()).claims.identity == victim.identity)
        #expect(try await world.sessions.refresh(victim.refreshToken).session == victim.session)
        #expect(try await world.data.data(of: .guest(try world.guest(victim))) == ["favourites": Self.favourites])
    }

    /// Attack 5: reading who uses the device and its masked last-login number. The hint lives in the app
    /// session and is handed out only with that session's own credentials (its login, refreshes, and the
    /// fresh guest session its logout opens); another session never sees it, and once revoked the old
    /// session shows it to no one.
    @Test func theLastLoginHintIsReadableOnlyThroughItsOwnSession() async throws {
        let world = World()
        let victim = try await world.sessions.open()
        #expect(victim.lastLogin == nil, "a first open has no hint")
        let login = try await world.sessions.loggedIn(try world.claims(victim), as: TestAppSession.outcome("victim", "13800138000"), flow: .mobile)
        let hint = try #require(login.lastLogin)
        #expect(hint.flow == .mobile && hint.maskedNumber == "138****8000" && hint.at == world.clock.now().roundedToMilliseconds)
        world.clock.advance(by: .seconds(60))
        let current = try await world.sessions.refresh(login.refreshToken)
        #expect(current.lastLogin == hint)
        #expect(try await world.sessions.live(current.accessToken.reveal()).record.lastLogin == hint)

        // Every session the attacker can get shows no hint of the victim's.
        let attacker = try await world.sessions.open()
        #expect(attacker.lastLogin == nil)
        #expect(try await world.sessions.live(attacker.accessToken.reveal()).record.lastLogin == nil)
        let attackerNext = try await world.sessions.refresh(attacker.refreshToken)
        #expect(attackerNext.lastLogin == nil)
        let attackerFresh = try await world.sessions.logout(try world.claims(attackerNext))
        #expect(attackerFresh.lastLogin == nil)

        // The victim's logout hands the hint to the victim's fresh guest session only.
        let fresh = try await world.sessions.logout(try world.claims(current))
        #expect(fresh.lastLogin == hint && fresh.identity.isGuest)
        let revoked = try #require(try await world.store.load(victim.session))
        #expect(revoked.revoked?.reason == .logout && revoked.lastLogin == nil, "a revoked session keeps no hint")
        #expect(try !revoked.json().contains("138****8000") && !revoked.json().contains("lastLogin"))
        await #expect { try await world.sessions.refresh(current.refreshToken) } throws: { ($0 as? AppSessionError)?.kind == .revoked }
        await #expect { try await world.sessions.live(current.accessToken.reveal()) } throws: { ($0 as? AppSessionError)?.kind == .revoked }
        // The hint is stored with its number masked only.
        let stored = try #require(try await world.store.load(fresh.session)).json()
        #expect(stored.contains(#""maskedNumber":"138****8000""#) && !stored.contains("13800138000"))
    }

    /// Guests are random per app session, never derived from a device: two sessions opened on one device
    /// (nothing of the device is even asked) are two unrelated guests, and so is each logout's fresh guest.
    @Test func guestIDsAreNotDerivedFromTheDevice() async throws {
        let world = World()
        var guests: Set<GuestID> = []
        for _ in 0..<20 {
            let grant = try await world.sessions.open()
            guests.insert(try world.guest(grant))
            guests.insert(try world.guest(try await world.sessions.logout(try world.claims(grant))))
        }
        #expect(guests.count == 40)
        #expect(!guests.contains { $0.text.contains(Self.victimDevice) })
    }

    /// A logout whose fresh session cannot be stored still logs out: the old session is revoked, and the
    /// caller gets the store's error (the app opens a new session).
    @Test func aLogoutWhoseFreshSessionCannotBeStoredStillRevokes() async throws {
        let world = World()
        let faulty = FaultyAppSessionStore(world.store)
        let sessions = AppSessions(keys: Self.keys, store: faulty, clock: world.clock, events: DiscardingEventSink())
        let grant = try await sessions.open()
        let login = try await sessions.loggedIn(try sessions.authenticate(grant.accessToken.reveal()), as: TestAppSession.outcome("42"), flow: .sms)
        faulty.faults.inject(.refuse(.io, "the database is down"), into: [.create], after: 0, times: 1)
        await #expect { try await sessions.logout(try sessions.authenticate(login.accessToken.reveal())) } throws: { ($0 as? StoreError)?.kind == .io }
        await #expect { try await sessions.refresh(login.refreshToken) } throws: { ($0 as? AppSessionError)?.kind == .revoked }
        #expect(world.store.count == 1, "no fresh session was stored")
    }
}
