import Foundation
@testable import OneTap

/// The app session the server tests act in: claims as `AppSessions.authenticate(_:)` hands them out,
/// signed by a test key, and a second app session that is not the one that started any login.
enum TestAppSession {
    static let keys = try! ServerKeyRing([(try! KeyID("test"), try! ServerKey(bytes: [UInt8](repeating: 42, count: 32)))])
    static let me = claims(try! AppSessionID("MyAppSession0000000000"))
    static let stranger = claims(try! AppSessionID("StrangersAppSession000"))

    static func claims(_ session: AppSessionID) -> AccessClaims {
        let now = Date(timeIntervalSince1970: 1_795_000_000)
        return keys.accessToken(session: session, identity: .guest(try! GuestID("GuestOfTheTests000000A")), epoch: 0, issuedAt: now, expiresAt: now.addingTimeInterval(86_400 * 365)).claims
    }

    /// What ``AccountLogin`` answers for a verified login of `number` to `account`, not dormant: what
    /// `AppSessions.loggedIn(_:as:flow:)` takes.
    static func outcome(_ account: AccountID, _ number: String = "13800138000") -> AccountOutcome {
        let at = Date(timeIntervalSince1970: 1_795_000_000)
        let entry = AccountEntry(account: account, number: try! PhoneNumber(number), createdAt: at, lastVerifiedAt: at)
        return AccountOutcome(AccountResolution(entry: entry, created: false, previouslyVerifiedAt: nil), created: false, at: at, dormantAfter: .seconds(180 * 86_400))
    }
}
