// The app's refresh token, version 1: opaque to the app, never stored.
//
//     otr1.<app session id>.<secret>
//
// The secret is 43 characters of URL-safe base64 (RFC 4648 §5, no padding) of 32 bytes: from the
// system's CSPRNG for the first token of a session (and at every login), and at a rotation
// HMAC-SHA-256(key, "onetap-refresh-successor-1" ‖ 0 ‖ the presented token ‖ 0 ‖ nonce), where the nonce
// is 32 bytes from the CSPRNG kept in the session's record. The store keeps HMAC-SHA-256(key,
// "onetap-refresh-1" ‖ 0 ‖ token) only; the successor's derivation lets a server answer an honest retry
// of the previous token with the same successor without ever storing a token.

/// A refresh token as an app presented it, its grammar checked (nothing else is known about it yet).
package struct PresentedRefreshToken: Sendable {
    /// The app session it names (a claim until its digest matches the session's record).
    package let session: AppSessionID
    /// The whole token.
    package let token: Secret

    /// The grammar's prefix.
    static let prefix = "otr1."

    /// Reads a token's grammar.
    /// - Parameter token: The token.
    /// - Returns: The token, or nil when it is not a refresh token of format 1.
    package init?(_ token: Secret) {
        let text = token.reveal()
        let utf8 = text.utf8
        guard utf8.count == 71, text.hasPrefix(Self.prefix) else { return nil }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[2].utf8.count == 43, parts[2].unicodeScalars.allSatisfy(Base64.isURLSafe),
            let session = try? AppSessionID(String(parts[1]))
        else { return nil }
        self.session = session
        self.token = token
    }

    /// The token for a session and a 32-byte secret.
    static func text(session: AppSessionID, secret: some Collection<UInt8>) -> Secret {
        Secret("\(prefix)\(session.text).\(Base64.urlEncoded(secret))")
    }

    /// What a store keeps of the token under a key.
    func digest(under key: ServerKey) -> SHA256Digest {
        RefreshDigests.digest(token, key: key)
    }
}

/// The keyed digests of refresh tokens.
enum RefreshDigests {
    static func digest(_ token: Secret, key: ServerKey) -> SHA256Digest {
        var message = Array("onetap-refresh-1".utf8)
        message.append(0)
        message.append(contentsOf: token.reveal().utf8)
        return key.hmac.authenticationCode(for: message)
    }

    static func successor(of token: Secret, session: AppSessionID, nonce: [UInt8], key: ServerKey) -> Secret {
        var message = Array("onetap-refresh-successor-1".utf8)
        message.append(0)
        message.append(contentsOf: token.reveal().utf8)
        message.append(0)
        message.append(contentsOf: nonce)
        return PresentedRefreshToken.text(session: session, secret: key.hmac.authenticationCode(for: message).bytes)
    }
}
