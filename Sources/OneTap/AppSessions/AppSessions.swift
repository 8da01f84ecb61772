/// The app's own sessions with the auth server: a guest session at first open, the same session moved
/// to the account at a login with new credentials, refreshed when the app opens, revoked at logout.
///
/// ```swift
/// let sessions = AppSessions(keys: try ServerKeyRing(parsing: Secret(environment["ONETAP_SERVER_KEYS"] ?? "")), store: shared)
/// // POST /session            (first open)          → 201 grant.accessToken, grant.refreshToken
/// let grant = try await sessions.open()
/// // any request               Authorization: Bearer <access token>
/// let me = try sessions.authenticate(bearer)          // AccessClaims: me.identity acts; no store read
/// // POST /session/refresh     body: the refresh token (on every app open)
/// let next = try await sessions.refresh(refreshToken)  // next.lastLogin: the login page's hint, this session's only
/// ```
///
/// Who acts comes only from a verified access token: a device id is no proof of anything here (it is no
/// secret), and guests are random, never derived from it.
///
/// - **Access tokens** are self-contained (signed by the key ring) and short-lived;
///   ``authenticate(_:)`` reads no store. ``live(_:)`` also checks the session is not revoked, for the
///   requests that must not outlive a logout by the access token's lifetime.
/// - **Refresh tokens** rotate at every refresh. The previous one answers the same successor for the
///   grace (30 s), so an app that lost an answer or refreshed twice at once stays logged in; presented
///   later, or an older one, it revokes the whole session on every instance (RFC 9700 §4.14.2). A token the
///   session never issued is refused and revokes nothing, so knowing a session's id ends no one's session.
/// - **Guest data**: given a ``GuestMerger``, a login merges its former guest's data into the account; a
///   merge that fails there (the guest-data store down) is kept in the session's record
///   (``AppSessionRecord/pendingMerge``) and retried at the next refresh, or by ``mergeFormerGuest(_:)``, or by
///   the background ``run(every:)`` for a session no call of its own comes back to, until it succeeds: the data
///   stays with the guest meanwhile, never lost and merged once.
/// - **The store** keeps HMACs of refresh tokens only, under the key ring; four instances refreshing one
///   token at once make one rotation (compare-and-swap) and answer the same successor.
public struct AppSessions: Sendable {
    /// The rules.
    package let rules: AppSessionRules
    let store: any AppSessionStore
    let clock: any WallClock
    private let events: any EventSink
    /// Merges a login's former guest into the account (``mergeFormerGuest(_:)``); nil when the integrator merges.
    package let merger: GuestMerger?

    /// Creates the service.
    /// - Parameters:
    ///   - keys: The server's keys (every instance shares them).
    ///   - store: Where sessions live; in memory by default (share one across instances).
    ///   - policy: Lifetimes and grace; 2 hours, 30 days and 30 s by default.
    ///   - clock: The time source.
    ///   - events: Receives its events (area `app-session`); standard error by default.
    ///   - merger: Merges a login's guest data into the account: at ``loggedIn(_:as:flow:)``,
    ///     and again at the session's next refresh (or ``mergeFormerGuest(_:)``, or in the background of
    ///     ``run(every:)``) when that merge failed, until one succeeds. Nil (the default): the integrator merges
    ///     ``AppSessionGrant/formerGuest`` itself.
    public init(
        keys: ServerKeyRing, store: any AppSessionStore = InMemoryStores.newAppSessionStore(), policy: AppSessionPolicy = .standard,
        clock: any WallClock = SystemClock(), events: any EventSink = StandardErrorEventSink.shared, merger: GuestMerger? = nil
    ) {
        self.merger = merger
        self.rules = AppSessionRules(policy: policy, keys: keys)
        self.store = store
        self.clock = clock
        self.events = events
    }

    /// Opens a guest session (the app's first open): a new random guest, no last-login hint. Nothing of the
    /// device is asked: two sessions opened on one device are two unrelated guests.
    /// - Returns: Its credentials.
    /// - Throws: ``StoreError`` when the store fails.
    public func open() async throws -> AppSessionGrant {
        try await open(carrying: nil)
    }

    /// Opens a guest session with a new random guest, carrying a last-login hint (a logout's).
    private func open(carrying lastLogin: AppSessionRecord.LastLogin?) async throws -> AppSessionGrant {
        let now = clock.now()
        let (record, refreshToken) = rules.open(id: .random(), guest: .random(), secret: systemRandomBytes(32), carrying: lastLogin, at: now)
        try await store.create(record)
        emit(.opened(record.id), at: now)
        return grant(record, refreshToken: refreshToken, at: now)
    }

