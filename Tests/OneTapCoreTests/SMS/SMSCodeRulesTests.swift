import Foundation
import Testing
@testable import OneTapCore

/// The rules of codes, on a state held here as a store would hold it: who may be sent one, how codes
/// are drawn, single use, expiry at exactly five minutes, five wrong tries, replacement, session binding.
@Suite struct SMSCodeRulesTests {
    static let t0 = Date(timeIntervalSince1970: 1_796_090_400)
    static let number = try! PhoneNumber("13800138000")
    let rules = SMSCodeRules()
    let key = ServerKey.random()

    struct Recipient: Sendable, CustomTestStringConvertible {
        let text: String
        let refusal: String?
        var testDescription: String { text }
    }

    /// Which numbers may be sent a code, by what the segments are (written here from the operators'
    /// allocations, not read from the table).
    static let recipients: [Recipient] = [
        Recipient(text: "13800138000", refusal: nil),             // China Mobile
        Recipient(text: "+86 189 0000 0000", refusal: nil),       // China Telecom
        Recipient(text: "17000000000", refusal: nil),             // an MVNO segment (1700)
        Recipient(text: "14500000000", refusal: nil),             // China Unicom data card: takes SMS
        Recipient(text: "14700000000", refusal: nil),             // China Mobile data card: takes SMS
        Recipient(text: "17400000000", refusal: nil),             // Tiantong satellite phone: takes SMS
        Recipient(text: "14600000000", refusal: "cannot-take-sms"), // China Unicom IoT-only
        Recipient(text: "14800000000", refusal: "cannot-take-sms"), // China Mobile IoT-only
        Recipient(text: "15400000000", refusal: "not-mainland-mobile"), // unallocated
        Recipient(text: "+1 650 555 0100", refusal: "not-mainland-mobile"),
        Recipient(text: "+852 9123 4567", refusal: "not-mainland-mobile"),
        Recipient(text: "010-12345678", refusal: "not-mainland-mobile"),
        Recipient(text: "12345678901", refusal: "not-mainland-mobile"),
        Recipient(text: "", refusal: "not-mainland-mobile"),
    ]

    @Test(arguments: recipients)
    func whoMayBeSentACode(_ recipient: Recipient) {
        switch rules.recipient(recipient.text) {
        case .success: #expect(recipient.refusal == nil)
        case .failure(let refusal):
            #expect(refusal.kind.id == recipient.refusal, "\(refusal)")
            #expect(!refusal.message.contains("38000"), "a refusal masks the number: \(refusal.message)")
        }
    }

