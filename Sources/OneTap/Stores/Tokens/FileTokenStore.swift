#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A token store on the local disk: the embedded default for one machine and for the CLI.
///
/// - One file per account, `<hex of the account id's UTF-8>.token`, a ``TokenRecord`` JSON object of at
///   most ``TokenRecordLimit/bytes``; a larger token is refused at save (`too-large`).
/// - Writes are atomic: a temporary file in `.tmp/`, `fsync`, `rename`, `fsync` of the directory. A
///   failure at any step before the rename (a full disk, a crash) leaves the previous token whole.
/// - Temporary files left by a crashed writer are removed when a store opens the directory (and every
///   256 writes): a temporary file whose writer is gone (its `flock` can be taken and its process is not
///   running) holds a token in clear text and is never needed again.
/// - Files are created with mode 0600 in a directory created with mode 0700; a directory other users
///   can read, enter or write or that another user owns (an existing one too), or a token file that other
///   users can read or write or that another user owns, is refused (`insecure`).
/// - A corrupt, foreign, over-long file, a symbolic link or a non-regular file where a token file should
///   be is moved aside to `<name>.corrupt-<milliseconds>` (`….1`, `….2` for more in the same millisecond)
///   when that account is read (or by ``repair()``)
///   and reported (`corrupt`); it is never silently overwritten. Only the file read is moved: one another
///   process saved in its place meanwhile is read instead. Listing never moves anything. What is set
///   aside may hold a token: it is kept mode 0600 for 7 days (on the injected clock)
///   for a person to look at, then deleted when a store opens the directory, every 256 writes, or by
///   ``repair()``.
/// - Compare-and-swap writes hold an advisory lock (`flock`) on `.locks/<name>.lock`; refreshes hold one
///   on `.locks/<name>.refresh`, so two processes on one machine do not refresh the same account twice.
///   Waiting for a lock polls on the injected clock.
/// - Every blocking call (`open`, `read`, `fsync`, `rename`, `flock`, directory listing) runs on
///   dispatch threads of the store's own, never on Swift's cooperative pool.
/// - ``accounts(dueBefore:limit:)`` answers from an index built by one scan of the directory and kept
///   current by this instance's writes. When another process changes the directory, the next listing
///   lists it again and re-reads only the files whose identity (inode, size, modification time) changed.
public final class FileTokenStore: TokenStore {
    /// The directory holding the token files.
    package let directory: String
    /// How long a write waits for another process's write lock, and a refresh for another process's refresh
    /// lock (then `timeout`, and nothing runs: one refresh at a time).
    package let lockTimeout: Duration
    /// How old the directory's time must be before an unchanged time is trusted to mean no change (the
    /// kernel stamps it from a coarse clock): 2 seconds.
    let settleTime: Duration
    let clock: any WallClock
    let io = BlockingIO(label: "onetap.file-token-store")

    /// A step of a write or removal, for fault injection in tests.
    enum Step: Sendable {
        case writeTemporary(bytesWritten: Int, of: Int)
        case beforeRename
        case beforeDirectorySync
        case beforeUnlink
        /// A file read as bad is about to be moved aside.
        case beforeMoveAside
        /// A file read as bad was found still the one read, and is about to be renamed aside.
        case beforeSetAsideRename
        /// A lock file is about to be unlocked and closed.
        case beforeUnlock
    }

    /// Called before each step; throwing fails the call there (tests only).
    let faults: LockedValue<(@Sendable (Step) throws(SystemCallError) -> Void)?> = LockedValue(nil)

    /// What the due index knows.
    struct IndexState {
        var index = DueIndex()
        var built = false
        var directoryStamp = FileIdentity.none
        /// Whether ``directoryStamp`` was read by a listing that ran when the directory's time was already
        /// older than ``settleTime``: no later change can then share that time, so an equal
        /// stamp means the directory did not change. After this instance's own write it is false, and the
        /// next listing looks at every file's identity.
        var stampSettled = false
        /// Token file name → the identity it had when indexed.
        var files: [String: FileIdentity] = [:]
        var foreignChange = false
        /// Token files read to build or refresh the index, ever (tests check re-reads stay few).
        var reads = 0
    }

    let indexState = LockedValue(IndexState())
    /// What the index keeps of one token file: its identity and the token's due time.
    struct IndexEntry {
        let identity: FileIdentity
        let dueAt: Date
    }
    /// Temporary files this instance is writing now, and writes since the last sweep.
    let writing = LockedValue((names: Set<String>(), sinceSweep: 0))

