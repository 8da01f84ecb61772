import Foundation
import Testing
@testable import OneTapCore

/// The app session's pending guest merge (`unmergedGuest`, issue 21) in its JSON: the golden files
/// written before the member existed read with none pending and write back byte for byte; the golden
/// files with it (`account-unmerged-guest`, `account-unmerged-guest-elsewhere`, written with Python) read and write
/// back byte for byte.
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

    /// The earlier form, `unmergedGuest`, reads as a merge into the session's own account, and is written back as
    /// `pendingGuest` and `pendingInto`: the version that wrote `unmergedGuest` reads it as "into the account the
    /// session is in now" and kept it when the session logged in to another, so, running beside this one, it merged
    /// the guest into that other account (a review). It does not read the names written now: it leaves the data with
    /// the guest.
    @Test func aRecordWithAPendingMergeReadsAndIsWrittenInTheFormNoEarlierVersionMisreads() throws {
        let text = try Self.golden("account-unmerged-guest")
        let record = try AppSessionRecord(json: text)
        #expect(record.unmergedGuest == (try GuestID("GoldenGuest-app-000004")))
        let withoutIt = try AppSessionRecord(json: try Self.golden("account-with-hint"))
        var expected = withoutIt
        expected.pendingMerge = .init(guest: try GuestID("GoldenGuest-app-000004"), account: "42")
        #expect(record == expected, "the same session as account-with-hint, with the pending guest, into its own account")
        let written = try record.json()
        #expect(written == text.replacingOccurrences(
            of: #""unmergedGuest":"GoldenGuest-app-000004""#, with: #""pendingGuest":"GoldenGuest-app-000004","pendingInto":"42""#))
        #expect(!written.contains("unmergedGuest"))
        #expect(try AppSessionRecord(json: written) == record)
    }

    /// A session that logged in to account 99 while the merge of its former guest into account 42 (the login
    /// that guest made) is pending keeps the merge bound to 42 (an attacker's read found the merge followed the
    /// session into 99, a stranger's account on a shared device).
    @Test func aPendingMergeIntoAnotherAccountThanTheSessionsReadsAndWritesBackByteForByte() throws {
        let text = try Self.golden("account-unmerged-guest-elsewhere")
        let record = try AppSessionRecord(json: text)
        #expect(record.account == "99")
        #expect(record.pendingMerge == .init(guest: try GuestID("GoldenGuest-app-000004"), account: "42"))
        #expect(try record.json() == text)
    }

    @Test(arguments: [
        (#","pendingGuest":"GoldenGuest-app-000004""#, "", "pendingGuest"),
        (#","pendingInto":"42""#, "", "pendingInto"),
        (#""pendingInto":"42""#, #""pendingInto":"42","unmergedGuest":"GoldenGuest-app-000004""#, "pendingGuest"),
    ])
    func aPendingMergeWithAHalfMissingOrTwiceIsRefusedNamingTheMember(cut: String, replacement: String, member: String) throws {
        let text = try Self.golden("account-unmerged-guest-elsewhere").replacingOccurrences(of: cut, with: replacement)
        #expect(text != (try Self.golden("account-unmerged-guest-elsewhere")))
        #expect { try AppSessionRecord(json: text) } throws: { "\($0)".contains(member) }
    }

    @Test func aGuestsSessionWithAGuestToMergeIntoItselfIsRefusedNamingTheMember() throws {
        // A guest's session never holds a pending merge: no version wrote one, and one with no account is refused.
        let text = try Self.golden("account-unmerged-guest").replacingOccurrences(of: #""account":"42""#, with: #""guest":"GoldenGuest-app-000009""#)
        #expect { try AppSessionRecord(json: text) } throws: { "\($0)".contains("unmergedGuest") }
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