    @Test func codesAreSixDigitsDrawnEvenly() {
        var counts = [[Int]](repeating: [Int](repeating: 0, count: 10), count: 6)
        var below100000 = 0
        let draws = 20_000
        var ids = Set<String>()
        for _ in 0..<draws {
            let (code, record) = rules.issue(to: Self.number, session: nil, key: key, at: Self.t0)
            let digits = Array(code.reveal().utf8)
            #expect(digits.count == 6 && digits.allSatisfy { (48...57).contains($0) })
            for (position, digit) in digits.enumerated() { counts[position][Int(digit - 48)] += 1 }
            if digits[0] == 48 { below100000 += 1 }
            ids.insert(record.id)
            #expect(record.id.utf8.count == 16)
        }
        #expect(ids.count == draws, "code ids are 64 random bits: no repeats in 20,000")
        // Each digit at each place is 1/10 of the draws: 2,000 ± 6 standard deviations (σ ≈ 42).
        for position in counts { for count in position { #expect((1_750...2_250).contains(count), "\(counts)") } }
        #expect((1_750...2_250).contains(below100000), "codes with a leading zero are kept, not redrawn")
    }

    /// The code's draw and the stored digest's format, pinned with values computed outside the project:
    /// draws 123456 and 0xa1b2c3d4e5f60718 make the code 123456 and the id a1b2c3d4e5f60718, and the digest is
    /// `printf 'onetap-sms-1\00013800138000\000123456\000a1b2c3d4e5f60718' | openssl dgst -sha256 -mac HMAC
    /// -macopt hexkey:0b0b…` (32 bytes of 0x0b; the message bytes checked with xxd).
    @Test func aKnownCodeAndDigest() throws {
        struct Draws: RandomNumberGenerator {
            var values: [UInt64]
            mutating func next() -> UInt64 { values.removeFirst() }
        }
        var draws = Draws(values: [123_456, 0xa1b2_c3d4_e5f6_0718])
        let key = try ServerKey(bytes: [UInt8](repeating: 0x0b, count: 32))
        let (code, record) = rules.issue(to: try PhoneNumber("13800138000"), session: nil, key: key, at: Self.t0, using: &draws)
        #expect(code.reveal() == "123456")
        #expect(record.id == "a1b2c3d4e5f60718")
        #expect(record.digest.hex == "7769c5cbf287293d38e0ad6418d043c762168e84d6600dde7b12d78b7feb5027")
    }

    @Test func theRecordHoldsADigestNotTheCode() throws {
        let (code, record) = rules.issue(to: Self.number, session: nil, key: key, at: Self.t0)
        let json = try record.json()
        #expect(!json.contains("\"\(code.reveal())\""))
        #expect(record.digest != SHA256.hash(code.reveal().utf8), "the digest is keyed, not a plain hash of six digits")
        #expect(!"\(record)".contains(record.digest.hex) && !"\(record)".contains(record.id))
        var dumped = ""
        dump(SMSState(events: [:], counters: [], code: record, keepUntil: Self.t0), to: &dumped)
        #expect(!dumped.contains(record.id) && !dumped.contains("digest") && dumped.contains("wrongAttempts: 0"), "\(dumped)")
        #expect(record.expiresAt == Self.t0.addingTimeInterval(300))
        #expect(try SMSCodeRecord(json: json) == record)
    }

    /// A stored record whose wrong-try count OneTap never writes (below 0) is refused when read: a wrong code
    /// against `Int.min` tries trapped when the tries left were counted, and any negative count gave more tries.
    @Test(arguments: [-1, Int.min])
    func aStoredRecordWithANegativeWrongTryCountIsRefused(_ count: Int) throws {
        let (_, record) = rules.issue(to: Self.number, session: nil, key: key, at: Self.t0)
        let json = try record.json().replacingOccurrences(of: #""wrongAttempts":0"#, with: #""wrongAttempts":\#(count)"#)
        #expect(json.contains("\(count)"))
        #expect {
            try SMSCodeRecord(json: json)
        } throws: { error in
            "\(error)".contains("wrongAttempts")
        }
    }

    /// A state with one code out, as a store would hand it over.
    func sent(session: LoginSessionID? = nil, at: Date = t0) -> (Secret, SMSState, SMSPolicy.Request) {
        let request = SMSPolicy.Request(number: Self.number.digits, session: session?.text)
        var state = SMSState(events: [:], counters: rules.sendCounters(for: request), code: nil, keepUntil: .distantPast)
        let (code, record) = rules.issue(to: Self.number, session: session, key: key, at: at)
        let decision = rules.admit(&state, request, captchaPassed: false, record: record, at: at)
        #expect(decision == .admit(resendAfter: at.addingTimeInterval(60)))
        return (code, state, request)
    }

    /// A send only moves the state's keep-until later: an instance whose clock is behind another's by more than the
    /// retention's margin over the longest window shortened the shared counters' life, and rows could expire while their
    /// events still counted (an attacker's read).
    @Test func aSendNeverMovesTheKeepUntilEarlier() {
        let request = SMSPolicy.Request(number: Self.number.digits, session: nil)
        let later = Self.t0.addingTimeInterval(rules.retention + 3_600)
        var state = SMSState(events: [:], counters: rules.sendCounters(for: request), code: nil, keepUntil: later)
        let (_, record) = rules.issue(to: Self.number, session: nil, key: key, at: Self.t0)
        #expect(rules.admit(&state, request, captchaPassed: false, record: record, at: Self.t0) == .admit(resendAfter: Self.t0.addingTimeInterval(60)))
        #expect(state.keepUntil == later)
    }

    /// A withdrawn code gives its place back to the code it replaced while that one lives, and takes nothing from a
    /// code that replaced it meanwhile.
    @Test func aWithdrawalPutsBackTheCodeItReplacedWhileThatLives() {
        let (first, sentOnce, request) = sent()
        let (_, second) = rules.issue(to: Self.number, session: nil, key: key, at: Self.t0.addingTimeInterval(60))
        var state = sentOnce
        #expect(rules.admit(&state, request, captchaPassed: true, record: second, at: Self.t0.addingTimeInterval(60)) == .admit(resendAfter: Self.t0.addingTimeInterval(120)))
        var restored = state
        rules.withdraw(&restored, id: second.id, restoring: sentOnce.code, at: Self.t0.addingTimeInterval(61))
        #expect(restored.code == sentOnce.code)
        if case .verified = rules.verify(&restored, candidate: first, number: Self.number, request, key: key, at: Self.t0.addingTimeInterval(62)) {} else {
            Issue.record("the first code must verify again")
        }
        var late = state
        rules.withdraw(&late, id: second.id, restoring: sentOnce.code, at: Self.t0.addingTimeInterval(300))
        #expect(late.code == nil)
        var overtaken = state
        rules.withdraw(&overtaken, id: "another", restoring: sentOnce.code, at: Self.t0.addingTimeInterval(61))
        #expect(overtaken.code == second)
    }

    @Test func theRightCodeVerifiesOnce() throws {
        var (code, state, request) = sent()
        let first = rules.verify(&state, candidate: code, number: Self.number, request, key: key, at: Self.t0.addingTimeInterval(10))
        guard case .verified(let verdict) = first else { Issue.record("\(first)"); return }
        #expect(verdict.phoneNumber == Self.number && verdict.verifiedAt == Self.t0.addingTimeInterval(10))
        #expect(rules.verify(&state, candidate: code, number: Self.number, request, key: key, at: Self.t0.addingTimeInterval(11)) == .noCode)
    }

    @Test func aCodeExpiresAtExactlyFiveMinutes() {
        var (code, state, request) = sent()
        var copy = state
        if case .verified = rules.verify(&copy, candidate: code, number: Self.number, request, key: key, at: Self.t0.addingTimeInterval(299.999)) {} else {
            Issue.record("a code must verify 1 ms before its five minutes end")
        }
        #expect(rules.verify(&state, candidate: code, number: Self.number, request, key: key, at: Self.t0.addingTimeInterval(300)) == .expired)
    }

    @Test func aClockFarBehindTheIssuerCountsTheCodeExpired() {
        var (code, state, request) = sent()
        var copy = state
        if case .verified = rules.verify(&copy, candidate: code, number: Self.number, request, key: key, at: Self.t0.addingTimeInterval(-300)) {} else {
            Issue.record("an instance up to a lifetime behind must still verify")
        }
        #expect(rules.verify(&state, candidate: code, number: Self.number, request, key: key, at: Self.t0.addingTimeInterval(-300.001)) == .expired)
    }

    @Test func fiveWrongCodesKillTheCode() {
        var (code, state, request) = sent()
        let wrong = Secret(code.reveal() == "000000" ? "000001" : "000000")
        for left in stride(from: 4, through: 0, by: -1) {
            #expect(rules.verify(&state, candidate: wrong, number: Self.number, request, key: key, at: Self.t0.addingTimeInterval(1)) == .wrong(attemptsLeft: left))
        }
        #expect(rules.verify(&state, candidate: code, number: Self.number, request, key: key, at: Self.t0.addingTimeInterval(2)) == .tooManyAttempts)
        let guesses = SMSPolicy.Counter(counts: .failedVerifies, key: .number, value: Self.number.digits)
        #expect(state.events[guesses]?.count == 5, "each wrong code counts toward the number's daily bound")
    }

    struct Malformed: Sendable, CustomTestStringConvertible {
        let text: String
        var testDescription: String { "\"\(text)\"" }
    }

    /// Text that is no six digits (Arabic-Indic digits included) is wrong, and spends no try and counts nothing: no
    /// code could match it (a typo cost the owner one of five tries before).
    @Test(arguments: [Malformed(text: ""), Malformed(text: "12345"), Malformed(text: "1234567"), Malformed(text: "12a456"),
                      Malformed(text: "١٢٣٤٥٦"), Malformed(text: "12 3456"), Malformed(text: "\u{0}123456"), Malformed(text: "   "),
                      Malformed(text: "123456 7"), Malformed(text: "12345\u{301}6"), Malformed(text: "123456\u{0}"),
                      Malformed(text: "123456" + String(repeating: " ", count: 59)), Malformed(text: String(repeating: "\u{3000}", count: 100_000))])
    func aMalformedCodeIsWrongAndSpendsNoTry(_ malformed: Malformed) {
        var (_, state, request) = sent()
        let before = state
        #expect(rules.verify(&state, candidate: Secret(malformed.text), number: Self.number, request, key: key, at: Self.t0) == .wrong(attemptsLeft: 5))
        #expect(state == before)
    }

    /// The code typed with white space around it, or in full-width digits (a Chinese input method's), is the code.
    @Test(arguments: [" %@", "%@\n", "\t%@ ", "\u{3000}%@\u{3000}", "%@" + String(repeating: " ", count: 58), "fullwidth"])
    func aCodeAsTypedIsTheCode(_ form: String) {
        var (code, state, request) = sent()
        let digits = code.reveal()
        let typed = form == "fullwidth"
            ? String(String.UnicodeScalarView(digits.unicodeScalars.map { Unicode.Scalar($0.value - 0x30 + 0xFF10)! }))
            : form.replacingOccurrences(of: "%@", with: digits)
        guard case .verified = rules.verify(&state, candidate: Secret(typed), number: Self.number, request, key: key, at: Self.t0) else {
            Issue.record("\(form) was not the code")
            return
        }
    }

    /// A wrong code typed as people type it (spaces around it, full-width digits) is a wrong code: it spends a try
    /// and counts toward the rules as any other.
    @Test func aWrongCodeAsTypedSpendsATry() {
        var (code, state, request) = sent()
        let wrong = code.reveal().first == "9" ? "0" + code.reveal().dropFirst() : "9" + code.reveal().dropFirst()
        let fullWidth = String(String.UnicodeScalarView(wrong.unicodeScalars.map { Unicode.Scalar($0.value - 0x30 + 0xFF10)! }))
        #expect(rules.verify(&state, candidate: Secret(" \(wrong) "), number: Self.number, request, key: key, at: Self.t0) == .wrong(attemptsLeft: 4))
        #expect(rules.verify(&state, candidate: Secret(fullWidth), number: Self.number, request, key: key, at: Self.t0) == .wrong(attemptsLeft: 3))
        let guesses = SMSPolicy.Counter(counts: .failedVerifies, key: .number, value: Self.number.digits)
        #expect(state.events[guesses]?.count == 2)
    }

    @Test func aNewSendReplacesTheCode() {
        var (first, state, request) = sent()
        let later = Self.t0.addingTimeInterval(61)
        let (second, record) = rules.issue(to: Self.number, session: nil, key: key, at: later)
        // (With a captcha: a second send from the same, here missing, address within an hour asks for one.)
        #expect(rules.admit(&state, request, captchaPassed: true, record: record, at: later) == .admit(resendAfter: later.addingTimeInterval(60)))
        if first.reveal() != second.reveal() {
            #expect(rules.verify(&state, candidate: first, number: Self.number, request, key: key, at: later) == .wrong(attemptsLeft: 4))
        }
        if case .verified = rules.verify(&state, candidate: second, number: Self.number, request, key: key, at: later) {} else {
            Issue.record("the new code must verify")
        }
    }

    @Test func aCodeSentForASessionVerifiesOnlyForIt() throws {
        let session = LoginSessionID.random()
        var (code, state, _) = sent(session: session)
        let other = SMSPolicy.Request(number: Self.number.digits, session: LoginSessionID.random().text)
        #expect(rules.verify(&state, candidate: code, number: Self.number, other, key: key, at: Self.t0) == .noCode)
        let none = SMSPolicy.Request(number: Self.number.digits)
        #expect(rules.verify(&state, candidate: code, number: Self.number, none, key: key, at: Self.t0) == .noCode)
        let own = SMSPolicy.Request(number: Self.number.digits, session: session.text)
        guard case .verified(let verdict) = rules.verify(&state, candidate: code, number: Self.number, own, key: key, at: Self.t0) else {
            Issue.record("the session's own verify must succeed"); return
        }
        #expect(verdict.session == session)
    }

    @Test func anotherKeyVerifiesNothing() {
        var (code, state, request) = sent()
        #expect(rules.verify(&state, candidate: code, number: Self.number, request, key: ServerKey.random(), at: Self.t0) == .wrong(attemptsLeft: 4))
    }

    /// A lock rule (a policy of an earlier version; the default has none) answers before any comparison.
    @Test func aLockAnswersBeforeAnyComparison() throws {
        let rules = SMSCodeRules(policy: try SMSPolicy(
            csv: "rule,key,counts,window_seconds,limit,over,lock_seconds,source\nnumber-guesses,number,failed-verifies,86400,10,lock,86400,x\n", file: "lock.csv"))
        let request = SMSPolicy.Request(number: Self.number.digits)
        let (code, record) = rules.issue(to: Self.number, session: nil, key: key, at: Self.t0)
        let guesses = SMSPolicy.Counter(counts: .failedVerifies, key: .number, value: Self.number.digits)
        var state = SMSState(events: [guesses: (0..<10).map { Self.t0.addingTimeInterval(Double($0)) }], counters: [], code: record, keepUntil: .distantFuture)
        let result = rules.verify(&state, candidate: code, number: Self.number, request, key: key, at: Self.t0.addingTimeInterval(20))
        #expect(result == .locked(rule: "number-guesses", until: Self.t0.addingTimeInterval(9 + 86_400)))
        #expect(state.code != nil, "a locked verify leaves the code as it was")
    }

    /// Past the default's daily bound (60 wrong codes for the number), a verify needs a captcha, and
    /// with one a wrong code kills the code at once: one try per code.
    @Test func pastTheDailyBoundAWrongCodeKillsTheCodeAtOnce() {
        var (code, state, request) = sent()
        let guesses = SMSPolicy.Counter(counts: .failedVerifies, key: .number, value: Self.number.digits)
        state.events[guesses] = (0..<60).map { Self.t0.addingTimeInterval(Double($0) - 100) }
        let wrong = Secret(code.reveal() == "000000" ? "000001" : "000000")
        let now = Self.t0.addingTimeInterval(1)
        #expect(rules.verify(&state, candidate: code, number: Self.number, request, key: key, at: now) == .captchaRequired(rule: "number-guesses", rejected: false))
        #expect(state.code?.wrongAttempts == 0, "nothing was compared")
        #expect(rules.verify(&state, candidate: wrong, number: Self.number, request, key: key, captchaPassed: true, at: now) == .wrong(attemptsLeft: 0))
        #expect(rules.verify(&state, candidate: code, number: Self.number, request, key: key, captchaPassed: true, at: now) == .tooManyAttempts)
        // The owner's fresh code, with a captcha, verifies.
        let (fresh, record) = rules.issue(to: Self.number, session: nil, key: key, at: now)
        state.code = record
        guard case .verified = rules.verify(&state, candidate: fresh, number: Self.number, request, key: key, captchaPassed: true, at: now) else {
            Issue.record("a fresh code with a captcha must verify past the bound"); return
        }
    }

    /// A send taken back gives its counts back only for a code that no verify tried, still its number's: a wrong guess
    /// made while its message was in flight keeps the send counted on the number (an attacker's read).
    @Test func aSendTakenBackGivesItsCountsBackOnlyForACodeNoVerifyTried() {
        let sends = SMSPolicy.Counter(counts: .sends, key: .number, value: Self.number.digits)
        let (code, untried, request) = sent()
        var state = untried
        rules.takeBack(&state, id: untried.code!.id, restoring: nil, request, countedAt: Self.t0, .neverLeft, at: Self.t0.addingTimeInterval(1))
        #expect(state.code == nil && state.events[sends] == [], "withdrawn, its count on the number back")

        var tried = untried
        let wrong = Secret(code.reveal() == "000000" ? "000001" : "000000")
        #expect(rules.verify(&tried, candidate: wrong, number: Self.number, request, key: key, at: Self.t0.addingTimeInterval(1)) == .wrong(attemptsLeft: 4))
        rules.takeBack(&tried, id: untried.code!.id, restoring: nil, request, countedAt: Self.t0, .neverLeft, at: Self.t0.addingTimeInterval(2))
        #expect(tried.code == nil && tried.events[sends] == [Self.t0], "withdrawn, still counted")

        var used = untried
        #expect(rules.verify(&used, candidate: code, number: Self.number, request, key: key, at: Self.t0.addingTimeInterval(1)).name == "verified")
        rules.takeBack(&used, id: untried.code!.id, restoring: nil, request, countedAt: Self.t0, .throttled, at: Self.t0.addingTimeInterval(2))
        #expect(used.events[sends] == [Self.t0], "a code a verify used stays counted")
    }

    @Test func aWithdrawnCodeIsGoneButOnlyIfItIsStillTheNumbersCode() {
        var (_, state, _) = sent()
        let id = state.code!.id
        rules.withdraw(&state, id: "another", restoring: nil, at: Self.t0)
        #expect(state.code?.id == id)
        rules.withdraw(&state, id: id, restoring: nil, at: Self.t0)
        #expect(state.code == nil)
    }
}
