import Foundation
import Testing
@testable import OneTapCore

/// The app session's pending guest merge (`unmergedGuest`, issue 21) in its JSON: the golden files
/// written before the member existed read with none pending and write back byte for byte; the golden
/// file with it (`account-unmerged-guest`, written with Python) reads and writes back byte for byte.
@Suite struct AppSessionRecordUnmergedGuestTests {
    static func golden(_ name: String) throws -> String {
        String(decoding: try Data(contentsOf: URL(fileURLWithPath: Package.path("Tests/Golden/app-session/\(name).json"))), as: UTF8.self)
    }

    @Test(arguments: ["guest-fresh", "account-rotated", "revoked-reuse", "account-with-hint"])
    func aRecordWrittenBeforeTheMemberHasNoPendingMerge(name: String) throws {
        let text = try Self.golden(name)
        let record = try AppSessionRecord(json: text)
        #expect(record.unmergedGuest == nil)
        #expect(try record.json() == text, "written back byte for byte, with no unmergedGuest member")
    }

    @Test func aRecordWithAPendingMergeReadsAndWritesBackByteForByte() throws {
        let text = try Self.golden("account-unmerged-guest")
        let record = try AppSessionRecord(json: text)
        #expect(record.unmergedGuest == (try GuestID("GoldenGuest-app-000004")))
        let withoutIt = try AppSessionRecord(json: try Self.golden("account-with-hint"))
        var expected = withoutIt
        expected.unmergedGuest = try GuestID("GoldenGuest-app-000004")
        #expect(record == expected, "the same session as account-with-hint, with the pending guest")
        #expect(try record.json() == text)
    }

    @Test func aPendingGuestThatIsNoGuestIdIsRefusedNamingTheMember() throws {
        let text = try Self.golden("account-unmerged-guest").replacingOccurrences(of: "GoldenGuest-app-000004", with: "not a guest")
        #expect(throws: DecodingError.self) { try AppSessionRecord(json: text) }
        do {
            _ = try AppSessionRecord(json: text)
        } catch {
            #expect("\(error)".contains("unmergedGuest"), "\(error)")
        }
    }
}
