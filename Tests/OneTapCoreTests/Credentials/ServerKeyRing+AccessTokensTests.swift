import Foundation
import Testing
@testable import OneTapCore

/// The access token's format, pinned by tokens computed outside the project (Python's `hmac`, `hashlib`
/// and `base64`): `ota1.<kid>.<sid>.<g|a>.<subject>.<iat>.<exp>.<base64url(HMAC-SHA-256(key, everything
/// before the last dot))>`.
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

    @Test func issuingWritesThePinnedFormat() throws {
        let account = Self.ring.accessToken(session: Self.session, identity: .account("42"), issuedAt: Self.issued.addingTimeInterval(0.9), expiresAt: Self.expires)
        #expect(account.token.reveal() == Self.account42)
        #expect(account.claims.issuedAt == Self.issued)
        let guest = Self.ring.accessToken(session: Self.session, identity: .guest(try GuestID("BBBBBBBBBBBBBBBBBBBBBB")), issuedAt: Self.issued, expiresAt: Self.expires)
        #expect(guest.token.reveal() == Self.guestB)
        let unicode = Self.ring.accessToken(session: Self.session, identity: .account("账户.7"), issuedAt: Self.issued, expiresAt: Self.expires)
        #expect(unicode.token.reveal() == Self.accountUnicode)
        let rotated = Self.rotated.accessToken(session: Self.session, identity: .guest(try GuestID("BBBBBBBBBBBBBBBBBBBBBB")), issuedAt: Self.issued, expiresAt: Self.expires)
        #expect(rotated.token.reveal() == Self.guestBUnder2026)
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
        Refused(name: "another version", token: "ota2" + account42.dropFirst(4), verdict: "malformed"),
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