    /// Checks an access token, without a store read.
    /// - Parameter accessToken: The `Authorization: Bearer` value.
    /// - Returns: Its claims: who acts, in which session.
    /// - Throws: ``AppSessionError`` of kind `unauthenticated`, its message naming the verdict
    ///   (`expired`: the app refreshes).
    public func authenticate(_ accessToken: String) throws(AppSessionError) -> AccessClaims {
        let verdict = rules.keys.verifyAccessToken(accessToken, at: clock.now())
        guard let claims = verdict.validClaims else {
            throw AppSessionError(.unauthenticated, session: nil, "the access token is not valid: \(verdict.name)")
        }
        return claims
    }

    /// Checks an access token and its session in the store: not revoked, and issued to the session's identity
    /// since its last login (a token from before a login no longer counts, a guest's nor the same account's).
    /// - Parameter accessToken: The `Authorization: Bearer` value.
    /// - Returns: The claims and the session's record.
    /// - Throws: ``AppSessionError`` (`unauthenticated`, `revoked`), or ``StoreError``.
    public func live(_ accessToken: String) async throws -> (claims: AccessClaims, record: AppSessionRecord) {
        let claims = try authenticate(accessToken)
        let record = try await liveRecord(claims)
        return (claims, record)
    }

    /// Refreshes: a new access token, and the refresh token rotated.
    /// - Parameter refreshToken: The refresh token the app kept.
    /// - Returns: The new credentials (the same refresh token as an earlier answer when this repeats a
    ///   refresh within the grace; a token this request found current, or within the grace, is judged as of that
    ///   read on its retries, however long the store took).
    /// - Throws: ``AppSessionError`` (`invalid`, `expired`, `revoked`, `reused`: the app opens a new
    ///   session or logs in again), or ``StoreError``: nothing changed, try again; or, of kind `io` or `timeout`, the
    ///   write's answer was lost and reading the session back could not show it went in (it may have: try again with
    ///   the same token within the grace). A rotation whose answer was lost and that reads back as written stands.
    public func refresh(_ refreshToken: Secret) async throws -> AppSessionGrant {
        guard let presented = PresentedRefreshToken(refreshToken) else {
            emit(.refused(nil, .invalid), at: clock.now())
            throw AppSessionError(.invalid, session: nil, "not a refresh token this server issues")
        }
        var merged = false  // whether this refresh tried the session's pending guest merge
        var currentAt: Date? = nil  // when a read first found the token current (or a repeat within its grace)
        for _ in 0..<Self.attempts {
            let now = clock.now()
            guard let record = try await store.load(presented.session) else {
                emit(.refused(presented.session, .invalid), at: now)
                throw AppSessionError(.invalid, session: presented.session, "no app session has this refresh token (it may have expired and been removed)")
            }
            let nonce = systemRandomBytes(32)
            var decision = rules.refresh(record, presented: presented, nonce: nonce, at: now)
            // A token found current by an earlier read of this refresh is judged as of then: the app's other copy of the
            // request that rotated it meanwhile (a retry that reached another instance, or ran while a merge ran) left it
            // a repeat, never a reuse, however long this one's round trips or merge took. One rotated twice meanwhile (the
            // app went on refreshing) is refused, never revoked: it was current when it came, and a thief who holds it is
            // found out when it comes again.
            if let currentAt, case .reused = decision {
                let asOfThen = rules.refresh(record, presented: presented, nonce: nonce, at: currentAt)
                if case .repeated = asOfThen { decision = asOfThen } else { decision = .refused(.invalid) }
            }
            switch decision {
            case .rotated(let next, let successor):
                currentAt = currentAt ?? now
                // A pending guest merges before the rotation, never after it: the grace of the token it replaces runs
                // from the rotation, and a slow merge after it spent the grace of the app's honest retry (revoked as
                // reused). The session is read again: a merge that went in cleared it with a new version.
                if record.pendingMerge != nil, !merged {
                    merged = true
                    await retryPendingMerge(record)
                    continue
                }
                // A write whose answer was lost is read back, as a login's is: landed, the rotation stands as answered
                // (a 503 sent the app back with its old token, after the grace a reuse that revoked the session).
                guard try await replaceReadingBack(next, expecting: record.version) else { continue }
                emit(.refreshed(next.id, repeated: false), at: now)
                return grant(next, refreshToken: successor, at: now)
            case .repeated(let current, let successor):
                currentAt = currentAt ?? now
                // Nothing is written, so nothing would notice a logout or a login that landed since the read: the
                // answer stands only while the session is still as read (else it is decided again on the new record).
                guard try await store.load(record.id)?.version == record.version else { continue }
                emit(.refreshed(current.id, repeated: true), at: now)
                return grant(current, refreshToken: successor, at: now)
            case .reused(let revoked):
                guard try await replaceReadingBack(revoked, expecting: record.version) else { continue }
                emit(.revoked(revoked.id, .reuse, account: revoked.account), at: now)
                // A revoked session is never refreshed again: its pending merge goes in now, or nothing tries it.
                await retryPendingMerge(revoked)
                throw AppSessionError(.reused, session: revoked.id, "a rotated refresh token was presented again after its grace; the session is revoked")
            case .refused(let kind):
                emit(.refused(presented.session, kind), at: now)
                // Nor is one whose refresh token expired.
                if kind == .expired { await retryPendingMerge(record) }
                throw AppSessionError(kind, session: presented.session, Self.message(kind))
            }
        }
        throw StoreError(.conflict, subject: .appSession(presented.session), message: "the session changed \(Self.attempts) times while refreshing; try again")
    }

