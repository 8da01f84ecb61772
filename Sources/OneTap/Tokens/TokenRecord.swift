/// The on-disk form of one stored token (``FileTokenStore``): a small JSON object, `onetap-token/1`.
///
/// ```json
/// {"accessToken":"…","account":"42","dueAtMs":1764614906123,"expiresAtMs":1767120506123,"flow":"tianyi",
///  "format":"onetap-token/1","issuedAtMs":1764528506123,"refreshToken":"…","version":3}
/// ```
/// Keys sorted; times are whole milliseconds since 1970, as every stored instant. A record is at most
/// ``TokenRecordLimit/bytes`` long, in every store. The reader is strict: a record with another format,
/// another account, unknown keys, or values out of range is refused, so a foreign or damaged file is
/// never mistaken for a token.
struct TokenRecord: JSONRecord, Hashable, CustomStringConvertible, CustomReflectable {
    static let format = "onetap-token/1"
    /// A byte order mark is skipped, as `JSONDecoder` skipped it when it read a token file.
    static var skipsByteOrderMark: Bool { true }
    /// The highest version a record may hold, exclusive: 2^62, far past what a sequence of saves reaches.
    static let maximumVersion: UInt64 = 1 << 62
    /// The latest instant a record may hold: 9999-12-31T23:59:59.999Z.
    static let maxMilliseconds: Int64 = Timestamp.latest

    let format: String
    let account: String
    let version: UInt64
    let flow: String
    let accessToken: String
    let refreshToken: String?
    let issuedAtMs: Int64
    let expiresAtMs: Int64
    let dueAtMs: Int64

    /// `TokenRecord(account 42, version 3, tianyi)`: never the tokens it holds.
    var description: String { "TokenRecord(account \(account), version \(version), \(flow))" }

    /// The record without its tokens, so `dump` and `Mirror` never show them.
    var customMirror: Mirror {
        Mirror(self, children: ["account": account, "version": version, "flow": flow, "issuedAtMs": issuedAtMs, "expiresAtMs": expiresAtMs,
                                "dueAtMs": dueAtMs], displayStyle: .struct)
    }

    /// The record of a stored token.
    init(_ stored: StoredToken, dueAt: Date) {
        let token = stored.token
        format = Self.format
        account = token.account.rawValue
        version = stored.version.value
        flow = token.flow.rawValue
        accessToken = token.value.reveal()
        refreshToken = token.refreshToken?.reveal()
        issuedAtMs = token.issuedAt.millisecondsSince1970
        expiresAtMs = token.expiresAt.millisecondsSince1970
        dueAtMs = dueAt.millisecondsSince1970
    }

    /// The record's JSON bytes, keys sorted: strings and integers only, so writing cannot fail and never
    /// yields an empty file.
    /// - Complexity: O(*n*) in the size of the token.
    static func encode(_ stored: StoredToken, dueAt: Date) -> [UInt8] {
        let record = TokenRecord(stored, dueAt: dueAt)
        var writer = JSONWriter(capacity: 192 + record.accessToken.utf8.count + (record.refreshToken?.utf8.count ?? 0))
        record.write(to: &writer)
        return writer.withBytes { Array($0) }
    }