    /// Opens (creating if needed) a store directory, and removes temporary files crashed writers left.
    /// - Parameters:
    ///   - directory: The directory; created with mode 0700 when missing.
    ///   - clock: The clock used while waiting for locks.
    ///   - lockTimeout: How long to wait for another process's lock; 30 seconds.
    /// - Throws: ``StoreError`` of kind `io` when the directory (or its `.locks` or `.tmp`) cannot
    ///   be created or is not a directory, `insecure` when other users can read, enter or write one of
    ///   them (its mode must be 0700 or stricter).
    public convenience init(directory: String, clock: any WallClock = SystemClock(), lockTimeout: Duration = .seconds(30)) throws(StoreError) {
        try self.init(directory: directory, clock: clock, lockTimeout: lockTimeout, settleTime: .seconds(2))
    }

    /// Opens a store whose due listing trusts an unchanged directory time only once it is `settleTime`
    /// old (tests make it long, so a stalled machine cannot make a listing trust a time it set back).
    package init(directory: String, clock: any WallClock, lockTimeout: Duration, settleTime: Duration) throws(StoreError) {
        self.directory = directory.hasSuffix("/") && directory.count > 1 ? String(directory.dropLast()) : directory
        self.clock = clock
        self.lockTimeout = lockTimeout
        self.settleTime = settleTime
        try Self.prepare(self.directory, followLinks: true)
        try Self.prepare(locks, followLinks: false)
        try Self.prepare(temporaries, followLinks: false)
        sweepTemporaries()
        sweepSetAside()
    }

    /// Creates a directory if needed and checks that it is one only this user can read, enter or write.
    static func prepare(_ path: String, followLinks: Bool) throws(StoreError) {
        if mkdir(path, 0o700) != 0 && errno != EEXIST {
            throw StoreError(.io, account: nil, message: "cannot create \(path): \(SystemCallError.last("mkdir", path).reason)")
        }
        var info = stat()
        guard (followLinks ? stat(path, &info) : lstat(path, &info)) == 0 else {
            throw StoreError(.io, account: nil, message: "cannot open \(path): \(SystemCallError.last("stat", path).reason)")
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            let what = info.st_mode & S_IFMT == S_IFLNK ? "a symbolic link" : "a file"
            throw StoreError(.io, account: nil, message: "\(path) is \(what), not a directory; remove it so the store can create its directory")
        }
        guard info.st_mode & 0o077 == 0 else {
            // Written by others: they could swap a file in. Read or entered by others: the names are the
            // account ids, and a looser file would give its token away.
            throw StoreError(
                .insecure, account: nil,
                message: "\(path) is open to other users (mode \(String(info.st_mode & 0o777, radix: 8))); use a directory only you can use (chmod 700)")
        }
        guard info.st_uid == geteuid() else {
            // Its owner can list, rename, delete and plant the files, and open it up again after this check.
            throw StoreError(
                .insecure, account: nil,
                message: "\(path) belongs to another user (owner \(info.st_uid)); use a directory this user owns (chown)")
        }
    }

    /// Where the lock files live.
    var locks: String { directory + "/.locks" }
    /// Where files are written before they are renamed into place.
    var temporaries: String { directory + "/.tmp" }

    // MARK: The record format

    /// Reads a token file's bytes as a ``FileTokenStore`` does, with the same strict checks: for tools
    /// that inspect token files, and for the fuzzer.
    package static func decodeRecord(_ bytes: [UInt8], account: AccountID) throws(StoreError) -> (stored: StoredToken, dueAt: Date) {
        do {
            let (stored, dueAt) = try TokenRecord.decode(bytes, account: account)
            return (stored, dueAt)
        } catch {
            throw StoreError(.corrupt, account: account, message: error.description)
        }
    }

    /// The bytes a ``FileTokenStore`` writes for a token. They hold the token's secrets in clear text.
    package static func encodeRecord(_ stored: StoredToken, dueAt: Date) -> [UInt8] {
        TokenRecord.encode(stored, dueAt: dueAt)
    }

    // MARK: Reading

    /// What reading one token file found.
    enum FileRead {
        case absent
        case record(StoredToken, dueAt: Date, FileIdentity)
        /// Not a token record: moved aside when the account is read, skipped when listing. The identity of the
        /// file read (nil for a symbolic link, which is not opened).
        case bad(reason: String, FileIdentity?)
        case insecure(String)
        case failed(String)