    /// Moves a session to the account a login verified, with new credentials (no session fixation: the
    /// tokens issued before stop working), and records how it logged in as the session's last-login hint.
    ///
    /// The account comes only as ``AccountLogin``'s answer for a verified login (``AccountLogin/resolve(_:secondFactor:)``),
    /// never as a bare id: no session moves to an account that no verified login resolved to, nor to one whose
    /// number lay dormant (二次号) with no second factor of that account passed. Which app session ran the login is
    /// the caller's to check (``LoginServer/success(of:from:)`` tells only the one that ran it).
    /// - Parameters:
    ///   - claims: The verified claims of the app session the login ran in (``authenticate(_:)``).
    ///   - outcome: The account the login found or created, and its number: the hint keeps it masked
    ///     (``AppSessionGrant/lastLogin``), the record its keyed digest (``AppSessionRecord/lastNumber``), never the
    ///     number itself.
    ///   - flow: The flow that logged in (one-tap or SMS).
    ///
    /// With a ``GuestMerger`` (``init(keys:store:policy:clock:events:merger:)``), the former guest's data is
    /// merged here, once the session moved (also when the write's answer was lost and the session reads back as
    /// written, a login that then stands, or when the caller went away); if that
    /// fails (the guest-data store down at that moment), the login still succeeds, the
    /// session keeps the guest and this account (``AppSessionRecord/pendingMerge``), and its next refresh,
    /// ``mergeFormerGuest(_:)`` or the background ``run(every:)`` merges it into this account, even after a later login
    /// to another: the data stays with the guest until then, never lost.
    /// - Returns: The new credentials, the guest whose data moves to the account (``AppSessionGrant/formerGuest``:
    ///   this session's own guest, never another's) and the hint.
    /// - Throws: ``AppSessionError`` (`dormant-number` for a dormant outcome, nothing changed; `revoked`;
    ///   `wrong-session` when the session moved on since the claims were issued), or ``StoreError``.
    public func loggedIn(_ claims: AccessClaims, as outcome: AccountOutcome, flow: LoginFlow) async throws -> AppSessionGrant {
        let account = outcome.account
        for _ in 0..<Self.attempts {
            let now = clock.now()
            let record = try await liveRecord(claims)
            guard !outcome.dormant else {
                // The account is not named: the answer may reach the number's new holder.
                throw AppSessionError(.dormantNumber, session: claims.session, "the login's number lay dormant and its account's second factor has not passed")
            }
            let hint = LastLoginHint(flow: flow, number: outcome.number, at: now)
            var (next, refreshToken) = rules.login(record, account: account, hint: hint, number: outcome.number, secret: systemRandomBytes(32), at: now)
            var formerGuest: GuestID?
            if case .guest(let guest) = record.identity { formerGuest = guest }
            // The merge is bound to this login's account: one pending from an earlier login keeps its own.
            if merger != nil, let formerGuest { next.pendingMerge = .init(guest: formerGuest, account: account) }
            // A write whose answer was lost is read back (whatever became of the caller). Landed, the login stands as
            // answered: the guest's tokens are refused from the write on, so this answer is the app's only way to the
            // session's, and the merge goes in (a 503 left both to the sweep, and the user to log in again).
            guard try await replaceReadingBack(next, expecting: record.version) else { continue }
            emit(.loggedIn(next.id, account), at: now)
            // Merged only once the session moved (the data follows the session, never a login that lost its write), and
            // whatever became of the caller meanwhile: one gone now never gets the credentials that would try it again.
            await mergeDespiteCancellation(next)
            return grant(next, refreshToken: refreshToken, at: now, formerGuest: formerGuest)
        }
        throw StoreError(.conflict, subject: .appSession(claims.session), message: "the session changed \(Self.attempts) times while logging in; try again")
    }

