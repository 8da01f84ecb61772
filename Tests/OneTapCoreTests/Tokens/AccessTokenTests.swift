import Foundation
import Testing
@testable import OneTapCore

@Suite struct AccessTokenTests {
    let now = Date(timeIntervalSince1970: 1_796_083_200)

    func token(refresh: String? = "REFRESH-SECRET") -> AccessToken {
        AccessToken(
            value: Secret("ACCESS-SECRET"), refreshToken: refresh.map(Secret.init), flow: .tianyi, account: "42",
            receivedAt: now, expiresIn: try! ExpiresIn(seconds: 2_592_000))
    }

    @Test func secretsAreRedactedEverywhere() {
        let token = token()
        var dumped = ""
        dump(token, to: &dumped)
        for text in [token.description, "\(token)", String(reflecting: token), dumped] {
            #expect(!text.contains("ACCESS-SECRET") && !text.contains("REFRESH-SECRET"), "leaked: \(text)")
        }
        #expect(token.value.reveal() == "ACCESS-SECRET")
        #expect(token.refreshToken?.reveal() == "REFRESH-SECRET")
        #expect(dumped.contains("tianyi") && dumped.contains("42"))
    }

    @Test func lifetimeFromExpiresInElseThePolicyDefault() {
        #expect(token().lifetime == 2_592_000)
        #expect(token().expiresAt == now.addingTimeInterval(2_592_000))
        let defaulted = AccessToken(value: Secret("v"), refreshToken: nil, flow: .mobile, account: "a", receivedAt: now, expiresIn: nil)
        #expect(defaulted.lifetime == 30 * 86_400)
        let custom = AccessToken(
            value: Secret("v"), refreshToken: nil, flow: .mobile, account: "a", receivedAt: now, expiresIn: nil,
            policy: TokenPolicy(defaultLifetime: .seconds(3600)))
        #expect(custom.lifetime == 3600)
    }

    @Test func emptyRefreshTokenCountsAsNone() {
        #expect(token(refresh: "").refreshToken == nil)
    }

    @Test func timesAreKeptToTheMillisecond() {
        let token = AccessToken(
            value: Secret("v"), refreshToken: nil, flow: .mobile, account: "a", issuedAt: Date(timeIntervalSince1970: 1.23456789),
            expiresAt: Date(timeIntervalSince1970: 100.0004))
        #expect(token.issuedAt == Date(timeIntervalSince1970: 1.235))
        #expect(token.expiresAt == Date(timeIntervalSince1970: 100.0))
    }

    @Test(arguments: [
        ("2592000", Int64(2_592_000)), (" 7200 ", 7200), ("1", 1), ("316224000", 316_224_000),
    ])
    func expiresInFromText(text: String, seconds: Int64) throws {
        #expect(try ExpiresIn(text).seconds == seconds)
    }

    @Test(arguments: [
        ("", ParseError.Kind.empty), ("0", .outOfRange), ("-1", .outOfRange), ("316224001", .outOfRange),
        ("99999999999999999999", .outOfRange), ("1.5", .invalidCharacter), ("30d", .invalidCharacter), ("２", .nonASCIIDigit),
    ])
    func malformedExpiresIn(text: String, kind: ParseError.Kind) {
        #expect {
            try ExpiresIn(text)
        } throws: { error in
            let error = error as! ParseError
            return error.kind == kind && error.subject == .seconds
        }
    }

    /// The package's reader takes a lifetime as a JSON integer or a numeric string (Tianyi's refresh answer).
    @Test func expiresInReadsNumbersAndStrings() throws {
        #expect(try ExpiresIn.reading(Array("2592000".utf8)).seconds == 2_592_000)
        #expect(try ExpiresIn.reading(Array(#""7200""#.utf8)).seconds == 7200)
        for bad in ["-5", #""soon""#, "true", "1e30"] {
            #expect(throws: JSONReadError.self) { try ExpiresIn.reading(Array(bad.utf8)) }
        }
    }
}
