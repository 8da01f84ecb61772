import Foundation
import Testing
@testable import OneTapCore

/// The refresh rules: rotation, the grace, reuse, and what a stranger cannot do. Digests and successors
/// are pinned with values computed by Python's `hmac` and `base64` (key 0x00…0x1f named `k1`).
@Suite struct AppSessionRulesTests {
    static let ring = try! ServerKeyRing(parsing: Secret("k1:\(ServerKeyRingTests.first)"))
    static let rules = AppSessionRules(policy: .standard, keys: ring)
    static let session = try! AppSessionID("AAAAAAAAAAAAAAAAAAAAAA")
    static let guest = try! GuestID("BBBBBBBBBBBBBBBBBBBBBB")
    static let start = Date(timeIntervalSince1970: 1_795_773_600)
    /// `otr2.<session>.<generation>.` + base64url(HMAC-SHA-256(k1, "onetap-refresh-2" ‖ 0 ‖ session ‖ 0 ‖
    /// generation ‖ 0 ‖ seed)), the seed 32 bytes 0x01.
    static let first = "otr2.AAAAAAAAAAAAAAAAAAAAAA.1.ezYTicnzgj8417ADBdFMizE3TMdaRvzWmmBLNpD3Lh0"
    static let successor = "otr2.AAAAAAAAAAAAAAAAAAAAAA.2.qsLFIbLGso7ZTwZ9YX5Pf6j_6NadDVIB1JfACOImThY"

    static func opened() -> (record: AppSessionRecord, refreshToken: Secret) {
        rules.open(id: session, guest: guest, secret: Array(repeating: 1, count: 32), at: start)
    }

    static func presented(_ token: String) throws -> PresentedRefreshToken {
        try #require(PresentedRefreshToken(Secret(token)))
    }

    @Test func openingStoresOnlyTheKeyedDigestOfThePinnedToken() {
        let (record, token) = Self.opened()
        #expect(token.reveal() == Self.first)
        #expect(record.current.digest.hex == "8785385ddf8be08a7e92860c39656b47b4055e6fa93ad51acef23da6e8f8aa6c")
        #expect(record.current.keyID.text == "k1")
        #expect(record.version == 1 && record.identity == .guest(Self.guest))
        #expect(record.expiresAt == Self.start.addingTimeInterval(30 * 86_400))
        #expect(!"\(record)".contains("878538") && !"\(record)".contains("ezYTic") && !"\(record)".contains("010101"))
        // `dump` shows the family's generation, never its seed (32 bytes of 1).
        var dumped = ""
        dump(record, to: &dumped)
        #expect(dumped.contains("generation: 1") && !dumped.contains("seed"), "\(dumped)")
    }

    @Test func aRotationDerivesThePinnedSuccessorAndSlidesTheExpiry() throws {
        let (record, _) = Self.opened()
        let later = Self.start.addingTimeInterval(86_400)
        guard case .rotated(let next, let successor) = Self.rules.refresh(record, presented: try Self.presented(Self.first), nonce: Array(repeating: 2, count: 32), at: later) else {
            Issue.record("not rotated")
            return
        }
        #expect(successor.reveal() == Self.successor)
        #expect(next.current.digest.hex == "c1babed0cb2a2f1942259aa880e1a1f2e229a6bfcaf9d72d1c71f229f4742d2d")
        #expect(next.previous?.token == record.current && next.previous?.rotatedAt == later)
        #expect(next.family == AppSessionRecord.Family(seed: Array(repeating: 1, count: 32), generation: 2), "the family's seed stays; its generation counts")
        #expect(next.version == 2 && next.expiresAt == later.addingTimeInterval(30 * 86_400))
    }

