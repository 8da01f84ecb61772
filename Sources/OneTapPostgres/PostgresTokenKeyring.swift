import OneTap

/// The keys that seal carrier tokens in PostgreSQL (AES-256-GCM, OpenSSL's libcrypto): one current key
/// that seals every token written, and older keys still read, each named by an id stored with every row.
///
/// ```swift
/// let keyring = try PostgresTokenKeyring(currentKeyID: "2026-12", keys: ["2026-12": newKey, "2026-06": oldKey])
/// let vault = TokenVault(store: stores.tokenStore(keyring: keyring), refresher: MyTianyiRefresher())
/// ```
///
/// **Rotating**, in three deploys while instances serve: give every instance the new key beside the current
/// one (an instance that lacks it cannot read a row another instance sealed with it: its refreshes fail
/// `corrupt` and its logins write the row over); once every instance holds it, make it current; once every
/// row was written again (a token is sealed with the current key at its next save: a refresh, a login; or
/// at once by ``PostgresStores/sealStoredTokens(keyring:batch:)``), drop the old ones. A row
/// sealed with a key the keyring does not hold fails its read with `StoreError` of kind `corrupt` naming
/// that key's id. Keep keys out of the database: a secret manager, a file only the server reads.
///
/// Each access and refresh token is sealed on its own with a fresh 12-byte nonce from the system's
/// generator; the additional authenticated data binds it to its field (access or refresh), its key id and
/// its account, so a sealed token moved to another row or another account does not open. Keys never
/// appear in ``description``, `dump`, an error or an event.
public struct PostgresTokenKeyring: Sendable, CustomStringConvertible, CustomReflectable {
    /// The id of the key that seals what is written.
    package let currentKeyID: String
    /// Every key id the keyring holds, sorted.
    package var keyIDs: [String] { keys.keys.sorted() }

    /// The keys by id; never printed.
    private let keys: [String: [UInt8]]

    /// Makes a keyring.
    /// - Parameters:
    ///   - currentKeyID: The id of the key that seals new rows; one of `keys`.
    ///   - keys: Every key, by id: each 32 random bytes (AES-256); ids of 1 to 32 characters of `A`–`Z`,
    ///     `a`–`z`, `0`–`9`, `.`, `_` and `-`, stored in each row.
    /// - Throws: ``StoreError`` of kind `invalid-configuration` naming the key id that is wrong and why
    ///   (never a key's bytes).
    public init(currentKeyID: String, keys: [String: [UInt8]]) throws(StoreError) {
        for (id, key) in keys.sorted(by: { $0.key < $1.key }) {
            if let problem = Self.problem(id: id) {
                throw StoreError(.invalidConfiguration, message: "token key id \(QuotedInput(id)): \(problem)")
            }
            guard key.count == AESGCM.keyLength else {
                throw StoreError(.invalidConfiguration, message: "token key \(QuotedInput(id)) has \(key.count) bytes; an AES-256 key has 32")
            }
        }
        guard keys[currentKeyID] != nil else {
            throw StoreError(
                .invalidConfiguration,
                message: "the current token key id \(QuotedInput(currentKeyID)) is not among the keys given (\(keys.keys.sorted().joined(separator: ", ")))")
        }
        self.currentKeyID = currentKeyID
        self.keys = keys
    }

    /// Why an id cannot name a key, or nil.
    private static func problem(id: String) -> String? {
        guard (1...32).contains(id.utf8.count) else { return "a key id has 1 to 32 characters" }
        let allowed = id.utf8.allSatisfy { byte in
            (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2E || byte == 0x5F || byte == 0x2D
        }
        return allowed ? nil : "a key id holds only A-Z, a-z, 0-9, '.', '_' and '-'"
    }

    /// `PostgresTokenKeyring(current 2026-12; keys 2026-06, 2026-12)`: ids only.
    public var description: String { "PostgresTokenKeyring(current \(currentKeyID); keys \(keyIDs.joined(separator: ", ")))" }

    /// A mirror of the ids only, so `dump` shows no key.
    public var customMirror: Mirror {
        Mirror(self, children: ["currentKeyID": currentKeyID, "keyIDs": keyIDs], displayStyle: .struct)
    }

    // MARK: Sealing

    /// Which token of a row.
    package enum Field: String, Sendable {
        case access, refresh
    }

    /// The additional authenticated data of a sealed token: `onetap-token-v1`, the field, the key id and
    /// the account, each after a NUL byte (`onetap-token-v1\0access\0k1\0account-42`).
    /// - Parameters:
    ///   - field: Access or refresh token.
    ///   - keyID: The key's id.
    ///   - account: The account.
    /// - Returns: The bytes.
    package static func additionalData(field: Field, keyID: String, account: AccountID) -> [UInt8] {
        Array("onetap-token-v1\u{0}\(field.rawValue)\u{0}\(keyID)\u{0}\(account.rawValue)".utf8)
    }

    /// Seals a token with the current key and a fresh nonce.
    /// - Parameters:
    ///   - secret: The token.
    ///   - field: Which token of the row.
    ///   - account: The row's account.
    /// - Returns: `nonce ‖ ciphertext ‖ tag`.
    /// - Throws: ``StoreError`` of kind `io` when libcrypto fails (nothing is written).
    package func seal(_ secret: Secret, field: Field, account: AccountID) throws(StoreError) -> [UInt8] {
        guard let key = keys[currentKeyID], let nonce = AESGCM.randomBytes(AESGCM.nonceLength),
            let sealed = AESGCM.seal(
                Array(secret.reveal().utf8), key: key, nonce: nonce, aad: Self.additionalData(field: field, keyID: currentKeyID, account: account))
        else {
            throw StoreError(.io, account: account, message: "OpenSSL could not seal the \(field.rawValue) token with key \(QuotedInput(currentKeyID)); nothing was written")
        }
        return sealed
    }

    /// Opens a sealed token.
    /// - Parameters:
    ///   - sealed: `nonce ‖ ciphertext ‖ tag`.
    ///   - keyID: The row's key id.
    ///   - field: Which token of the row.
    ///   - account: The row's account.
    ///   - table: The table's name, for the error.
    /// - Returns: The token's bytes.
    /// - Throws: ``StoreError`` of kind `corrupt` when the keyring holds no key `keyID`, or the value does not
    ///   open (changed, moved from another row or account, or sealed with another key of that id).
    package func open(_ sealed: [UInt8], keyID: String, field: Field, account: AccountID, table: String) throws(StoreError) -> [UInt8] {
        guard let key = keys[keyID] else {
            throw StoreError(
                .corrupt, account: account,
                message: "the row in \(table) is sealed with token key \(QuotedInput(keyID)), which the keyring does not hold (it holds \(keyIDs.joined(separator: ", "))); add that key to the keyring; the row was left as it is")
        }
        guard let opened = AESGCM.open(sealed, key: key, aad: Self.additionalData(field: field, keyID: keyID, account: account)) else {
            throw StoreError(
                .corrupt, account: account,
                message: "the \(field.rawValue) token in \(table) does not open with token key \(QuotedInput(keyID)) (changed, or moved from another row); it was left as it is")
        }
        return opened
    }
}
