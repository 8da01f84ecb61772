#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A token store on the local disk: the embedded default for one machine and for the CLI.
///
/// - One file per account, `<hex of the account id>.token`, a ``TokenRecord`` JSON object.
/// - Writes are atomic: a temporary file in the same directory, `fsync`, `rename`, `fsync` of the
///   directory. A failure at any step (a full disk, a crash) leaves the previous token whole.
/// - Files are created with mode 0600 in a directory created with mode 0700; a token file that other
///   users can read or write, or that another user owns, is refused (`insecure`).
/// - A corrupt or foreign file is moved aside to `<name>.corrupt-<milliseconds>` and reported
///   (`corrupt`); it is never silently overwritten.
/// - Compare-and-swap writes hold an advisory lock (`flock`) on `.locks/<name>.lock`; refreshes hold one
///   on `.locks/<name>.refresh`, so two processes on one machine do not refresh the same account twice.
///   Waiting for a lock polls; it never blocks a thread of Swift's cooperative pool.
/// - Temporary files are written in `.tmp/` and renamed into place, so the directory itself changes only
///   when a token file appears or goes: that is how the due index notices other processes' writes.
/// - ``accounts(dueBefore:limit:)`` answers from an index built by one scan of the directory and kept
///   current by this instance's writes; writes by other processes are picked up by a rescan when the
///   directory changes.
public final class FileTokenStore: TokenStore {
    /// The directory holding the token files.
    public let directory: String
    /// How long a refresh waits for another process's refresh lock before going ahead without it
    /// (compare-and-swap still keeps the store consistent).
    public let lockTimeout: Duration
    private let clock: any WallClock

    /// A step of a write, for fault injection in tests.
    enum Step: Sendable {
        case writeTemporary(bytesWritten: Int, of: Int)
        case beforeRename
        case beforeDirectorySync
    }

    /// Called before each step of a write; throwing aborts the write there (tests only).
    let faults: LockedValue<(@Sendable (Step) throws(SystemCallError) -> Void)?> = LockedValue(nil)

    private struct IndexState {
        var index = DueIndex()
        var built = false
        var directoryStamp: (Int, Int) = (0, 0)
        var foreignChange = false
    }

    private let indexState = LockedValue(IndexState())

    /// Opens (creating if needed) a store directory.
    /// - Parameters:
    ///   - directory: The directory; created with mode 0700 when missing.
    ///   - clock: The clock used while waiting for another process's refresh lock.
    ///   - lockTimeout: How long to wait for that lock; 30 seconds.
    /// - Throws: ``TokenStoreError`` of kind `io` when the directory cannot be created or is not a
    ///   directory, `insecure` when other users can write to it.
    public init(directory: String, clock: any WallClock = SystemClock(), lockTimeout: Duration = .seconds(30)) throws(TokenStoreError) {
        self.directory = directory.hasSuffix("/") && directory.count > 1 ? String(directory.dropLast()) : directory
        self.clock = clock
        self.lockTimeout = lockTimeout
        if mkdir(self.directory, 0o700) != 0 && errno != EEXIST {
            throw TokenStoreError(.io, account: "", message: "cannot create \(self.directory): \(SystemCallError.last("mkdir", self.directory).reason)")
        }
        var info = stat()
        guard stat(self.directory, &info) == 0 else {
            throw TokenStoreError(.io, account: "", message: "cannot open \(self.directory): \(SystemCallError.last("stat", self.directory).reason)")
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw TokenStoreError(.io, account: "", message: "\(self.directory) is not a directory")
        }
        guard info.st_mode & 0o022 == 0 else {
            throw TokenStoreError(
                .insecure, account: "",
                message: "\(self.directory) can be written by other users (mode \(String(info.st_mode & 0o777, radix: 8))); use a directory only you can write")
        }
        for sub in [locks, temporaries] where mkdir(sub, 0o700) != 0 && errno != EEXIST {
            throw TokenStoreError(.io, account: "", message: "cannot create \(sub): \(SystemCallError.last("mkdir", sub).reason)")
        }
    }

    /// Where the lock files live.
    private var locks: String { directory + "/.locks" }
    /// Where files are written before they are renamed into place.
    private var temporaries: String { directory + "/.tmp" }

    // MARK: Paths

