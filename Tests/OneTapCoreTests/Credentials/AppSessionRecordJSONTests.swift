import Foundation
import Testing
@testable import OneTapCore

/// An app session's JSON (`onetap-app-session/1`): the golden files of `Tests/Golden/app-session/`
/// (written by hand from the format, their digests, successors and nonces computed by Python's `hmac`
/// and `base64`, see the README there) read as the records written out below, written again byte for
/// byte, and answering the rules as their tokens say; records the rules make round-trip; and a corrupt
/// record is refused naming its member.
@Suite struct AppSessionRecordJSONTests {
    static let k1 = try! KeyID("k1")
    static let k2 = try! KeyID("k2")
    /// The 32 bytes of `golden-app-session-key-00000-k1!` and `…-k2!`; k2 signs.
    static let ring = try! ServerKeyRing([
        (k2, try ServerKey(bytes: Array("golden-app-session-key-00000-k2!".utf8))), (k1, try ServerKey(bytes: Array("golden-app-session-key-00000-k1!".utf8))),
    ])
    static let rules = AppSessionRules(policy: .standard, keys: ring)

    static func golden(_ name: String) throws -> String {
        String(decoding: try Data(contentsOf: URL(fileURLWithPath: Package.path("Tests/Golden/app-session/\(name).json"))), as: UTF8.self)
    }

