/// Every rule of an app session's refresh tokens, pure: opening, rotating with reuse detection (RFC 9700
/// §4.14.2: any earlier token of the family revokes it), logging in and revoking. The random bytes come
/// from the caller (`AppSessions` draws them from the system's CSPRNG); the store and the clock are the
/// caller's too.
package struct AppSessionRules: Sendable {
    /// The lifetimes and the grace.
    package let policy: AppSessionPolicy
    /// The server's keys.
    package let keys: ServerKeyRing

    package init(policy: AppSessionPolicy, keys: ServerKeyRing) {
        self.policy = policy
        self.keys = keys
    }

    /// What a refresh comes to.
    package enum Refresh: Sendable {
        /// The presented token was current: store the record (compare-and-swap on the version it was
        /// made from) and answer the successor.
        case rotated(AppSessionRecord, successor: Secret)
        /// The presented token was rotated within the grace: answer the same successor; nothing to store.
        case repeated(AppSessionRecord, successor: Secret)
        /// The presented token was rotated before the grace, or is older: the family is revoked; store it.
        case reused(AppSessionRecord)
        /// Refused, nothing to store.
        case refused(AppSessionError.Kind)
    }

    /// A new guest session.
    /// - Parameters:
    ///   - id: Its id (random).
    ///   - guest: Its guest (random).
    ///   - secret: 32 random bytes: the seed of its refresh tokens' family.
    ///   - carried: The last login it carries, its hint and its number's digest: those of the session a logout ended,
    ///     nil at a first open.
    ///   - now: The time.
    /// - Returns: The record (version 1) and the refresh token (generation 1).
    package func open(
        id: AppSessionID, guest: GuestID, secret: [UInt8], carrying carried: AppSessionRecord.LastLogin? = nil, at now: Date
    ) -> (record: AppSessionRecord, refreshToken: Secret) {
        let family = AppSessionRecord.Family(seed: secret, generation: 1)
        let token = RefreshDigests.token(session: id, family: family, key: keys.signing)
        let record = AppSessionRecord(
            id: id, version: 1, identity: .guest(guest), createdAt: now, current: digest(token), expiresAt: now.addingTimeInterval(policy.refreshLifetime.seconds),
            previous: nil, ancestors: [], family: family, revoked: nil, lastLogin: carried?.hint, lastNumber: carried?.number)
        return (record, token)
    }

    /// Decides a refresh.
    /// - Parameters:
    ///   - record: The session the token names.
    ///   - presented: The token.
    ///   - nonce: 32 random bytes: kept with the rotated token, and the seed of a new family when the session's
    ///     current token is of format 1 (or its family has reached its last generation).
    ///   - now: The time.
    /// - Returns: What to store and answer.
    /// - Complexity: At most 2 + ``AppSessionPolicy/ancestors`` + (keys in the ring) HMACs.
    package func refresh(_ record: AppSessionRecord, presented: PresentedRefreshToken, nonce: [UInt8], at now: Date) -> Refresh {
        // A revoked session says so only to a token it issued: a made-up one learns nothing of its user's logout.
        guard record.revoked == nil else { return .refused(issued(presented, by: record) ? .revoked : .invalid) }
        if matches(presented, record.current) {
            guard now < record.expiresAt else { return .refused(.expired) }
            let family: AppSessionRecord.Family
            if let current = record.family, current.generation < PresentedRefreshToken.lastGeneration {
                family = AppSessionRecord.Family(seed: current.seed, generation: current.generation + 1)
            } else {
                family = AppSessionRecord.Family(seed: nonce, generation: 1)
            }
            let successor = RefreshDigests.token(session: record.id, family: family, key: keys.signing)
            var next = record
            next.version += 1
            next.ancestors = Array(([record.previous?.token].compactMap { $0 } + record.ancestors).prefix(policy.ancestors))
            next.previous = AppSessionRecord.Rotated(token: record.current, rotatedAt: now, nonce: nonce)
            next.current = digest(successor)
            next.family = family
            next.expiresAt = now.addingTimeInterval(policy.refreshLifetime.seconds)
            return .rotated(next, successor: successor)
        }
        if let previous = record.previous, matches(presented, previous.token) {
            if now < previous.rotatedAt.addingTimeInterval(policy.grace.seconds) {
                // An instance whose ring lacks the key the rotation used (a key rollout under way) cannot
                // answer the successor: refused, never taken for reuse.
                guard let key = keys.key(record.current.keyID) else { return .refused(.invalid) }
                let successor = record.family.map { RefreshDigests.token(session: record.id, family: $0, key: key) }
                    ?? RefreshDigests.legacySuccessor(of: presented.token, session: record.id, nonce: previous.nonce, key: key)
                // The successor is what the rotation stored; anything else is not ours to answer.
                guard HMACSHA256.constantTimeEquals(RefreshDigests.digest(successor, key: key), record.current.digest) else {
                    return .refused(.invalid)
                }
                guard now < record.expiresAt else { return .refused(.expired) }
                return .repeated(record, successor: successor)
            }
            return .reused(revoke(record, .reuse, at: now))
        }
        if isOlder(presented, than: record) {
            return .reused(revoke(record, .reuse, at: now))
        }
        // A token this session never issued (or one under a retired key): refused, and nothing revoked, so
        // that knowing a session's id (no secret) lets no one end it.
        return .refused(.invalid)
    }

    /// A login in the session: the account acts in it from now on, with a new refresh token of a new family;
    /// the tokens issued before (the guest's) are forgotten, so one planted before the login (session
    /// fixation) neither works nor, presented, ends the session.
    /// - Parameters:
    ///   - record: The session.
    ///   - account: The account.
    ///   - hint: How it logged in (the session's last-login hint from now on; its number masked).
    ///   - number: The number it logged in with, if known: its keyed digest is kept (``AppSessionRecord/lastNumber``).
    ///   - secret: 32 random bytes: the seed of the new family.
    ///   - now: The time.
    /// - Returns: The record to store and the new refresh token (generation 1).
    package func login(
        _ record: AppSessionRecord, account: AccountID, hint: LastLoginHint, number: PhoneNumber? = nil, secret: [UInt8], at now: Date
    ) -> (record: AppSessionRecord, refreshToken: Secret) {
        let family = AppSessionRecord.Family(seed: secret, generation: 1)
        let token = RefreshDigests.token(session: record.id, family: family, key: keys.signing)
        var next = record
        next.version += 1
        next.identity = .account(account)
        // The new login epoch: the whole second after the login, and a second past the last epoch at least, so
        // every login moves it on, even one on an instance whose clock is behind the one that logged the session
        // in last. Tokens of format 2 carry the epoch they were issued in, so none issued before the login stands
        // after it, whatever clock issued it; those of format 1 carry whole seconds only, so one issued in the
        // login's own second, before it, must not stand: those issued from now on are dated from here.
        next.identitySince = max(now.wholeSeconds.addingTimeInterval(1), (record.identitySince ?? .distantPast).addingTimeInterval(1))
        next.lastLogin = hint
        next.lastNumber = number.map { AppSessionRecord.Digest(keyID: keys.signingID, digest: Self.numberDigest($0, key: keys.signing)) }
        next.current = digest(token)
        next.expiresAt = now.addingTimeInterval(policy.refreshLifetime.seconds)
        next.previous = nil
        next.ancestors = []
        next.family = family
        return (next, token)
    }

    /// The record once its pending guest-data merge went in: none pending, the next version, and a revoked one kept only
    /// until the access tokens issued before its revocation are out, as ``revoke(_:_:at:)`` keeps one without a merge.
    /// - Parameter record: The session, its merge pending.
    /// - Returns: The record to store.
    package func merged(_ record: AppSessionRecord) -> AppSessionRecord {
        var next = record
        next.pendingMerge = nil
        next.version += 1
        if let revoked = record.revoked {
            next.expiresAt = min(record.expiresAt, revoked.at.addingTimeInterval(policy.accessLifetime.seconds))
        }
        return next
    }

    /// Revokes a session (its refresh tokens stop working; access tokens checked with the store too). Its
    /// last-login hint is dropped: a revoked session shows it to no one (a logout hands it to the fresh
    /// guest session it opens, from the record before the revocation). The record is kept only until the access
    /// tokens issued before it are out (``AppSessionPolicy/accessLifetime`` from now, or its own expiry when sooner),
    /// then swept: once gone, its access tokens are still refused (`revoked`: no record) and its refresh tokens too
    /// (`invalid` rather than `revoked`). Kept for the refresh tokens' 30 days, each logout (which opens a guest
    /// session) left a row that long, and a session logged out in a loop grew the store without bound. A record whose
    /// login's guest-data merge is still pending (``AppSessionRecord/pendingMerge``) keeps its own expiry, for the
    /// background that finishes such merges (`AppSessions.run(every:)`): swept two hours after the logout, its guest's
    /// data was stranded for good (a review). Once merged, it goes as every revoked one (``merged(_:)``): one login's
    /// row at most, no longer than the session would have lived.
    /// - Parameters:
    ///   - record: The session.
    ///   - reason: Why.
    ///   - now: The time.
    /// - Returns: The record to store (unchanged when it was revoked already).
    package func revoke(_ record: AppSessionRecord, _ reason: AppSessionRecord.Revocation, at now: Date) -> AppSessionRecord {
        guard record.revoked == nil else { return record }
        var next = record
        next.version += 1
        next.revoked = (now, reason)
        if record.pendingMerge == nil { next.expiresAt = min(record.expiresAt, now.addingTimeInterval(policy.accessLifetime.seconds)) }
        next.lastLogin = nil
        next.lastNumber = nil
        return next
    }

    /// How long after a login a session vouches for its number (``vouches(for:in:at:)``): 30 days, whatever the
    /// refresh tokens' lifetime (a session refreshed for a year does not vouch for a year: a number given up and
    /// handed to someone else must not keep a lane for its former holder).
    package static let vouchingLifetime: Duration = .seconds(30 * 86_400)

    /// Whether a session vouches that its app logged in with a number: the number of its last login (or of the
    /// login its logout carried over) is this one, that login was less than ``vouchingLifetime`` (30 days) ago, and
    /// the session stands. What gives a returning owner's SMS sends a lane of their own past the number's daily cap and
    /// the hour's ceiling on every send (`number-lane` and `global-lane` in `Data/sms-policy.csv`), which strangers cannot
    /// fill without numbers of their own.
    /// - Parameters:
    ///   - number: The number a send is for.
    ///   - record: The session the request proved (its access token's).
    ///   - now: The time.
    /// - Returns: True when it vouches; false for another number, an older login, a digest under a key the ring
    ///   no longer has, a session without one, or a revoked session.
    /// - Complexity: One HMAC.
    package func vouches(for number: PhoneNumber, in record: AppSessionRecord, at now: Date) -> Bool {
        guard record.revoked == nil, let proof = record.lastNumber, let login = record.lastLogin,
              now.timeIntervalSince(login.at) < Self.vouchingLifetime.seconds, let key = keys.key(proof.keyID)
        else { return false }
        return HMACSHA256.constantTimeEquals(Self.numberDigest(number, key: key), proof.digest)
    }

    /// HMAC-SHA-256(key, "onetap-number-1" ‖ 0 ‖ the number's digits): what a record keeps of its last login's number.
    static func numberDigest(_ number: PhoneNumber, key: ServerKey) -> SHA256Digest {
        var message = Array("onetap-number-1".utf8)
        message.append(0)
        message.append(contentsOf: number.digits.utf8)
        return key.hmac.authenticationCode(for: message)
    }

    /// Whether an access token's claims still stand against the session's record: not revoked, the same
    /// identity, and issued in the session's current login: a token of format 2 carries the login epoch it was
    /// issued in (``AccessClaims/epoch`` is ``AppSessionRecord/epoch``), which no token issued before the login
    /// can carry, whatever clock issued it; one of format 1 (no epoch, issued before format 2) must be dated no
    /// earlier than ``AppSessionRecord/identitySince`` (the whole second after the session's last login). No token
    /// from before a login counts after it: a guest's, nor the account's own when it logs in again, not one issued
    /// in the login's own second, nor one an instance whose clock is ahead dated after the login (a token stolen
    /// before cannot take the new login's account step, nor log the owner out). A token of the current epoch
    /// stands whatever its issue time, so an instance whose clock is behind the one that ran the login dates it
    /// by its own clock, and it lasts the access lifetime from then, never longer.
    package func stands(_ claims: AccessClaims, in record: AppSessionRecord) -> Bool {
        guard record.revoked == nil, record.id == claims.session, record.identity == claims.identity else { return false }
        if let epoch = claims.epoch { return epoch == record.epoch }
        return record.identitySince.map { claims.issuedAt >= $0 } ?? true
    }

    private func digest(_ token: Secret) -> AppSessionRecord.Digest {
        AppSessionRecord.Digest(keyID: keys.signingID, digest: RefreshDigests.digest(token, key: keys.signing))
    }

    /// Whether the session issued the token: its current one, the one rotated last, or an older one (``isOlder(_:than:)``).
    private func issued(_ presented: PresentedRefreshToken, by record: AppSessionRecord) -> Bool {
        matches(presented, record.current) || record.previous.map { matches(presented, $0.token) } == true
            || isOlder(presented, than: record)
    }

    /// Whether the token is one the session rotated before its previous one: a kept ancestor, or any earlier
    /// generation of the current family, however old (its code proves the server issued it).
    private func isOlder(_ presented: PresentedRefreshToken, than record: AppSessionRecord) -> Bool {
        if record.ancestors.contains(where: { matches(presented, $0) }) { return true }
        guard let family = record.family, let generation = presented.generation else { return false }
        return generation < family.generation && presented.session == record.id && presented.belongs(to: family, keys: keys)
    }

    private func matches(_ presented: PresentedRefreshToken, _ stored: AppSessionRecord.Digest) -> Bool {
        guard let key = keys.key(stored.keyID) else { return false }
        return HMACSHA256.constantTimeEquals(presented.digest(under: key), stored.digest)
    }
}
