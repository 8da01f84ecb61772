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

/// Writing a token file atomically (a temporary file, `fsync`, `rename`, `fsync` of the directory), and
/// removing the temporary files crashed writers left.
extension FileTokenStore {
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
    func writeAtomically(_ bytes: [UInt8], to path: String) throws(SystemCallError) -> FileIdentity {
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

    func writeOnce(_ bytes: [UInt8], to path: String) throws(SystemCallError) -> FileIdentity {
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

    func syncDirectory() {
        let fd = open(directory, O_RDONLY | O_CLOEXEC | O_DIRECTORY)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }

    // MARK: Temporary files

    func countWrite() {
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
    func sweepTemporaries() {
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
    static func writerPID(_ name: String) -> pid_t? {
        guard let dash = name.lastIndex(of: "-"), let dot = name[..<dash].lastIndex(of: ".") else { return nil }
        return pid_t(name[name.index(after: dot)..<dash])
    }

    static func entryName(_ entry: UnsafeMutablePointer<dirent>) -> String {
        withUnsafeBytes(of: entry.pointee.d_name) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
    }
}
