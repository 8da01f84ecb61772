// The app's refresh token: opaque to the app, never stored.
//
// Format 2, issued from 2026-12-04:
//
//     otr2.<app session id>.<generation>.<code>
//
// A login (or a session's opening) starts a family: 32 bytes from the system's CSPRNG, its seed, kept in the
// session's record. The family's tokens are numbered from 1 (the generation, in decimal without leading
// zeros, at most 10 digits) and each rotation issues the next one. The code is 43 characters of URL-safe
// base64 (RFC 4648 §5, no padding) of HMAC-SHA-256(key, "onetap-refresh-2" ‖ 0 ‖ session id ‖ 0 ‖
// generation ‖ 0 ‖ seed). So the server recognises every token it issued in the family, however many
// rotations back, from the seed and its key alone (RFC 9700 §4.14.2: an earlier one presented again is
// reuse), and answers an honest retry of the one before the current with the same successor. Without the
// key no one makes a code; the store keeps the seed and the current token's keyed digest, never a token.
// Whoever holds both the key ring and the store could make tokens, as they could make access tokens with the
// key alone.
//
// Format 1, issued before, still refreshes (a record it left keeps its digests):
//
//     otr1.<app session id>.<secret>
//
// The secret is 43 characters of URL-safe base64 of 32 bytes: from the CSPRNG for a session's first token
// (and at every login), and at a rotation HMAC-SHA-256(key, "onetap-refresh-successor-1" ‖ 0 ‖ the presented
// token ‖ 0 ‖ nonce), the nonce 32 CSPRNG bytes kept in the record. A format-1 token is recognised by its
// digest, HMAC-SHA-256(key, "onetap-refresh-1" ‖ 0 ‖ token), among those the record keeps. Its first rotation
// from now on starts a format-2 family.

/// A refresh token as an app presented it, its grammar checked (nothing else is known about it yet).
package struct PresentedRefreshToken: Sendable {
    /// The app session it names (a claim until its digest matches the session's record).
    package let session: AppSessionID
    /// The whole token.
    package let token: Secret
    /// Its generation in its family (format 2), nil for a format-1 token.
    package let generation: Int?

    /// The most digits of a generation.
    static let generationDigits = 10
    /// The last generation a family reaches: the rotation after it starts a new family.
    static let lastGeneration = 9_999_999_999

    /// The longest token of either format, in bytes: `otr2.`, a 22-character session id, `.`, 10 digits, `.` and
    /// a 43-character code.
    static let maximumBytes = 5 + 22 + 1 + generationDigits + 1 + 43

    /// Reads a token's grammar.
    /// - Parameter token: The token.
    /// - Returns: The token, or nil when it is not a refresh token of format 1 or 2.
    /// - Complexity: O(1) for a text longer than ``maximumBytes``: it is refused before it is read.
    package init?(_ token: Secret) {
        let text = token.reveal()
        guard text.utf8.count <= Self.maximumBytes else { return nil }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 || parts.count == 4, let code = parts.last, code.utf8.count == 43, code.unicodeScalars.allSatisfy(Base64.isURLSafe),
            let session = try? AppSessionID(String(parts[1]))
        else { return nil }
        switch (parts[0], parts.count) {
        case ("otr1", 3): generation = nil
        case ("otr2", 4):
            let digits = parts[2].utf8
            guard (1...Self.generationDigits).contains(digits.count), digits.first != UInt8(ascii: "0"),
                digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }), let generation = Int(parts[2])
            else { return nil }
            self.generation = generation
        default: return nil
        }
        self.session = session
        self.token = token
    }

    /// What a store keeps of the token under a key.
    func digest(under key: ServerKey) -> SHA256Digest {
        RefreshDigests.digest(token, key: key)
    }

    /// Whether this format-2 token's code is the family's for its generation under one of the ring's keys.
    /// - Complexity: One HMAC per key in the ring.
    func belongs(to family: AppSessionRecord.Family, keys: ServerKeyRing) -> Bool {
        guard let generation, let code = Base64.decode(String(token.reveal().suffix(43))), code.count == 32 else { return false }
        let presented = SHA256Digest(bytes: code)
        return keys.entries.contains { entry in
            HMACSHA256.constantTimeEquals(RefreshDigests.code(session: session, generation: generation, seed: family.seed, key: entry.key), presented)
        }
    }
}

/// The refresh tokens' derivations and keyed digests.
enum RefreshDigests {
    /// What a store keeps of a token (either format).
    static func digest(_ token: Secret, key: ServerKey) -> SHA256Digest {
        var message = Array("onetap-refresh-1".utf8)
        message.append(0)
        message.append(contentsOf: token.reveal().utf8)
        return key.hmac.authenticationCode(for: message)
    }

    /// A format-2 token: the family's token of a generation.
    static func token(session: AppSessionID, family: AppSessionRecord.Family, key: ServerKey) -> Secret {
        let code = code(session: session, generation: family.generation, seed: family.seed, key: key)
        return Secret("otr2.\(session.text).\(family.generation).\(Base64.urlEncoded(code.bytes))")
    }

    /// A format-2 token's code.
    static func code(session: AppSessionID, generation: Int, seed: [UInt8], key: ServerKey) -> SHA256Digest {
        var message = Array("onetap-refresh-2".utf8)
        message.append(0)
        message.append(contentsOf: session.text.utf8)
        message.append(0)
        message.append(contentsOf: String(generation).utf8)
        message.append(0)
        message.append(contentsOf: seed)
        return key.hmac.authenticationCode(for: message)
    }

    /// A format-1 token's successor, as a rotation before format 2 derived it.
    static func legacySuccessor(of token: Secret, session: AppSessionID, nonce: [UInt8], key: ServerKey) -> Secret {
        var message = Array("onetap-refresh-successor-1".utf8)
        message.append(0)
        message.append(contentsOf: token.reveal().utf8)
        message.append(0)
        message.append(contentsOf: nonce)
        return Secret("otr1.\(session.text).\(Base64.urlEncoded(key.hmac.authenticationCode(for: message).bytes))")
    }
}