    func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writer.member("accessToken", accessToken)
            writer.member("account", account)
            writer.member("dueAtMs", dueAtMs)
            writer.member("expiresAtMs", expiresAtMs)
            writer.member("flow", flow)
            writer.member("format", format)
            writer.member("issuedAtMs", issuedAtMs)
            writer.member("refreshToken", refreshToken)
            writer.member("version", version)
        }
    }

    /// The keys a record has.
    private static let keys: Set<String> = ["accessToken", "account", "dueAtMs", "expiresAtMs", "flow", "format", "issuedAtMs", "refreshToken", "version"]

    init(reading reader: inout JSONReader) throws(JSONReadError) {
        var format: String?, account: String?, version: UInt64?, flow: String?, accessToken: String?, refreshToken: String??
        var issuedAtMs: Int64?, expiresAtMs: Int64?, dueAtMs: Int64?
        try reader.members { (key, reader) throws(JSONReadError) in
            switch key {
            case "accessToken": try reader.member(&accessToken, key)
            case "account": try reader.member(&account, key)
            case "dueAtMs": try reader.member(&dueAtMs, key)
            case "expiresAtMs": try reader.member(&expiresAtMs, key)
            case "flow": try reader.member(&flow, key)
            case "format": try reader.member(&format, key)
            case "issuedAtMs": try reader.member(&issuedAtMs, key)
            case "refreshToken": try reader.member(&refreshToken, key)
            case "version": try reader.member(&version, key)
            default: throw reader.corrupt("unknown key \(QuotedInput(key.text)): not a OneTap token record")
            }
        }
        self.format = try reader.required(format, "format")
        self.account = try reader.required(account, "account")
        self.version = try reader.required(version, "version")
        self.flow = try reader.required(flow, "flow")
        self.accessToken = try reader.required(accessToken, "accessToken")
        self.refreshToken = refreshToken ?? nil
        self.issuedAtMs = try reader.required(issuedAtMs, "issuedAtMs")
        self.expiresAtMs = try reader.required(expiresAtMs, "expiresAtMs")
        self.dueAtMs = try reader.required(dueAtMs, "dueAtMs")
    }

    /// Why a record was refused.
    struct Invalid: Error, CustomStringConvertible {
        let description: String
    }

    /// Reads and validates a record.
    /// - Parameters:
    ///   - bytes: The file's bytes.
    ///   - account: The account the file is for.
    /// - Returns: The stored token and its due time.
    /// - Throws: ``Invalid`` saying what is wrong: text that is not JSON, then a key no record has, then
    ///   a missing or mistyped member, then a value out of place (in that order).
    static func decode(_ bytes: [UInt8], account: AccountID) throws(Invalid) -> (StoredToken, dueAt: Date) {
        // First the object's keys alone: is it JSON, and is every key a record's?
        let unknown: String?
        do {
            unknown = try JSONReader.read(bytes, skippingByteOrderMark: true) { (reader) throws(JSONReadError) -> String? in
                var found: String? = nil
                var members = try reader.beginObject()
                while let key = try reader.nextKey(in: &members) {
                    if found == nil, !keys.contains(key.text) { found = key.text }
                }
                return found
            }
        } catch {
            if case .mismatch = error.kind { throw Invalid(description: "not a OneTap token record (missing or mistyped fields)") }
            throw Invalid(description: "not a OneTap token record (not JSON)")
        }
        if let unknown { throw Invalid(description: "unknown key \(QuotedInput(unknown)): not a OneTap token record") }
        let record: TokenRecord
        do {
            record = try reading(bytes)
        } catch {
            throw Invalid(description: "not a OneTap token record (missing or mistyped fields)")
        }
        guard record.format == Self.format else {
            throw Invalid(description: "format \(QuotedInput(record.format)) is not \(Self.format)")
        }
        guard record.account == account.rawValue else {
            throw Invalid(description: "the record is for account \(QuotedInput(record.account)), not \(QuotedInput(account.rawValue))")
        }
        guard let flow = LoginFlow(rawValue: record.flow) else { throw Invalid(description: "unknown flow \(QuotedInput(record.flow))") }
        let instants = [("issuedAtMs", record.issuedAtMs), ("expiresAtMs", record.expiresAtMs), ("dueAtMs", record.dueAtMs)]
        if let problem = TokenRecordLimit.problem(version: record.version, accessTokenIsEmpty: record.accessToken.isEmpty, instants: instants) {
            throw Invalid(description: problem)
        }
        let token = AccessToken(
            value: Secret(record.accessToken), refreshToken: record.refreshToken.map(Secret.init), flow: flow, account: account,
            issuedAt: Date(millisecondsSince1970: record.issuedAtMs), expiresAt: Date(millisecondsSince1970: record.expiresAtMs))
        return (StoredToken(token: token, version: TokenVersion(record.version)), Date(millisecondsSince1970: record.dueAtMs))
    }
}

