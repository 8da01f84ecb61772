import Foundation
import OneTapTesting
import Testing
@testable import OneTap

/// Issue 20, item 2: an SMS code's digest is checked under every key of the ring, so rotating the
/// signing key does not invalidate the codes already sent; a retired key's codes stop verifying.
@Suite struct SMSCodeKeyRotationTests {
    static let first = "k1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="
    static let second = "k2:ZGVmZ2hpamtsbW5vcHFyc3R1dnd4eXp7fH1+f4CBgoM="
    static let number = try! PhoneNumber("13800138000")

    @Test(arguments: [("\(second)\n\(first)", "verified"), (second, "wrong-code")])
    func aCodeSentUnderTheOldKey(ring: String, expected: String) async throws {
        let store = InMemorySMSStore()
        let sender = ScriptedSMSSender()
        let clock = FakeClock()
        let before = SMSCodeService(keys: try ServerKeyRing(parsing: Secret(Self.first)), sender: sender, store: store, events: DiscardingEventSink(), clock: clock)
        _ = try await before.send(to: Self.number.digits, context: SMSContext(session: .testSession))
        let code = try #require(sender.lastCode(to: Self.number))
        let after = SMSCodeService(keys: try ServerKeyRing(parsing: Secret(ring)), sender: sender, store: store, events: DiscardingEventSink(), clock: clock)
        #expect(try await after.verify(code, for: Self.number, context: SMSContext(session: .testSession)).name == expected)
    }
}
