import Foundation
import Testing
@testable import OneTapCore

/// The access token's format, pinned by tokens computed outside the project (Python's `hmac`, `hashlib`
/// and `base64`): `ota2.<kid>.<sid>.<g|a>.<subject>.<epoch>.<iat>.<exp>.<base64url(HMAC-SHA-256(key,
/// everything before the last dot))>`; format 1, still read, has no epoch and starts with `ota1.`.
@Suite struct AppAccessTokenTests {
    static let ring = try! ServerKeyRing(parsing: Secret("k1:\(ServerKeyRingTests.first)"))
    static let rotated = try! ServerKeyRing(parsing: Secret("2026-12:\(ServerKeyRingTests.second)\nk1:\(ServerKeyRingTests.first)"))
    static let session = try! AppSessionID("AAAAAAAAAAAAAAAAAAAAAA")
    /// 2026-11-27T10:00:00Z and two hours later.
    static let issued = Date(timeIntervalSince1970: 1_795_773_600)
    static let expires = Date(timeIntervalSince1970: 1_795_780_800)

    static let account42 = "ota1.k1.AAAAAAAAAAAAAAAAAAAAAA.a.NDI.1795773600.1795780800.UyPHf0sLEAIrEJWD44sBY6cMOOV3A6vig4K3_maQ3Wg"
    static let guestB = "ota1.k1.AAAAAAAAAAAAAAAAAAAAAA.g.BBBBBBBBBBBBBBBBBBBBBB.1795773600.1795780800._a9XUZ4wuWgl2-a9ckRs9RKW9GQgueauYB-v6x7HYsg"
    static let accountUnicode = "ota1.k1.AAAAAAAAAAAAAAAAAAAAAA.a.6LSm5oi3Ljc.1795773600.1795780800.kiTprqbrrkZroY8hVc2pp6Hm5AnMkyVYLURRSB2X5M8"
    static let guestBUnder2026 = "ota1.2026-12.AAAAAAAAAAAAAAAAAAAAAA.g.BBBBBBBBBBBBBBBBBBBBBB.1795773600.1795780800.FLVBGkjN4qCSCsHXNNS8VhCgJEqwI5iZYnQdIGZ8ils"
    /// Format 2 (the same claims, epoch 0), and an account's token in the epoch of a login at 2026-11-27T09:59:51Z.
    static let account42V2 = "ota2.k1.AAAAAAAAAAAAAAAAAAAAAA.a.NDI.0.1795773600.1795780800.W1gdEFM2cOCuzVspeujFFChGXBA_xhZLOQ6kWRA1eWw"
    static let guestBV2 = "ota2.k1.AAAAAAAAAAAAAAAAAAAAAA.g.BBBBBBBBBBBBBBBBBBBBBB.0.1795773600.1795780800.a-3oFmJoxvoQmOmh4Q4vBI8vvOtK7G4DG4DDtlB0psg"
    static let accountUnicodeV2 = "ota2.k1.AAAAAAAAAAAAAAAAAAAAAA.a.6LSm5oi3Ljc.0.1795773600.1795780800.o66olkjtKwmV3oNeoSDihiK4eoZVB7ArXHOt02-9_nM"
    static let guestBUnder2026V2 = "ota2.2026-12.AAAAAAAAAAAAAAAAAAAAAA.g.BBBBBBBBBBBBBBBBBBBBBB.0.1795773600.1795780800.l3ojjoibQbLuWpniCJ_rLNHS6JhOM0JjbKToqnFKuLA"
    static let account42InAnEpoch = "ota2.k1.AAAAAAAAAAAAAAAAAAAAAA.a.NDI.1795773591.1795773600.1795780800.dWyvuZ6oEnxPAduWVK-Sxr-XByuM1W-qnRN6OAI6OWg"