/// The largest token a store keeps: its record (the file store's JSON, the same fields every store
/// holds) is at most 64 KiB. Every store refuses a larger token at save with ``StoreError/Kind/tooLarge``,
/// so a token that was stored can always be read back; `TokenStoreConformance` checks it.
public enum TokenRecordLimit {
    /// The most bytes a token's record may have: 65,536.
    package static let bytes = 64 << 10

    /// The size of a token's record, in bytes.
    /// - Parameter token: The token.
    /// - Returns: The bytes its record takes.
    /// - Complexity: O(*n*) in the token's size.
    package static func size(of token: AccessToken) -> Int {
        TokenRecord.encode(StoredToken(token: token, version: TokenVersion(.max)), dueAt: Date(millisecondsSince1970: TokenRecord.maxMilliseconds)).count
    }

    /// What makes a stored token one no store writes, read back from a file's record or a database's row alike: a
    /// version of 0 or past 2^62 (the next version, ``StoredToken/next``, would saturate and two writers' compare-and-swap
    /// from one version would both succeed), an empty access token, an instant outside 1970-01-01 … 9999-12-31.
    /// - Parameters:
    ///   - version: The stored version.
    ///   - accessTokenIsEmpty: Whether the access token is empty.
    ///   - instants: Each stored instant in milliseconds since 1970, with the name its store gives it.
    /// - Returns: Why the token is none OneTap wrote, or nil.
    package static func problem(version: UInt64, accessTokenIsEmpty: Bool, instants: [(String, Int64)]) -> String? {
        guard version >= 1 else { return "version 0 is not a stored version" }
        guard version < TokenRecord.maximumVersion else { return "version \(version) is past any version a store writes" }
        guard !accessTokenIsEmpty else { return "the access token is empty" }
        for (name, value) in instants where !(0...TokenRecord.maxMilliseconds).contains(value) {
            return "\(name) \(value) is outside 1970-01-01 … 9999-12-31"
        }
        return nil
    }

    /// Refuses a token a record cannot hold: one whose record would be too large, dated outside 1970-01-01 …
    /// 9999-12-31 (what a record's instants are read back within), or with an empty access token.
    /// - Parameter token: The token about to be saved.
    /// - Throws: ``StoreError`` of kind `too-large`, naming the account and the sizes or the instant (never the token).
    public static func check(_ token: AccessToken) throws(StoreError) {
        try check(token, dueAt: nil)
    }

    /// Refuses a save a record cannot hold: ``check(_:)``'s, and a due time outside 1970-01-01 … 9999-12-31 (a token
    /// expiring in 1970's first minute is due before it). What every store calls first in `save`.
    /// - Parameters:
    ///   - token: The token about to be saved.
    ///   - dueAt: When it is due for a refresh, as `save` was given it.
    /// - Throws: ``StoreError`` of kind `too-large`.
    package static func check(_ token: AccessToken, dueAt: Date?) throws(StoreError) {
        guard !token.value.isEmpty else {
            throw StoreError(.tooLarge, account: token.account, message: "the token's access token is empty, which no record holds (the token was not stored)")
        }
        let instants = [("issuedAt", token.issuedAt), ("expiresAt", token.expiresAt)] + (dueAt.map { [("dueAt", $0)] } ?? [])
        for (name, instant) in instants {
            // As a record writes it (NaN and the infinities, which no record holds, fail too).
            guard instant.hasMillisecondsSince1970, (0...TokenRecord.maxMilliseconds).contains(instant.millisecondsSince1970) else {
                throw StoreError(
                    .tooLarge, account: token.account,
                    message: "the token's \(name) lies outside 1970-01-01 … 9999-12-31, which a record holds (the token was not stored)")
            }
        }
        let size = size(of: token)
        guard size <= bytes else {
            throw StoreError(
                .tooLarge, account: token.account,
                message: "the token's record would be \(size) bytes; a store keeps at most \(bytes) (the token was not stored)")
        }
    }
}