    static func ms(_ milliseconds: Int64) -> Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }

    static func digest(_ keyID: KeyID, _ hex: String) throws -> AppSessionRecord.Digest {
        AppSessionRecord.Digest(keyID: keyID, digest: try #require(SHA256Digest(hex: hex)))
    }

    static func presented(_ token: String) throws -> PresentedRefreshToken {
        try #require(PresentedRefreshToken(Secret(token)))
    }

    // MARK: Golden files

    @Test func aFreshGuestSession() throws {
        let text = try Self.golden("guest-fresh")
        let record = try AppSessionRecord(json: text)
        let expected = AppSessionRecord(
            id: try AppSessionID("Golden-app-session-001"), version: 1, identity: .guest(try GuestID("GoldenGuest-app-000001")),
            createdAt: Self.ms(1_796_115_600_250), current: try Self.digest(Self.k1, "5e33422fec552fc06a50711031d4829dbe8fba4885eb621100d71a2f2adadfcb"),
            expiresAt: Self.ms(1_798_707_600_250), previous: nil, ancestors: [], revoked: nil)
        #expect(record == expected)
        #expect(try record.json() == text)
        // Its token (`golden-refresh-secret-guest-0001`) is the current one: it rotates.
        let token = "otr1.Golden-app-session-001.Z29sZGVuLXJlZnJlc2gtc2VjcmV0LWd1ZXN0LTAwMDE"
        guard case .rotated(let next, let successor) = Self.rules.refresh(record, presented: try Self.presented(token), nonce: Array(repeating: 3, count: 32), at: Self.ms(1_796_115_700_000)) else {
            Issue.record("the golden guest session's token did not rotate")
            return
        }
        // Its first rotation starts a format-2 family seeded with the nonce (the successor computed by Python:
        // `otr2.<session>.1.` + base64url(HMAC-SHA-256(k2, "onetap-refresh-2" ‖ 0 ‖ session ‖ 0 ‖ "1" ‖ 0 ‖ 0x03 × 32))).
        let first = "otr2.Golden-app-session-001.1.4hLCfr8Z_iCkOKs8RmgdxDUVtmq9lO2Z_Q_m_SY6Ras"
        #expect(successor.reveal() == first)
        #expect(next.family == AppSessionRecord.Family(seed: Array(repeating: 3, count: 32), generation: 1))
        // The format-1 token retried within the grace gets the same format-2 successor.
        guard case .repeated(_, let again) = Self.rules.refresh(next, presented: try Self.presented(token), nonce: [], at: Self.ms(1_796_115_710_000)) else {
            Issue.record("the format-1 token within the grace was not answered again")
            return
        }
        #expect(again.reveal() == first)
        // The seed (the nonce, 32 bytes of 3) shows in no dump of the record, in its family nor as the rotated
        // token's nonce (the review of the format-2 change).
        var dumped = ""
        dump(next, to: &dumped)
        #expect(dumped.contains("generation: 1") && !dumped.contains("seed") && !dumped.contains("nonce"), "\(dumped)")
    }

    /// A session of format-2 tokens (`account-family`, written by `app-session-family.py`) on a server that
    /// remembers no ancestors: every earlier generation is still reuse, from the family alone.
    @Test func anAccountSessionOfAFamily() throws {
        let text = try Self.golden("account-family")
        let record = try AppSessionRecord(json: text)
        #expect(record.id.text == "Golden-app-session-005" && record.version == 5 && record.identity == .account("42"))
        #expect(record.createdAt == Self.ms(1_796_115_660_000) && record.expiresAt == Self.ms(1_798_707_960_000) && record.ancestors.isEmpty)
        #expect(record.current == (try Self.digest(Self.k2, "a23fa24c9bde6b4ab277223722803a2c8386f08488d2d64e15bbfb53d72eef7d")))
        #expect(record.previous?.token == (try Self.digest(Self.k2, "dec7a747a9e69b75fc43d1f80eba00ece0e576b713e9c2a8e890a811c32bfad1")))
        #expect(record.previous?.rotatedAt == Self.ms(1_796_115_960_000) && record.previous?.nonce == Array(97...128))
        #expect(record.family == AppSessionRecord.Family(seed: Array("golden-refresh-family-seed-00005".utf8), generation: 4))
        #expect(record.revoked == nil && record.lastLogin == nil && record.pendingMerge == nil)
        #expect(try record.json() == text)
        let rules = AppSessionRules(policy: try AppSessionPolicy(ancestors: 0), keys: Self.ring)
        let now = Self.ms(1_796_115_970_000)
        let current = "otr2.Golden-app-session-005.4.7I2CKrIVAs_yAxdzkboFZqL9Qka-vFVWGdVA9F7Eh14"
        guard case .rotated(let next, let successor) = rules.refresh(record, presented: try Self.presented(current), nonce: Array(repeating: 5, count: 32), at: now) else {
            Issue.record("the current golden token did not rotate")
            return
        }
        #expect(successor.reveal() == "otr2.Golden-app-session-005.5.wxgW1k3wX68GSziFaNW4ZxzBNtx0x1JR55um3w-fYfc")
        #expect(next.family?.generation == 5 && next.ancestors.isEmpty)
        // Generation 3, rotated 10 s ago, within the grace: the same successor, generation 4.
        guard case .repeated(_, let again) = rules.refresh(record, presented: try Self.presented("otr2.Golden-app-session-005.3.oLXFgJgdJjtsroIgWY8CpmDP3wtpJgQ1wWEJgO4-Og4"), nonce: [], at: now) else {
            Issue.record("generation 3 within the grace was not answered again")
            return
        }
        #expect(again.reveal() == current)
        // Generations 2 (under k2) and 1 (under k1): reuse.
        for earlier in ["otr2.Golden-app-session-005.2.iK2IVUYRcM4awuSFMOxcLTEkX8bwzseGnvRjGej-R2U", "otr2.Golden-app-session-005.1.XNKbrwPiGLCI_KBlifRLgbozvbZHGbj_vYlVjDHf--w"] {
            guard case .reused(let revoked) = rules.refresh(record, presented: try Self.presented(earlier), nonce: [], at: now) else {
                Issue.record("\(earlier) was not reuse")
                return
            }
            #expect(revoked.revoked?.reason == .reuse)
        }
    }

    @Test func anAccountSessionRotatedUnderTwoKeys() throws {
        let text = try Self.golden("account-rotated")
        let record = try AppSessionRecord(json: text)
        let expected = AppSessionRecord(
            id: try AppSessionID("Golden-app-session-002"), version: 5, identity: .account("acct-golden-app 账户"), createdAt: Self.ms(1_796_115_600_500),
            current: try Self.digest(Self.k2, "90c288ab884557dc4dfcb4f4d80281b70c102f7f5c401bc8a04eaa65da791cbd"), expiresAt: Self.ms(1_798_707_900_125),
            previous: AppSessionRecord.Rotated(
                token: try Self.digest(Self.k2, "d97ee52c91eb5993cf8d112a01cdd8d79c8e0e49d8cca053220dfa3ffe429ac8"), rotatedAt: Self.ms(1_796_115_900_125),
                nonce: Array(65...96)),
            ancestors: [
                try Self.digest(Self.k1, "c0fb38d6ec75a9ec1a62b8d6eed2a310878714b5cd7eb800a06a3045b02665a5"),
                try Self.digest(Self.k1, "8eda5f2745c47c09a22bd1f5170ddb55ca90ecd18c036a7fccc8610cf23bf4c1"),
            ], revoked: nil)
        #expect(record == expected)
        #expect(try record.json() == text)

        // The previous token within the grace answers the successor Python derived with the stored nonce.
        let previous = "otr1.Golden-app-session-002.qFikx3QCt9zltrFHtkeyYlJ_J2QMeRV9KjMvL_qRV68"
        let current = "otr1.Golden-app-session-002.6PK9vgaz1fLxeEfTmc1weNm8qFY4AwoeRbEJgVqvJ3w"
        guard case .repeated(_, let successor) = Self.rules.refresh(record, presented: try Self.presented(previous), nonce: [], at: Self.ms(1_796_115_910_125)) else {
            Issue.record("the previous golden token within the grace was not answered again")
            return
        }
        #expect(successor.reveal() == current)
        guard case .rotated = Self.rules.refresh(record, presented: try Self.presented(current), nonce: Array(repeating: 4, count: 32), at: Self.ms(1_796_115_910_125)) else {
            Issue.record("the current golden token did not rotate")
            return
        }
        // The oldest token (issued at the login, under k1) is an ancestor: presented again, it is reuse.
        let oldest = "otr1.Golden-app-session-002.Z29sZGVuLXJlZnJlc2gtc2VjcmV0LWFjY291bnQtMDE"
        guard case .reused(let revoked) = Self.rules.refresh(record, presented: try Self.presented(oldest), nonce: [], at: Self.ms(1_796_115_910_125)) else {
            Issue.record("an ancestor golden token was not found reused")
            return
        }
        #expect(revoked.revoked?.reason == .reuse)
        // So is the second (the first rotation's successor, made under k1).
        let second = "otr1.Golden-app-session-002.-UqTzu16xMSDDcRRxUJZYgvArR4dCHtsrIhUdgEvYc0"
        guard case .reused = Self.rules.refresh(record, presented: try Self.presented(second), nonce: [], at: Self.ms(1_796_115_910_125)) else {
            Issue.record("the second golden token was not found reused")
            return
        }
    }

    @Test func aSessionRevokedForReuse() throws {
        let text = try Self.golden("revoked-reuse")
        let record = try AppSessionRecord(json: text)
        let guest = try GuestID("GoldenGuest-app-000003")
        #expect(record.id.text == "Golden-app-session-003" && record.version == 3 && record.identity == .guest(guest))
        #expect(record.previous?.nonce == Array(repeating: 0xA5, count: 32))
        #expect(record.previous?.rotatedAt == Self.ms(1_796_115_610_999))
        #expect(record.revoked?.at == Self.ms(1_796_115_641_000))
        #expect(record.revoked?.reason == .reuse)
        #expect(try record.json() == text)
        let successor = "otr1.Golden-app-session-003.zYbgtlHD9BVcJEe_UaPTbtrmngcnDyoKAqdQovhaxVY"
        guard case .refused(.revoked) = Self.rules.refresh(record, presented: try Self.presented(successor), nonce: [], at: Self.ms(1_796_115_650_000)) else {
            Issue.record("a revoked golden session's token was not refused as revoked")
            return
        }
    }

    /// A session with a last-login hint (written by hand: the login at 09:01:40 UTC by one-tap on China
    /// Mobile, number 138****8000): the hint reads as its own record with the number masked, and writes
    /// back byte for byte; a session without one (the three files above) writes no `lastLogin`.
    @Test func anAccountSessionWithALastLoginHint() throws {
        let text = try Self.golden("account-with-hint")
        let record = try AppSessionRecord(json: text)
        let hint = try LastLoginHint(json: #"{"format":"onetap-last-login/2","flow":"mobile","maskedNumber":"138****8000","atMs":1796115700000}"#)
        let expected = AppSessionRecord(
            id: try AppSessionID("Golden-app-session-004"), version: 2, identity: .account("42"), createdAt: Self.ms(1_796_115_640_000),
            current: try Self.digest(Self.k1, "adedd7b17c18c1556ba68cb8f5e64b31d8b167908aa23b6922d04b33e69c1f5f"), expiresAt: Self.ms(1_798_707_700_000),
            previous: nil, ancestors: [], revoked: nil, lastLogin: hint)
        #expect(record == expected)
        #expect(record.lastLogin?.flow == .mobile && record.lastLogin?.maskedNumber == "138****8000" && record.lastLogin?.at == Self.ms(1_796_115_700_000))
        #expect(try record.json() == text)
        #expect(LastLoginHint(flow: .mobile, number: try PhoneNumber("13800138000"), at: Self.ms(1_796_115_700_000)) == hint, "the hint a login makes")
        let token = "otr1.Golden-app-session-004.Z29sZGVuLXJlZnJlc2gtc2VjcmV0LWhpbnQtMDAwMDE"
        guard case .rotated(let next, _) = Self.rules.refresh(record, presented: try Self.presented(token), nonce: Array(repeating: 5, count: 32), at: Self.ms(1_796_115_800_000)) else {
            Issue.record("the golden hinted session's token did not rotate")
            return
        }
        #expect(next.lastLogin == hint, "a rotation keeps the hint")
        #expect(Self.rules.revoke(record, .logout, at: Self.ms(1_796_115_900_000)).lastLogin == nil, "a revoked session keeps no hint")
        for name in ["guest-fresh", "account-rotated", "revoked-reuse"] {
            #expect(try !Self.golden(name).contains("lastLogin") && AppSessionRecord(json: try Self.golden(name)).lastLogin == nil)
        }
    }

    /// A session whose last login's number is kept as its keyed digest (the golden file's, computed with Python's
    /// `hmac`): it reads, writes back byte for byte, and vouches for that number only, for 30 days from the login,
    /// under a ring that still has the digest's key, while the session stands; a login with the number makes the
    /// same digest, and a logout's fresh guest session carries it; the files without it read as before.
    @Test func aSessionThatVouchesForItsLastLoginsNumber() throws {
        let text = try Self.golden("account-with-number")
        let record = try AppSessionRecord(json: text)
        let pinned = try Self.digest(Self.k2, "a9f2139b35951cd0c94e47ac85c76dd36ff8963fcff36874b99e92819716fba3")
        #expect(record.lastNumber == pinned)
        #expect(try record.json() == text)
        let number = try PhoneNumber("13800138000")
        let login = Self.ms(1_796_115_700_000)
        #expect(Self.rules.vouches(for: number, in: record, at: login.addingTimeInterval(86_400)))
        #expect(Self.rules.vouches(for: number, in: record, at: login.addingTimeInterval(30 * 86_400 - 0.001)))
        #expect(!Self.rules.vouches(for: number, in: record, at: login.addingTimeInterval(30 * 86_400)), "30 days after the login")
        #expect(!Self.rules.vouches(for: try PhoneNumber("13800138001"), in: record, at: login.addingTimeInterval(60)), "another number")
        let withoutK2 = AppSessionRules(policy: .standard, keys: try ServerKeyRing([(Self.k1, try ServerKey(bytes: Array("golden-app-session-key-00000-k1!".utf8)))]))
        #expect(!withoutK2.vouches(for: number, in: record, at: login.addingTimeInterval(60)), "a digest under a key the ring dropped")
        let revoked = Self.rules.revoke(record, .logout, at: login.addingTimeInterval(60))
        #expect(revoked.lastNumber == nil && !Self.rules.vouches(for: number, in: revoked, at: login.addingTimeInterval(61)))
        #expect(record.carried.number == pinned && record.carried.hint == record.lastLogin, "what a logout carries")
        let (guest, _) = Self.rules.open(id: try AppSessionID("Golden-app-session-007"), guest: try GuestID("GoldenGuest-app-000007"), secret: Array(repeating: 1, count: 32), carrying: record.carried, at: login.addingTimeInterval(60))
        #expect(Self.rules.vouches(for: number, in: guest, at: login.addingTimeInterval(120)), "the fresh guest session a logout opens")
        let (fresh, _) = Self.rules.open(id: try AppSessionID("Golden-app-session-008"), guest: try GuestID("GoldenGuest-app-000008"), secret: Array(repeating: 2, count: 32), at: login)
        #expect(fresh.lastNumber == nil && !Self.rules.vouches(for: number, in: fresh, at: login))
        let hint = LastLoginHint(flow: .mobile, number: number, at: login)
        let loggedIn = Self.rules.login(fresh, account: "42", hint: hint, number: number, secret: Array(repeating: 3, count: 32), at: login).record
        #expect(loggedIn.lastNumber == pinned, "a login keeps the number's digest under the signing key")
        for name in ["guest-fresh", "account-rotated", "revoked-reuse", "account-with-hint", "account-family"] {
            #expect(try !Self.golden(name).contains("lastNumber") && AppSessionRecord(json: try Self.golden(name)).lastNumber == nil)
        }
    }

    /// A session vouches for 30 days from its login, however long its refresh tokens live (a year here, a day there):
    /// a number given up and handed on must not keep a lane for its former holder a year long.
    @Test(arguments: [86_400, 366 * 86_400])
    func aSessionVouchesThirtyDaysWhateverItsRefreshLifetime(refreshSeconds: Int) throws {
        let rules = AppSessionRules(policy: try AppSessionPolicy(refreshLifetime: .seconds(refreshSeconds)), keys: Self.ring)
        let record = try AppSessionRecord(json: try Self.golden("account-with-number"))
        let number = try PhoneNumber("13800138000")
        let login = Self.ms(1_796_115_700_000)
        #expect(rules.vouches(for: number, in: record, at: login.addingTimeInterval(30 * 86_400 - 1)))
        #expect(!rules.vouches(for: number, in: record, at: login.addingTimeInterval(30 * 86_400)))
    }

    // MARK: Round trip

    /// What the rules make, at instants with a fraction of a millisecond (as a server's clock gives
    /// them), reads back equal: a record keeps its instants as it stores them.
    @Test func recordsTheRulesMakeRoundTrip() throws {
        let start = Date(timeIntervalSinceReferenceDate: 786_000_000.123_456_7)
        var (record, token) = Self.rules.open(id: try AppSessionID("RoundTrip-app-session1"), guest: try GuestID("RoundTrip-guest-000001"), secret: Array(repeating: 7, count: 32), at: start)
        var records = [record]
        for step in 1...10 {
            guard case .rotated(let next, let successor) = Self.rules.refresh(
                record, presented: try Self.presented(token.reveal()), nonce: (0..<32).map { UInt8(truncatingIfNeeded: $0 * step) },
                at: start.addingTimeInterval(Double(step) * 61.000_37))
            else {
                Issue.record("rotation \(step) refused")
                return
            }
            (record, token) = (next, successor)
            records.append(record)
        }
        let login = Self.rules.login(record, account: "42", hint: LastLoginHint(flow: .tianyi, number: try PhoneNumber("13300133000"), at: start.addingTimeInterval(1_000.000_4)), number: try PhoneNumber("13300133000"), secret: Array(repeating: 8, count: 32), at: start.addingTimeInterval(1_000.000_4))
        records.append(login.record)
        records.append(Self.rules.revoke(login.record, .logoutEverywhere, at: start.addingTimeInterval(2_000.999_6)))
        for record in records {
            let text = try record.json()
            #expect(try AppSessionRecord(json: text) == record, "\(record)")
            #expect(!text.contains(token.reveal()) && !text.contains(login.refreshToken.reveal()), "a record holds no token")
        }
        #expect(records[8].ancestors.count == 7 && records[10].ancestors.count == 8, "at most eight ancestors")
    }

    // MARK: Corrupt records

    /// Where a decoding error struck, as key names.
    static func path(of error: DecodingError) -> String {
        let context: DecodingError.Context? = switch error {
        case .dataCorrupted(let context), .keyNotFound(_, let context), .typeMismatch(_, let context), .valueNotFound(_, let context): context
        @unknown default: nil
        }
        var keys = context?.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue } ?? []
        if case .keyNotFound(let key, _) = error { keys.append(key.stringValue) }
        return keys.joined(separator: ".")
    }

    static let good = #"{"format":"onetap-app-session/1","id":"Golden-app-session-003","version":3,"guest":"GoldenGuest-app-000003","createdAtMs":1796115601000,"current":{"kid":"k1","digest":"1111111111111111111111111111111111111111111111111111111111111111"},"expiresAtMs":1798707610999,"previous":{"kid":"k1","digest":"2222222222222222222222222222222222222222222222222222222222222222","rotatedAtMs":1796115610999,"nonce":"a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5"},"ancestors":[],"revokedAtMs":1796115641000,"revocation":"reuse"}"#

    @Test(arguments: [
        (#""format":"onetap-app-session/1","#, "", "format"),
        (#""format":"onetap-app-session/1""#, #""format":"onetap-app-session/2""#, "format"),
        (#""version":3"#, #""version":0"#, "version"),
        // A version whose next one an Int cannot hold trapped on the next write's increment.
        (#""version":3"#, #""version":9223372036854775807"#, "version"),
        (#""version":3"#, #""version":"3""#, "version"),
        (#""guest":"GoldenGuest-app-000003","#, "", "guest"),
        (#""guest":"GoldenGuest-app-000003""#, #""guest":"GoldenGuest-app-000003","account":"42""#, "account"),
        (#""guest":"GoldenGuest-app-000003""#, #""guest":"short""#, "guest"),
        (#""id":"Golden-app-session-003""#, #""id":"Golden-app-session-03""#, "id"),
        (#""createdAtMs":1796115601000"#, #""createdAt":1796115601.0"#, "createdAtMs"),
        (#""createdAtMs":1796115601000"#, #""createdAtMs":1796115601000.5"#, "createdAtMs"),
        (#""expiresAtMs":1798707610999,"#, "", "expiresAtMs"),
        (#""current":{"kid":"k1","#, #""current":{"kid":"k 1","#, "current.kid"),
        (#""current":{"kid":"k1","#, #""current":{"#, "current.kid"),
        (#""digest":"1111111111111111111111111111111111111111111111111111111111111111""#, #""digest":"11""#, "current.digest"),
        (#""nonce":"a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5""#, #""nonce":"a5a5""#, "previous.nonce"),
        (#""rotatedAtMs":1796115610999,"#, "", "previous.rotatedAtMs"),
        (#""ancestors":[],"#, "", "ancestors"),
        (#""ancestors":[]"#, #""ancestors":[{"kid":"k1"}]"#, "ancestors.[0].digest"),
        (#","revocation":"reuse""#, "", "revocation"),
        (#""revokedAtMs":1796115641000,"#, "", "revokedAtMs"),
        (#""revocation":"reuse""#, #""revocation":"stolen""#, "revocation"),
        (#""version":3"#, #""version":3,"version":3"#, "version"),
        (#""revocation":"reuse""#, #""revocation":"reuse","lastLogin":{"format":"onetap-last-login/2","flow":"fax","atMs":1796115641000}"#, "lastLogin.flow"),
        (#""revocation":"reuse""#, #""revocation":"reuse","lastLogin":{"format":"onetap-last-login/2","flow":"sms"}"#, "lastLogin.atMs"),
        (#""revocation":"reuse""#, #""revocation":"reuse","lastLogin":"sms""#, "lastLogin"),
        (#""ancestors":[]"#, #""ancestors":[],"familySeed":"a5a5","generation":2"#, "familySeed"),
        (#""ancestors":[]"#, #""ancestors":[],"familySeed":"a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5","generation":0"#, "generation"),
        (#""ancestors":[]"#, #""ancestors":[],"familySeed":"a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5","generation":10000000000"#, "generation"),
        (#""ancestors":[]"#, #""ancestors":[],"familySeed":"a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5""#, "generation"),
        (#""ancestors":[]"#, #""ancestors":[],"generation":2"#, "familySeed"),
        (#""ancestors":[]"#, #""ancestors":[],"familySeed":4,"generation":2"#, "familySeed"),
        (#""createdAtMs":1796115601000"#, #""createdAtMs":1796115601000,"identitySinceMs":"1796115601000""#, "identitySinceMs"),
        (#""createdAtMs":1796115601000"#, #""createdAtMs":1796115601000,"identitySinceMs":1,"identitySinceMs":2"#, "identitySinceMs"),
    ])
    func aCorruptRecordIsRefusedNamingItsMember(_ replacing: String, _ with: String, _ member: String) throws {
        #expect(Self.good.contains(replacing), "the case must change the good record")
        let bad = Self.good.replacingOccurrences(of: replacing, with: with)
        #expect(throws: DecodingError.self) { try AppSessionRecord(json: bad) }
        do {
            _ = try AppSessionRecord(json: bad)
        } catch {
            #expect(Self.path(of: error).hasSuffix(member), "\(error)")
        }
    }

    @Test func theGoodRecordOfTheCorruptCasesReads() throws {
        #expect(try AppSessionRecord(json: Self.good).revoked?.reason == .reuse)
    }

    @Test func tooManyAncestorsAreRefused() throws {
        let one = #"{"kid":"k1","digest":"3333333333333333333333333333333333333333333333333333333333333333"}"#
        let bad = Self.good.replacingOccurrences(of: #""ancestors":[]"#, with: #""ancestors":["# + Array(repeating: one, count: 65).joined(separator: ",") + "]")
        do {
            _ = try AppSessionRecord(json: bad)
            Issue.record("65 ancestors were read")
        } catch {
            #expect(Self.path(of: error) == "ancestors")
        }
    }
}
