// The app's access token: self-contained, checked with one HMAC and no store read. Format 2:
//
//     ota2.<key id>.<app session id>.<g|a>.<subject>.<epoch>.<issued>.<expires>.<mac>
//
// `g` names a guest by its guest id; `a` an account by the URL-safe base64 (RFC 4648 §5, no padding) of
// its id's UTF-8. `epoch` is the session's login epoch (its last login's `identitySince`, whole seconds
// since 1970; 0 before any login); `issued` and `expires` are whole seconds since 1970. All three are
// decimal, 1 to 12 digits. `mac` is the URL-safe base64 (43 characters) of HMAC-SHA-256 under the key named
// by the key id, over every byte before the last dot. The leading `ota2.` keeps these MACs apart from every
// other use of the key (guest ids, SMS codes and refresh tokens authenticate messages that start with labels
// of their own) and from format 1.
//
// Format 1 (`ota1.<key id>.<app session id>.<g|a>.<subject>.<issued>.<expires>.<mac>`, no epoch) is no
// longer issued; one issued before is still read until it expires (two hours), and judged by its issue time.

extension ServerKeyRing {
    /// Issues an access token of format 2, signed with the ring's signing key.
    /// - Parameters:
    ///   - session: The app session it belongs to.
    ///   - identity: Who acts in it.
    ///   - epoch: The session's login epoch (``AppSessionRecord/epoch``): 0 to 999999999999.
    ///   - issuedAt: When it is issued (rounded down to the second).
    ///   - expiresAt: When it stops being valid (rounded down to the second); after `issuedAt`.
    /// - Returns: The token (a secret: hand it to the app and nowhere else) and its claims.
    package func accessToken(session: AppSessionID, identity: Identity, epoch: Int64, issuedAt: Date, expiresAt: Date) -> (token: Secret, claims: AccessClaims) {
        let issued = issuedAt.wholeSeconds
        let expires = expiresAt.wholeSeconds
        let subject: String
        switch identity {
        case .guest(let guest): subject = "g.\(guest.text)"
        case .account(let account): subject = "a.\(Base64.urlEncoded(Array(account.rawValue.utf8)))"
        }
        let body = "\(AccessTokenFormat.prefix)\(signingID.text).\(session.text).\(subject).\(epoch).\(Int64(issued.timeIntervalSince1970)).\(Int64(expires.timeIntervalSince1970))"
        let mac = signing.hmac.authenticationCode(for: body.utf8)
        let claims = AccessClaims(keyID: signingID, session: session, identity: identity, issuedAt: issued, expiresAt: expires, epoch: epoch)
        return (Secret("\(body).\(Base64.urlEncoded(mac.bytes))"), claims)
    }

    /// Checks an access token: its format, its key, its signature and its expiry.
    /// - Parameters:
    ///   - token: The token as the app sent it (the `Authorization: Bearer` value).
    ///   - now: The time to judge expiry by.
    /// - Returns: The verdict; only ``AccessTokenVerdict/valid(_:)`` lets anyone act.
    /// - Complexity: One HMAC-SHA-256 over the token's bytes; no store read.
    package func verifyAccessToken(_ token: String, at now: Date) -> AccessTokenVerdict {
        var token = token
        return token.withUTF8 { bytes in AccessTokenFormat.verify(bytes, ring: self, at: now) }
    }
}

/// The access token's grammar.
enum AccessTokenFormat {
    /// `ota2.`: what every access token issued now starts with.
    static var prefix: String { currentPrefix.description }
    /// The prefix of format 2, compared in place with a token's first bytes.
    private static let currentPrefix: StaticString = "ota2."
    /// The prefix of format 1.
    private static let formerPrefix: StaticString = "ota1."
    /// The longest token read: a 16-character key id, a 100-byte account id (136 characters) and 12-digit
    /// numbers come to about 275; anything much longer is refused before it is hashed.
    static let maximumLength = 512

    /// The URL-safe base64 alphabet, as bytes with no heap behind them.
    private static let alphabet: StaticString = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    /// The longest account id's URL-safe base64 decodes to 100 bytes; this many leave room to tell more.
    private static let subjectCapacity = 128