    /// The file name for an account: the hex of its UTF-8 bytes, so any id is a safe name.
    static func fileName(_ account: AccountID) -> String? {
        let bytes = Array(account.rawValue.utf8)
        guard !bytes.isEmpty, bytes.count <= 100 else { return nil }
        let digits = Array("0123456789abcdef".utf8)
        var name = [UInt8]()
        name.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            name.append(digits[Int(byte >> 4)])
            name.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: name, as: UTF8.self)
    }

    private func name(_ account: AccountID) throws(TokenStoreError) -> String {
        guard let name = Self.fileName(account) else {
            throw TokenStoreError(.io, account: account, message: "an account id for the file store is 1 to 100 bytes of UTF-8")
        }
        return name
    }

    private func base(_ account: AccountID) throws(TokenStoreError) -> String {
        try directory + "/" + name(account)
    }

    /// The path of an account's token file.
    /// - Parameter account: The account.
    /// - Returns: The path, or nil for an id that cannot name a file (empty or over 100 bytes).
    public func path(for account: AccountID) -> String? {
        Self.fileName(account).map { directory + "/" + $0 + ".token" }
    }

    /// The version for a write: greater than the current one, and otherwise the time in milliseconds
    /// shifted left 16 bits with 16 random bits, so an account removed and written again (by any process)
    /// does not get back a version it had before.
    static func nextVersion(after current: TokenVersion?, now: Date) -> TokenVersion {
        let milliseconds = UInt64(max(0, min(TokenRecord.milliseconds(now), 1 << 46)))
        let fresh = TokenVersion(milliseconds << 16 | UInt64.random(in: 0...0xFFFF))
        guard let current else { return fresh }
        return max(current.next, fresh)
    }

    // MARK: The record format

    /// Reads a token file's bytes as a ``FileTokenStore`` does, with the same strict checks: for tools
    /// that inspect token files, and for the fuzzer.
    /// - Parameters:
    ///   - bytes: The file's bytes.
    ///   - account: The account the file should belong to.
    /// - Returns: The stored token and the instant it falls due.
    /// - Throws: ``TokenStoreError`` of kind `corrupt` saying what is wrong.
    public static func decodeRecord(_ bytes: [UInt8], account: AccountID) throws(TokenStoreError) -> (stored: StoredToken, dueAt: Date) {
        do {
            let (stored, dueAt) = try TokenRecord.decode(bytes, account: account)
            return (stored, dueAt)
        } catch {
            throw TokenStoreError(.corrupt, account: account, message: error.description)
        }
    }

    /// The bytes a ``FileTokenStore`` writes for a token. They hold the token's secrets in clear text:
    /// write them only where the token belongs.
    /// - Parameters:
    ///   - stored: The token and its version.
    ///   - dueAt: When it falls due.
    /// - Returns: The record's JSON bytes.
    public static func encodeRecord(_ stored: StoredToken, dueAt: Date) -> [UInt8] {
        TokenRecord(stored, dueAt: dueAt).encoded()
    }

    // MARK: Reading

    /// Reads the token file, checking its ownership and mode; moves a corrupt one aside.
    private func read(_ account: AccountID) throws(TokenStoreError) -> (StoredToken, Date)? {
        let path = try base(account) + ".token"
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        if fd < 0 {
            if errno == ENOENT { return nil }
            if errno == ELOOP { throw moveAside(path, account: account, reason: "it is a symbolic link") }
            throw TokenStoreError(.io, account: account, message: "cannot open \(path): \(SystemCallError.last("open", path).reason)")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw TokenStoreError(.io, account: account, message: "cannot stat \(path): \(SystemCallError.last("fstat", path).reason)")
        }
        guard info.st_mode & S_IFMT == S_IFREG else { throw moveAside(path, account: account, reason: "it is not a regular file") }
        guard info.st_mode & 0o077 == 0, info.st_uid == geteuid() else {
            throw TokenStoreError(
                .insecure, account: account,
                message: "\(path) can be read or written by other users or belongs to another user (mode \(String(info.st_mode & 0o777, radix: 8)), owner \(info.st_uid)); it was not read. Fix its mode (chmod 600) or remove it")
        }
        let bytes: [UInt8]
        do {
            bytes = try FileBytes.read(fd: fd, path: path, limit: 64 << 10)
        } catch where error.code == EFBIG {
            throw moveAside(path, account: account, reason: "it is larger than any token record (64 KiB)")
        } catch {
            throw TokenStoreError(.io, account: account, message: "cannot read \(path): \(error.reason)")
        }
        do {
            let (stored, dueAt) = try TokenRecord.decode(bytes, account: account)
            return (stored, dueAt)
        } catch {
            throw moveAside(path, account: account, reason: error.description)
        }
    }

    /// Moves a bad file aside and returns the error that reports it.
    private func moveAside(_ path: String, account: AccountID, reason: String) -> TokenStoreError {
        let aside = "\(path).corrupt-\(TokenRecord.milliseconds(clock.now()))"
        var moved = false
        noteDirectoryChange { moved = rename(path, aside) == 0 }
        if moved {
            syncDirectory()
            return TokenStoreError(.corrupt, account: account, message: "\(path) is not a valid token record (\(reason)); moved aside to \(aside)")
        }
        return TokenStoreError(
            .corrupt, account: account,
            message: "\(path) is not a valid token record (\(reason)); moving it aside failed: \(SystemCallError.last("rename", path).reason)")
    }

    /// Reads an account's token (``TokenStore/load(_:)``).
    /// - Parameter account: The account.
    /// - Returns: The token and its version, or nil.
    /// - Throws: ``TokenStoreError``.
    public func load(_ account: AccountID) async throws -> StoredToken? {
        try read(account)?.0
    }

    // MARK: Writing

    /// Takes an exclusive `flock` on a lock file, polling on the clock so no thread blocks.
    /// - Returns: The open descriptor (locked), or nil when `timeout` passed first.
    private func lock(_ path: String, account: AccountID, timeout: Duration, poll: Duration) async throws -> Int32? {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else {
            throw TokenStoreError(.io, account: account, message: "cannot open \(path): \(SystemCallError.last("open", path).reason)")
        }
        var waited = Duration.zero
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else {
                let error = SystemCallError.last("flock", path)
                close(fd)
                throw TokenStoreError(.io, account: account, message: "cannot lock \(path): \(error.reason)")
            }
            guard waited < timeout else {
                close(fd)
                return nil
            }
            do {
                try await clock.sleep(for: poll)
            } catch {
                close(fd)
                throw error
            }
            waited += poll
        }
        return fd
    }

    private func unlock(_ fd: Int32) {
        flock(fd, LOCK_UN)
        close(fd)
    }

    /// Holds the account's write lock while `body` runs.
    private func withWriteLock<T>(_ account: AccountID, _ body: () throws(TokenStoreError) -> T) async throws -> T {
        let path = try locks + "/" + name(account) + ".lock"
        guard let fd = try await lock(path, account: account, timeout: lockTimeout, poll: .milliseconds(1)) else {
            throw TokenStoreError(.io, account: account, message: "another process held \(path) for longer than \(lockTimeout.seconds) s")
        }
        defer { unlock(fd) }
        return try body()
    }

    private func checkVersion(_ current: StoredToken?, expected: TokenVersion?, account: AccountID) throws(TokenStoreError) {
        guard current?.version == expected else {
            throw TokenStoreError(
                .conflict, account: account,
                message: "expected \(expected.map(\.description) ?? "no token"), found \(current.map(\.version.description) ?? "no token")")
        }
    }

    /// Writes a token if the stored version is still `expected` (``TokenStore/save(_:replacing:dueAt:)``).
    /// - Parameters:
    ///   - token: The token.
    ///   - expected: The version read, or nil when none should be stored.
    ///   - dueAt: When the token needs attention.
    /// - Returns: The new version.
    /// - Throws: ``TokenStoreError`` of kind `conflict` or `io`.
    public func save(_ token: AccessToken, replacing expected: TokenVersion?, dueAt: Date) async throws -> TokenVersion {
        let account = token.account
        let path = try base(account) + ".token"
        return try await withWriteLock(account) { () throws(TokenStoreError) -> TokenVersion in
            let current = try read(account)?.0
            try checkVersion(current, expected: expected, account: account)
            let version = Self.nextVersion(after: current?.version, now: clock.now())
            let record = TokenRecord(StoredToken(token: token, version: version), dueAt: dueAt)
            do {
                try writeAtomically(record.encoded(), to: path)
            } catch {
                throw TokenStoreError(.io, account: account, message: "cannot write \(path): \(error); the previous token is unchanged")
            }
            indexState.withLock { if $0.built { $0.index.set(account, dueAt: dueAt) } }
            return version
        }
    }

    /// Removes an account's token (``TokenStore/remove(_:replacing:)``).
    /// - Parameters:
    ///   - account: The account.
    ///   - expected: The version read, or nil to remove whatever is stored.
    /// - Returns: Whether a token was removed.
    /// - Throws: ``TokenStoreError`` of kind `conflict` or `io`.
    @discardableResult
    public func remove(_ account: AccountID, replacing expected: TokenVersion?) async throws -> Bool {
        let path = try base(account) + ".token"
        return try await withWriteLock(account) { () throws(TokenStoreError) -> Bool in
            let current = try read(account)?.0
            if expected != nil || current == nil {
                if current == nil && expected == nil { return false }
                try checkVersion(current, expected: expected, account: account)
            }
            var failure: SystemCallError? = nil
            noteDirectoryChange {
                if unlink(path) != 0, errno != ENOENT { failure = .last("unlink", path) }
            }
            if let failure {
                throw TokenStoreError(.io, account: account, message: "cannot remove \(path): \(failure.reason); the token is still stored")
            }
            syncDirectory()
            indexState.withLock { if $0.built { $0.index.remove(account) } }
            return true
        }
    }

    /// Writes bytes to `path` atomically with mode 0600.
    private func writeAtomically(_ bytes: [UInt8], to path: String) throws(SystemCallError) {
        let fault = faults.withLock { $0 }
        let temporary = "\(temporaries)/\(path.split(separator: "/").last!).\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw .last("open", temporary) }
        var closed = false
        do throws(SystemCallError) {
            // Write in two halves so a test can fail between them, as a crash or a full disk would.
            let half = bytes.count / 2
            try fault?(.writeTemporary(bytesWritten: 0, of: bytes.count))
            try FileBytes.write(fd: fd, bytes[0..<half], path: temporary)
            try fault?(.writeTemporary(bytesWritten: half, of: bytes.count))
            try FileBytes.write(fd: fd, bytes[half...], path: temporary)
            guard fchmod(fd, 0o600) == 0 else { throw SystemCallError.last("fchmod", temporary) }
            guard fsync(fd) == 0 else { throw SystemCallError.last("fsync", temporary) }
            closed = true
            guard close(fd) == 0 else { throw SystemCallError.last("close", temporary) }
            try fault?(.beforeRename)
            var renameError: SystemCallError? = nil
            noteDirectoryChange {
                if rename(temporary, path) != 0 { renameError = .last("rename", temporary) }
            }
            if let renameError { throw renameError }
            try fault?(.beforeDirectorySync)
            syncDirectory()
        } catch {
            if !closed { close(fd) }
            unlink(temporary)
            throw error
        }
    }

    private func syncDirectory() {
        let fd = open(directory, O_RDONLY | O_CLOEXEC | O_DIRECTORY)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }

    // MARK: The due index

    private func directoryStamp() -> (Int, Int)? {
        var info = stat()
        guard stat(directory, &info) == 0 else { return nil }
        #if canImport(Darwin)
        return (Int(info.st_mtimespec.tv_sec), Int(info.st_mtimespec.tv_nsec))
        #else
        return (Int(info.st_mtim.tv_sec), Int(info.st_mtim.tv_nsec))
        #endif
    }

    /// Runs a change of this instance to the directory, keeping the index's stamp current unless another
    /// process changed the directory meanwhile.
    private func noteDirectoryChange(_ change: () -> Void) {
        let before = directoryStamp()
        change()
        let after = directoryStamp()
        indexState.withLock { state in
            guard state.built else { return }
            if before.map({ $0 != state.directoryStamp }) ?? true { state.foreignChange = true }
            if let after { state.directoryStamp = after }
        }
    }

    private func rebuildIndex() throws(TokenStoreError) {
        let stamp = directoryStamp() ?? (0, 0)
        guard let handle = opendir(directory) else {
            throw TokenStoreError(.io, account: "", message: "cannot list \(directory): \(SystemCallError.last("opendir", directory).reason)")
        }
        defer { closedir(handle) }
        var index = DueIndex()
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            guard name.hasSuffix(".token"), let account = Self.account(fromFileName: String(name.dropLast(6))) else { continue }
            if let (_, dueAt) = try? read(account) { index.set(account, dueAt: dueAt) }
        }
        indexState.withLock { state in
            state.index = index
            state.built = true
            state.directoryStamp = stamp
            state.foreignChange = false
        }
    }

    static func account(fromFileName name: String) -> AccountID? {
        let hex = Array(name.utf8)
        guard !hex.isEmpty, hex.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        var index = 0
        while index < hex.count {
            guard let high = hexValue(hex[index]), let low = hexValue(hex[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return String(validating: bytes, as: UTF8.self).map { AccountID($0) }
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 48...57: byte - 48
        case 97...102: byte - 87
        default: nil
        }
    }

    /// Accounts due before an instant, soonest first (``TokenStore/accounts(dueBefore:limit:)``).
    /// - Parameters:
    ///   - instant: The instant.
    ///   - limit: The most accounts to return.
    /// - Returns: The accounts.
    /// - Throws: ``TokenStoreError`` of kind `io`.
    public func accounts(dueBefore instant: Date, limit: Int) async throws -> [AccountID] {
        let stamp = directoryStamp()
        let stale = indexState.withLock { state in
            !state.built || state.foreignChange || stamp.map { $0 != state.directoryStamp } ?? true
        }
        if stale { try rebuildIndex() }
        return indexState.withLock { $0.index.accounts(dueBefore: instant, limit: limit) }
    }

    // MARK: The refresh lock

    /// Runs `body` holding the account's refresh lock (``TokenStore/withRefreshLock(for:_:)``).
    /// - Parameters:
    ///   - account: The account.
    ///   - body: The refresh.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    public func withRefreshLock<T: Sendable>(for account: AccountID, _ body: @Sendable () async throws -> T) async throws -> T {
        let path = try locks + "/" + name(account) + ".refresh"
        // After the timeout the refresh goes ahead unlocked; compare-and-swap keeps the store right.
        let fd = try await lock(path, account: account, timeout: lockTimeout, poll: .milliseconds(10))
        defer { if let fd { unlock(fd) } }
        return try await body()
    }

}
