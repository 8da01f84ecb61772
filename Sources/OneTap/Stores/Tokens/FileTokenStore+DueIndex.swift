#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The index of due accounts ``FileTokenStore/accounts(dueBefore:limit:)`` answers from: one scan of the
/// directory, kept current by this instance's writes and re-read where another process changed a file.
///
/// The directory's modification time says whether anything changed only once it has settled: the kernel
/// stamps it from a coarse clock (a few milliseconds; a second or two on some file systems), so writes
/// close together leave one time, and another process can write between this instance's own write and
/// its look at the directory. A listing therefore trusts an unchanged time only when it was read at
/// least `settleTime` (2 s) after it was set; otherwise it compares every file's identity (device, inode,
/// size, time: an atomic write makes a new inode) and re-reads the files that changed.
extension FileTokenStore {
    /// The kernel's wall clock, which stamps file times: compared only with file times, never used as
    /// the store's now (that is the injected clock).
    static func fileClockNow() -> timespec {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return now
    }

    func directoryStamp() -> FileIdentity {
        var info = stat()
        guard stat(directory, &info) == 0 else { return .none }
        return FileIdentity(info)
    }

    /// Runs a change of this instance to the directory, keeping the index's stamp current unless another
    /// process changed the directory meanwhile.
    func noteDirectoryChange(_ change: () -> Void) {
        let before = directoryStamp()
        change()
        let after = directoryStamp()
        indexState.withLock { state in
            guard state.built else { return }
            if before != state.directoryStamp { state.foreignChange = true }
            state.directoryStamp = after
            state.stampSettled = false  // another process may have written in the same tick, or in between
        }
    }

    /// The names of the token files in the directory.
    func tokenFileNames() throws(StoreError) -> [String] {
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
    func refreshIndex() throws(StoreError) {
        let stamp = directoryStamp()
        let listedAt = Self.fileClockNow()
        let (built, stale, known) = indexState.withLock { state in
            (state.built, !state.built || state.foreignChange || !state.stampSettled || stamp != state.directoryStamp, state.files)
        }
        guard stale else { return }
        let names = try tokenFileNames()
        var updates: [(name: String, account: AccountID?, entry: IndexEntry?)] = []
        var reads = 0
        for name in names {
            guard let account = Self.account(fromFileName: String(name.dropLast(6))) else { continue }
            let path = directory + "/" + name
            var info = stat()
            guard lstat(path, &info) == 0 else { continue }
            if built, let previous = known[name], previous == FileIdentity(info) { continue }
            reads += 1
            if case .record(_, let dueAt, let identity) = inspect(account, path: path) {
                updates.append((name, account, IndexEntry(identity: identity, dueAt: dueAt)))
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
                if let entry = update.entry {
                    state.files[update.name] = entry.identity
                    state.index.set(account, dueAt: entry.dueAt)
                } else {
                    state.files[update.name] = nil
                    state.index.remove(account)
                }
            }
            state.built = true
            state.directoryStamp = stamp
            state.stampSettled = stamp.isSettled(at: listedAt, after: settleTime)
            state.foreignChange = false
            state.reads += reads
        }
    }

    /// How many token files the index has read so far (tests).
    var indexReads: Int { indexState.withLock { $0.reads } }
}