        /// The token read: nil for no file; a file not to be read is `insecure`, one that could not be read `io`, and a
        /// bad one `corrupt`, left where it is (the callers move it aside first, under the account's write lock).
        /// - Parameter account: The account the file is for.
        /// - Returns: The token and its version, or nil.
        /// - Throws: ``StoreError`` of kind `insecure`, `io` or `corrupt`.
        func token(of account: AccountID) throws(StoreError) -> StoredToken? {
            switch self {
            case .absent: return nil
            case .record(let stored, _, _): return stored
            case .bad(let reason, _): throw StoreError(.corrupt, account: account, message: reason)
            case .insecure(let message): throw StoreError(.insecure, account: account, message: message)
            case .failed(let message): throw StoreError(.io, account: account, message: message)
            }
        }
    }

    /// Reads a token file, checking its type, ownership, mode and size. Moves nothing.
    func inspect(_ account: AccountID, path: String) -> FileRead {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        if fd < 0 {
            switch errno {
            case ENOENT: return .absent
            case ELOOP: return .bad(reason: "it is a symbolic link", nil)
            default: return .failed("cannot open \(path): \(SystemCallError.last("open", path).reason)")
            }
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return .failed("cannot stat \(path): \(SystemCallError.last("fstat", path).reason)") }
        guard info.st_mode & S_IFMT == S_IFREG else { return .bad(reason: "it is not a regular file", FileIdentity(info)) }
        guard info.st_mode & 0o077 == 0, info.st_uid == geteuid() else {
            return .insecure(
                "\(path) can be read or written by other users or belongs to another user (mode \(String(info.st_mode & 0o777, radix: 8)), owner \(info.st_uid)); it was not read. Fix its mode (chmod 600) or remove it")
        }
        let bytes: [UInt8]
        do {
            bytes = try FileBytes.read(fd: fd, path: path, limit: TokenRecordLimit.bytes)
        } catch where error.code == EFBIG {
            return .bad(reason: "it is larger than any token record (\(TokenRecordLimit.bytes / 1024) KiB)", FileIdentity(info))
        } catch {
            return .failed("cannot read \(path): \(error.reason)")
        }
        do {
            let (stored, dueAt) = try TokenRecord.decode(bytes, account: account)
            return .record(stored, dueAt: dueAt, FileIdentity(info))
        } catch {
            return .bad(reason: error.description, FileIdentity(info))
        }
    }

    /// Reads an account's token, moving a bad file aside.
    func read(_ account: AccountID) throws(StoreError) -> StoredToken? {
        let path = path(for: account)
        // A file that changed between its reading and its moving aside (another process saved a token there) is
        // read again: twice at most, then reported as it is.
        for attempt in 1...3 {
            let found = inspect(account, path: path)
            guard case .bad(let reason, let identity) = found else { return try found.token(of: account) }
            let (error, _, replaced) = moveAsideReporting(path, account: account, reason: reason, expecting: identity)
            if replaced && attempt < 3 { continue }
            throw error
        }
        return nil
    }

    /// Reads an account's token (``TokenStore/load(_:)``). A bad file is moved aside and reported.
    ///
    /// A bad file is moved only under the account's write lock, which every save and removal holds: a token another
    /// process saves in its place is never moved aside in its stead (it is read instead).
    /// - Parameter account: The account.
    /// - Returns: The token and its version, or nil.
    /// - Throws: ``StoreError`` of kind `corrupt` (the file was moved aside), `insecure`, `io`, or `timeout` (a bad
    ///   file, and another process held the write lock past ``lockTimeout``; nothing was moved).
    public func load(_ account: AccountID) async throws -> StoredToken? {
        let path = path(for: account)
        let first = await io.run { self.inspect(account, path: path) }
        guard case .bad = first else { return try first.token(of: account) }
        return try await withWriteLock(account) { () throws(StoreError) -> StoredToken? in try self.read(account) }
    }