    /// Logs a session out: it is revoked (its refresh token stops working; ``live(_:)`` refuses its access
    /// tokens) and a new guest session is opened, a new random guest whose data starts empty. A guest-data
    /// merge still pending in the session (``AppSessionRecord/pendingMerge``) is tried first, once: a revoked
    /// session is never refreshed (if it fails, the data stays with the guest until ``run(every:)`` merges it). The
    /// last-login hint moves to the new session (the login page shows it); the revoked one keeps none.
    /// - Parameter claims: The verified claims of the session.
    /// - Returns: The new guest session's credentials, with the hint.
    /// - Throws: ``AppSessionError`` (`revoked` when it was logged out already, `wrong-session` when the claims were
    ///   issued before the session's last login), or ``StoreError``.
    public func logout(_ claims: AccessClaims) async throws -> AppSessionGrant {
        try claims.checkCurrent(at: clock.now())
        let carried = try await revoke(claims.session, .logout) { record throws(AppSessionError) in
            guard rules.stands(claims, in: record) else { throw Self.stale(claims) }
        }
        return try await open(carrying: carried)
    }

    /// Revokes every session of an account ("log out everywhere"). Once called it runs to its end whatever happens to
    /// the caller (a client that hangs up): the answer to a stolen session is never left half done.
    /// - Parameter account: The account.
    /// - Returns: How many sessions were revoked.
    /// - Throws: ``StoreError`` when the store fails to list the sessions, or to revoke one of them: every other
    ///   session is still revoked first (a failure never leaves the ones after it live), and the error, of the
    ///   first failure's kind (`io` for one that was no store's), says how many were revoked and how many failed; call
    ///   again for the rest.
    public func logoutEverywhere(_ account: AccountID) async throws -> Int {
        let (ids, revoked, failures) = try await writeDespiteCancellation { [self] in
            let ids = try await store.sessions(of: account)
            var revoked = 0
            var failures: [any Error] = []
            for id in ids {
                do {
                    try await revoke(id, .logoutEverywhere) { record throws(AppSessionError) in
                        guard record.identity == .account(account) else {
                            throw AppSessionError(.wrongSession, session: id, "the session is no longer \(Identity.account(account))")
                        }
                    }
                    revoked += 1
                } catch let error as AppSessionError where error.kind == .revoked || error.kind == .wrongSession {
                    continue  // revoked or moved on meanwhile
                } catch {
                    failures.append(error)
                }
            }
            return (ids, revoked, failures)
        }
        guard let first = failures.first else { return revoked }
        throw StoreError(
            (first as? StoreError)?.kind ?? .io, account: account,
            message: "revoked \(revoked) of \(ids.count) sessions; \(failures.count) could not be revoked (the first: \(first)); call again")
    }

    /// How often a change is tried again when another instance changed the session first.
    static let attempts = 4

    /// Revokes a session; returns the last-login hint it had (the revoked record keeps none).
    /// - Parameters:
    ///   - id: The session.
    ///   - reason: Why.
    ///   - check: Throws when the caller may not revoke the session as it is now (its credentials no longer stand).
    @discardableResult
    private func revoke(
        _ id: AppSessionID, _ reason: AppSessionRecord.Revocation, checking check: (AppSessionRecord) throws(AppSessionError) -> Void
    ) async throws -> AppSessionRecord.LastLogin {
        var mergeTried = false
        for _ in 0..<Self.attempts {
            let now = clock.now()
            guard let record = try await store.load(id) else {
                throw AppSessionError(.revoked, session: id, "no app session has this id (it expired and was removed)")
            }
            guard record.revoked == nil else { throw AppSessionError(.revoked, session: id, Self.message(.revoked)) }
            try check(record)
            // A revoked session is never refreshed, so nothing would try its pending merge again: it is tried once
            // now (a failure leaves the data with the guest, never lost), then the session is read again, since a
            // merge that went in cleared it with a new version.
            if record.pendingMerge != nil, !mergeTried {
                mergeTried = true
                await retryPendingMerge(record)
                continue
            }
            let next = rules.revoke(record, reason, at: now)
            guard try await replace(next, expecting: record.version) else { continue }
            emit(.revoked(id, reason, account: record.account), at: now)
            return record.carried
        }
        throw StoreError(.conflict, subject: .appSession(id), message: "the session changed \(Self.attempts) times while revoking it; try again")
    }

