import Foundation
import Testing
@testable import OneTapCore

@Suite struct PlatformTests {
    @Test(arguments: [
        ("ios", "ios"), ("iOS", "ios"), ("Android", "android"), ("harmonyos", "harmonyos"), ("HarmonyOS", "harmonyos"),
        ("web", "web"), ("mini-program", "mini-program"), ("a", "a"), ("abcdefghijklmnop", "abcdefghijklmnop"), ("os2", "os2"),
    ])
    func accepted(text: String, id: String) throws {
        let platform = try Platform(text)
        #expect(platform.rawValue == id)
        #expect(Platform(rawValue: text)?.rawValue == id)
        #expect(platform.description == id)
    }

    @Test func theNamedPlatforms() {
        #expect(Platform.ios.rawValue == "ios")
        #expect(Platform.android.rawValue == "android")
        #expect(Platform.harmonyOS.rawValue == "harmonyos")
    }

    @Test(arguments: [
        ("", ParseError.Kind.empty),
        ("i os", .invalidCharacter),
        ("ios\n", .invalidCharacter),
        ("安卓", .invalidCharacter),
        ("ios_16", .invalidCharacter),
        ("abcdefghijklmnopq", .wrongLength),
    ])
    func refused(text: String, kind: ParseError.Kind) {
        #expect(Platform(rawValue: text) == nil)
        #expect {
            try Platform(text)
        } throws: { error in
            (error as? ParseError)?.kind == kind && (error as? ParseError)?.subject == .platform
        }
    }
}
