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
        unsaved.keep(Self.token, over: StoredToken(token: Self.old, version: TokenVersion(2)))
        #expect(unsaved.token(for: "u1", over: StoredToken(token: Self.old, version: TokenVersion(1))) == nil)
        #expect(unsaved.token(for: "u1", over: StoredToken(token: Self.old, version: TokenVersion(2))) == Self.token)
        // A newer version of another token: someone wrote since; forgotten.
        #expect(unsaved.token(for: "u1", over: StoredToken(token: Self.login, version: TokenVersion(3))) == nil)
        #expect(unsaved.token(for: "u1", over: StoredToken(token: Self.old, version: TokenVersion(2))) == nil)
    }

    /// A review: instance B, which could not see the token A kept, refreshed with the old refresh token, was refused
    /// (the carrier had rotated it for A), and re-saved the very token A's replaced to move its due date. That newer
    /// version forgot A's token, whose refresh token was the only one the carrier still took. It is kept over the
    /// newer version now, and written over it.
    @Test func aNewerVersionOfTheVeryTokenItReplacedKeepsIt() {
        var unsaved = UnsavedTokens()
        unsaved.keep(Self.token, over: StoredToken(token: Self.old, version: TokenVersion(2)))
        #expect(unsaved.token(for: "u1", over: StoredToken(token: Self.old, version: TokenVersion(3))) == Self.token)
        #expect(unsaved.token(for: "u1", over: StoredToken(token: Self.old, version: TokenVersion(2))) == nil, "kept over 3 now")
        #expect(unsaved.token(for: "u1", over: StoredToken(token: Self.old, version: TokenVersion(3))) == Self.token)
    }

    /// The token the kept one replaced, and a login's new token.
    static let old = AccessToken(
        value: Secret("AT-old"), refreshToken: Secret("RT-old"), flow: .tianyi, account: "u1", issuedAt: issued.addingTimeInterval(-86_400),
        expiresAt: issued.addingTimeInterval(29 * 86_400))
    static let login = AccessToken(
        value: Secret("AT-login"), refreshToken: Secret("RT-login"), flow: .tianyi, account: "u1", issuedAt: issued,
        expiresAt: issued.addingTimeInterval(30 * 86_400))
}
