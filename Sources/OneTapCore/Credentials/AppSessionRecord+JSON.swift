// An app session's JSON, `onetap-app-session/1`:
//
//     {"format":"onetap-app-session/1","id":"…22 chars…","version":3,"account":"42","createdAtMs":1796112000250,
//      "current":{"kid":"k2","digest":"…64 hex…"},"expiresAtMs":1798704060500,
//      "previous":{"kid":"k2","digest":"…","rotatedAtMs":1796112060500,"nonce":"…64 hex…"},
//      "ancestors":[{"kid":"k1","digest":"…"}],"familySeed":"…64 hex…","generation":4,
//      "revokedAtMs":1796112090000,"revocation":"reuse",
//      "lastLogin":{"format":"onetap-last-login/2","flow":"mobile","maskedNumber":"138****8000","atMs":1796112000125},
//      "lastNumber":{"kid":"k2","digest":"…64 hex…"}}
//
// Exactly one of `guest` (a guest id) and `account` (an account id) says who acts in it. `previous` only
// when the last change was a rotation; `revokedAtMs` and `revocation` together, only when revoked;
// `ancestors` always (newest first, possibly empty); `lastLogin` only when the session has a last-login
// hint, as `LastLoginHint.json()` writes it (its number masked); `pendingGuest` and `pendingInto` (the guest id
// and the account id its login was to) only while a login's guest-data merge is pending. A record without them, as
// every earlier one, has none pending. An earlier version wrote `unmergedGuest` (a guest id, into the session's own
// account) instead, and is read so still; it is never written now: the version that wrote it reads it as "merge into
// the account the session is in now", and kept it when the session logged in to another account, so beside this
// one it would merge the guest into that other account. It does not read the names written now, so it leaves the
// data with the guest (a review). `familySeed` and `generation` (added later in `/1`) together, only while the current refresh
// token is of format 2: its family's seed and the current token's generation (1 to 9999999999); an earlier version
// ignores them, and a record it rotates leaves them out. `identitySinceMs` (added later still) only once the session
// logged in: the session's login epoch, the whole second after its last login (a second past the one before at
// least); access tokens of format 2 stand only in the epoch they carry, those of format 1 only when dated no
// earlier than it. `lastNumber` (added later still) only with a last login's number: its keyed digest (as a refresh
// token's, under "onetap-number-1"), never the number; an earlier version ignores it, and a record it rewrites
// leaves it out, which only costs the app its own lane past the SMS limits' daily cap. Digests, the nonce and the
// seed (32 bytes each) are 64 lowercase hexadecimal digits; every instant whole milliseconds since 1970. It holds
// keyed digests of refresh tokens and of the last login's number, never a token or a number (with the server's key,
// a number's digest can be matched by trying the numbers; sessions that logged in with one number under one key share
// its digest). There is no older form: a record without `format` is refused.

extension AppSessionID: JSONParsedText {}
extension KeyID: JSONParsedText {}

extension AppSessionRecord: JSONStoredRecord {
    /// `onetap-app-session/1`.
    package static let format = "onetap-app-session/1"

    /// The most older digests a record may hold (``AppSessionPolicy``'s bound).
    static let maximumAncestors = 64

    /// The session as one line of compact JSON (`onetap-app-session/1`): what a store keeps. It holds
    /// keyed digests of refresh tokens, never a token.
    /// - Returns: The JSON text.
    /// - Throws: `EncodingError.invalidValue` for an instant that is infinite or NaN.
    public func json() throws(EncodingError) -> String { try encodedJSON(capacity: 512 + 96 * ancestors.count) }

    /// Reads a session from its JSON, as ``json()`` wrote it.
    /// - Parameter json: The JSON text.
    /// - Throws: `DecodingError` whose coding path names the member at fault: a missing member
    ///   (`keyNotFound`), a member of the wrong type (`typeMismatch`), or one that makes no session, a
    ///   key written twice, or another format (`dataCorrupted`).
    public init(json: String) throws(DecodingError) { try self.init(decoding: json.utf8) }