    @Test func thePreviousTokenWithinTheGraceGetsTheSameSuccessorAndAfterItRevokesTheFamily() throws {
        let (record, _) = Self.opened()
        guard case .rotated(let next, _) = Self.rules.refresh(record, presented: try Self.presented(Self.first), nonce: Array(repeating: 2, count: 32), at: Self.start) else {
            Issue.record("not rotated")
            return
        }
        guard case .repeated(_, let again) = Self.rules.refresh(next, presented: try Self.presented(Self.first), nonce: Array(repeating: 9, count: 32), at: Self.start.addingTimeInterval(29.9)) else {
            Issue.record("not repeated within the grace")
            return
        }
        #expect(again.reveal() == Self.successor)
        guard case .reused(let revoked) = Self.rules.refresh(next, presented: try Self.presented(Self.first), nonce: [], at: Self.start.addingTimeInterval(30)) else {
            Issue.record("not reuse after the grace")
            return
        }
        #expect(revoked.revoked?.reason == .reuse && revoked.version == next.version + 1)
        // Every credential of the family is refused from then on, the successor too.
        guard case .refused(.revoked) = Self.rules.refresh(revoked, presented: try Self.presented(Self.successor), nonce: [], at: Self.start.addingTimeInterval(31)) else {
            Issue.record("the successor of a revoked family was not refused")
            return
        }
    }

    @Test func anOlderAncestorIsReuseAtAnyTime() throws {
        var (record, token) = Self.opened()
        var tokens = [token]
        for step in 1...3 {
            guard case .rotated(let next, let successor) = Self.rules.refresh(record, presented: try Self.presented(token.reveal()), nonce: Array(repeating: UInt8(step), count: 32), at: Self.start.addingTimeInterval(Double(step) * 3600)) else {
                Issue.record("not rotated")
                return
            }
            (record, token) = (next, successor)
            tokens.append(successor)
        }
        #expect(record.ancestors.count == 2)
        guard case .reused = Self.rules.refresh(record, presented: try Self.presented(tokens[0].reveal()), nonce: [], at: Self.start.addingTimeInterval(3 * 3600 + 1)) else {
            Issue.record("the first token, two rotations back, was not recognised as reuse")
            return
        }
    }

    /// The attacker's read of 2026-12-04: a thief who refreshes a stolen token more times than the record
    /// remembers ancestors pushed the victim's token out of memory, so presenting it was "never issued"
    /// and revoked nothing. Every earlier token of the family is reuse, however many rotations back.
    @Test func everyEarlierTokenOfTheFamilyIsReuseHoweverManyRotationsBack() throws {
        var (record, token) = Self.opened()
        let first = token
        for step in 1...(AppSessionPolicy.standard.ancestors + 4) {
            guard case .rotated(let next, let successor) = Self.rules.refresh(record, presented: try Self.presented(token.reveal()), nonce: Array(repeating: UInt8(step), count: 32), at: Self.start.addingTimeInterval(Double(step))) else {
                Issue.record("rotation \(step) did not rotate")
                return
            }
            (record, token) = (next, successor)
        }
        guard case .reused(let revoked) = Self.rules.refresh(record, presented: try Self.presented(first.reveal()), nonce: [], at: Self.start.addingTimeInterval(3600)) else {
            Issue.record("the first token, twelve rotations back, was not recognised as reuse")
            return
        }
        #expect(revoked.revoked?.reason == .reuse)
    }

    /// Knowing a session's id (no secret) and guessing a token ends no one's session.
    @Test func aTokenTheSessionNeverIssuedIsRefusedAndRevokesNothing() throws {
        let (record, _) = Self.opened()
        let guess = "otr1.AAAAAAAAAAAAAAAAAAAAAA." + String(repeating: "A", count: 43)
        guard case .refused(.invalid) = Self.rules.refresh(record, presented: try Self.presented(guess), nonce: [], at: Self.start) else {
            Issue.record("a guessed token was not refused as invalid")
            return
        }
    }

