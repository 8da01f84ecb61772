extension ExchangeLedger {
    /// Claims a token (``claim(_:for:at:)``); a claim whose write failed perhaps after it committed
    /// (``StoreError/writeMayHaveGoneIn``: a connection lost after the commit, or PostgreSQL's `timeout` with the
    /// statement sent) is read again, once (``reclaim(_:for:at:)``). The one claim of the login's exchange and of the
    /// number verification.
    /// - Parameters:
    ///   - token: The token's SHA-256.
    ///   - session: The login session (or verification owner) claiming it.
    ///   - now: The time.
    /// - Returns: Nil when the token is the caller's to send, else the entry as the ledger holds it.
    /// - Throws: ``StoreError`` when the ledger cannot be read or written (the token is then not sent).
    package func claimReadingBack(_ token: SHA256Digest, for session: LoginSessionID, at now: Date) async throws -> ExchangeLedgerEntry? {
        do {
            return try await claim(token, for: session, at: now)
        } catch let error as StoreError where error.writeMayHaveGoneIn {
            return try await reclaim(token, for: session, at: now)
        }
    }

    /// The token's entry after a claim made at `now` for `session` whose write's outcome is unknown (it failed, perhaps
    /// after it committed): nil when the ledger holds that very claim (pending for the session, claimed at `now` to the
    /// millisecond a store keeps, sent once), so the token is the caller's to send; else the entry as the ledger holds it
    /// (another caller's claim). With no entry, the token is claimed now. Without it, a claim whose answer was lost
    /// stayed pending with nothing under way: a login's every retry waited for an answer none would give, and a
    /// verification's retry was refused as a replay.
    /// - Parameters:
    ///   - token: The token's SHA-256.
    ///   - session: The login session (or verification owner) that claimed it.
    ///   - now: The claim's time.
    /// - Returns: Nil when the token is the caller's to send, else the ledger's entry.
    /// - Throws: ``StoreError`` when the ledger cannot be read or written.
    package func reclaim(_ token: SHA256Digest, for session: LoginSessionID, at now: Date) async throws -> ExchangeLedgerEntry? {
        guard let entry = try await claim(token, for: session, at: now) else { return nil }
        let own = entry.session == session && entry.state == .pending && entry.sends == 1 && abs(entry.claimedAt.timeIntervalSince(now)) < 0.001
        return own ? nil : entry
    }
}