    /// Moves every bad file where a token file should be aside (what ``load(_:)`` does for one account, under the
    /// account's write lock), removes temporary files crashed writers left, and deletes what was set aside longer
    /// than 7 days ago.
    /// - Returns: The paths the bad files were moved to.
    /// - Throws: ``StoreError`` of kind `io` when the directory cannot be listed; once every other bad file was moved,
    ///   the first failure to take a bad file's write lock (`timeout`: another process held it past ``lockTimeout``;
    ///   `io`: its lock file cannot be used) or to move it (`io`), saying how many files were moved and how many were
    ///   left (run it again).
    @discardableResult
    public func repair() async throws -> [String] {
        let bad = try await io.run { () throws(StoreError) -> [(account: AccountID, path: String)] in
            self.sweepTemporaries()
            self.sweepSetAside()
            return try self.tokenFileNames().compactMap { name in
                let path = self.directory + "/" + name
                guard let account = Self.account(fromFileName: String(name.dropLast(6))), case .bad = self.inspect(account, path: path) else { return nil }
                return (account, path)
            }
        }
        var moved: [String] = []
        var left: [StoreError] = []
        for (account, path) in bad {
            do {
                let aside = try await withWriteLock(account) { () throws(StoreError) -> String? in
                    guard case .bad(let reason, let identity) = self.inspect(account, path: path) else { return nil }
                    let (error, aside, replaced) = self.moveAsideReporting(path, account: account, reason: reason, expecting: identity)
                    // Not moved (its rename failed): left, and said as the `io` failure it is.
                    if aside == nil && !replaced { throw StoreError(.io, subject: error.entry, message: error.message) }
                    return aside
                }
                if let aside { moved.append(aside) }
            } catch let error as StoreError {
                left.append(error)
            }
        }
        if let first = left.first {
            throw StoreError(first.kind, subject: first.entry, message: "\(moved.count) bad files moved aside, \(left.count) left (run repair again); the first: \(first.message)")
        }
        return moved
    }

    // MARK: Writing

    func checkVersion(_ current: StoredToken?, expected: TokenVersion?, account: AccountID) throws(StoreError) {
        guard current?.version == expected else {
            throw StoreError(
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
    /// - Throws: ``StoreError`` of kind `too-large`, `conflict`, `timeout` or `io`.
    public func save(_ token: AccessToken, replacing expected: TokenVersion?, dueAt: Date) async throws -> TokenVersion {
        try TokenRecordLimit.check(token, dueAt: dueAt)
        let account = token.account
        let path = path(for: account)
        return try await withWriteLock(account) { () throws(StoreError) -> TokenVersion in
            let current = try self.read(account)
            try self.checkVersion(current, expected: expected, account: account)
            let version = Self.nextVersion(after: current?.version, now: self.clock.now())
            let bytes = TokenRecord.encode(StoredToken(token: token, version: version), dueAt: dueAt)
            let identity: FileIdentity
            do {
                identity = try self.writeAtomically(bytes, to: path)
            } catch {
                throw StoreError(.io, account: account, message: "cannot write \(path): \(error); the previous token is unchanged")
            }
            self.indexState.withLock { state in
                guard state.built else { return }
                state.index.set(account, dueAt: dueAt)
                state.files[Self.fileName(account) + ".token"] = identity
            }
            return version
        }
    }

    /// Removes an account's token (``TokenStore/remove(_:replacing:)``).
    /// - Parameters:
    ///   - account: The account.
    ///   - expected: The version read, or nil to remove whatever is stored.
    /// - Returns: Whether a token was removed.
    /// - Throws: ``StoreError`` of kind `conflict`, `timeout` or `io`.
    @discardableResult
    public func remove(_ account: AccountID, replacing expected: TokenVersion?) async throws -> Bool {
        let path = path(for: account)
        return try await withWriteLock(account) { () throws(StoreError) -> Bool in
            let current = try self.read(account)
            if expected != nil || current == nil {
                if current == nil && expected == nil { return false }
                try self.checkVersion(current, expected: expected, account: account)
            }
            var failure: SystemCallError? = nil
            do throws(SystemCallError) {
                try self.faults.withLock { $0 }?(.beforeUnlink)
                self.noteDirectoryChange {
                    if unlink(path) != 0, errno != ENOENT { failure = .last("unlink", path) }
                }
            } catch {
                failure = error
            }
            if let failure {
                throw StoreError(.io, account: account, message: "cannot remove \(path): \(failure.reason); the token is still stored")
            }
            self.syncDirectory()
            self.indexState.withLock { state in
                state.index.remove(account)
                state.files[Self.fileName(account) + ".token"] = nil
            }
            return true
        }
    }

    // MARK: Listing

    /// Accounts due before an instant, soonest first (``TokenStore/accounts(dueBefore:limit:)``). Reads
    /// only: a bad file is left where it is and not listed.
    /// - Parameters:
    ///   - instant: The instant.
    ///   - limit: The most accounts to return.
    /// - Returns: The accounts.
    /// - Throws: ``StoreError`` of kind `io` when the directory cannot be listed.
    public func accounts(dueBefore instant: Date, limit: Int) async throws -> [AccountID] {
        try await io.run { () throws(StoreError) -> [AccountID] in
            try self.refreshIndex()
            return self.indexState.withLock { $0.index.accounts(dueBefore: instant, limit: limit) }
        }
    }
}
