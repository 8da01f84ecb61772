/// What the server keeps of one app session: who acts in it, the keyed digest of its current refresh
/// token, the one it replaced (answered again during a short grace), digests of older ones (presented
/// again, they reveal a stolen token), whether the session was revoked, and how its app last logged in
/// (the login page's hint, the number masked, and the number's keyed digest). Never a token or a number.
///
/// Changed only by ``AppSessionRules``; a store keeps it whole and replaces it by compare-and-swap on
/// ``version``. Its instants are kept as a store keeps them, whole milliseconds since 1970, so a record
/// read back from its JSON equals the one written.
public struct AppSessionRecord: Hashable, Sendable, CustomStringConvertible {
    /// A refresh token's keyed digest and the id of the key it was made under.
    package struct Digest: Hashable, Sendable {
        /// The key the digest was made under (the token stops verifying once the ring drops it).
        package let keyID: KeyID
        /// HMAC-SHA-256(key, "onetap-refresh-1" ‖ 0 ‖ token).
        package let digest: SHA256Digest

        package init(keyID: KeyID, digest: SHA256Digest) {
            self.keyID = keyID
            self.digest = digest
        }
    }

    /// The refresh token a rotation replaced: answered with the same successor until the grace ends.
    package struct Rotated: Hashable, Sendable, CustomReflectable {
        /// Its digest.
        package let token: Digest
        /// When it was rotated.
        package let rotatedAt: Date
        /// 32 random bytes: a format-1 token's successor was derived with them (from the token and the key). When
        /// the rotation started a family, they are its seed too, so with the key ring they make every token of the
        /// family, as the seed does: `dump` never shows them.
        package let nonce: [UInt8]

        package init(token: Digest, rotatedAt: Date, nonce: [UInt8]) {
            self.token = token
            self.rotatedAt = rotatedAt.roundedToMilliseconds
            self.nonce = nonce
        }

        /// The digest and the instant; never the nonce.
        package var customMirror: Mirror { Mirror(self, children: ["token": token, "rotatedAt": rotatedAt]) }
    }

    /// The family of the session's format-2 refresh tokens: the seed every one of them is derived from, and
    /// the generation of the current one (every lower generation was issued before it).
    /// With its key ring, the seed makes every token of the family: `dump` shows its generation only.
    package struct Family: Hashable, Sendable, CustomReflectable {
        /// 32 random bytes, drawn at the login (or the opening) that started the family.
        package let seed: [UInt8]
        /// The current token's generation, from 1.
        package let generation: Int

        package init(seed: [UInt8], generation: Int) {
            self.seed = seed
            self.generation = generation
        }

        /// The generation; never the seed.
        package var customMirror: Mirror { Mirror(self, children: ["generation": generation]) }
    }

    /// Why a session was revoked.
    package enum Revocation: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
        /// The app logged out.
        case logout
        /// The account logged out everywhere.
        case logoutEverywhere = "logout-everywhere"
        /// A refresh token was presented again after its grace: it was stolen, or the app is broken.
        case reuse