    package func writeMembers(to writer: inout JSONWriter) throws(JSONWriteError) {
        writer.member("id", id.text)
        writer.member("version", version)
        switch identity {
        case .guest(let guest): writer.member("guest", guest.text)
        case .account(let account): writer.member("account", account.rawValue)
        }
        try writer.instant("createdAtMs", createdAt)
        try writer.instant("identitySinceMs", identitySince)
        try writer.member("current", current)
        try writer.instant("expiresAtMs", expiresAt)
        try writer.member("previous", previous)
        try writer.member("ancestors", elements: ancestors)
        if let family {
            writer.member("familySeed", SHA256Digest(bytes: family.seed).hex)
            writer.member("generation", family.generation)
        }
        if let revoked {
            try writer.instant("revokedAtMs", revoked.at)
            writer.member("revocation", revoked.reason.rawValue)
        }
        try writer.member("lastLogin", lastLogin)
        try writer.member("lastNumber", lastNumber)
        if let pendingMerge {
            writer.member("pendingGuest", pendingMerge.guest.text)
            writer.member("pendingInto", pendingMerge.account.rawValue)
        }
    }

    package init(reading reader: inout JSONReader) throws(JSONReadError) {
        var id: AppSessionID?, version: Int?, guest: GuestID?, account: AccountID?, current: Digest?, previous: Rotated??
        var ancestors: [Digest]?, revocation: Revocation?, createdAt: Date?, expiresAt: Date?, revokedAt: Date?, lastLogin: LastLoginHint??
        var lastNumber: Digest??
        var unmergedGuest: GuestID?, pendingGuest: GuestID?, pendingInto: AccountID?
        var familySeed: SHA256Digest?, generation: Int?, identitySince: Date?
        let named = try reader.storedRecord(Self.format, legacy: .unix) { (key, reader, instants) throws(JSONReadError) in
            switch key {
            case "id": try reader.parsed(&id, key)
            case "version": try reader.member(&version, key)
            case "guest": try reader.parsed(&guest, key)
            case "account": try reader.parsed(&account, key)
            case "createdAtMs": try instants.read(&createdAt, key, "createdAtMs", &reader)
            case "identitySinceMs": try instants.read(&identitySince, key, "identitySinceMs", &reader)
            case "current": try reader.record(&current, key)
            case "expiresAtMs": try instants.read(&expiresAt, key, "expiresAtMs", &reader)
            case "previous": try reader.record(&previous, key)
            case "ancestors": try reader.record(&ancestors, key)
            case "familySeed": try reader.member(&familySeed, key)
            case "generation": try reader.member(&generation, key)
            case "revokedAtMs": try instants.read(&revokedAt, key, "revokedAtMs", &reader)
            case "revocation": try reader.raw(&revocation, key)
            case "lastLogin": try reader.record(&lastLogin, key)
            case "lastNumber": try reader.record(&lastNumber, key)
            case "unmergedGuest": try reader.parsed(&unmergedGuest, key)
            case "pendingGuest": try reader.parsed(&pendingGuest, key)
            case "pendingInto": try reader.parsed(&pendingInto, key)
            default: break
            }
        }
        guard named else { throw reader.missing("format") }
        let identity: Identity
        switch (guest, account) {
        case (let guest?, nil): identity = .guest(guest)
        case (nil, let account?): identity = .account(account)
        case (nil, nil): throw reader.invalid("an app session names its guest or its account").at("guest")
        case (_?, _?): throw reader.invalid("an app session is a guest's or an account's, not both").at("account")
        }
        let stored = try reader.required(version, "version")
        // A version whose next one an Int cannot hold trapped on the next write's increment.
        guard stored >= 1, stored < Int.max else { throw reader.invalid("a version counts from 1 to \(Int.max - 1), not \(stored)").at("version") }
        let older = try reader.required(ancestors, "ancestors")
        guard older.count <= Self.maximumAncestors else {
            throw reader.invalid("\(older.count) older digests; a session keeps at most \(Self.maximumAncestors)").at("ancestors")
        }
        let revoked: (at: Date, reason: Revocation)?
        switch (revokedAt, revocation) {
        case (let at?, let reason?): revoked = (at, reason)
        case (nil, nil): revoked = nil
        case (nil, _?): throw reader.missing("revokedAtMs")
        case (_?, nil): throw reader.missing("revocation")
        }
        var family: Family?
        switch (familySeed, generation) {
        case (nil, nil): family = nil
        case (let seed?, let generation?):
            guard (1...PresentedRefreshToken.lastGeneration).contains(generation) else {
                throw reader.invalid("a generation counts from 1 to \(PresentedRefreshToken.lastGeneration), not \(generation)").at("generation")
            }
            // The seed is 32 bytes, written as a digest is: 64 hexadecimal digits.
            family = Family(seed: seed.bytes, generation: generation)
        case (nil, _?): throw reader.missing("familySeed")
        case (_?, nil): throw reader.missing("generation")
        }
        var pendingMerge: PendingMerge?
        switch (unmergedGuest, pendingGuest, pendingInto) {
        case (nil, nil, nil): pendingMerge = nil
        case (let guest?, nil, nil):
            guard let account else { throw reader.invalid("a guest's session has no guest to merge").at("unmergedGuest") }
            pendingMerge = PendingMerge(guest: guest, account: account)
        case (nil, let guest?, let into?): pendingMerge = PendingMerge(guest: guest, account: into)
        case (nil, _?, nil): throw reader.missing("pendingInto")
        case (nil, nil, _?): throw reader.missing("pendingGuest")
        case (_?, _, _): throw reader.invalid("a session has one pending merge, not two").at("pendingGuest")
        }
        self.init(
            id: try reader.required(id, "id"), version: stored, identity: identity, createdAt: try reader.required(createdAt, "createdAtMs"),
            current: try reader.required(current, "current"), expiresAt: try reader.required(expiresAt, "expiresAtMs"), previous: previous ?? nil,
            ancestors: older, family: family, revoked: revoked, lastLogin: lastLogin ?? nil, lastNumber: lastNumber ?? nil, pendingMerge: pendingMerge,
            identitySince: identitySince)
    }
}

