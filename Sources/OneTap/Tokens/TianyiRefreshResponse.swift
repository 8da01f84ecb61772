#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads the JSON answer of Tianyi's refresh API (`refreshToken.do`): `result` (0 is success), a new
/// `accessToken`, a `refreshToken` that may be empty, and `expiresIn` in seconds as a string.
///
/// The integrator's refresher does the HTTP call and hands the body here; this turns it into a
/// ``RefreshResponse`` or a classified ``TokenRefreshError``. The public documentation defines only
/// `result` 0 (success) and non-zero (failure, with `msg`), so a non-zero result is final: the refresh
/// token is not accepted and the user must log in again. A body that is not the documented shape is a
/// transient failure (a proxy's error page, a truncated answer) and the stored token is kept.
public enum TianyiRefreshResponse {
    private struct Body: Decodable {
        let result: ResultCode
        let accessToken: String?
        let refreshToken: String?
        let expiresIn: ExpiresIn?
        let msg: String?
    }

    /// Decodes a refresh answer.
    /// - Parameter body: The HTTP response body.
    /// - Returns: The new tokens and lifetime.
    /// - Throws: ``TokenRefreshError``: `final` for a non-zero `result`; `transient` for a body that is not
    ///   the documented JSON, or a success without an access token.
    public static func decode(_ body: some Collection<UInt8>) throws(TokenRefreshError) -> RefreshResponse {
        let decoded: Body
        do {
            decoded = try JSONDecoder().decode(Body.self, from: Data(body))
        } catch {
            throw TokenRefreshError(.transient, message: "the refresh answer is not the documented JSON: \(describe(error))")
        }
        guard decoded.result.text == "0" else {
            throw TokenRefreshError(.final, code: decoded.result, message: decoded.msg.map { String($0.prefix(200)) } ?? "the carrier refused the refresh token")
        }
        guard let access = decoded.accessToken, !access.isEmpty else {
            throw TokenRefreshError(.transient, code: decoded.result, message: "the refresh answer has result 0 but no accessToken")
        }
        return RefreshResponse(accessToken: Secret(access), refreshToken: decoded.refreshToken.map(Secret.init), expiresIn: decoded.expiresIn)
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context):
            let key = context.codingPath.last.map { "key '\($0.stringValue)': " } ?? ""
            return key + context.debugDescription
        case DecodingError.keyNotFound(let key, _):
            return "key '\(key.stringValue)' is missing"
        case DecodingError.typeMismatch(_, let context):
            return "key '\(context.codingPath.last?.stringValue ?? "")' has the wrong type"
        case DecodingError.valueNotFound(_, let context):
            return "key '\(context.codingPath.last?.stringValue ?? "")' is null"
        default:
            return "not JSON"
        }
    }
}
