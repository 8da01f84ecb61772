#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The on-disk form of one stored token (``FileTokenStore``): a small JSON object.
///
/// ```json
/// {"format":"onetap-token/1","account":"42","version":3,"flow":"tianyi","accessToken":"…",
///  "refreshToken":"…","issuedAtMs":1764528506123,"expiresAtMs":1767120506123,"dueAtMs":1764614906123}
/// ```
/// Times are milliseconds since 1970 (the precision ``AccessToken`` keeps). A record is at most
/// ``TokenRecordLimit/bytes`` long, in every store. The decoder is strict: a
/// record with another format, another account, unknown keys, or values out of range is refused, so a
/// foreign or damaged file is never mistaken for a token.
struct TokenRecord: Decodable, Hashable {
    static let format = "onetap-token/1"
    /// The latest instant a record may hold: 9999-12-31T23:59:59.999Z.
    static let maxMilliseconds: Int64 = 253_402_300_799_999

    let format: String
    let account: String
    let version: UInt64
    let flow: String
    let accessToken: String
    let refreshToken: String?
    let issuedAtMs: Int64
    let expiresAtMs: Int64
    let dueAtMs: Int64

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case format, account, version, flow, accessToken, refreshToken, issuedAtMs, expiresAtMs, dueAtMs
    }

    static func milliseconds(_ date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1000).rounded()
        return value.isFinite ? Int64(max(min(value, 9.2e18), -9.2e18)) : 0
    }

    static func date(_ milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    /// The record's JSON bytes, keys sorted: written by hand from strings and integers, so it cannot fail
    /// and never yields an empty file.
    /// - Complexity: O(*n*) in the size of the token.
    static func encode(_ stored: StoredToken, dueAt: Date) -> [UInt8] {
        let token = stored.token
        var out = "{\"accessToken\":" + JSONString.literal(token.value.reveal())
        out += ",\"account\":" + JSONString.literal(token.account.rawValue)
        out += ",\"dueAtMs\":\(milliseconds(dueAt))"
        out += ",\"expiresAtMs\":\(milliseconds(token.expiresAt))"
        out += ",\"flow\":\"\(token.flow.rawValue)\""
        out += ",\"format\":\"\(format)\""
        out += ",\"issuedAtMs\":\(milliseconds(token.issuedAt))"
        if let refresh = token.refreshToken { out += ",\"refreshToken\":" + JSONString.literal(refresh.reveal()) }
        out += ",\"version\":\(stored.version.value)}"
        return Array(out.utf8)
    }

    /// Why a record was refused.
    struct Invalid: Error, CustomStringConvertible {
        let description: String
    }

    /// Decodes and validates a record.
    /// - Parameters:
    ///   - bytes: The file's bytes.
    ///   - account: The account the file is for.
    /// - Returns: The stored token and its due time.
    /// - Throws: ``Invalid`` saying what is wrong.
    static func decode(_ bytes: [UInt8], account: AccountID) throws(Invalid) -> (StoredToken, dueAt: Date) {
        let record: TokenRecord
        do {
            let object = try JSONSerializationFree.keys(of: bytes)
            if let unknown = object.first(where: { CodingKeys(stringValue: $0) == nil }) {
                throw Invalid(description: "unknown key \(QuotedInput(unknown)): not a OneTap token record")
            }
            record = try JSONDecoder().decode(TokenRecord.self, from: Data(bytes))
        } catch let error as Invalid {
            throw error
        } catch DecodingError.dataCorrupted(let context) where context.codingPath.isEmpty {
            throw Invalid(description: "not a OneTap token record (not JSON)")
        } catch {
            throw Invalid(description: "not a OneTap token record (missing or mistyped fields)")
        }
        guard record.format == Self.format else {
            throw Invalid(description: "format \(QuotedInput(record.format)) is not \(Self.format)")
        }
        guard record.account == account.rawValue else {
            throw Invalid(description: "the record is for account \(QuotedInput(record.account)), not \(QuotedInput(account.rawValue))")
        }
        guard record.version >= 1 else { throw Invalid(description: "version 0 is not a stored version") }
        guard let flow = LoginFlow(rawValue: record.flow) else { throw Invalid(description: "unknown flow \(QuotedInput(record.flow))") }
        guard !record.accessToken.isEmpty else { throw Invalid(description: "the access token is empty") }
        for (name, value) in [("issuedAtMs", record.issuedAtMs), ("expiresAtMs", record.expiresAtMs), ("dueAtMs", record.dueAtMs)] {
            guard value >= 0, value <= maxMilliseconds else {
                throw Invalid(description: "\(name) \(value) is outside 1970-01-01 … 9999-12-31")
            }
        }
        let token = AccessToken(
            value: Secret(record.accessToken), refreshToken: record.refreshToken.map(Secret.init), flow: flow, account: account,
            issuedAt: date(record.issuedAtMs), expiresAt: date(record.expiresAtMs))
        return (StoredToken(token: token, version: TokenVersion(record.version)), date(record.dueAtMs))
    }
}

/// Lists the top-level keys of a JSON object without building the whole value, so the record decoder
/// can refuse unknown keys.
enum JSONSerializationFree {
    struct NotAnObject: Error {}

    static func keys(of bytes: [UInt8]) throws -> [String] {
        struct AnyKey: CodingKey {
            let stringValue: String
            init?(stringValue: String) { self.stringValue = stringValue }
            var intValue: Int? { nil }
            init?(intValue: Int) { nil }
        }
        struct Keys: Decodable {
            let keys: [String]
            init(from decoder: any Decoder) throws {
                keys = try decoder.container(keyedBy: AnyKey.self).allKeys.map(\.stringValue)
            }
        }
        return try JSONDecoder().decode(Keys.self, from: Data(bytes)).keys
    }
}

/// The largest token a store keeps: its record (the file store's JSON, the same fields every store
/// holds) is at most 64 KiB. Every store refuses a larger token at save with ``StoreError/Kind/tooLarge``,
/// so a token that was stored can always be read back; `TokenStoreConformance` checks it.
public enum TokenRecordLimit {
    /// The most bytes a token's record may have: 65,536.
    public static let bytes = 64 << 10

    /// The size of a token's record, in bytes.
    /// - Parameter token: The token.
    /// - Returns: The bytes its record takes.
    /// - Complexity: O(*n*) in the token's size.
    public static func size(of token: AccessToken) -> Int {
        TokenRecord.encode(StoredToken(token: token, version: TokenVersion(.max)), dueAt: TokenRecord.date(TokenRecord.maxMilliseconds)).count
    }

    /// Refuses a token whose record would be too large.
    /// - Parameter token: The token about to be saved.
    /// - Throws: ``StoreError`` of kind `too-large`, naming the account and the sizes (never the token).
    public static func check(_ token: AccessToken) throws(StoreError) {
        let size = size(of: token)
        guard size <= bytes else {
            throw StoreError(
                .tooLarge, account: token.account,
                message: "the token's record would be \(size) bytes; a store keeps at most \(bytes) (the token was not stored)")
        }
    }
}