extension AppSessionRecord.Digest: JSONRecord {
    /// Writes `{"kid":…,"digest":…}`.
    package func write(to writer: inout JSONWriter) throws(JSONWriteError) {
        writer.object { writer in
            writer.member("kid", keyID.text)
            writer.member("digest", digest.hex)
        }
    }

    package init(reading reader: inout JSONReader) throws(JSONReadError) {
        var keyID: KeyID?, digest: SHA256Digest?
        try reader.members { (key, reader) throws(JSONReadError) in
            switch key {
            case "kid": try reader.parsed(&keyID, key)
            case "digest": try reader.member(&digest, key)
            default: break
            }
        }
        self.init(keyID: try reader.required(keyID, "kid"), digest: try reader.required(digest, "digest"))
    }
}

extension AppSessionRecord.Rotated: JSONRecord {
    /// Writes `{"kid":…,"digest":…,"rotatedAtMs":…,"nonce":…}`.
    package func write(to writer: inout JSONWriter) throws(JSONWriteError) {
        try writer.object { (writer) throws(JSONWriteError) in
            writer.member("kid", token.keyID.text)
            writer.member("digest", token.digest.hex)
            try writer.instant("rotatedAtMs", rotatedAt)
            writer.member("nonce", SHA256Digest(bytes: nonce).hex)
        }
    }

    package init(reading reader: inout JSONReader) throws(JSONReadError) {
        var keyID: KeyID?, digest: SHA256Digest?, rotatedAt: Date?, nonce: [UInt8]?
        try reader.members { (key, reader) throws(JSONReadError) in
            switch key {
            case "kid": try reader.parsed(&keyID, key)
            case "digest": try reader.member(&digest, key)
            case "rotatedAtMs":
                try reader.unseen(rotatedAt != nil, key)
                rotatedAt = try reader.instant()
            case "nonce":
                try reader.unseen(nonce != nil, key)
                // 32 bytes, written as a digest is: 64 hexadecimal digits.
                guard let bytes = SHA256Digest(hex: try reader.string())?.bytes else { throw reader.invalid("a nonce is 32 bytes as 64 hexadecimal digits") }
                nonce = bytes
            default: break
            }
        }
        self.init(
            token: AppSessionRecord.Digest(keyID: try reader.required(keyID, "kid"), digest: try reader.required(digest, "digest")),
            rotatedAt: try reader.required(rotatedAt, "rotatedAtMs"), nonce: try reader.required(nonce, "nonce"))
    }
}
