// The app's access token, version 1: self-contained, checked with one HMAC and no store read.
//
//     ota1.<key id>.<app session id>.<g|a>.<subject>.<issued>.<expires>.<mac>
//
// `g` names a guest by its guest id; `a` an account by the URL-safe base64 (RFC 4648 §5, no padding) of
// its id's UTF-8. `issued` and `expires` are whole seconds since 1970 in decimal. `mac` is the URL-safe
// base64 (43 characters) of HMAC-SHA-256 under the key named by the key id, over every byte before the
// last dot. The leading `ota1.` keeps these MACs apart from every other use of the key (guest ids, SMS
// codes and refresh tokens authenticate messages that start with labels of their own).

extension ServerKeyRing {
    /// Issues an access token, signed with the ring's signing key.
    /// - Parameters:
    ///   - session: The app session it belongs to.
    ///   - identity: Who acts in it.
    ///   - issuedAt: When it is issued (rounded down to the second).
    ///   - expiresAt: When it stops being valid (rounded down to the second); after `issuedAt`.
    /// - Returns: The token (a secret: hand it to the app and nowhere else) and its claims.
    package func accessToken(session: AppSessionID, identity: Identity, issuedAt: Date, expiresAt: Date) -> (token: Secret, claims: AccessClaims) {
        let issued = Date(timeIntervalSince1970: issuedAt.timeIntervalSince1970.rounded(.down))
        let expires = Date(timeIntervalSince1970: expiresAt.timeIntervalSince1970.rounded(.down))
        let subject: String
        switch identity {
        case .guest(let guest): subject = "g.\(guest.text)"
        case .account(let account): subject = "a.\(Base64.urlEncoded(Array(account.rawValue.utf8)))"
        }
        let body = "\(AccessTokenFormat.prefix)\(signingID.text).\(session.text).\(subject).\(Int64(issued.timeIntervalSince1970)).\(Int64(expires.timeIntervalSince1970))"
        let mac = signing.hmac.authenticationCode(for: body.utf8)
        let claims = AccessClaims(keyID: signingID, session: session, identity: identity, issuedAt: issued, expiresAt: expires)
        return (Secret("\(body).\(Base64.urlEncoded(mac.bytes))"), claims)
    }

    /// Checks an access token: its format, its key, its signature and its expiry.
    /// - Parameters:
    ///   - token: The token as the app sent it (the `Authorization: Bearer` value).
    ///   - now: The time to judge expiry by.
    /// - Returns: The verdict; only ``AccessTokenVerdict/valid(_:)`` lets anyone act.
    /// - Complexity: One HMAC-SHA-256 over the token's bytes; no store read.
    public func verifyAccessToken(_ token: String, at now: Date) -> AccessTokenVerdict {
        var token = token
        return token.withUTF8 { bytes in AccessTokenFormat.verify(bytes, ring: self, at: now) }
    }
}

/// The access token's grammar.
enum AccessTokenFormat {
    static let prefix = "ota1."
    /// The longest token read: a 16-character key id, a 100-byte account id (136 characters) and 12-digit
    /// times come to about 260; anything much longer is refused before it is hashed.
    static let maximumLength = 512

    static func verify(_ bytes: UnsafeBufferPointer<UInt8>, ring: ServerKeyRing, at now: Date) -> AccessTokenVerdict {
        guard bytes.count <= maximumLength else { return .malformed("\(bytes.count) bytes; an access token has at most \(maximumLength)") }
        guard bytes.starts(with: prefix.utf8) else { return .malformed("not an access token of format 1 (it starts with ota1.)") }
        // The seven dots after `ota1`, each part non-empty.
        var parts: [Range<Int>] = []
        parts.reserveCapacity(8)
        var start = 0
        for index in 0..<bytes.count where bytes[index] == UInt8(ascii: ".") {
            parts.append(start..<index)
            start = index + 1
        }
        parts.append(start..<bytes.count)
        guard parts.count == 8 else { return .malformed("\(parts.count) dot-separated parts; an access token has 8") }
        if let empty = parts.firstIndex(where: \.isEmpty) { return .malformed("part \(empty + 1) is empty") }
        let keyPart = UnsafeBufferPointer(rebasing: bytes[parts[1]])
        guard let (keyID, key) = ring.key(utf8: keyPart) else {
            guard let id = try? KeyID(String(decoding: keyPart, as: UTF8.self)) else {
                return .malformed("the key id is not 1 to 16 of A-Z, a-z, 0-9, _ and -")
            }
            return .unknownKey(id)
        }
        let macPart = UnsafeBufferPointer(rebasing: bytes[parts[7]])
        guard macPart.count == 43 else { return .malformed("the signature has \(macPart.count) characters; it has 43") }
        let expected = Base64.urlEncoded(key.hmac.authenticationCode(for: UnsafeBufferPointer(rebasing: bytes[0..<(parts[7].lowerBound - 1)])).bytes)
        var difference: UInt8 = 0
        for (index, byte) in expected.utf8.enumerated() { difference |= byte ^ macPart[index] }
        guard difference == 0 else { return .badSignature }
        // Signed by us: every part below was written by ``ServerKeyRing/accessToken``, so a failure here is
        // a token signed with our key by something else.
        func text(_ part: Int) -> String { String(decoding: UnsafeBufferPointer(rebasing: bytes[parts[part]]), as: UTF8.self) }
        guard let session = try? AppSessionID(text(2)) else { return .malformed("the app session id is not 22 URL-safe characters") }
        let identity: Identity
        switch text(3) {
        case "g":
            guard let guest = try? GuestID(text(4)) else { return .malformed("the guest id is not 22 URL-safe characters") }
            identity = .guest(guest)
        case "a":
            guard let raw = Base64.decode(text(4)), let name = String(validating: raw, as: UTF8.self), let account = try? AccountID(name) else {
                return .malformed("the account id is not URL-safe base64 of an account id")
            }
            identity = .account(account)
        default:
            return .malformed("the subject kind is neither g (guest) nor a (account)")
        }
        guard let issued = seconds(bytes[parts[5]]), let expires = seconds(bytes[parts[6]]) else {
            return .malformed("the issue and expiry times are not whole seconds since 1970")
        }
        let claims = AccessClaims(
            keyID: keyID, session: session, identity: identity, issuedAt: Date(timeIntervalSince1970: Double(issued)),
            expiresAt: Date(timeIntervalSince1970: Double(expires)))
        return now < claims.expiresAt ? .valid(claims) : .expired(claims)
    }

    /// 1 to 12 decimal digits.
    private static func seconds(_ digits: Slice<UnsafeBufferPointer<UInt8>>) -> Int64? {
        guard (1...12).contains(digits.count) else { return nil }
        var value: Int64 = 0
        for byte in digits {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            value = value * 10 + Int64(byte - UInt8(ascii: "0"))
        }
        return value
    }
}
