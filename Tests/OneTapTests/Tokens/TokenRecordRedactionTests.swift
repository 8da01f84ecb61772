import Foundation
import Testing
@testable import OneTap

/// A token file's record never shows its tokens in `description`, `dump` or a mirror (a standards audit: the default
/// mirror of the internal record printed both as plain text).
@Suite struct TokenRecordRedactionTests {
    @Test func noTokenInDescriptionDumpOrMirror() throws {
        let issued = Date(timeIntervalSince1970: 1_796_083_200)
        let token = AccessToken(
            value: Secret("A0-secret-access"), refreshToken: Secret("R0-secret-refresh"), flow: .tianyi, account: "42", issuedAt: issued,
            expiresAt: issued.addingTimeInterval(30 * 86_400))
        let record = TokenRecord(StoredToken(token: token, version: TokenVersion(3)), dueAt: issued)
        var dumped = ""
        dump(record, to: &dumped)
        let shown = [record.description, String(reflecting: record), dumped] + Mirror(reflecting: record).children.map { "\($0.value)" }
        for text in shown { #expect(!text.contains("secret"), "\(text)") }
        #expect(record.description == "TokenRecord(account 42, version 3, tianyi)")
        #expect(dumped.contains("account") && dumped.contains("dueAtMs"))
    }
}
