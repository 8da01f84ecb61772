#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The advisory `flock` locks: one per account for compare-and-swap writes, one for its refresh.
extension FileTokenStore {
    /// Takes an exclusive `flock` on a lock file, polling on the clock so no thread blocks.
    /// - Returns: The open descriptor (locked), or nil when `timeout` passed first.
    func lock(_ path: String, account: AccountID, timeout: Duration, poll: Duration) async throws -> Int32? {
        let fd = try await io.run { () throws(StoreError) -> Int32 in
            let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
            guard fd >= 0 else {
                throw StoreError(.io, account: account, message: "cannot open \(path): \(SystemCallError.last("open", path).reason)")
            }
            return fd
        }
        var wait = LockWait(timeout: timeout, clock: clock)
        while true {
            let taken = try await io.run { () throws(StoreError) -> Bool in
                if flock(fd, LOCK_EX | LOCK_NB) == 0 { return true }
                guard errno == EWOULDBLOCK || errno == EINTR else {
                    let error = SystemCallError.last("flock", path)
                    close(fd)
                    throw StoreError(.io, account: account, message: "cannot lock \(path): \(error.reason)")
                }
                return false
            }
            if taken { return fd }
            guard !wait.isOver else {
                await io.run { _ = close(fd) }
                return nil
            }
            do {
                try await wait.pause(poll)
            } catch {
                await io.run { _ = close(fd) }
                throw error
            }
        }
    }

    /// Unlocks and closes a lock file on the store's threads (a `close` can block, on a network file system).
    func unlock(_ fd: Int32) async {
        let faults = self.faults
        await io.run {
            try? faults.withLock { $0 }?(.beforeUnlock)   // a test's hook: it only watches where this runs
            flock(fd, LOCK_UN)
            close(fd)
        }
    }

    /// Holds the account's write lock while `body` runs on the store's threads.
    func withWriteLock<T: Sendable>(_ account: AccountID, _ body: @escaping @Sendable () throws(StoreError) -> T) async throws -> T {
        let path = locks + "/" + Self.fileName(account) + ".lock"
        guard let fd = try await lock(path, account: account, timeout: lockTimeout, poll: .milliseconds(1)) else {
            throw StoreError(
                .timeout, account: account, message: "another process held \(path) for longer than \(lockTimeout.seconds) s; nothing was changed")
        }
        let result: Result<T, StoreError>
        do { result = .success(try await io.run(body)) } catch { result = .failure(error) }
        await unlock(fd)
        return try result.get()
    }

    // MARK: The refresh lock

    /// Runs `body` holding the account's refresh lock (``TokenStore/withRefreshLock(for:_:)``): one refresh
    /// at a time across processes, so no two calls ever carry one refresh token (a carrier that refuses a
    /// reused one would end the account's login).
    /// - Parameters:
    ///   - account: The account.
    ///   - body: The refresh.
    /// - Returns: What `body` returns.
    /// - Throws: ``StoreError`` of kind `timeout` when another process holds the lock past ``lockTimeout``
    ///   (`body` does not run), `io` when the lock file cannot be used, or what `body` throws.
    public func withRefreshLock<T: Sendable>(for account: AccountID, _ body: @Sendable () async throws -> T) async throws -> T {
        let path = locks + "/" + Self.fileName(account) + ".refresh"
        guard let fd = try await lock(path, account: account, timeout: lockTimeout, poll: .milliseconds(10)) else {
            throw StoreError(
                .timeout, account: account,
                message: "another process held \(path) for longer than \(lockTimeout.seconds) s; the refresh did not run "
                    + "(one refresh at a time: the holder's refresh stores its token)")
        }
        let result: Result<T, any Error>
        do { result = .success(try await body()) } catch { result = .failure(error) }
        await unlock(fd)
        return try result.get()
    }
}