    /// Only a code the server made counts as an earlier generation: a stranger who knows the session id and
    /// writes a lower (or higher) generation with any code, or a code of another session's family, ends
    /// nothing.
    @Test func aGenerationWithoutTheFamilysCodeIsRefusedAndRevokesNothing() throws {
        var (record, token) = Self.opened()
        for step in 1...3 {
            guard case .rotated(let next, let successor) = Self.rules.refresh(record, presented: try Self.presented(token.reveal()), nonce: Array(repeating: UInt8(step), count: 32), at: Self.start) else {
                Issue.record("not rotated")
                return
            }
            (record, token) = (next, successor)
        }
        let code = String(Self.first.suffix(43))
        let other = Self.rules.open(id: try AppSessionID("CCCCCCCCCCCCCCCCCCCCCC"), guest: Self.guest, secret: Array(repeating: 1, count: 32), at: Self.start).refreshToken
        let guesses = [
            "otr2.AAAAAAAAAAAAAAAAAAAAAA.1." + String(repeating: "A", count: 43),   // a lower generation, a made-up code
            "otr2.AAAAAAAAAAAAAAAAAAAAAA.2." + code,                               // generation 1's code under generation 2
            "otr2.AAAAAAAAAAAAAAAAAAAAAA.9." + code,                               // a generation not issued yet
            "otr2.AAAAAAAAAAAAAAAAAAAAAA.1." + String(other.reveal().suffix(43)),  // another session's generation 1
        ]
        for guess in guesses {
            guard case .refused(.invalid) = Self.rules.refresh(record, presented: try Self.presented(guess), nonce: [], at: Self.start.addingTimeInterval(3600)) else {
                Issue.record("\(guess) was not refused as invalid")
                return
            }
        }
        // The real generation 1 is still recognised as reuse.
        guard case .reused = Self.rules.refresh(record, presented: try Self.presented(Self.first), nonce: [], at: Self.start.addingTimeInterval(3600)) else {
            Issue.record("generation 1 was not reuse")
            return
        }
    }

    @Test func anExpiredTokenIsRefusedAndARetiredKeysTokensStopVerifying() throws {
        let (record, _) = Self.opened()
        guard case .refused(.expired) = Self.rules.refresh(record, presented: try Self.presented(Self.first), nonce: [], at: record.expiresAt) else {
            Issue.record("an expired token was not refused")
            return
        }
        let rotated = AppSessionRules(policy: .standard, keys: try ServerKeyRing(parsing: Secret("k2:\(ServerKeyRingTests.second)")))
        guard case .refused(.invalid) = rotated.refresh(record, presented: try Self.presented(Self.first), nonce: [], at: Self.start) else {
            Issue.record("a token under a retired key was not refused")
            return
        }
    }

    /// Session fixation: the tokens issued before a login neither work after it nor end the session.
    @Test func aLoginForgetsTheGuestsTokens() throws {
        let (record, guestToken) = Self.opened()
        let (login, accountToken) = Self.rules.login(record, account: "42", hint: LastLoginHint(flow: .mobile, number: nil, at: Self.start), secret: Array(repeating: 3, count: 32), at: Self.start)
        #expect(accountToken != guestToken)
        #expect(login.identity == .account("42") && login.id == record.id)
        guard case .refused(.invalid) = Self.rules.refresh(login, presented: try Self.presented(guestToken.reveal()), nonce: [], at: Self.start) else {
            Issue.record("the guest's refresh token still worked after the login")
            return
        }
        let guestClaims = Self.ring.accessToken(session: record.id, identity: record.identity, epoch: 0, issuedAt: Self.start, expiresAt: Self.start.addingTimeInterval(60)).claims
        #expect(!Self.rules.stands(guestClaims, in: login))
        // A second login to the same account, 90.7 s later: the account's tokens from before it stop standing,
        // even one issued at 90.2 (tokens carry whole seconds: 90); those dated from 91, the whole second after
        // the login, stand (the attacker's read of the first version, which kept 90 and let the 90.2 one stand).
        let later = Self.start.addingTimeInterval(90.7)
        let again = Self.rules.login(login, account: "42", hint: LastLoginHint(flow: .sms, number: nil, at: later), secret: Array(repeating: 4, count: 32), at: later).record
        #expect(again.identitySince == Self.start.addingTimeInterval(91))
        func claims(_ seconds: Double, epoch: Int64?) -> AccessClaims {
            AccessClaims(
                keyID: Self.ring.signingID, session: record.id, identity: .account("42"), issuedAt: Self.start.addingTimeInterval(seconds).wholeSeconds,
                expiresAt: Self.start.addingTimeInterval(7200), epoch: epoch)
        }
        #expect(login.epoch == 1_795_773_601 && again.epoch == 1_795_773_691)
        // Format 2: a token stands in its own epoch only, whatever its date (one dated after the login in the
        // epoch before it came from an instance whose clock is ahead).
        #expect(Self.rules.stands(claims(89, epoch: login.epoch), in: login) && !Self.rules.stands(claims(89, epoch: login.epoch), in: again))
        #expect(Self.rules.stands(claims(91, epoch: again.epoch), in: again) && !Self.rules.stands(claims(95, epoch: login.epoch), in: again))
        // Format 1 (no epoch): by its whole second.
        #expect(Self.rules.stands(claims(89, epoch: nil), in: login) && !Self.rules.stands(claims(89, epoch: nil), in: again))
        #expect(!Self.rules.stands(claims(90.2, epoch: nil), in: again) && Self.rules.stands(claims(91, epoch: nil), in: again))
        #expect(try again.json().contains(#""identitySinceMs":1795773691000"#))
        // A login on an instance whose clock is 3 s behind still moves the epoch on, a second past the last: the
        // tokens of the login before it stop standing.
        let behind = Self.start.addingTimeInterval(87.7)
        let skewed = Self.rules.login(again, account: "42", hint: LastLoginHint(flow: .sms, number: nil, at: behind), secret: Array(repeating: 5, count: 32), at: behind).record
        #expect(skewed.identitySince == Self.start.addingTimeInterval(92))
        #expect(!Self.rules.stands(claims(91, epoch: again.epoch), in: skewed) && Self.rules.stands(claims(92, epoch: skewed.epoch), in: skewed))
        #expect(try AppSessionRecord(json: again.json()) == again, "the last login's second reads back")
    }

