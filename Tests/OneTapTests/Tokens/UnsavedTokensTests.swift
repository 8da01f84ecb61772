import Foundation
import Testing
@testable import OneTap

/// What the vault keeps of a refreshed token its store failed to write: served over the version it replaces,
/// forgotten once another writer stored a newer one, and never on a reader's older view.
@Suite struct UnsavedTokensTests {
    static let issued = Date(timeIntervalSince1970: 1_796_083_200)
    static let token = AccessToken(
        value: Secret("AT-rotated"), refreshToken: Secret("RT-rotated"), flow: .tianyi, account: "u1", issuedAt: issued,
        expiresAt: issued.addingTimeInterval(30 * 86_400))

    /// An attacker's read: a caller that read version 1 before the hop onto the vault, while another instance wrote
    /// version 2 and this vault kept a refreshed token over 2, made the vault forget it (the carrier's rotated
    /// refresh token with it: the next refresh carried a dead one and the account logged in again).
    @Test func aReadOlderThanTheKeptTokensVersionForgetsNothing() {
        var unsaved = UnsavedTokens()
        unsaved.keep(Self.token, over: TokenVersion(2))
        #expect(unsaved.token(for: "u1", over: TokenVersion(1)) == nil)
        #expect(unsaved.token(for: "u1", over: TokenVersion(2)) == Self.token)
        // A newer version: someone wrote since; forgotten.
        #expect(unsaved.token(for: "u1", over: TokenVersion(3)) == nil)
        #expect(unsaved.token(for: "u1", over: TokenVersion(2)) == nil)
    }
}
