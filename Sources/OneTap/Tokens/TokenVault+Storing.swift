// Storing a login's token and logging an account out: the two writes a caller makes, each forgetting what the vault
// kept of the account (its back-off, a token kept in memory) and telling a refresh under way.

extension TokenVault {
    /// Stores a token after a login, replacing whatever the account had: a row no key opens any more (a
    /// `corrupt` read, its key gone from the keyring) too, since the login's token supersedes it.
    /// - Parameter token: The token; its ``AccessToken/account`` is the key.
    /// - Throws: ``TokenError`` of kind `store-failed` when the store fails (a token over 64 KiB or with an empty access token, a full
    ///   disk, a database that is down, or five writers in a row that got there first).
    public func store(_ token: AccessToken) async throws {
        let account = token.account
        var attempts = 0
        while true {
            attempts += 1
            let current: StoredToken?
            do {
                current = try await store.load(account)
            } catch let error as StoreError where error.kind == .corrupt && attempts < 5 {
                // A row no key opens: the login's token replaces it (removed whatever it holds, then written).
                do { try await store.remove(account, replacing: nil) } catch { throw TokenRefresh.storeFailure(account, error) }
                continue
            } catch {
                throw TokenRefresh.storeFailure(account, error)
            }
            do {
                _ = try await store.save(token, replacing: current?.version, dueAt: policy.dueAt(token))
                // The login's token replaces what the account had: its back-off (recorded by a failure meanwhile too), a
                // token kept in memory, and the failure of a refresh under way, which is the old token's.
                flights.markSuperseded(by: token)
                failures.clear(account)
                unsaved.forget(account)
                refresh.emit(.stored(account: account, flow: token.flow, expiresAt: token.expiresAt))
                return
            } catch let error as StoreError where error.kind == .conflict && attempts < 5 {
                continue  // written meanwhile: read again and replace
            } catch {
                throw TokenRefresh.storeFailure(account, error)
            }
        }
    }

    /// Logs an account out: removes its token. A refresh running for it finishes without storing anything
    /// and its callers get `logged-out`.
    /// - Parameter account: The account.
    /// - Throws: ``TokenError`` of kind `store-failed` when the store fails; the token is then still
    ///   stored, and a refresh under way still brings nothing back.
    public func logout(_ account: AccountID) async throws {
        flights.markLoggedOut(account)
        failures.clear(account)
        unsaved.forget(account)
        do {
            try await store.remove(account, replacing: nil)
        } catch {
            throw TokenRefresh.storeFailure(account, error)
        }
        refresh.emit(.loggedOut(account: account))
    }
}