    /// Whether the caller's app session vouches that its app logged in with a number in the last 30 days
    /// (``AppSessionRules/vouches(for:in:at:)``): read from the store, for the SMS limits' lane of a returning owner
    /// (``LoginServer`` asks it before a send).
    /// - Parameters:
    ///   - number: The number.
    ///   - claims: The verified claims of the caller's app session.
    /// - Returns: Whether it vouches.
    /// - Throws: ``AppSessionError`` as ``live(_:)`` (`revoked`, `wrong-session`, `unauthenticated`), or ``StoreError``.
    package func vouches(for number: PhoneNumber, _ claims: AccessClaims) async throws -> Bool {
        rules.vouches(for: number, in: try await liveRecord(claims), at: clock.now())
    }

    func liveRecord(_ claims: AccessClaims) async throws -> AppSessionRecord {
        try claims.checkCurrent(at: clock.now())
        guard let record = try await store.load(claims.session), record.revoked == nil else {
            throw AppSessionError(.revoked, session: claims.session, Self.message(.revoked))
        }
        guard rules.stands(claims, in: record) else { throw Self.stale(claims) }
        return record
    }

    /// The error for credentials issued before the session's last login (to its guest, or to the same account).
    private static func stale(_ claims: AccessClaims) -> AppSessionError {
        AppSessionError(.wrongSession, session: claims.session, "the access token was issued before the session's last login")
    }

    /// Replaces by compare-and-swap; false when another instance changed the session first.
    func replace(_ record: AppSessionRecord, expecting version: Int) async throws -> Bool {
        do {
            try await store.replace(record, expecting: version)
            return true
        } catch let error as StoreError where error.kind == .conflict {
            return false
        }
    }

    /// ``replace(_:expecting:)``, reading the session back when the write's answer was lost
    /// (``StoreError/writeMayHaveGoneIn``): a write that went in after all counts as written.
    /// - Parameters:
    ///   - record: The session to write.
    ///   - version: The version it replaces.
    /// - Returns: Whether it is written; false when another instance changed the session first.
    /// - Throws: ``StoreError`` when the write failed, or its answer was lost and the read-back did not show it (it may
    ///   have gone in all the same when the read-back failed too).
    func replaceReadingBack(_ record: AppSessionRecord, expecting version: Int) async throws -> Bool {
        do {
            return try await replace(record, expecting: version)
        } catch let error as StoreError where error.writeMayHaveGoneIn {
            guard await isStored(record) else { throw error }
            return true
        }
    }

    private func grant(_ record: AppSessionRecord, refreshToken: Secret, at now: Date, formerGuest: GuestID? = nil) -> AppSessionGrant {
        // In the session's login epoch (``AppSessionRecord/epoch``), which is what `stands` asks of it: dated by this
        // instance's clock, even one behind the instance that ran the login, and expiring the access lifetime after
        // now, never later (a login stamped by a clock hours ahead does not stretch it).
        let expires = now.addingTimeInterval(rules.policy.accessLifetime.seconds)
        let access = rules.keys.accessToken(session: record.id, identity: record.identity, epoch: record.epoch, issuedAt: now, expiresAt: expires)
        return AppSessionGrant(
            session: record.id, identity: record.identity, accessToken: access.token, accessExpiresAt: access.claims.expiresAt,
            refreshToken: refreshToken, refreshExpiresAt: record.expiresAt, formerGuest: formerGuest, lastLogin: record.lastLogin)
    }

    func emit(_ event: AppSessionEvent, at now: Date) {
        events.receive(OneTapEvent(at: now, .appSession(event)))
    }

    private static func message(_ kind: AppSessionError.Kind) -> String {
        switch kind {
        case .expired: "the refresh token expired; open a new session or log in again"
        case .revoked: "the session was revoked (logged out, or a refresh token was reused)"
        default: "the refresh token is not one this session issued (or its key was retired)"
        }
    }
}
