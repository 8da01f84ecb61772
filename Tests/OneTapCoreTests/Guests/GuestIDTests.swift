import Foundation
import Testing
@testable import OneTapCore

@Suite struct GuestIDTests {
    let key = ServerKey.random()

    @Test func theSameDeviceGetsTheSameGuestWhileItKeepsItsID() throws {
        let device = try DeviceID("9774d56d682e549c")
        let first = GuestID.derive(device: device, generation: 0, key: key)
        #expect(GuestID.derive(device: device, generation: 0, key: key) == first)
        #expect(GuestID.derive(device: try DeviceID("9774d56d682e549d"), generation: 0, key: key) != first)
        #expect(GuestID.derive(device: device, generation: 1, key: key) != first, "a logout makes a new guest")
        #expect(GuestID.derive(device: device, generation: 0, key: .random()) != first, "another key, another id")
        #expect(first.text.utf8.count == 22 && !first.text.contains("9774"))
        #expect(GuestID.recordKey(device: device, key: key) != first.text)
        #expect(try GuestID(first.text) == first)
    }

    /// Known vectors, computed outside the project with openssl (key: 32 bytes of 0x0b), e.g.
    /// `printf 'onetap-guest-1\0d1\0000' | openssl dgst -sha256 -mac HMAC -macopt hexkey:0b0b… -binary | head -c 16
    /// | base64 | tr '+/' '-_' | tr -d '='` (the message bytes checked with xxd: `…2d31 0064 3100 30`).
    @Test func knownVectors() throws {
        let key = try ServerKey(bytes: [UInt8](repeating: 0x0b, count: 32))
        let device = try DeviceID("d1")
        #expect(GuestID.derive(device: device, generation: 0, key: key).text == "wSTCyr5pXFNe5AKjTmkGfA")
        #expect(GuestID.derive(device: device, generation: 1, key: key).text == "cqyELueZIiLswTYZp_zb8Q")
        #expect(GuestID.recordKey(device: device, key: key) == "NFQpr0iNmwDvgBHyq2G1Rw")
    }

    @Test(arguments: ["", "short", String(repeating: "A", count: 23), "AAAAAAAAAAAAAAAAAAAA+/"])
    func aBadIDIsRefused(_ text: String) {
        #expect(throws: ParseError.self) { try GuestID(text) }
    }

    @Test func theHintKeepsOnlyTheMaskedNumber() throws {
        let hint = LastLoginHint(flow: .mobile, number: try PhoneNumber("13800138000"), at: Date(timeIntervalSince1970: 0))
        let json = try hint.json()
        #expect(hint.maskedNumber == "138****8000" && !json.contains("13800138000") && hint.wasOneTap)
        #expect("\(hint)" == "one-tap (mobile) 138****8000")
        #expect(LastLoginHint(flow: .sms, number: nil, at: Date(timeIntervalSince1970: 0)).description == "sms")
    }
}
