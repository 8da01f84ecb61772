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

/// Reading a token file: what it holds, moving a bad one aside, and ``FileTokenStore/repair()``.
extension FileTokenStore {
    /// What reading one token file found.
    enum FileRead {
        case absent
        case record(StoredToken, dueAt: Date, FileIdentity)
        /// Not a token record: moved aside when the account is read, skipped when listing.
        case bad(reason: String)
        case insecure(String)
        case failed(String)
    }

    /// Reads a token file, checking its type, ownership, mode and size. Moves nothing.
    func inspect(_ account: AccountID, path: String) -> FileRead {
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
    func read(_ account: AccountID) throws(StoreError) -> StoredToken? {
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
    func moveAside(_ path: String, account: AccountID?, reason: String) -> StoreError {
        moveAsideReporting(path, account: account, reason: reason).error
    }

    /// Moves a bad file aside: the error that reports it, and where the file went when it moved.
    func moveAsideReporting(_ path: String, account: AccountID?, reason: String) -> (error: StoreError, aside: String?) {
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
}
