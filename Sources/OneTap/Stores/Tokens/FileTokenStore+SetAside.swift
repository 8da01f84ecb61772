#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// What a FileTokenStore sets aside as corrupt (`<name>.token.corrupt-<milliseconds>`): a damaged token
// file may still hold a token, so it is kept only for a person to look at, mode 0600, and deleted once
// `setAsideRetention` has passed since it was set aside (the milliseconds in its name, on the injected clock).

extension FileTokenStore {
    /// How long a file set aside as corrupt is kept before the store deletes it: 7 days.
    package static let setAsideRetention = Duration.seconds(7 * 86_400)

    /// The mark between a set-aside file's old name and the time it was set aside.
    static let setAsideMark = ".corrupt-"

    /// Moves a bad file aside (mode 0600 when it is a regular file): the error that reports it, where the file
    /// went when it moved, and whether it was left because another file stands at `path` now.
    /// - Parameters:
    ///   - path: The file.
    ///   - account: Its account, for the error and the index.
    ///   - reason: Why it is bad.
    ///   - identity: The file read as bad; when another stands at `path` now (a token another process saved
    ///     since), nothing is moved and `replaced` is true. Nil moves whatever is there (a symbolic link).
    func moveAsideReporting(_ path: String, account: AccountID?, reason: String, expecting identity: FileIdentity?) -> (error: StoreError, aside: String?, replaced: Bool) {
        try? faults.withLock { $0 }?(.beforeMoveAside)
        if let identity {
            var info = stat()
            guard lstat(path, &info) == 0, FileIdentity(info) == identity else {
                let error = StoreError(.corrupt, account: account, message: "\(path) was not a valid token record (\(reason)) and was replaced while it was read; read it again")
                return (error, nil, true)
            }
        }
        let aside = "\(path)\(Self.setAsideMark)\(clock.now().millisecondsSince1970)"
        var moved = false
        noteDirectoryChange { moved = rename(path, aside) == 0 }
        if moved {
            Self.restrict(aside)
            syncDirectory()
            indexState.withLock { state in
                let name = String(path.split(separator: "/").last!)
                state.files[name] = nil
                if let account { state.index.remove(account) }
            }
            let retention = Self.setAsideRetention.components.seconds / 86_400
            return (
                StoreError(
                    .corrupt, account: account,
                    message: "\(path) is not a valid token record (\(reason)); moved aside to \(aside), which is deleted after \(retention) days"),
                aside, false
            )
        }
        let error = StoreError(
            .corrupt, account: account,
            message: "\(path) is not a valid token record (\(reason)); moving it aside failed: \(SystemCallError.last("rename", path).reason)")
        return (error, nil, false)
    }

    /// Deletes the set-aside files whose retention has passed, and makes the others mode 0600. A name
    /// whose stamp is not whole milliseconds is not one the store made, and is left alone.
    func sweepSetAside() {
        guard let handle = opendir(directory) else { return }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafePointer(to: entry.pointee.d_name) { pointer in
                pointer.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name.contains(Self.setAsideMark) { names.append(name) }
        }
        closedir(handle)
        let cutoff = clock.now().millisecondsSince1970 - Int64(Self.setAsideRetention.components.seconds) * 1000
        var removed = false
        for name in names {
            guard let range = name.ranges(of: Self.setAsideMark).last, let stamp = Int64(name[range.upperBound...]) else { continue }
            let path = directory + "/" + name
            if stamp <= cutoff {
                noteDirectoryChange { if unlink(path) == 0 { removed = true } }
            } else {
                Self.restrict(path)
            }
        }
        if removed { syncDirectory() }
    }

    /// Makes a regular file mode 0600, without following a symbolic link.
    static func restrict(_ path: String) {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else { return }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_mode & 0o077 != 0 else { return }
        _ = fchmod(fd, 0o600)
    }
}
