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
    let clock: any WallClock
    let io = BlockingIO(label: "onetap.file-token-store")

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
    struct IndexState {
        var index = DueIndex()
        var built = false
        var directoryStamp = FileIdentity.none
        /// Token file name → the identity it had when indexed.
        var files: [String: FileIdentity] = [:]
        var foreignChange = false
        /// Token files read to build or refresh the index, ever (tests check re-reads stay few).
        var reads = 0
    }

    let indexState = LockedValue(IndexState())
    /// Temporary files this instance is writing now, and writes since the last sweep.
    let writing = LockedValue((names: Set<String>(), sinceSweep: 0))

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
        guard info.st_mode & 0o022 == 0 else {
            throw StoreError(
                .insecure, account: nil,
                message: "\(path) can be written by other users (mode \(String(info.st_mode & 0o777, radix: 8))); use a directory only you can write")
        }
    }

    /// Where the lock files live.
    var locks: String { directory + "/.locks" }
    /// Where files are written before they are renamed into place.
    var temporaries: String { directory + "/.tmp" }

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

    static func hexValue(_ byte: UInt8) -> UInt8? {
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
}