    @Test(arguments: [
        "otr2.AAAAAAAAAAAAAAAAAAAAAA.0.ezYTicnzgj8417ADBdFMizE3TMdaRvzWmmBLNpD3Lh0", "otr2.AAAAAAAAAAAAAAAAAAAAAA.01.ezYTicnzgj8417ADBdFMizE3TMdaRvzWmmBLNpD3Lh0",
        "otr2.AAAAAAAAAAAAAAAAAAAAAA.12345678901.ezYTicnzgj8417ADBdFMizE3TMdaRvzWmmBLNpD3Lh0", "otr2.AAAAAAAAAAAAAAAAAAAAAA.+1.ezYTicnzgj8417ADBdFMizE3TMdaRvzWmmBLNpD3Lh0",
        "otr2.AAAAAAAAAAAAAAAAAAAAAA..ezYTicnzgj8417ADBdFMizE3TMdaRvzWmmBLNpD3Lh0", "otr1.AAAAAAAAAAAAAAAAAAAAAA.1.ezYTicnzgj8417ADBdFMizE3TMdaRvzWmmBLNpD3Lh0",
        "otr2.AAAAAAAAAAAAAAAAAAAAAA.1.ezYTicnzgj8417ADBdFMizE3TMdaRvzWmmBLNpD3Lh", "otr2.AAAAAAAAAAAAAAAAAAAAAA.1.1.ezYTicnzgj8417ADBdFMizE3TMdaRvzWmmBLNpD3Lh0",
        "otr2.AAAAAAAAAAAAAAAAAAAAAA.١.ezYTicnzgj8417ADBdFMizE3TMdaRvzWmmBLNpD3Lh0",
    ])
    func malformedFormatTwoTokens(_ text: String) {
        #expect(PresentedRefreshToken(Secret(text)) == nil)
    }

    /// A family that reached its last generation (10 digits) goes on as a new family seeded with the nonce.
    @Test func theLastGenerationRotatesIntoANewFamily() throws {
        var (record, _) = Self.opened()
        let last = "otr2.AAAAAAAAAAAAAAAAAAAAAA.9999999999.fr101ul_Pmocxl2nUVP9wJDgHIFOD-F-MJsB-XMWfPY"
        record.family = AppSessionRecord.Family(seed: Array(repeating: 1, count: 32), generation: 9_999_999_999)
        record.current = AppSessionRecord.Digest(keyID: record.current.keyID, digest: HMACSHA256.authenticationCode(for: Array("onetap-refresh-1\0\(last)".utf8), key: (0..<32).map(UInt8.init)))
        guard case .rotated(let next, let successor) = Self.rules.refresh(record, presented: try Self.presented(last), nonce: Array(repeating: 7, count: 32), at: Self.start) else {
            Issue.record("the last generation did not rotate")
            return
        }
        #expect(successor.reveal() == "otr2.AAAAAAAAAAAAAAAAAAAAAA.1.xvrJs3RbBotZJtJ6DqNYTLloqBoC1OU87PkZnUjXwOs")
        #expect(next.family?.generation == 1)
    }

