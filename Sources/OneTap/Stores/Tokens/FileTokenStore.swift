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
/// - One file per account, `<hex of the account id's UTF-8>.token`, a ``TokenRecord`` JSON object of at
///   most ``TokenRecordLimit/bytes``; a larger token is refused at save (`too-large`).
/// - Writes are atomic: a temporary file in `.tmp/`, `fsync`, `rename`, `fsync` of the directory. A
///   failure at any step before the rename (a full disk, a crash) leaves the previous token whole.
/// - Temporary files left by a crashed writer are removed when a store opens the directory (and every
///   256 writes): a temporary file whose writer is gone (its `flock` can be taken and its process is not
///   running) holds a token in clear text and is never needed again.
/// - Files are created with mode 0600 in a directory created with mode 0700; a token file that other
///   users can read or write, or that another user owns, is refused (`insecure`).
/// - A corrupt, foreign, over-long file, a symbolic link or a non-regular file where a token file should
///   be is moved aside to `<name>.corrupt-<milliseconds>` when that account is read (or by ``repair()``)
///   and reported (`corrupt`); it is never silently overwritten. Listing never moves anything.
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
    /// How long a write waits for another process's write lock (then `timeout`), and a refresh for
    /// another process's refresh lock (then it goes ahead: compare-and-swap still keeps the store right).
    package let lockTimeout: Duration
    private let clock: any WallClock
    private let io = BlockingIO(label: "onetap.file-token-store")

    /// A step of a write or removal, for fault injection in tests.
    enum Step: Sendable {
        case writeTemporary(bytesWritten: Int, of: Int)
        case beforeRename
        case beforeDirectorySync
        case beforeUnlink
    }

    /// Called before each step; throwing fails the call there (tests only).
    let faults: LockedValue<(@Sendable (Step) throws(SystemCallError) -> Void)?> = LockedValue(nil)

    /// What the due index knows.
    private struct IndexState {
        var index = DueIndex()
        var built = false
        var directoryStamp = FileIdentity.none
        /// Token file name → the identity it had when indexed.
        var files: [String: FileIdentity] = [:]
        var foreignChange = false
        /// Token files read to build or refresh the index, ever (tests check re-reads stay few).
        var reads = 0
    }

    private let indexState = LockedValue(IndexState())
    /// Temporary files this instance is writing now, and writes since the last sweep.
    private let writing = LockedValue((names: Set<String>(), sinceSweep: 0))

    /// Opens (creating if needed) a store directory, and removes temporary files crashed writers left.
    /// - Parameters:
    ///   - directory: The directory; created with mode 0700 when missing.
    ///   - clock: The clock used while waiting for locks.
    ///   - lockTimeout: How long to wait for another process's lock; 30 seconds.
    /// - Throws: ``StoreError`` of kind `io` when the directory (or its `.locks` or `.tmp`) cannot
    ///   be created or is not a directory, `insecure` when other users can write to one of them.
    public init(directory: String, clock: any WallClock = SystemClock(), lockTimeout: Duration = .seconds(30)) throws(StoreError) {
        self.directory = directory.hasSuffix("/") && directory.count > 1 ? String(directory.dropLast()) : directory
        self.clock = clock
        self.lockTimeout = lockTimeout
        try Self.prepare(self.directory, followLinks: true)
        try Self.prepare(locks, followLinks: false)
        try Self.prepare(temporaries, followLinks: false)
        sweepTemporaries()
    }

    /// Creates a directory if needed and checks that it is one that only this user can write.
    private static func prepare(_ path: String, followLinks: Bool) throws(StoreError) {
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
        guard info.st_mode & 0o022 == 0 else {
            throw StoreError(
                .insecure, account: nil,
                message: "\(path) can be written by other users (mode \(String(info.st_mode & 0o777, radix: 8))); use a directory only you can write")
        }
    }

    /// Where the lock files live.
    private var locks: String { directory + "/.locks" }
    /// Where files are written before they are renamed into place.
    private var temporaries: String { directory + "/.tmp" }

    // MARK: Paths

    /// The file name for an account: the hex of its UTF-8 bytes, so any id is a safe name (an id has at
    /// most 100 bytes, so a name at most 206 characters with its suffix).
    static func fileName(_ account: AccountID) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var name = [UInt8]()
        name.reserveCapacity(account.rawValue.utf8.count * 2)
        for byte in account.rawValue.utf8 {
            name.append(digits[Int(byte >> 4)])
            name.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: name, as: UTF8.self)
    }

    /// The account a token file's name stands for, or nil when the name is not one this store writes.
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
        guard let text = String(validating: bytes, as: UTF8.self) else { return nil }
        return try? AccountID(text)  // a name no valid id makes is not ours: skipped
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 48...57: byte - 48
        case 97...102: byte - 87
        default: nil
        }
    }

    /// The path of an account's token file.
    /// - Parameter account: The account.
    /// - Returns: The path.
    package func path(for account: AccountID) -> String {
        directory + "/" + Self.fileName(account) + ".token"
    }

    /// The version for a write: greater than the current one, and otherwise the time in milliseconds
    /// shifted left 16 bits with 16 random bits (the system's CSPRNG), so an account removed and written
    /// again (by any process) does not get back a version it had before.
    static func nextVersion(after current: TokenVersion?, now: Date) -> TokenVersion {
        let milliseconds = UInt64(max(0, min(now.millisecondsSince1970, 1 << 46)))
        let fresh = TokenVersion(milliseconds << 16 | UInt64.random(in: 0...0xFFFF))
        guard let current else { return fresh }
        return max(current.next, fresh)
    }

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
    private enum FileRead {
        case absent
        case record(StoredToken, dueAt: Date, FileIdentity)
        /// Not a token record: moved aside when the account is read, skipped when listing.
        case bad(reason: String)
        case insecure(String)
        case failed(String)
    }

    /// Reads a token file, checking its type, ownership, mode and size. Moves nothing.
    private func inspect(_ account: AccountID, path: String) -> FileRead {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        if fd < 0 {
            switch errno {
            case ENOENT: return .absent
            case ELOOP: return .bad(reason: "it is a symbolic link")
            default: return .failed("cannot open \(path): \(SystemCallError.last("open", path).reason)")
            }
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return .failed("cannot stat \(path): \(SystemCallError.last("fstat", path).reason)") }
        guard info.st_mode & S_IFMT == S_IFREG else { return .bad(reason: "it is not a regular file") }
        guard info.st_mode & 0o077 == 0, info.st_uid == geteuid() else {
            return .insecure(
                "\(path) can be read or written by other users or belongs to another user (mode \(String(info.st_mode & 0o777, radix: 8)), owner \(info.st_uid)); it was not read. Fix its mode (chmod 600) or remove it")
        }
        let bytes: [UInt8]
        do {
            bytes = try FileBytes.read(fd: fd, path: path, limit: TokenRecordLimit.bytes)
        } catch where error.code == EFBIG {
            return .bad(reason: "it is larger than any token record (\(TokenRecordLimit.bytes / 1024) KiB)")
        } catch {
            return .failed("cannot read \(path): \(error.reason)")
        }
        do {
            let (stored, dueAt) = try TokenRecord.decode(bytes, account: account)
            return .record(stored, dueAt: dueAt, FileIdentity(info))
        } catch {
            return .bad(reason: error.description)
        }
    }

    /// Reads an account's token, moving a bad file aside.
    private func read(_ account: AccountID) throws(StoreError) -> StoredToken? {
        let path = path(for: account)
        switch inspect(account, path: path) {
        case .absent: return nil
        case .record(let stored, _, _): return stored
        case .bad(let reason): throw moveAside(path, account: account, reason: reason)
        case .insecure(let message): throw StoreError(.insecure, account: account, message: message)
        case .failed(let message): throw StoreError(.io, account: account, message: message)
        }
    }

    /// Moves a bad file aside and returns the error that reports it.
    private func moveAside(_ path: String, account: AccountID?, reason: String) -> StoreError {
        moveAsideReporting(path, account: account, reason: reason).error
    }

    /// Moves a bad file aside: the error that reports it, and where the file went when it moved.
    private func moveAsideReporting(_ path: String, account: AccountID?, reason: String) -> (error: StoreError, aside: String?) {
        let aside = "\(path).corrupt-\(clock.now().millisecondsSince1970)"
        var moved = false
        noteDirectoryChange { moved = rename(path, aside) == 0 }
        if moved {
            syncDirectory()
            indexState.withLock { state in
                let name = String(path.split(separator: "/").last!)
                state.files[name] = nil
                if let account { state.index.remove(account) }
            }
            return (StoreError(.corrupt, account: account, message: "\(path) is not a valid token record (\(reason)); moved aside to \(aside)"), aside)
        }
        let error = StoreError(
            .corrupt, account: account,
            message: "\(path) is not a valid token record (\(reason)); moving it aside failed: \(SystemCallError.last("rename", path).reason)")
        return (error, nil)
    }

    /// Reads an account's token (``TokenStore/load(_:)``). A bad file is moved aside and reported.
    /// - Parameter account: The account.
    /// - Returns: The token and its version, or nil.
    /// - Throws: ``StoreError`` of kind `corrupt` (the file was moved aside), `insecure` or `io`.
    public func load(_ account: AccountID) async throws -> StoredToken? {
        try await io.run { () throws(StoreError) -> StoredToken? in try self.read(account) }
    }

    /// Moves every bad file where a token file should be aside (what ``load(_:)`` does for one account),
    /// and removes temporary files crashed writers left.
    /// - Returns: The paths the bad files were moved to.
    /// - Throws: ``StoreError`` of kind `io` when the directory cannot be listed.
    @discardableResult
    public func repair() async throws -> [String] {
        try await io.run { () throws(StoreError) -> [String] in
            self.sweepTemporaries()
            var moved: [String] = []
            for name in try self.tokenFileNames() {
                guard let account = Self.account(fromFileName: String(name.dropLast(6))) else { continue }
                let path = self.directory + "/" + name
                if case .bad(let reason) = self.inspect(account, path: path) {
                    if let aside = self.moveAsideReporting(path, account: account, reason: reason).aside { moved.append(aside) }
                }
            }
            return moved
        }
    }

    // MARK: Locks

    /// Takes an exclusive `flock` on a lock file, polling on the clock so no thread blocks.
    /// - Returns: The open descriptor (locked), or nil when `timeout` passed first.
    private func lock(_ path: String, account: AccountID, timeout: Duration, poll: Duration) async throws -> Int32? {
        let fd = try await io.run { () throws(StoreError) -> Int32 in
            let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
            guard fd >= 0 else {
                throw StoreError(.io, account: account, message: "cannot open \(path): \(SystemCallError.last("open", path).reason)")
            }
            return fd
        }
        var waited = Duration.zero
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
    }

    private func unlock(_ fd: Int32) {
        flock(fd, LOCK_UN)
        close(fd)
    }

    /// Holds the account's write lock while `body` runs on the store's threads.
    private func withWriteLock<T: Sendable>(_ account: AccountID, _ body: @escaping @Sendable () throws(StoreError) -> T) async throws -> T {
        let path = locks + "/" + Self.fileName(account) + ".lock"
        guard let fd = try await lock(path, account: account, timeout: lockTimeout, poll: .milliseconds(1)) else {
            throw StoreError(
                .timeout, account: account, message: "another process held \(path) for longer than \(lockTimeout.seconds) s; nothing was changed")
        }
        defer { unlock(fd) }
        return try await io.run(body)
    }

    // MARK: Writing

    private func checkVersion(_ current: StoredToken?, expected: TokenVersion?, account: AccountID) throws(StoreError) {
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
        try TokenRecordLimit.check(token)
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

    /// Writes bytes to `path` atomically with mode 0600, returning the new file's identity.
    ///
    /// The temporary file is locked (`flock`) from its creation until it is renamed, so a sweep never
    /// removes a file that is being written; a sweep that raced the creation is answered by writing again.
    private func writeAtomically(_ bytes: [UInt8], to path: String) throws(SystemCallError) -> FileIdentity {
        precondition(!bytes.isEmpty, "a token record is never empty")
        for attempt in 1...3 {
            do {
                return try writeOnce(bytes, to: path)
            } catch where error.code == ENOENT && error.operation == "rename" && attempt < 3 {
                continue  // a sweep removed the temporary file between its creation and its lock
            }
        }
        throw SystemCallError(operation: "rename", path: path, code: ENOENT)
    }

    private func writeOnce(_ bytes: [UInt8], to path: String) throws(SystemCallError) -> FileIdentity {
        let fault = faults.withLock { $0 }
        let name = "\(path.split(separator: "/").last!).\(getpid())-\(String(UInt64.random(in: 0...UInt64.max), radix: 16))"
        let temporary = "\(temporaries)/\(name)"
        _ = writing.withLock { $0.names.insert(name) }
        defer { _ = writing.withLock { $0.names.remove(name) } }
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw .last("open", temporary) }
        flock(fd, LOCK_EX | LOCK_NB)  // a new file: nobody else holds it
        var closed = false
        var renamed = false
        do throws(SystemCallError) {
            // Write in two halves so a test can fail between them, as a crash or a full disk would.
            let half = bytes.count / 2
            try fault?(.writeTemporary(bytesWritten: 0, of: bytes.count))
            try FileBytes.write(fd: fd, bytes[0..<half], path: temporary)
            try fault?(.writeTemporary(bytesWritten: half, of: bytes.count))
            try FileBytes.write(fd: fd, bytes[half...], path: temporary)
            guard fchmod(fd, 0o600) == 0 else { throw SystemCallError.last("fchmod", temporary) }
            guard fsync(fd) == 0 else { throw SystemCallError.last("fsync", temporary) }
            var info = stat()
            guard fstat(fd, &info) == 0 else { throw SystemCallError.last("fstat", temporary) }
            try fault?(.beforeRename)
            var renameError: SystemCallError? = nil
            noteDirectoryChange {
                if rename(temporary, path) != 0 { renameError = .last("rename", temporary) }
            }
            if let renameError { throw renameError }
            renamed = true
            closed = true
            close(fd)
            // The rename is done and visible to every process; a failed directory sync only leaves its
            // durability across a power cut in doubt, so it does not fail the write.
            var syncs = true
            do { try fault?(.beforeDirectorySync) } catch { syncs = false }
            if syncs { syncDirectory() }
            countWrite()
            return FileIdentity(info)
        } catch {
            if !closed { close(fd) }
            if !renamed { unlink(temporary) }
            throw error
        }
    }

    private func syncDirectory() {
        let fd = open(directory, O_RDONLY | O_CLOEXEC | O_DIRECTORY)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }

    // MARK: Temporary files

    private func countWrite() {
        let sweep = writing.withLock { state -> Bool in
            state.sinceSweep += 1
            guard state.sinceSweep >= 256 else { return false }
            state.sinceSweep = 0
            return true
        }
        if sweep { sweepTemporaries() }
    }

    /// Removes temporary files whose writers are gone: the file's `flock` can be taken and it is not
    /// being written by this instance, and its process (named in the file name) is no longer running.
    private func sweepTemporaries() {
        guard let handle = opendir(temporaries) else { return }
        defer { closedir(handle) }
        let mine = writing.withLock { $0.names }
        let ownPID = getpid()
        while let entry = readdir(handle) {
            let name = Self.entryName(entry)
            guard name != ".", name != "..", !mine.contains(name) else { continue }
            let path = temporaries + "/" + name
            var info = stat()
            guard lstat(path, &info) == 0 else { continue }
            guard info.st_mode & S_IFMT == S_IFREG else {
                unlink(path)  // only this store writes here; anything else is debris
                continue
            }
            let pid = Self.writerPID(name)
            if let pid, pid != ownPID, kill(pid, 0) == 0 { continue }  // a live writer in another process
            let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
            guard fd >= 0 else { continue }
            if flock(fd, LOCK_EX | LOCK_NB) == 0 { unlink(path) }
            close(fd)
        }
    }

    /// The writer's process id in a temporary file's name, `<name>.token.<pid>-<random>`.
    private static func writerPID(_ name: String) -> pid_t? {
        guard let dash = name.lastIndex(of: "-"), let dot = name[..<dash].lastIndex(of: ".") else { return nil }
        return pid_t(name[name.index(after: dot)..<dash])
    }

    private static func entryName(_ entry: UnsafeMutablePointer<dirent>) -> String {
        withUnsafeBytes(of: entry.pointee.d_name) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
    }

    // MARK: The due index

    private func directoryStamp() -> FileIdentity {
        var info = stat()
        guard stat(directory, &info) == 0 else { return .none }
        return FileIdentity(info)
    }

    /// Runs a change of this instance to the directory, keeping the index's stamp current unless another
    /// process changed the directory meanwhile.
    private func noteDirectoryChange(_ change: () -> Void) {
        let before = directoryStamp()
        change()
        let after = directoryStamp()
        indexState.withLock { state in
            guard state.built else { return }
            if before != state.directoryStamp { state.foreignChange = true }
            state.directoryStamp = after
        }
    }

    /// The names of the token files in the directory.
    private func tokenFileNames() throws(StoreError) -> [String] {
        guard let handle = opendir(directory) else {
            throw StoreError(.io, account: nil, message: "cannot list \(directory): \(SystemCallError.last("opendir", directory).reason)")
        }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = Self.entryName(entry)
            if name.hasSuffix(".token") { names.append(name) }
        }
        return names
    }

    /// Brings the index up to date: a full read the first time; afterwards, when the directory changed
    /// under another process's hand, a listing that re-reads only the files whose identity changed.
    /// Reads only; never moves a file.
    private func refreshIndex() throws(StoreError) {
        let stamp = directoryStamp()
        let (built, stale, known) = indexState.withLock { state in
            (state.built, !state.built || state.foreignChange || stamp != state.directoryStamp, state.files)
        }
        guard stale else { return }
        let names = try tokenFileNames()
        var updates: [(name: String, account: AccountID?, entry: (FileIdentity, Date)?)] = []
        var reads = 0
        for name in names {
            guard let account = Self.account(fromFileName: String(name.dropLast(6))) else { continue }
            let path = directory + "/" + name
            var info = stat()
            guard lstat(path, &info) == 0 else { continue }
            if built, let previous = known[name], previous == FileIdentity(info) { continue }
            reads += 1
            if case .record(_, let dueAt, let identity) = inspect(account, path: path) {
                updates.append((name, account, (identity, dueAt)))
            } else {
                updates.append((name, account, nil))  // unreadable or bad: not listed (load reports it)
            }
        }
        let present = Set(names)
        indexState.withLock { state in
            if !built { state.index = DueIndex(); state.files = [:] }
            for name in state.files.keys where !present.contains(name) {
                state.files[name] = nil
                if let account = Self.account(fromFileName: String(name.dropLast(6))) { state.index.remove(account) }
            }
            for update in updates {
                guard let account = update.account else { continue }
                if let (identity, dueAt) = update.entry {
                    state.files[update.name] = identity
                    state.index.set(account, dueAt: dueAt)
                } else {
                    state.files[update.name] = nil
                    state.index.remove(account)
                }
            }
            state.built = true
            state.directoryStamp = stamp
            state.foreignChange = false
            state.reads += reads
        }
    }

    /// How many token files the index has read so far (tests).
    var indexReads: Int { indexState.withLock { $0.reads } }

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

    // MARK: The refresh lock

    /// Runs `body` holding the account's refresh lock (``TokenStore/withRefreshLock(for:_:)``). After
    /// ``lockTimeout`` the refresh goes ahead without it; compare-and-swap keeps the store right.
    /// - Parameters:
    ///   - account: The account.
    ///   - body: The refresh.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    public func withRefreshLock<T: Sendable>(for account: AccountID, _ body: @Sendable () async throws -> T) async throws -> T {
        let path = locks + "/" + Self.fileName(account) + ".refresh"
        let fd = try await lock(path, account: account, timeout: lockTimeout, poll: .milliseconds(10))
        defer { if let fd { unlock(fd) } }
        return try await body()
    }
}

/// What identifies a version of a file: device, inode, size and modification time. A rename gives a new
/// inode; an in-place rewrite a new size or time.
struct FileIdentity: Hashable, Sendable {
    let device: UInt64
    let inode: UInt64
    let size: Int64
    let seconds: Int
    let nanoseconds: Int

    static let none = FileIdentity(device: 0, inode: 0, size: -1, seconds: 0, nanoseconds: 0)

    init(device: UInt64, inode: UInt64, size: Int64, seconds: Int, nanoseconds: Int) {
        self.device = device
        self.inode = inode
        self.size = size
        self.seconds = seconds
        self.nanoseconds = nanoseconds
    }

    init(_ info: stat) {
        #if canImport(Darwin)
        let time = info.st_mtimespec
        #else
        let time = info.st_mtim
        #endif
        self.init(
            device: UInt64(truncatingIfNeeded: info.st_dev), inode: UInt64(truncatingIfNeeded: info.st_ino), size: Int64(info.st_size),
            seconds: Int(time.tv_sec), nanoseconds: Int(time.tv_nsec))
    }
}