    @Test func issuingWritesThePinnedFormat() throws {
        let account = Self.ring.accessToken(session: Self.session, identity: .account("42"), epoch: 0, issuedAt: Self.issued.addingTimeInterval(0.9), expiresAt: Self.expires)
        #expect(account.token.reveal() == Self.account42V2)
        #expect(account.claims.issuedAt == Self.issued)
        let guest = Self.ring.accessToken(session: Self.session, identity: .guest(try GuestID("BBBBBBBBBBBBBBBBBBBBBB")), epoch: 0, issuedAt: Self.issued, expiresAt: Self.expires)
        #expect(guest.token.reveal() == Self.guestBV2)
        let unicode = Self.ring.accessToken(session: Self.session, identity: .account("账户.7"), epoch: 0, issuedAt: Self.issued, expiresAt: Self.expires)
        #expect(unicode.token.reveal() == Self.accountUnicodeV2)
        let rotated = Self.rotated.accessToken(session: Self.session, identity: .guest(try GuestID("BBBBBBBBBBBBBBBBBBBBBB")), epoch: 0, issuedAt: Self.issued, expiresAt: Self.expires)
        #expect(rotated.token.reveal() == Self.guestBUnder2026V2)
        let inAnEpoch = Self.ring.accessToken(session: Self.session, identity: .account("42"), epoch: 1_795_773_591, issuedAt: Self.issued, expiresAt: Self.expires)
        #expect(inAnEpoch.token.reveal() == Self.account42InAnEpoch)
        #expect(inAnEpoch.claims.epoch == 1_795_773_591)
    }

    /// A token of format 2 reads back its epoch; one of format 1 (issued before) has none and still verifies.
    @Test func bothFormatsReadBackTheirClaims() throws {
        let before = Self.expires.addingTimeInterval(-1)
        for (token, epoch) in [(Self.account42V2, 0), (Self.account42InAnEpoch, 1_795_773_591)] as [(String, Int64)] {
            let claims = Self.ring.verifyAccessToken(token, at: before).validClaims
            #expect(claims?.epoch == epoch && claims?.identity == .account("42") && claims?.issuedAt == Self.issued && claims?.expiresAt == Self.expires)
        }
        #expect(Self.ring.verifyAccessToken(Self.guestBV2, at: before).validClaims?.identity == .guest(try GuestID("BBBBBBBBBBBBBBBBBBBBBB")))
        #expect(Self.ring.verifyAccessToken(Self.accountUnicodeV2, at: before).validClaims?.identity == .account("账户.7"))
        #expect(Self.rotated.verifyAccessToken(Self.guestBUnder2026V2, at: before).name == "valid")
        let former = Self.ring.verifyAccessToken(Self.account42, at: before).validClaims
        #expect(former != nil && former?.epoch == nil)
        #expect(Self.ring.verifyAccessToken(Self.account42InAnEpoch, at: Self.expires).name == "expired")
    }

    @Test func aPinnedTokenReadsBackItsClaimsUntilItExpires() throws {
        let before = Self.expires.addingTimeInterval(-1)
        guard case .valid(let claims) = Self.ring.verifyAccessToken(Self.account42, at: before) else {
            Issue.record("not valid: \(Self.ring.verifyAccessToken(Self.account42, at: before))")
            return
        }
        #expect(claims.keyID.text == "k1")
        #expect(claims.session == Self.session)
        #expect(claims.identity == .account("42"))
        #expect(claims.issuedAt == Self.issued && claims.expiresAt == Self.expires)
        #expect(Self.ring.verifyAccessToken(Self.account42, at: Self.expires).name == "expired")
        #expect(Self.ring.verifyAccessToken(Self.accountUnicode, at: before).validClaims?.identity == .account("账户.7"))
        #expect(Self.ring.verifyAccessToken(Self.guestB, at: before).validClaims?.identity == .guest(try GuestID("BBBBBBBBBBBBBBBBBBBBBB")))
    }

    @Test func rotationKeepsOldTokensUntilTheirKeyIsRemoved() throws {
        let now = Self.issued.addingTimeInterval(60)
        // The rotated ring signs with 2026-12 and still accepts k1's tokens.
        #expect(Self.rotated.verifyAccessToken(Self.account42, at: now).name == "valid")
        #expect(Self.rotated.verifyAccessToken(Self.guestBUnder2026, at: now).name == "valid")
        // k1 retired: its tokens stop verifying; a ring without 2026-12 does not know its tokens.
        let retired = try ServerKeyRing(parsing: Secret("2026-12:\(ServerKeyRingTests.second)"))
        #expect(retired.verifyAccessToken(Self.account42, at: now) == .unknownKey(try KeyID("k1")))
        #expect(Self.ring.verifyAccessToken(Self.guestBUnder2026, at: now) == .unknownKey(try KeyID("2026-12")))
    }