    /// Reads a token in place: the parts are offsets into `bytes`, the MAC is computed into a buffer on
    /// the stack and compared as text in constant time, the account id is decoded on the stack. On the
    /// valid path the only heap memory is what the claims' strings need: none for a guest (its id and the
    /// app session id are held inline) or an account id of up to 15 bytes (a small string); a longer
    /// account id takes one allocation.
    static func verify(_ bytes: UnsafeBufferPointer<UInt8>, ring: ServerKeyRing, at now: Date) -> AccessTokenVerdict {
        guard bytes.count <= maximumLength else { return .malformed("\(bytes.count) bytes; an access token has at most \(maximumLength)") }
        // Format 2 has a part more than format 1: the epoch, before the issue time.
        let parts: Int
        if starts(bytes, with: currentPrefix) {
            parts = 9
        } else if starts(bytes, with: formerPrefix) {
            parts = 8
        } else {
            return .malformed("not an access token (it starts with ota2., or ota1. for one issued before format 2)")
        }
        let dotCount = parts - 1
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: 8) { dots in
            let count = findDots(bytes, into: dots)
            guard count == dotCount else { return .malformed("\(count + 1) dot-separated parts; an access token of format \(parts - 7) has \(parts)") }
            func part(_ number: Int) -> Range<Int> {
                (number == 0 ? 0 : dots[number - 1] + 1)..<(number == dotCount ? bytes.count : dots[number])
            }
            for number in 0..<parts where part(number).isEmpty { return .malformed("part \(number + 1) is empty") }
            return verify(bytes, parts: part, epoch: parts == 9, ring: ring, at: now)
        }
    }

    /// Whether `bytes` starts with `prefix`.
    private static func starts(_ bytes: UnsafeBufferPointer<UInt8>, with prefix: StaticString) -> Bool {
        let head = UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount)
        return bytes.count >= head.count && UnsafeBufferPointer(rebasing: bytes[0..<head.count]).elementsEqual(head)
    }

    /// Finds the dots of a token: their offsets, as many as `dots` holds, go into `dots` in order.
    /// - Parameters:
    ///   - bytes: The token's bytes (any length, none at all included).
    ///   - dots: Room for the offsets wanted.
    /// - Returns: How many dots `bytes` holds (also past the room in `dots`).
    /// - Complexity: O(*n*), eight bytes at a time: the high bit of each byte of `mask` is set exactly where the
    ///   byte is a dot (a zero byte of `word ^ dots`, found without a carry between bytes), so the loop branches
    ///   once a word and once a dot, not once a byte.
    @inline(__always)
    static func findDots(_ bytes: UnsafeBufferPointer<UInt8>, into dots: UnsafeMutableBufferPointer<Int>) -> Int {
        guard let base = bytes.baseAddress else { return 0 }
        var count = 0
        func found(_ index: Int) {
            if count < dots.count { dots[count] = index }
            count += 1
        }
        let raw = UnsafeRawPointer(base)
        var offset = 0
        while offset + 8 <= bytes.count {
            let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) ^ 0x2E2E_2E2E_2E2E_2E2E
            var mask = ~(((word & 0x7F7F_7F7F_7F7F_7F7F) &+ 0x7F7F_7F7F_7F7F_7F7F) | word | 0x7F7F_7F7F_7F7F_7F7F)
            while mask != 0 {
                found(offset + mask.trailingZeroBitCount / 8)
                mask &= mask &- 1
            }
            offset += 8
        }
        for index in offset..<bytes.count where base[index] == UInt8(ascii: ".") { found(index) }
        return count
    }

    /// The rest of ``verify(_:ring:at:)``, once the parts are found: eight, or nine with `epoch`.
    private static func verify(
        _ bytes: UnsafeBufferPointer<UInt8>, parts: (Int) -> Range<Int>, epoch hasEpoch: Bool, ring: ServerKeyRing, at now: Date
    ) -> AccessTokenVerdict {
        let times = hasEpoch ? 6 : 5
        let keyPart = UnsafeBufferPointer(rebasing: bytes[parts(1)])
        guard let (keyID, key) = ring.key(utf8: keyPart) else {
            guard let id = try? KeyID(String(decoding: keyPart, as: UTF8.self)) else {
                return .malformed("the key id is not 1 to 16 of A-Z, a-z, 0-9, _ and -")
            }
            return .unknownKey(id)
        }
        let macPart = UnsafeBufferPointer(rebasing: bytes[parts(times + 2)])
        guard macPart.count == 43 else { return .malformed("the signature has \(macPart.count) characters; it has 43") }
        let signed = UnsafeBufferPointer(rebasing: bytes[0..<(parts(times + 2).lowerBound - 1)])
        let matches = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 33) { mac in
            key.hmac.authenticationCode(for: signed, into: mac)
            mac[32] = 0
            return macMatches(mac, macPart)
        }
        guard matches else { return .badSignature }
        // Signed by us: every part below was written by ``ServerKeyRing/accessToken``, so a failure here is
        // a token signed with our key by something else.
        guard let session = AppSessionID(utf8: UnsafeBufferPointer(rebasing: bytes[parts(2)])) else { return .malformed("the app session id is not 22 URL-safe characters") }
        let identity: Identity
        let kind = UnsafeBufferPointer(rebasing: bytes[parts(3)])
        switch kind.count == 1 ? kind[0] : 0 {
        case UInt8(ascii: "g"):
            guard let guest = GuestID(utf8: UnsafeBufferPointer(rebasing: bytes[parts(4)])) else {
                return .malformed("the guest id is not 22 URL-safe characters")
            }
            identity = .guest(guest)
        case UInt8(ascii: "a"):
            let account = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: subjectCapacity) { buffer -> AccountID? in
                guard let count = Base64.decode(UnsafeBufferPointer(rebasing: bytes[parts(4)]), into: buffer) else { return nil }
                return AccountID(utf8: UnsafeBufferPointer(rebasing: buffer[0..<count]))
            }
            guard let account else { return .malformed("the account id is not URL-safe base64 of an account id") }
            identity = .account(account)
        default:
            return .malformed("the subject kind is neither g (guest) nor a (account)")
        }
        guard let issued = seconds(bytes[parts(times)]), let expires = seconds(bytes[parts(times + 1)]) else {
            return .malformed("the issue and expiry times are not whole seconds since 1970")
        }
        var epoch: Int64?
        if hasEpoch {
            guard let value = seconds(bytes[parts(5)]) else { return .malformed("the epoch is not whole seconds since 1970") }
            epoch = value
        }
        let claims = AccessClaims(
            keyID: keyID, session: session, identity: identity, issuedAt: Date(timeIntervalSince1970: Double(issued)),
            expiresAt: Date(timeIntervalSince1970: Double(expires)), epoch: epoch)
        return now < claims.expiresAt ? .valid(claims) : .expired(claims)
    }

    /// Whether the 43 characters of `text` are the URL-safe base64 (no padding) of the 32-byte `mac`, in
    /// time that does not depend on where they differ. `mac` has a 33rd byte, zero, so the last group of
    /// three reads past the code without a branch.
    private static func macMatches(_ mac: UnsafeMutableBufferPointer<UInt8>, _ text: UnsafeBufferPointer<UInt8>) -> Bool {
        // Unchecked reads: `mac` has 33 bytes and `text` 43 (the caller checked), so both have base addresses.
        let alphabet = Self.alphabet.utf8Start
        let code = UnsafePointer(mac.baseAddress!)
        let characters = text.baseAddress!
        var difference: UInt8 = 0
        var character = 0
        var index = 0
        while index < 33 {
            let chunk = UInt32(code[index]) << 16 | UInt32(code[index + 1]) << 8 | UInt32(code[index + 2])
            difference |= alphabet[Int((chunk >> 18) & 63)] ^ characters[character]
            difference |= alphabet[Int((chunk >> 12) & 63)] ^ characters[character + 1]
            difference |= alphabet[Int((chunk >> 6) & 63)] ^ characters[character + 2]
            if character + 3 < 43 { difference |= alphabet[Int(chunk & 63)] ^ characters[character + 3] }
            character += 4
            index += 3
        }
        return difference == 0
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
