import Foundation

// Writing a carrier's answer over the token it replaces.

extension TokenRefresh {
    /// Writes a token over the stored one it replaces; when the write meets a version conflict but the store still holds
    /// that very token (another writer saved it again without changing it: an instance whose refresh with the old refresh
    /// token was refused moves its due time so, on a store whose lock does not span instances or after a lease was lost),
    /// the write is made over the newer version instead. The token may carry the only refresh token the carrier still
    /// takes; a write that changed nothing must not cost it (``UnsavedTokens/token(for:over:)`` keeps a kept token over
    /// such a version for the same reason).
    ///
    /// The token "is still the replaced one" when its access token, refresh token and flow are (its instants are compared
    /// by no store: one that keeps milliseconds reads back another `Date` than a token kept in memory). With
    /// `overAnExpiredRotation`, a usable answer that rotated the refresh token is written over one more: the replaced
    /// access token, expired, stored again by another writer with another refresh token (an overlapping refresh whose
    /// answer could not be served kept it so): no caller can be served that one, and the answer's access token can.
    /// Never over a login's token, nor over a rotation when the answer rotated nothing (its refresh token would be one
    /// the other rotation retired).
    /// - Parameters:
    ///   - token: The token to write.
    ///   - current: The stored token and version it replaces.
    ///   - basis: A newer token it replaces too, kept in memory over `current` (a write of it whose outcome was unknown
    ///     may have landed): found stored, it is the replaced one as well.
    ///   - wanted: Whether the write is still wanted (false once the account logged out): checked before each write
    ///     again, so a logout followed by a login of the same token is never overwritten.
    ///   - overAnExpiredRotation: Whether `token` is a carrier's answer that may go over another refresh's expired
    ///     rotation of the replaced token (false once a login superseded the refresh, and for a kept token): asked at
    ///     each conflict.
    ///   - save: Writes the token over a version, returning the version written.
    /// - Returns: The version written, or nil when another writer stored another usable token (a refresh elsewhere, a
    ///   login) or none (a logout), or the write is no longer wanted: theirs stands.
    /// - Throws: What `save` throws but a conflict; ``StoreError`` of kind `io` when the store cannot be read back after
    ///   a conflict or reads back no newer version of the replaced token, or `conflict` when the replaced token was saved
    ///   again at every one of ``saveAttempts`` writes: the caller keeps the token (in memory) as after any failed write,
    ///   never drops it as if another had won.
    func saveOverTheReplaced(
        _ token: AccessToken, _ current: StoredToken, alsoReplacing basis: AccessToken? = nil, while wanted: () -> Bool = { true },
        overAnExpiredRotation: () -> Bool = { false }, _ save: (TokenVersion) async throws -> TokenVersion
    ) async throws -> TokenVersion? {
        var expected = current.version
        for _ in 0..<Self.saveAttempts {
            do {
                return try await save(expected)
            } catch let error as StoreError where error.kind == .conflict {
                let latest: StoredToken?
                do {
                    latest = try await store.load(token.account)
                } catch {
                    throw StoreError(.io, account: token.account, message: "the token could not be read back after a version conflict: \(error)")
                }
                guard wanted(), let latest,
                    Self.isReplaced(latest.token, current.token, basis)
                        || overAnExpiredRotation() && isExpiredRotation(latest.token, of: current.token, basis, answeredBy: token)
                else { return nil }
                // A conflict over the very version written over, or an older one, is the store's failure, not another
                // writer's win (a store reading a lagging replica after it): the caller keeps the token, as after any
                // failed write.
                guard latest.version > expected else {
                    throw StoreError(.io, account: token.account, message: "the store reported a version conflict but reads back no newer version")
                }
                expected = latest.version
            }
        }
        throw StoreError(
            .conflict, account: token.account, message: "the replaced token was saved again at each of \(Self.saveAttempts) writes; the new one is kept")
    }

    /// Whether the stored token is the replaced access token, expired, kept by another writer with another refresh
    /// token, and the answer to write is usable and rotated the refresh token it was sent with.
    private func isExpiredRotation(_ stored: AccessToken, of current: AccessToken, _ basis: AccessToken?, answeredBy token: AccessToken) -> Bool {
        let now = clock.now(), sent = basis ?? current
        let sameAccessToken = stored.flow == token.flow && (stored.value == current.value || stored.value == basis?.value)
        return sameAccessToken && token.refreshToken != sent.refreshToken
            && policy.state(of: stored, at: now) == .expired && policy.state(of: token, at: now) != .expired
    }

    /// Whether two tokens are one token for ``saveOverTheReplaced(_:_:alsoReplacing:while:overAnExpiredRotation:_:)``: the same access token,
    /// refresh token and flow.
    private static func sameToken(_ one: AccessToken, _ other: AccessToken) -> Bool {
        one.value == other.value && one.refreshToken == other.refreshToken && one.flow == other.flow
    }

    /// Whether a stored token is one a write replaces: the stored token it was read over, or the newer one kept in
    /// memory over it.
    /// - Parameters:
    ///   - stored: The token the store holds now.
    ///   - current: The stored token the write was made over.
    ///   - basis: The kept token, if any.
    /// - Returns: True when `stored` is either.
    static func isReplaced(_ stored: AccessToken, _ current: AccessToken, _ basis: AccessToken?) -> Bool {
        sameToken(stored, current) || basis.map { sameToken(stored, $0) } ?? false
    }

    /// Writes a token the carrier answered over the stored one it replaces (``saveOverTheReplaced(_:_:alsoReplacing:while:overAnExpiredRotation:_:)``),
    /// despite the refresh's cancellation (``saveDespiteCancellation(_:replacing:)``), until the account logs out.
    /// - Parameters:
    ///   - token: The token to write.
    ///   - current: The stored token and version it replaces.
    ///   - basis: The token the refresh started from (`current`'s, or a newer one kept in memory over it).
    ///   - flight: The refresh, whose logout stops the writes.
    /// - Returns: The version written, or nil when another writer's token stands (or the account logged out).
    /// - Throws: As ``saveOverTheReplaced(_:_:alsoReplacing:while:overAnExpiredRotation:_:)``.
    func saveAnswer(_ token: AccessToken, over current: StoredToken, from basis: AccessToken, for flight: RefreshFlight) async throws -> TokenVersion? {
        try await saveOverTheReplaced(token, current, alsoReplacing: basis, while: { !flight.loggedOut }, overAnExpiredRotation: { !flight.superseded }) {
            try await self.saveDespiteCancellation(token, replacing: $0)
        }
    }

    /// How many writes ``saveOverTheReplaced(_:_:alsoReplacing:while:overAnExpiredRotation:_:)`` makes while other writers only save the replaced token again.
    static let saveAttempts = 4

    /// Writes a token the carrier answered, even when the refresh's task was cancelled meanwhile (the vault stopping):
    /// the carrier may have rotated the refresh token and retired the stored one, so a write the cancellation broke
    /// would leave the store with a refresh token the carrier refuses.
    /// - Parameters:
    ///   - token: The token.
    ///   - version: The version it replaces.
    /// - Returns: The version written.
    /// - Throws: What the store's `save` throws.
    private func saveDespiteCancellation(_ token: AccessToken, replacing version: TokenVersion) async throws -> TokenVersion {
        let store = store, dueAt = policy.dueAt(token)
        return try await writeDespiteCancellation { try await store.save(token, replacing: version, dueAt: dueAt) }
    }
}