        /// The id: `logout`, `logout-everywhere`, `reuse`.
        package var description: String { rawValue }
    }

    /// The session.
    public let id: AppSessionID
    /// Goes up at every change (compare-and-swap).
    public package(set) var version: Int
    /// Who acts in it: its guest until a login, then the account.
    package var identity: Identity
    /// The whole second after the last login in it, later than the one before it (each login moves it on by a
    /// second at least): the session's login epoch. Access tokens of format 2 carry it (``epoch``) and stand only
    /// while it is theirs; those of format 1 (no epoch) stand only when dated no earlier than it, and those issued
    /// since are dated from it. Nil before the first login, and in every record written before it existed.
    package var identitySince: Date?

    /// The login epoch access tokens of format 2 carry: ``identitySince`` in whole seconds since 1970, 0 before
    /// any login.
    /// - Complexity: O(1). An instant no access token can carry (past the year 33658, or not finite) gives -1,
    ///   which no token does: none stands.
    package var epoch: Int64 {
        guard let identitySince else { return 0 }
        let seconds = identitySince.timeIntervalSince1970.rounded(.down)
        guard seconds >= 0, seconds <= 999_999_999_999 else { return -1 }
        return Int64(seconds)
    }
    /// When the session was opened.
    package let createdAt: Date
    /// The current refresh token's digest.
    package var current: Digest
    /// When the current refresh token expires (30 days after it was issued, by default: each refresh
    /// slides it); for a revoked session, when the record goes (the access lifetime after the revocation, at most, but
    /// its refresh token's expiry while a guest-data merge is pending in it).
    public package(set) var expiresAt: Date {
        didSet { expiresAt = expiresAt.roundedToMilliseconds }
    }
    /// The token the last rotation replaced, if the last change was a rotation.
    package var previous: Rotated?
    /// Digests of older tokens of this session, newest first (at most ``AppSessionPolicy/ancestors``): a
    /// format-1 token is recognised only by these; a format-2 one also by ``family``, however old.
    package var ancestors: [Digest]
    /// The family of the current refresh token when it is of format 2; nil in a record whose current token
    /// is of format 1 (written before format 2, or by an instance that predates it).
    package var family: Family?
    /// When and why the session was revoked, if it was.
    package var revoked: (at: Date, reason: Revocation)? {
        get { revokedAt.flatMap { at in revocation.map { (at, $0) } } }
        set {
            revokedAt = newValue?.at.roundedToMilliseconds
            revocation = newValue?.reason
        }
    }
    private var revokedAt: Date?
    private var revocation: Revocation?
    /// How the app of this session last logged in, for the login page's hint (the number masked): set at
    /// a login, carried to the fresh guest session a logout opens, and readable only through this session
    /// (a revoked session keeps none).
    package var lastLogin: LastLoginHint?
    /// The keyed digest of the number of the session's last login (with ``lastLogin``; HMAC-SHA-256(key,
    /// "onetap-number-1" ‖ 0 ‖ the number's 11 digits)), never the number: what vouches, to the SMS limits, that
    /// a send to that number comes from an app that logged in with it (``AppSessionRules/vouches(for:in:at:)``).
    /// Set at a login with a number, carried to the fresh guest session a logout opens, dropped at a revocation.
    /// Nil otherwise, and in every record written before it existed.
    package var lastNumber: Digest?
    /// What a logout carries from the session it ends to the fresh guest session it opens: the last login's hint
    /// and its number's digest.
    package struct LastLogin: Sendable {
        /// The hint.
        package let hint: LastLoginHint?
        /// The number's digest.
        package let number: Digest?
    }

    /// What a logout of this session carries to the guest session it opens.
    package var carried: LastLogin { LastLogin(hint: lastLogin, number: lastNumber) }

    /// A login's guest-data merge not done yet (it failed at the login: the guest-data store was down): the
    /// guest the login moved this session from, and the account that login was to. `AppSessions` in `OneTap`
    /// retries it at the session's next refresh, when asked, or in the background (`run(every:)`), and clears it
    /// once done. It keeps its account when the session later logs in to another one, so the guest's data never
    /// follows the session into an account the guest did not log in to. Nil otherwise, and in every record written before it existed.
    package var pendingMerge: PendingMerge?

    /// The guest of ``pendingMerge``, if any.
    package var unmergedGuest: GuestID? { pendingMerge?.guest }

    /// A guest whose data is still to be merged into an account.
    package struct PendingMerge: Hashable, Sendable {
        /// The guest a login moved the session from.
        package let guest: GuestID
        /// The account that login was to: where the guest's data goes.
        package let account: AccountID

        /// Names a pending merge.
        /// - Parameters:
        ///   - guest: The former guest.
        ///   - account: The account the login was to.
        package init(guest: GuestID, account: AccountID) { (self.guest, self.account) = (guest, account) }
    }

    package init(
        id: AppSessionID, version: Int, identity: Identity, createdAt: Date, current: Digest, expiresAt: Date, previous: Rotated?,
        ancestors: [Digest], family: Family? = nil, revoked: (at: Date, reason: Revocation)?, lastLogin: LastLoginHint? = nil,
        lastNumber: Digest? = nil, pendingMerge: PendingMerge? = nil, identitySince: Date? = nil
    ) {
        self.id = id
        self.version = version
        self.identity = identity
        self.createdAt = createdAt.roundedToMilliseconds
        self.current = current
        self.expiresAt = expiresAt.roundedToMilliseconds
        self.previous = previous
        self.ancestors = ancestors
        self.family = family
        self.revokedAt = revoked?.at.roundedToMilliseconds
        self.revocation = revoked?.reason
        self.lastLogin = lastLogin
        self.lastNumber = lastNumber
        self.pendingMerge = pendingMerge
        self.identitySince = identitySince
    }

    /// The account the session is logged in to, if any.
    public var account: AccountID? {
        if case .account(let account) = identity { return account }
        return nil
    }

    /// `app session Ab… v3 account 42, expires …` (never a digest).
    public var description: String {
        "app session \(id) v\(version) \(identity), expires \(Timestamp.format(expiresAt))\(revoked.map { ", revoked (\($0.reason)) at \(Timestamp.format($0.at))" } ?? "")"
    }
}
