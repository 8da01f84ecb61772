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
        var moved: String?
        var failure: SystemCallError?
        noteDirectoryChange {
            var info = stat()
            let isDirectory = lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
            switch reserveSetAsideName(for: path, directory: isDirectory) {
            case .success(let name):
                try? faults.withLock { $0 }?(.beforeSetAsideRename)
                if rename(path, name) == 0 {
                    moved = name
                } else {
                    failure = SystemCallError.last("rename", path)
                    _ = isDirectory ? rmdir(name) : unlink(name)
                }
            case .failure(let error):
                failure = error
            }
        }
        if let aside = moved {
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
            message: "\(path) is not a valid token record (\(reason)); moving it aside failed: \(failure?.reason ?? "unknown")")
        return (error, nil, false)
    }

    /// Reserves a name no file has for a file set aside now: `<path>.corrupt-<milliseconds>`, or, when that is
    /// taken (another file set aside in the same millisecond, by this process or another), the first free of
    /// `….1`, `….2`, …. An empty file, mode 0600, made with `O_EXCL` (an empty directory, mode 0700, for a
    /// directory set aside) holds the name until the rename replaces it, so two files set aside at once never
    /// share one (a rename onto a taken name would delete the other).
    /// - Parameters:
    ///   - path: The file to set aside.
    ///   - directory: Whether it is a directory (which a rename moves onto an empty directory only).
    /// - Returns: The reserved name, or why none could be made.
    private func reserveSetAsideName(for path: String, directory: Bool) -> Result<String, SystemCallError> {
        let stem = "\(path)\(Self.setAsideMark)\(clock.now().millisecondsSince1970)"
        for copy in 0..<Self.setAsideCopiesPerMillisecond {
            let name = copy == 0 ? stem : "\(stem).\(copy)"
            if directory {
                if mkdir(name, 0o700) == 0 { return .success(name) }
                guard errno == EEXIST else { return .failure(SystemCallError.last("mkdir", name)) }
                continue
            }
            let fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
            if fd >= 0 {
                close(fd)
                return .success(name)
            }
            guard errno == EEXIST else { return .failure(SystemCallError.last("open", name)) }
        }
        return .failure(SystemCallError(operation: "open", path: stem, code: EEXIST))
    }

    /// The most files set aside for one name in one millisecond (the reservation's bound).
    static let setAsideCopiesPerMillisecond = 1000

    /// The milliseconds in a set-aside file's name, after its mark: digits, then optionally `.` and the copy's
    /// digits; nil for any other text (a name the store did not make).
    static func setAsideStamp(_ suffix: Substring) -> Int64? {
        let digits = { (text: Substring) in !text.isEmpty && text.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") } }
        let parts = suffix.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard digits(parts[0]), parts.count == 1 || digits(parts[1]) else { return nil }
        return Int64(parts[0])
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
            guard let range = name.ranges(of: Self.setAsideMark).last, let stamp = Self.setAsideStamp(name[range.upperBound...]) else { continue }
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
