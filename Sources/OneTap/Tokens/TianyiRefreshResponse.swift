/// Reads the JSON answer of Tianyi's refresh API (`refreshToken.do`): `result` (0 is success), a new
/// `accessToken`, a `refreshToken` that may be empty, and `expiresIn` in seconds as a string.
///
/// `OneTapGateways`' `TianyiTokenRefresher` does the HTTP call and hands the body here; this turns it into a
/// ``RefreshResponse`` or a ``TokenError``. The public documentation defines only `result` 0 (success)
/// and non-zero (failure, with `msg`), so a non-zero result is `relogin-required`: the refresh token is
/// not accepted and the user must log in again. But the open platform's own refusals, which say nothing of
/// the refresh token (``platformRefusals``), are `refresh-failed`, as is a body that is not the documented
/// shape (a proxy's error page, a truncated answer): failures that may pass or that the operator fixes, so
/// the stored token is kept and the refresh tried again after its back-off.
package enum TianyiRefreshResponse {
    /// The open platform's own refusals, whatever the API: no permission (-64), the call limit (-65), a stale
    /// timestamp (-10009: the server's clock), a bad signature (-20005), an unknown app (-20006), as
    /// `Data/exchange-codes.csv` lists them for Tianyi's token API with their sources (ishumei's 数美认证 manual,
    /// MobClub's SecVerify readme). Positive codes there speak of the token itself, so they are not here.
    static let platformRefusals: Set<String> = ["-64", "-65", "-10009", "-20005", "-20006"]

    /// The answer's members this reads; others are skipped.
    private struct Body: JSONReadable {
        static var skipsByteOrderMark: Bool { true }
        var result: ResultCode
        var accessToken: String?
        var refreshToken: String?
        /// The lifetime, or why the value given is none (read apart, so an answer whose lifetime is no lifetime
        /// still yields its rotated refresh token).
        var expiresIn: Result<ExpiresIn, ParseError>?
        var msg: String?

        init(reading reader: inout JSONReader) throws(JSONReadError) {
            var result: ResultCode?, accessToken: String??, refreshToken: String??, expiresIn: Result<ExpiresIn, ParseError>??, msg: String??
            try reader.members { (key, reader) throws(JSONReadError) in
                switch key {
                case "result":
                    if result != nil { throw reader.duplicate(key) }
                    // A JSON integer (`0`) or a string (`"0"`).
                    if try reader.peek() == .number {
                        result = ResultCode(integerLiteral: try reader.int64())
                    } else {
                        try reader.parsed(&result, key)
                    }
                // Not a string (a number, an object): no access token, so a rotated refresh token beside it is kept.
                case "accessToken":
                    if accessToken != nil { throw reader.duplicate(key) }
                    if try reader.peek() == .string { try reader.member(&accessToken, key) } else { try reader.skipValue(); accessToken = .some(nil) }
                case "refreshToken": try reader.member(&refreshToken, key)
                // Seconds as a JSON integer or, as Tianyi sends them, a numeric string; null as absent.
                case "expiresIn":
                    if expiresIn != nil { throw reader.duplicate(key) }
                    expiresIn = .some(try ExpiresIn.read(&reader))
                // Only ever shown: one that is no string is read as absent, never a reason to lose the answer's tokens.
                case "msg":
                    if msg != nil { throw reader.duplicate(key) }
                    if try reader.peek() == .string { try reader.member(&msg, key) } else { try reader.skipValue(); msg = .some(nil) }
                default: break
                }
            }
            self.result = try reader.required(result, "result")
            self.accessToken = accessToken ?? nil
            self.refreshToken = refreshToken ?? nil
            self.expiresIn = expiresIn ?? nil
            self.msg = msg ?? nil
        }
    }

    /// Decodes a refresh answer.
    /// - Parameters:
    ///   - body: The HTTP response body.
    ///   - sent: The tokens the request carried: scrubbed from the carrier's `msg`, as the answer's own are (a
    ///     carrier or proxy that quotes the refresh token it refused).
    /// - Returns: The new tokens and lifetime; or, for a success that cannot be served (no access token, an
    ///   `expiresIn` that is no lifetime) but carries a rotated refresh token, that refresh token with an empty access
    ///   token and ``RefreshResponse/unusable`` saying why.
    /// - Throws: ``TokenError``: `relogin-required` for a non-zero `result` (its message names the result
    ///   and the carrier's `msg`; `refresh-failed` for the open platform's own refusals); `refresh-failed` for a body
    ///   that is not the documented JSON, or a success that cannot be served and carries no refresh token.
    package static func decode(_ body: some Collection<UInt8>, sent: [Secret?] = []) throws(TokenError) -> RefreshResponse {
        let decoded: Body
        do {
            decoded = try Body.reading(body)
        } catch {
            // Where, never what: a value of a token endpoint's answer may be a token (this answer's new
            // ones are not known as secrets yet), so the reader's message, which may quote it, stays out.
            let path = QuotedInput.path(error.codingPath)
            throw TokenError(.refreshFailed, message: "the refresh answer is not the documented JSON" + (path.isEmpty ? "" : " (at \(path))"))
        }
        guard decoded.result.text == "0" else {
            // The carrier's message is scrubbed of any token the same answer carries.
            let issued = [decoded.accessToken, decoded.refreshToken].map { $0.map(Secret.init) } + sent
            let message = decoded.msg.map { PhoneNumber.maskingNumbers(in: Secret.scrub($0, of: issued), limit: 200) }
            let platform = Self.platformRefusals.contains(decoded.result.text)
            throw TokenError(
                platform ? .refreshFailed : .reloginRequired,
                message: (platform ? "the carrier refused the call, not the refresh token (result \(decoded.result))" : "the carrier refused the refresh token (result \(decoded.result))")
                    + (message.map { ": \($0)" } ?? ""))
        }
        // A success that cannot be served may still have rotated the refresh token (the one sent may be retired):
        // handed back as such, so the vault keeps it; without one there is nothing to keep.
        let rotated = decoded.refreshToken.flatMap { $0.isEmpty ? nil : Secret($0) }
        var lifetime: ExpiresIn? = nil
        var unusable: String? = nil
        switch decoded.expiresIn {
        case .success(let value)?: lifetime = value
        case .failure(let error)?: unusable = "the refresh answer's expiresIn is no lifetime (\(error.reason))"
        case nil: break
        }
        if decoded.accessToken?.isEmpty ?? true { unusable = "the refresh answer has result 0 but no accessToken" }
        if let unusable {
            guard let rotated else { throw TokenError(.refreshFailed, message: unusable) }
            return RefreshResponse(rotating: rotated, unusable: unusable)
        }
        return RefreshResponse(accessToken: Secret(decoded.accessToken ?? ""), refreshToken: decoded.refreshToken.map(Secret.init), expiresIn: lifetime)
    }
}