    /// The attacker's read of the format-2 change: the grammar split any text on `.` before it checked a
    /// length, so a request carrying megabytes of dots cost hundreds of megabytes of substrings. A text longer
    /// than the longest token (82 bytes) is refused; that it is refused before it is read (no allocation) is the
    /// benchmark row `credential.refresh grammar (1 MB of dots)`'s promise, which CI enforces.
    @Test func aTextLongerThanAnyTokenIsRefused() throws {
        let longest = "otr2.AAAAAAAAAAAAAAAAAAAAAA.9999999999.ezYTicnzgj8417ADBdFMizE3TMdaRvzWmmBLNpD3Lh0"
        #expect(longest.utf8.count == 82 && PresentedRefreshToken(Secret(longest)) != nil)
        #expect(PresentedRefreshToken(Secret(longest + ".")) == nil)
        #expect(PresentedRefreshToken(Secret(String(repeating: ".", count: 1_000_000))) == nil)
    }

    @Test func theGrammarReadsBothFormats() throws {
        #expect(try Self.presented(Self.first).generation == 1)
        #expect(try Self.presented("otr2.AAAAAAAAAAAAAAAAAAAAAA.9999999999.ezYTicnzgj8417ADBdFMizE3TMdaRvzWmmBLNpD3Lh0").generation == 9_999_999_999)
        let legacy = try Self.presented("otr1.AAAAAAAAAAAAAAAAAAAAAA.AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE")
        #expect(legacy.generation == nil && legacy.session == Self.session)
    }

    @Test(arguments: ["", "otr1.", "otr2.AAAAAAAAAAAAAAAAAAAAAA.AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE", "otr1.AAAAAAAAAAAAAAAAAAAAA*.AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE", "otr1.AAAAAAAAAAAAAAAAAAAAAA.AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQ=", "otr1.AAAAAAAAAAAAAAAAAAAAAA.AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEX"])
    func malformedRefreshTokens(_ text: String) {
        #expect(PresentedRefreshToken(Secret(text)) == nil)
    }

    @Test func aPolicyOutOfRangeIsRefused() {
        #expect(throws: ParseError.self) { try AppSessionPolicy(accessLifetime: .zero) }
        #expect(throws: ParseError.self) { try AppSessionPolicy(accessLifetime: .seconds(7200), refreshLifetime: .seconds(60)) }
        #expect(throws: ParseError.self) { try AppSessionPolicy(grace: .seconds(301)) }
        #expect(throws: ParseError.self) { try AppSessionPolicy(ancestors: -1) }
    }
}

/// The review of issue 20's change: a key rotation rolled out one instance at a time. An instance whose
/// ring lacks the key a newer instance rotated under cannot answer a retry within the grace; it must
/// refuse it, not revoke the session as stolen.
@Suite struct AppSessionRotationRolloutTests {
    @Test func aRetryOnAnInstanceWithoutTheNewKeyIsRefusedNotRevoked() throws {
        let newer = AppSessionRules(policy: .standard, keys: try ServerKeyRing(parsing: Secret("k2:\(ServerKeyRingTests.second)\nk1:\(ServerKeyRingTests.first)")))
        let older = AppSessionRulesTests.rules
        let (record, token) = AppSessionRulesTests.opened()
        guard case .rotated(let next, _) = newer.refresh(record, presented: try AppSessionRulesTests.presented(token.reveal()), nonce: Array(repeating: 2, count: 32), at: AppSessionRulesTests.start) else {
            Issue.record("not rotated")
            return
        }
        #expect(next.current.keyID.text == "k2")
        guard case .refused(.invalid) = older.refresh(next, presented: try AppSessionRulesTests.presented(token.reveal()), nonce: [], at: AppSessionRulesTests.start.addingTimeInterval(3)) else {
            Issue.record("a retry within the grace on an instance without k2 was not refused as invalid")
            return
        }
        // The newer instance still answers the same retry with the successor.
        guard case .repeated = newer.refresh(next, presented: try AppSessionRulesTests.presented(token.reveal()), nonce: [], at: AppSessionRulesTests.start.addingTimeInterval(3)) else {
            Issue.record("the instance with k2 did not repeat the successor")
            return
        }
    }
}