    struct Refused: Sendable, CustomTestStringConvertible {
        let name: String
        let token: String
        let verdict: String
        var testDescription: String { name }
    }

    static let refused: [Refused] = [
        // Signed with k1's bytes but naming 2026-12 (computed with Python): a key id is no proof.
        Refused(name: "another key's signature under a known id", token: "ota1.2026-12.AAAAAAAAAAAAAAAAAAAAAA.g.BBBBBBBBBBBBBBBBBBBBBB.1795773600.1795780800.5rSSHmft-g_RRjc8xzuQ4SNifEc7lzYvtP0kPHiIuaQ", verdict: "bad-signature"),
        Refused(name: "the account changed", token: account42.replacingOccurrences(of: ".a.NDI.", with: ".a.NDM."), verdict: "bad-signature"),
        Refused(name: "the expiry moved", token: account42.replacingOccurrences(of: ".1795780800.", with: ".1895780800."), verdict: "bad-signature"),
        Refused(name: "guest turned account", token: guestB.replacingOccurrences(of: ".g.", with: ".a."), verdict: "bad-signature"),
        Refused(name: "the signature cut", token: String(account42.dropLast()), verdict: "malformed"),
        Refused(name: "no signature", token: String(account42[..<account42.lastIndex(of: ".")!]), verdict: "malformed"),
        Refused(name: "another version", token: "ota3" + account42V2.dropFirst(4), verdict: "malformed"),
        Refused(name: "format 1's parts under format 2's prefix", token: "ota2" + account42.dropFirst(4), verdict: "malformed"),
        Refused(name: "format 2's parts under format 1's prefix", token: "ota1" + account42V2.dropFirst(4), verdict: "malformed"),
        Refused(name: "the epoch changed", token: account42InAnEpoch.replacingOccurrences(of: ".1795773591.", with: ".1795773592."), verdict: "bad-signature"),
        Refused(name: "the epoch dropped", token: account42InAnEpoch.replacingOccurrences(of: ".1795773591.", with: ".0."), verdict: "bad-signature"),
        Refused(name: "an epoch that is not a number", token: "ota2.k1.AAAAAAAAAAAAAAAAAAAAAA.a.NDI.x.1795773600.1795780800.W1gdEFM2cOCuzVspeujFFChGXBA_xhZLOQ6kWRA1eWw", verdict: "bad-signature"),
        Refused(name: "empty", token: "", verdict: "malformed"),
        Refused(name: "a JWT", token: "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiI0MiJ9.sig", verdict: "malformed"),
        Refused(name: "an empty part", token: "ota1.k1..a.NDI.1.2.UyPHf0sLEAIrEJWD44sBY6cMOOV3A6vig4K3_maQ3Wg", verdict: "malformed"),
        Refused(name: "a bad key id", token: "ota1.k!1.AAAAAAAAAAAAAAAAAAAAAA.a.NDI.1.2.UyPHf0sLEAIrEJWD44sBY6cMOOV3A6vig4K3_maQ3Wg", verdict: "malformed"),
        Refused(name: "too long", token: "ota1." + String(repeating: "k", count: 600), verdict: "malformed"),
        // Signed correctly with k1 (Python), but no token OneTap writes: a subject kind x, a short session id.
        Refused(name: "an unknown subject kind", token: "ota1.k1.AAAAAAAAAAAAAAAAAAAAAA.x.NDI.1795773600.1795780800.tNP4U0oS2yvjx_oS2WOmmAN_dKxfVIfOFcWhoG7NKfU", verdict: "malformed"),
        Refused(name: "a short session id", token: "ota1.k1.AAAA.a.NDI.1795773600.1795780800.MCA_OhZKH0tdigxjQ3FCaU6QvBXJJqY1WWhroDg6ML0", verdict: "malformed"),
    ]

    @Test(arguments: refused)
    func refusedTokens(_ test: Refused) {
        let verdict = Self.rotated.verifyAccessToken(test.token, at: Self.issued)
        #expect(verdict.name == test.verdict)
        if !test.token.isEmpty { #expect(!"\(verdict)".contains(test.token)) }
    }

    @Test func aVerdictNeverShowsTheToken() {
        for verdict in [Self.ring.verifyAccessToken(Self.account42, at: Self.issued), Self.ring.verifyAccessToken(Self.account42, at: Self.expires)] {
            #expect(!"\(verdict)".contains("UyPHf0"))
        }
    }
}
