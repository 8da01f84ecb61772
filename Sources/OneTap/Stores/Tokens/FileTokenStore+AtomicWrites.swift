#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writing a token file atomically (a temporary file, `fsync`, `rename`, `fsync` of the directory), and
/// removing the temporary files crashed writers left.
extension FileTokenStore {
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
        if sweep {
            sweepTemporaries()
            sweepSetAside()
        }
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
