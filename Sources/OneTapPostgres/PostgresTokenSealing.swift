import OneTap

// Sealing every stored token now, rather than at each token's next save: after a keyring is first given
// (rows written unsealed) and after a rotation (rows sealed with an older key), so the older keys can be
// dropped once it reports every row done.

extension PostgresTokenStore {
    /// Seals with the keyring's current key every row that is unsealed or sealed with another key, in
    /// batches; the token, its version and its times stay as they are. A row a writer changes meanwhile is
    /// left to that writer (its compare-and-swap wins; this store's update matches no row).
    /// - Parameter batch: How many rows one statement reads; at least 1.
    /// - Returns: How many rows were sealed again.
    /// - Throws: ``StoreError`` of kind `corrupt` when rows do not open (a key the keyring lacks, an account id
    ///   OneTap cannot hold), once every other row was sealed: naming how many were left, their accounts and the
    ///   first one's reason; `io` when the store has no keyring; ``PostgresError`` from the pool.
    package func sealStoredTokens(batch: Int = 500) async throws -> Int {
        guard let keyring else {
            throw StoreError(.io, account: nil, message: "this token store has no keyring to seal the tokens with; nothing was changed")
        }
        let tokens = "\(PostgresIdentifier.quoted(schema)).tokens"
        let read = """
            SELECT account, version, access_token, refresh_token, key_id FROM \(tokens) \
            WHERE key_id IS DISTINCT FROM $1 AND account > $2 ORDER BY account LIMIT $3
            """
        let write = """
            UPDATE \(tokens) SET access_token = $3, refresh_token = $4, key_id = $5 \
            WHERE account = $1 AND version = $2 AND key_id IS NOT DISTINCT FROM $6
            """
        let limit = max(1, batch)
        var after = ""
        var sealed = 0
        // Rows that do not open are passed over and reported at the end (stopping at one left every row after it on the
        // older key at each rerun, so that key could never leave the keyring): counted, the first ten named (a keyring
        // that lacks a key every row needs fails them all), the first one's reason kept.
        var leftCount = 0
        var leftNames: [String] = []
        var firstProblem: StoreError?
        while true {
            let rows = try await pool.execute(read, [.text(keyring.currentKeyID), .text(after), .int64(Int64(limit))]).rows
            for row in rows {
                guard row.count == 5, let name = row[0].text, let version = row[1].int64, let access = row[2].bytes else {
                    throw StoreError(.corrupt, account: nil, message: "a row of \(tokens) is not a OneTap token; it was left as it is")
                }
                after = name
                let sealedRow: (access: [UInt8], refresh: PostgresValue)
                do {
                    sealedRow = try Self.sealAgain(access: access, refresh: row[3].bytes, keyID: row[4].text, account: name, with: keyring, table: tokens)
                } catch {
                    leftCount += 1
                    if leftNames.count < 10 { leftNames.append(name) }
                    if firstProblem == nil { firstProblem = error }
                    continue
                }
                let result = try await pool.execute(
                    write,
                    [.text(name), .int64(version), .bytes(sealedRow.access), sealedRow.refresh, .text(keyring.currentKeyID), row[4].text.map { .text($0) } ?? .null])
                sealed += result.affected
            }
            if rows.count < limit { break }
        }
        guard let firstProblem else { return sealed }
        let names = leftNames.joined(separator: ", ") + (leftCount > leftNames.count ? ", …" : "")
        throw StoreError(
            .corrupt, account: leftCount == 1 ? try? AccountID(leftNames[0]) : nil,
            message: "\(leftCount == 1 ? "1 row was" : "\(leftCount) rows were") left as it is (account \(names)), the first because \(firstProblem.message); "
                + "\(sealed) \(sealed == 1 ? "row was" : "rows were") sealed again")
    }

    /// A row's tokens opened with the key they were sealed with (none: stored unsealed) and sealed with the current key.
    /// - Throws: ``StoreError`` of kind `corrupt`: an account id OneTap cannot hold, a key the keyring lacks, a token that
    ///   does not open or is not UTF-8.
    private static func sealAgain(
        access: [UInt8], refresh: [UInt8]?, keyID: String?, account name: String, with keyring: PostgresTokenKeyring, table tokens: String
    ) throws(StoreError) -> (access: [UInt8], refresh: PostgresValue) {
        let account: AccountID
        do {
            account = try AccountID(name)
        } catch {
            throw StoreError(.corrupt, account: nil, message: "a row of \(tokens) has an account id OneTap cannot hold (\(error))")
        }
        func reveal(_ stored: [UInt8], _ field: PostgresTokenKeyring.Field) throws(StoreError) -> Secret {
            let bytes = try keyID.map { (id) throws(StoreError) in try keyring.open(stored, keyID: id, field: field, account: account, table: tokens) } ?? stored
            guard let text = String(validating: bytes, as: UTF8.self) else {
                throw StoreError(.corrupt, account: account, message: "the \(field.rawValue) token in \(tokens) is not UTF-8")
            }
            return Secret(text)
        }
        let newAccess = try keyring.seal(try reveal(access, .access), field: .access, account: account)
        let newRefresh = try refresh.map { (stored) throws(StoreError) in PostgresValue.bytes(try keyring.seal(try reveal(stored, .refresh), field: .refresh, account: account)) }
        return (newAccess, newRefresh ?? .null)
    }
}

extension PostgresStores {
    /// Seals every stored carrier token with the keyring's current key now, rather than at each token's
    /// next save: run it once after first giving a keyring (rows written unsealed), and after making a new
    /// key current; once it returns, no row needs an older key, and older keys can leave the keyring. Safe
    /// while instances serve (a token saved meanwhile keeps its own write).
    /// - Parameters:
    ///   - keyring: The keys: the current one seals; the older ones open rows sealed with them.
    ///   - batch: How many rows one statement reads; 500.
    /// - Returns: How many rows were sealed again.
    /// - Throws: `StoreError` of kind `corrupt` when rows do not open (a key missing from the keyring, named by its
    ///   id), after every other row was sealed: how many were left as they are, their accounts and the first one's
    ///   reason; `io` or `timeout` when the database fails.
    @discardableResult
    public func sealStoredTokens(keyring: PostgresTokenKeyring, batch: Int = 500) async throws -> Int {
        try await PostgresError.asStoreError(doing: "seal the stored tokens") {
            try await PostgresTokenStore(pool: pool, clock: SystemClock(), leaseDuration: .seconds(60), lockTimeout: .zero, keyring: keyring)
                .sealStoredTokens(batch: batch)
        }
    }
}
