import Foundation
import Testing
@testable import OneTapCore
import OneTapSupport

/// The verifier reads a token in place (parts as offsets, the MAC on the stack, the account id decoded on
/// the stack): the edges of that reading, with tokens signed under `k1` by Python's `hmac`, `hashlib` and
/// `base64` (none written by OneTap).
@Suite struct AccessTokenInPlaceTests {
    static let ring = AppAccessTokenTests.ring
    static let now = AppAccessTokenTests.issued.addingTimeInterval(60)
    static let times = "1795773600.1795780800"
    static let session = "AAAAAAAAAAAAAAAAAAAAAA"

    /// The longest account id (100 bytes of `x`) reads back whole.
    @Test func theLongestAccountIDReadsBack() throws {
        let token = "ota1.k1.\(Self.session).a.\(String(repeating: "eHh4", count: 33))eA.\(Self.times).sZUhYgSmTUmGmfl09X-HHQqYk2AjnxNmQPS7x2SOPTo"
        let claims = try #require(Self.ring.verifyAccessToken(token, at: Self.now).validClaims)
        #expect(claims.identity == .account(try AccountID(String(repeating: "x", count: 100))))
        #expect(claims.session.text == Self.session)
    }

    /// A token and the verdict it must get, as the verifier's other tests state them.
    typealias Case = AppAccessTokenTests.Refused

    static let cases: [Case] = [
        // 101 bytes: one more than an account id has; 200 bytes: more than the verifier's stack buffer.
        Case(name: "a 101-byte account id", token: "ota1.k1.\(session).a.\(String(repeating: "eHh4", count: 33))eHg.\(times).fyEYo45NniYlanNqRDcPHXsuTJKCMtD3_N9xo6_4D9M", verdict: "malformed"),
        Case(name: "a 200-byte account id", token: "ota1.k1.\(session).a.\(String(repeating: "eHh4", count: 66))eHg.\(times).j14nHSrTC6eM-bNqj5dVC6ubivlysdAC37xD8rhpdGw", verdict: "malformed"),
        // Padded base64 decodes as it always did: account 42.
        Case(name: "a padded subject", token: "ota1.k1.\(session).a.NDI=.\(times).BYPkvIKUd4qAMECguPfFuoftfdRFts0o-bZkGAcSDBE", verdict: "valid"),
        Case(name: "a session id with a +", token: "ota1.k1.AAAAAAAAAAAAAAAAAAAAA+.a.NDI.\(times).usZkixc_mkP1XWet8GIiM1WNb7sP9RJPPjqOZKGW3LA", verdict: "malformed"),
        Case(name: "an account id that is not UTF-8", token: "ota1.k1.\(session).a.__4.\(times).1w_gpsaI1zTyMMAdC4Bq6So4ZX1OkaFYvk_QpfcAZds", verdict: "malformed"),
        // The pinned account-42 token with its MAC's last character g (…100000) made h (…100001): the same
        // 32 bytes when decoded leniently, but not the text OneTap writes.
        Case(name: "a MAC with stray low bits", token: String(AppAccessTokenTests.account42.dropLast()) + "h", verdict: "bad-signature"),
        Case(name: "a MAC with a foreign character", token: String(AppAccessTokenTests.account42.dropLast()) + "=", verdict: "bad-signature"),
        Case(name: "nine parts", token: "ota1.x." + AppAccessTokenTests.account42.dropFirst(5), verdict: "malformed"),
    ]

    @Test(arguments: cases)
    func edges(_ test: Case) {
        let verdict = Self.ring.verifyAccessToken(test.token, at: Self.now)
        #expect(verdict.name == test.verdict, "\(verdict)")
        if test.verdict == "valid" { #expect(verdict.validClaims?.identity == .account("42")) }
    }

    /// The dots are found eight bytes at a time: for buffers of every length from 0 to 130 bytes, with dots
    /// anywhere, beside bytes one bit away from a dot (0x2F, 0x2C, 0xAE, 0x0E) and 0x00, 0x80, 0xFF, the offsets and
    /// the count are those a byte-by-byte scan written here finds.
    @Test func theDotsAreFoundWhereverTheyStand() {
        var generator = SplitMix64(seed: 2026_12_04)
        let bytes: [UInt8] = [0x2E, 0x2E, 0x2F, 0x2C, 0xAE, 0x0E, 0x00, 0x80, 0xFF, 0x61]
        for length in 0...130 {
            for _ in 0..<16 {
                let buffer = (0..<length).map { _ in bytes[Int(generator.next() % UInt64(bytes.count))] }
                let expected = buffer.indices.filter { buffer[$0] == 0x2E }
                var found = [Int](repeating: -1, count: 7)
                let count = buffer.withUnsafeBufferPointer { token in
                    found.withUnsafeMutableBufferPointer { AccessTokenFormat.findDots(token, into: $0) }
                }
                #expect(count == expected.count, "\(buffer)")
                #expect(Array(found.prefix(min(7, count))) == Array(expected.prefix(7)), "\(buffer)")
            }
        }
    }

    /// The verdict names the count of dots the token holds, counted here as characters.
    @Test func theVerdictCountsTheDots() {
        var generator = SplitMix64(seed: 2026_12_05)
        let pieces = ["a", ".", "®", "/", "-", "k1", "A"]
        for length in 0..<60 {
            var token = "ota1."
            for _ in 0..<length { token += pieces[Int(generator.next() % UInt64(pieces.count))] }
            let dots = token.filter { $0 == "." }.count
            if dots != 7 {
                #expect(Self.ring.verifyAccessToken(token, at: Self.now) == .malformed("\(dots + 1) dot-separated parts; an access token of format 1 has 8"), "\(token)")
            }
            let second = "ota2." + token.dropFirst(5)
            if dots != 8 {
                #expect(Self.ring.verifyAccessToken(second, at: Self.now) == .malformed("\(dots + 1) dot-separated parts; an access token of format 2 has 9"), "\(second)")
            }
        }
    }

    @Test func theVerdictNamesWhatIsWrong() {
        #expect(Self.ring.verifyAccessToken("ota1.x." + AppAccessTokenTests.account42.dropFirst(5), at: Self.now) == .malformed("9 dot-separated parts; an access token of format 1 has 8"))
        #expect(Self.ring.verifyAccessToken("ota1.k1.a.b", at: Self.now) == .malformed("4 dot-separated parts; an access token of format 1 has 8"))
    }
}
