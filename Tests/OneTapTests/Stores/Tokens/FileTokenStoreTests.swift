import Foundation
import OneTapChildProcess
import OneTapTesting
import Testing
@testable import OneTap

@Suite(.timeLimit(.minutes(5))) struct FileTokenStoreTests {
    let now = Date(timeIntervalSince1970: 1_796_083_200)

    func token(_ account: AccountID = "u1", value: String = "A0", refresh: String? = "R0", age: Double = 0) -> AccessToken {
        let issued = now.addingTimeInterval(-age)
        return AccessToken(
            value: Secret(value), refreshToken: refresh.map(Secret.init), flow: .tianyi, account: account, issuedAt: issued,
            expiresAt: issued.addingTimeInterval(30 * 86_400))
    }

    func withDirectory(_ body: (String) async throws -> Void) async throws {
        let directory = try Package.temporaryDirectory()
        defer { removeTemporary(directory) }
        try await body(directory.appendingPathComponent("store").path)
    }

    /// The first line a helper prints (without its newline), or what it printed before closing its output. The read
    /// blocks, so it runs on a thread of its own, off the cooperative pool.
    static func line(of process: ChildProcess) async -> String {
        await ChildProcess.onOwnThread {
            var text = Data()
            while !text.contains(UInt8(ascii: "\n")), let chunk = process.output?.availableData, !chunk.isEmpty { text.append(chunk) }
            return String(decoding: text.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
        }
    }

    func mode(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as! NSNumber).intValue
    }

    @Test func conformsToTheStoreContract() async throws {
        try await withDirectory { base in
            var counter = 0
            try await StoreConformance.check {
                counter += 1
                return try FileTokenStore(directory: base + "-\(counter)")
            }
        }
    }

    @Test func filesAreCreated0600InA0700Directory() async throws {
        try await withDirectory { directory in
            let store = try FileTokenStore(directory: directory)
            _ = try await store.save(token(), replacing: nil, dueAt: now)
            #expect(try mode(directory) == 0o700)
            let path = store.path(for: "u1")
            #expect(try mode(path) == 0o600)
            #expect(path.hasSuffix("/7531.token"))   // hex of "u1"
            let text = try String(contentsOfFile: path, encoding: .utf8)
            #expect(text.hasPrefix(#"{"accessToken":"A0","account":"u1","dueAtMs":"#))
            // Nothing but the token file in the directory; its lock in .locks; no temporary file left.
            let names = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
            #expect(names == [".locks", ".tmp", "7531.token"])
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory + "/.locks") == ["7531.lock"])
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory + "/.tmp").isEmpty)
            #expect(try mode(directory + "/.locks") == 0o700 && mode(directory + "/.tmp") == 0o700)
        }
    }

    @Test(arguments: [0o620, 0o602, 0o666, 0o660, 0o640, 0o604, 0o644, 0o610])
    func refusesATokenFileOthersCanReadOrWrite(permissions: Int) async throws {
        try await withDirectory { directory in
            let store = try FileTokenStore(directory: directory)
            _ = try await store.save(token(), replacing: nil, dueAt: now)
            let path = store.path(for: "u1")
            try FileManager.default.setAttributes([.posixPermissions: permissions], ofItemAtPath: path)
            await #expect {
                try await store.load("u1")
            } throws: { error in
                let error = error as! StoreError
                return error.kind == .insecure && error.message.contains(path)
            }
            #expect(FileManager.default.fileExists(atPath: path))   // reported, not moved or deleted
        }
    }

    /// Issue 21: a directory others can read lists every account's file (the names are the account ids)
    /// and, with a looser file, its token: refused, as one others can write is.
    @Test(arguments: [0o755, 0o750, 0o705, 0o711])
    func refusesADirectoryOthersCanReadOrEnter(mode: Int) async throws {
        try await withDirectory { path in
            _ = try FileTokenStore(directory: path)   // created 0700
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
            #expect {
                try FileTokenStore(directory: path)
            } throws: { error in
                (error as! StoreError).kind == .insecure && (error as! StoreError).message.contains(String(mode, radix: 8))
            }
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: path)
            _ = try FileTokenStore(directory: path)
        }
    }

    @Test func refusesADirectoryOthersCanWrite() throws {
        let directory = try Package.temporaryDirectory()
        defer { removeTemporary(directory) }
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: directory.path)
        #expect {
            try FileTokenStore(directory: directory.path)
        } throws: { error in
            (error as! StoreError).kind == .insecure
        }
    }

    @Test(arguments: [
        ("not json at all", "not JSON"),
        (#"{"format":"other/1"}"#, "missing or mistyped fields"),
        (#"{"accessToken":"A","account":"u1","dueAtMs":0,"expiresAtMs":0,"flow":"tianyi","format":"onetap-token/2","issuedAtMs":0,"version":1}"#, "format"),
        (#"{"accessToken":"A","account":"u2","dueAtMs":0,"expiresAtMs":0,"flow":"tianyi","format":"onetap-token/1","issuedAtMs":0,"version":1}"#, "for account"),
        (#"{"accessToken":"A","account":"u1","dueAtMs":0,"expiresAtMs":0,"flow":"tianyi","format":"onetap-token/1","issuedAtMs":0,"version":1,"extra":1}"#, "unknown key"),
        (#"{"accessToken":"","account":"u1","dueAtMs":0,"expiresAtMs":0,"flow":"tianyi","format":"onetap-token/1","issuedAtMs":0,"version":1}"#, "empty"),
        (#"{"accessToken":"A","account":"u1","dueAtMs":0,"expiresAtMs":0,"flow":"telecom","format":"onetap-token/1","issuedAtMs":0,"version":1}"#, "unknown flow"),
        (#"{"accessToken":"A","account":"u1","dueAtMs":0,"expiresAtMs":0,"flow":"tianyi","format":"onetap-token/1","issuedAtMs":-1,"version":1}"#, "1970"),
        (#"{"accessToken":"A","account":"u1","dueAtMs":0,"expiresAtMs":253402300800000,"flow":"tianyi","format":"onetap-token/1","issuedAtMs":0,"version":1}"#, "9999"),
        (#"{"accessToken":"A","account":"u1","dueAtMs":0,"expiresAtMs":0,"flow":"tianyi","format":"onetap-token/1","issuedAtMs":0,"version":0}"#, "version 0"),
        // A version whose next one saturates: two writers' compare-and-swap from it would both succeed.
        (#"{"accessToken":"A","account":"u1","dueAtMs":0,"expiresAtMs":0,"flow":"tianyi","format":"onetap-token/1","issuedAtMs":0,"version":18446744073709551615}"#, "past any version"),
        (#"{"accessToken":"A","account":"u1","dueAtMs":"0","expiresAtMs":0,"flow":"tianyi","format":"onetap-token/1","issuedAtMs":0,"version":1}"#, "mistyped"),
    ])
    func corruptOrForeignFilesAreMovedAsideAndReported(content: String, reason: String) async throws {
        try await withDirectory { directory in
            let store = try FileTokenStore(directory: directory)
            let path = store.path(for: "u1")
            _ = FileManager.default.createFile(atPath: path, contents: Data(content.utf8), attributes: [.posixPermissions: 0o600])
            await #expect {
                try await store.load("u1")
            } throws: { error in
                let error = error as! StoreError
                return error.kind == .corrupt && error.message.contains(reason) && error.message.contains("moved aside to \(path).corrupt-")
            }
            #expect(!FileManager.default.fileExists(atPath: path))
            let aside = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.contains(".corrupt-") }
            #expect(aside.count == 1)
            let kept = try String(contentsOfFile: directory + "/" + aside[0], encoding: .utf8)
            #expect(kept == content)   // never overwritten
            #expect(try await store.load("u1") == nil)
        }
    }

    @Test func tornWriteNeverLeavesAHalfFile() async throws {
        try await withDirectory { directory in
            let store = try FileTokenStore(directory: directory)
            let v1 = try await store.save(token(value: "OLD"), replacing: nil, dueAt: now)
            let path = store.path(for: "u1")
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            for step in ["half", "rename"] {
                store.faults.withLock { fault in
                    fault = { current throws(SystemCallError) in
                        switch current {
                        case .writeTemporary(let written, _) where step == "half" && written > 0:
                            throw SystemCallError(operation: "write", path: path, code: ENOSPC)
                        case .beforeRename where step == "rename":
                            throw SystemCallError(operation: "rename", path: path, code: ENOSPC)
                        default: break
                        }
                    }
                }
                await #expect {
                    _ = try await store.save(token(value: "NEW"), replacing: v1, dueAt: now)
                } throws: { error in
                    let error = error as! StoreError
                    return error.kind == .io && error.message.contains("No space left on device") && error.message.contains("previous token is unchanged")
                }
                #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
                #expect(try await store.load("u1")?.token.value.reveal() == "OLD")
                #expect(try FileManager.default.contentsOfDirectory(atPath: directory + "/.tmp").isEmpty)
            }
            store.faults.withLock { $0 = nil }
            #expect(try await store.save(token(value: "NEW"), replacing: v1, dueAt: now) > v1)
        }
    }

    @Test func indexSeesWritesFromAnotherInstance() async throws {
        try await withDirectory { directory in
            let one = try FileTokenStore(directory: directory)
            let two = try FileTokenStore(directory: directory)
            _ = try await one.save(token("a"), replacing: nil, dueAt: now)
            #expect(try await one.accounts(dueBefore: now.addingTimeInterval(1), limit: 10) == ["a"])
            _ = try await two.save(token("b"), replacing: nil, dueAt: now.addingTimeInterval(-5))
            #expect(try await one.accounts(dueBefore: now.addingTimeInterval(1), limit: 10) == ["b", "a"])
            _ = try await two.remove("a", replacing: nil)
            #expect(try await one.accounts(dueBefore: now.addingTimeInterval(1), limit: 10) == ["b"])
        }
    }

    @Test func versionsNeverRepeatAfterARemoval() async throws {
        try await withDirectory { directory in
            let store = try FileTokenStore(directory: directory)
            let v1 = try await store.save(token(), replacing: nil, dueAt: now)
            _ = try await store.remove("u1", replacing: v1)
            let v2 = try await store.save(token(value: "new login"), replacing: nil, dueAt: now)
            #expect(v2 != v1)
            await #expect(throws: StoreError.self) { _ = try await store.save(token(value: "stale"), replacing: v1, dueAt: now) }
            #expect(try await store.load("u1")?.token.value.reveal() == "new login")
        }
    }

    // MARK: Opening

    @Test func openingRefusesPathsThatAreNotDirectories() async throws {
        try await withDirectory { directory in
            _ = FileManager.default.createFile(atPath: directory, contents: Data("x".utf8))
            #expect {
                try FileTokenStore(directory: directory)
            } throws: { error in
                let error = error as! StoreError
                return error.kind == .io && error.subject == nil && error.message.contains("is a file, not a directory")
            }
        }
        for sub in [".tmp", ".locks"] {
            try await withDirectory { directory in
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
                _ = FileManager.default.createFile(atPath: directory + "/" + sub, contents: Data())
                #expect {
                    try FileTokenStore(directory: directory)
                } throws: { error in
                    let error = error as! StoreError
                    return error.kind == .io && error.message == "\(directory)/\(sub) is a file, not a directory; remove it so the store can create its directory"
                }
            }
        }
        try await withDirectory { directory in
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try FileManager.default.createSymbolicLink(atPath: directory + "/.locks", withDestinationPath: "/tmp")
            #expect {
                try FileTokenStore(directory: directory)
            } throws: { error in
                (error as! StoreError).message.contains(".locks is a symbolic link, not a directory")
            }
        }
        try await withDirectory { directory in
            try FileManager.default.createDirectory(atPath: directory + "/.tmp", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o770])
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory)
            #expect {
                try FileTokenStore(directory: directory)
            } throws: { error in
                (error as! StoreError).kind == .insecure
            }
        }
    }

    // MARK: Bad files

    @Test func aSymbolicLinkAFIFOAndADirectoryAreMovedAsideNotFollowed() async throws {
        try await withDirectory { directory in
            let store = try FileTokenStore(directory: directory)
            let secret = directory + "/../elsewhere"
            try "not yours".write(toFile: secret, atomically: true, encoding: .utf8)
            try FileManager.default.createSymbolicLink(atPath: store.path(for: "link"), withDestinationPath: secret)
            #expect(mkfifo(store.path(for: "fifo"), 0o600) == 0)
            try FileManager.default.createDirectory(atPath: store.path(for: "dir"), withIntermediateDirectories: false)
            for (account, reason) in [("link", "it is a symbolic link"), ("fifo", "it is not a regular file"), ("dir", "it is not a regular file")] {
                await #expect {
                    try await store.load(AccountID(account))
                } throws: { error in
                    let error = error as! StoreError
                    return error.kind == .corrupt && error.message.contains(reason) && error.message.contains("moved aside")
                }
                #expect(try await store.load(AccountID(account)) == nil)
            }
            #expect(try String(contentsOfFile: secret, encoding: .utf8) == "not yours")   // never followed, never touched
        }
    }

    @Test func aFileOverTheRecordLimitIsMovedAside() async throws {
        try await withDirectory { directory in
            let store = try FileTokenStore(directory: directory)
            _ = FileManager.default.createFile(
                atPath: store.path(for: "big"), contents: Data(repeating: 0x20, count: TokenRecordLimit.bytes + 1), attributes: [.posixPermissions: 0o600])
            await #expect {
                try await store.load("big")
            } throws: { error in
                (error as! StoreError).message.contains("larger than any token record (64 KiB)")
            }
        }
    }

    @Test(.enabled(if: geteuid() == 0, "changing a file's owner needs root (CI runs as root)"))
    func aFileOwnedByAnotherUserIsRefused() async throws {
        try await withDirectory { directory in
            let store = try FileTokenStore(directory: directory)
            _ = try await store.save(token(), replacing: nil, dueAt: now)
            #expect(chown(store.path(for: "u1"), 65534, 65534) == 0)
            await #expect {
                try await store.load("u1")
            } throws: { error in
                let error = error as! StoreError
                return error.kind == .insecure && error.message.contains("owner 65534")
            }
            #expect(FileManager.default.fileExists(atPath: store.path(for: "u1")))
        }
    }

    /// The attacker's read of 2026-12-05: a corrupt file was moved aside without a second look, so a valid token
    /// another process saved in its place after this one read it (a login's, with the corrupt file already set
    /// aside there) was moved aside in its stead and lost. The file is moved only if it is still the one read;
    /// otherwise it is read again, and the new token is what `load` returns.
    @Test func aTokenSavedInPlaceOfACorruptFileWhileItWasReadIsNotMovedAside() async throws {
        try await withDirectory { directory in
            let store = try FileTokenStore(directory: directory)
            let path = store.path(for: "u1")
            _ = FileManager.default.createFile(atPath: path, contents: Data("garbage".utf8), attributes: [.posixPermissions: 0o600])
            let saved = StoredToken(token: token(value: "NEW"), version: TokenVersion(1))
            let record = Data(FileTokenStore.encodeRecord(saved, dueAt: now))
            store.faults.withLock { fault in
                fault = { step throws(SystemCallError) in
                    guard case .beforeMoveAside = step, !FileManager.default.fileExists(atPath: path + ".other") else { return }
                    // Another process, as `save` writes: a new file renamed over the path.
                    _ = FileManager.default.createFile(atPath: path + ".other", contents: record, attributes: [.posixPermissions: 0o600])
                    _ = rename(path + ".other", path)
                    _ = FileManager.default.createFile(atPath: path + ".other", contents: nil)
                }
            }
            let loaded = try await store.load("u1")
            store.faults.withLock { $0 = nil }
            #expect(loaded?.token.value.reveal() == "NEW")
            #expect(try await store.load("u1")?.token.value.reveal() == "NEW")
        }
    }

    /// The attacker's read of 2026-12-05, again: the file read as bad was checked to be still the one read, then
    /// moved, without the account's write lock; another process's save (which holds it) landed between the check
    /// and the move, and its token was moved aside in the corrupt one's stead and lost, though `save` had returned.
    /// A load moves a bad file aside only under the write lock: the save waits for it, then lands.
    @Test func aSaveBetweenTheCheckAndTheMoveAsideIsNeverMovedAside() async throws {
        try await withDirectory { directory in
            let reader = try FileTokenStore(directory: directory)
            let writer = try FileTokenStore(directory: directory, lockTimeout: .seconds(20))
            let path = reader.path(for: "u1")
            _ = FileManager.default.createFile(atPath: path, contents: Data("garbage".utf8), attributes: [.posixPermissions: 0o600])
            let (inTheWindow, window) = AsyncStream<Void>.makeStream()
            let saved = DispatchSemaphore(value: 0)
            let savedInTheWindow = LockedValue(false)
            reader.faults.withLock { fault in
                fault = { step throws(SystemCallError) in
                    guard case .beforeSetAsideRename = step else { return }
                    window.yield()
                    // The other process's save gets a second here, far more than a save takes: it must not land
                    // (it waits for the write lock the move is made under).
                    savedInTheWindow.withLock { $0 = saved.wait(timeout: .now() + 1) == .success }
                }
            }
            async let load: Result<StoredToken?, any Error> = {
                defer { window.finish() }   // never reached the move: the save below gives up, and the test fails
                return await Result { try await reader.load("u1") }
            }()
            async let save: TokenVersion? = {
                var reached = false
                for await _ in inTheWindow {
                    reached = true
                    break
                }
                guard reached else {
                    Issue.record("the load never reached the move aside")
                    return nil
                }
                // As an integrator's process would: a save that finds the corrupt file (and sets it aside) tries again.
                for _ in 0..<3 {
                    do {
                        let version = try await writer.save(token(value: "SAVED"), replacing: nil, dueAt: now)
                        saved.signal()
                        return version
                    } catch let error as StoreError where error.kind == .corrupt {
                        continue
                    } catch {
                        Issue.record("the other process's save: \(error)")
                        return nil
                    }
                }
                return nil
            }()
            let (loaded, version) = await (load, save)
            reader.faults.withLock { $0 = nil }
            #expect(!savedInTheWindow.withLock { $0 }, "the save landed between the check and the move")
            #expect(throws: StoreError.self) { try loaded.get() }   // the garbage, set aside
            #expect(version != nil)
            let after = try await reader.load("u1")
            #expect(after?.token.value.reveal() == "SAVED", "the saved token was moved aside: \(String(describing: after))")
        }
    }

    /// A bad file whose account's write lock another process holds is not moved (by `repair` or `load`): the time-out
    /// says so, and `repair` moves every other bad file first, saying how many were moved and how many were left (a
    /// review: the first time-out ended the repair).
    @Test func aHeldWriteLockLeavesItsBadFileAndRepairGoesOn() async throws {
        try await withDirectory { directory in
            let store = try FileTokenStore(directory: directory, lockTimeout: .milliseconds(50))
            for account: AccountID in ["held", "free"] {
                _ = FileManager.default.createFile(atPath: store.path(for: account), contents: Data("garbage".utf8), attributes: [.posixPermissions: 0o600])
            }
            _ = try FileManager.default.createDirectory(atPath: store.locks, withIntermediateDirectories: true)
            let lock = open(store.locks + "/" + FileTokenStore.fileName("held") + ".lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            #expect(lock >= 0 && flock(lock, LOCK_EX | LOCK_NB) == 0)
            /// `repair` fails of `kind` for the account `held`, saying how many were moved.
            func repairLeavesHeld(_ kind: ErrorKind<StoreError>, moved: Int) async {
                await #expect {
                    try await store.repair()
                } throws: { error in
                    let error = error as! StoreError
                    return error.kind == kind && error.subject == "account held" && error.message.hasPrefix("\(moved) bad files moved aside, 1 left (run repair again)")
                }
                #expect(FileManager.default.fileExists(atPath: store.path(for: "held")))
            }
            await repairLeavesHeld(.timeout, moved: 1)
            #expect(!FileManager.default.fileExists(atPath: store.path(for: "free")))
            await #expect { try await store.load("held") } throws: { ($0 as? StoreError)?.kind == .timeout }
            #expect(FileManager.default.fileExists(atPath: store.path(for: "held")))
            // A lock file that cannot be used (a directory stands at its path): `io`, and the file is left, said.
            close(lock)
            try FileManager.default.removeItem(atPath: store.locks + "/" + FileTokenStore.fileName("held") + ".lock")
            try FileManager.default.createDirectory(atPath: store.locks + "/" + FileTokenStore.fileName("held") + ".lock", withIntermediateDirectories: false)
            await repairLeavesHeld(.io, moved: 0)
            // A move that fails (a directory with a file in it stands where the file was to go): `io`, the file left.
            try FileManager.default.removeItem(atPath: store.locks + "/" + FileTokenStore.fileName("held") + ".lock")
            store.faults.withLock { fault in
                fault = { step throws(SystemCallError) in
                    guard case .beforeSetAsideRename = step,
                          let reserved = FileManager.default.subpaths(atPath: directory)?.first(where: { $0.hasPrefix(FileTokenStore.fileName("held") + ".token.corrupt-") })
                    else { return }
                    let path = directory + "/" + reserved
                    _ = unlink(path)
                    _ = mkdir(path, 0o700)
                    _ = FileManager.default.createFile(atPath: path + "/kept", contents: Data("x".utf8))
                }
            }
            await repairLeavesHeld(.io, moved: 0)
            store.faults.withLock { $0 = nil }
        }
    }

    /// A directory another user owns (its mode 0700 or not) lets that user list, rename, delete and plant the
    /// token files and open it up again after the check: the store refuses it as it refuses one open to others.
    @Test(.enabled(if: geteuid() == 0, "changing a directory's owner needs root (CI runs as root)"))
    func aDirectoryOwnedByAnotherUserIsRefused() async throws {
        try await withDirectory { directory in
            _ = try FileTokenStore(directory: directory)
            #expect(chown(directory, 65534, 65534) == 0)
            #expect {
                try FileTokenStore(directory: directory)
            } throws: { error in
                let error = error as! StoreError
                return error.kind == .insecure && error.message.contains("owner 65534")
            }
        }
    }

    /// Listing never moves a file: a bad file is skipped by the index, and set aside only when its account
    /// is read or by `repair()`.
    @Test func listingSkipsBadFilesAndMovesNothingRepairDoes() async throws {
        try await withDirectory { directory in
            let store = try FileTokenStore(directory: directory)
            _ = try await store.save(token("good"), replacing: nil, dueAt: now)
            _ = FileManager.default.createFile(atPath: store.path(for: "bad"), contents: Data("garbage".utf8), attributes: [.posixPermissions: 0o600])
            _ = FileManager.default.createFile(atPath: directory + "/not-hex.token", contents: Data("x".utf8), attributes: [.posixPermissions: 0o600])
            let fresh = try FileTokenStore(directory: directory)
            #expect(try await fresh.accounts(dueBefore: now.addingTimeInterval(1), limit: 10) == ["good"])
            #expect(FileManager.default.fileExists(atPath: store.path(for: "bad")))
            let moved = try await fresh.repair()
            #expect(moved.count == 1 && moved[0].hasPrefix(store.path(for: "bad") + ".corrupt-"))
            #expect(!FileManager.default.fileExists(atPath: store.path(for: "bad")))
            #expect(FileManager.default.fileExists(atPath: directory + "/not-hex.token"))   // not a name this store writes
            #expect(try await fresh.load("good") != nil)
        }
    }

    // MARK: Writes

    @Test func aTokenOverTheRecordLimitIsRefusedAtSaveAndNothingIsWritten() async throws {
        try await withDirectory { directory in
            let store = try FileTokenStore(directory: directory)
            let v1 = try await store.save(token(value: "KEEP"), replacing: nil, dueAt: now)
            await #expect {
                _ = try await store.save(token(value: String(repeating: "x", count: TokenRecordLimit.bytes)), replacing: v1, dueAt: now)
            } throws: { error in
                let error = error as! StoreError
                return error.kind == .tooLarge && error.entry == .account("u1") && !error.message.contains("xxxx")
            }
            #expect(try await store.load("u1")?.token.value.reveal() == "KEEP")
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory + "/.tmp").isEmpty)
        }
    }

    /// A failed directory sync after the rename does not report the write as failed: the token is in place.
    @Test func aDirectorySyncFaultAfterTheRenameKeepsTheWrite() async throws {
        try await withDirectory { directory in
            let store = try FileTokenStore(directory: directory)
            store.faults.withLock { fault in
                fault = { step throws(SystemCallError) in
                    if case .beforeDirectorySync = step { throw SystemCallError(operation: "fsync", path: directory, code: EIO) }
                }
            }
            let version = try await store.save(token(value: "NEW"), replacing: nil, dueAt: now)
            #expect(try await store.load("u1")?.version == version)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory + "/.tmp").isEmpty)
        }
    }

    @Test func anUnlinkFailureIsReportedAndTheTokenStays() async throws {
        try await withDirectory { directory in
            let store = try FileTokenStore(directory: directory)
            let version = try await store.save(token(), replacing: nil, dueAt: now)
            store.faults.withLock { fault in
                fault = { step throws(SystemCallError) in
                    if case .beforeUnlink = step { throw SystemCallError(operation: "unlink", path: directory, code: EBUSY) }
                }
            }
            await #expect {
                try await store.remove("u1", replacing: version)
            } throws: { error in
                let error = error as! StoreError
                return error.kind == .io && error.message.contains("the token is still stored")
            }
            store.faults.withLock { $0 = nil }
            #expect(try await store.load("u1")?.version == version)
            #expect(try await store.accounts(dueBefore: now.addingTimeInterval(1), limit: 10) == ["u1"])
        }
    }

    /// Every blocking call runs on the store's own dispatch queue, not on Swift's cooperative pool.
    @Test func blockingCallsRunOnTheStoresOwnThreads() async throws {
        try await withDirectory { directory in
            let store = try FileTokenStore(directory: directory)
            let labels = LockedValue<Set<String>>([])
            store.faults.withLock { fault in
                fault = { _ throws(SystemCallError) in
                    labels.withLock { _ = $0.insert(BlockingIO.currentLabel ?? "not a OneTap I/O thread") }
                }
            }
            _ = try await store.save(token(), replacing: nil, dueAt: now)
            #expect(labels.withLock { $0 } == ["onetap.file-token-store"])
        }
    }

    /// An attacker's read: the locks were released (`flock` and `close`, which can block on a network file
    /// system) on the caller's thread, Swift's cooperative pool for the vault's refresh lock. Both run on the
    /// store's own threads.
    @Test func locksAreReleasedOnTheStoresOwnThreads() async throws {
        try await withDirectory { directory in
            let store = try FileTokenStore(directory: directory)
            let unlocks = LockedValue<[String]>([])
            store.faults.withLock { fault in
                fault = { step throws(SystemCallError) in
                    guard case .beforeUnlock = step else { return }
                    unlocks.withLock { $0.append(BlockingIO.currentLabel ?? "not a OneTap I/O thread") }
                }
            }
            _ = try await store.save(token(), replacing: nil, dueAt: now)
            try await store.withRefreshLock(for: "u1") {}
            #expect(unlocks.withLock { $0 } == ["onetap.file-token-store", "onetap.file-token-store"])
        }
    }

    @Test func aWriteLockHeldByAnotherProcessTimesOutWithNothingChanged() async throws {
        try await withDirectory { directory in
            let store = try FileTokenStore(directory: directory, lockTimeout: .milliseconds(50))
            let v1 = try await store.save(token(value: "KEEP"), replacing: nil, dueAt: now)
            let lock = open(directory + "/.locks/" + FileTokenStore.fileName("u1") + ".lock", O_RDWR)
            #expect(flock(lock, LOCK_EX) == 0)   // another open file: as another process holds it
            defer { close(lock) }
            await #expect {
                _ = try await store.save(token(value: "NEW"), replacing: v1, dueAt: now)
            } throws: { error in
                let error = error as! StoreError
                return error.kind == .timeout && error.message.contains("nothing was changed")
            }
            #expect(try await store.load("u1")?.token.value.reveal() == "KEEP")
        }
    }

    /// The lock time-out is the time that passed, not the pauses alone: with each attempt taking a second, a 5 s
    /// time-out polled 5,000 times (1 ms pauses) before it gave up.
    @Test func theLockTimeoutCountsTheTimeTheAttemptsTookToo() async throws {
        try await withDirectory { directory in
            let clock = TickingClock()   // each attempt as slow as a busy disk: a second
            let store = try FileTokenStore(directory: directory, clock: clock, lockTimeout: .seconds(5))
            let v1 = try await store.save(token(value: "KEEP"), replacing: nil, dueAt: now)
            let lock = open(directory + "/.locks/" + FileTokenStore.fileName("u1") + ".lock", O_RDWR)
            #expect(flock(lock, LOCK_EX) == 0)
            defer { close(lock) }
            let before = clock.pauses
            await #expect {
                _ = try await store.save(token(value: "NEW"), replacing: v1, dueAt: now)
            } throws: { error in
                (error as? StoreError)?.kind == .timeout
            }
            #expect(clock.pauses - before <= 6, "\(clock.pauses - before) pauses")
        }
    }

    /// One refresh at a time: a refresh lock another process holds past the time-out fails the refresh, which
    /// does not run (before, it went ahead: two refreshes with one refresh token, and a carrier that refuses a
    /// reused one made the account log in again).
    @Test func aRefreshLockHeldTooLongFailsAndTheRefreshDoesNotRun() async throws {
        try await withDirectory { directory in
            let store = try FileTokenStore(directory: directory, lockTimeout: .milliseconds(50))
            let lock = open(directory + "/.locks/" + FileTokenStore.fileName("u1") + ".refresh", O_RDWR | O_CREAT, 0o600)
            #expect(flock(lock, LOCK_EX) == 0)
            defer { close(lock) }
            let ran = LockedValue(false)
            await #expect {
                try await store.withRefreshLock(for: "u1") { ran.withLock { $0 = true } }
            } throws: { error in
                let error = error as! StoreError
                return error.kind == .timeout && error.message.contains("the refresh did not run")
            }
            #expect(ran.withLock { $0 } == false)
        }
    }

    // MARK: Account names

    /// Ids are compared by their bytes, so every store keeps these apart: composed and decomposed `café`
    /// are two accounts here as in memory (and in PostgreSQL).
    @Test func accountIdsAreKeptApartByTheirBytesAndMapToSafeNames() async throws {
        try await withDirectory { directory in
            let store = try FileTokenStore(directory: directory)
            let composed = AccountID("caf\u{E9}")
            let decomposed = AccountID("cafe\u{301}")
            #expect(composed != decomposed)
            _ = try await store.save(token(composed, value: "composed"), replacing: nil, dueAt: now)
            _ = try await store.save(token(decomposed, value: "decomposed"), replacing: nil, dueAt: now)
            #expect(try await store.load(composed)?.token.value.reveal() == "composed")
            #expect(try await store.load(decomposed)?.token.value.reveal() == "decomposed")
            for text in ["../../etc/passwd", "用户", "a/b", " spaced ", String(repeating: "长", count: 33)] {
                let account = try AccountID(text)
                _ = try await store.save(token(account), replacing: nil, dueAt: now)
                #expect(try await store.load(account)?.token.account == account)
                #expect(FileTokenStore.account(fromFileName: FileTokenStore.fileName(account)) == account)
                #expect(!FileTokenStore.fileName(account).contains("/"))
            }
        }
    }

    // MARK: The due index

    /// Another process's write makes the next listing re-read only the files that changed.
    @Test func aForeignWriteReReadsOnlyTheChangedFile() async throws {
        try await withDirectory { directory in
            let store = try FileTokenStore(directory: directory)
            for index in 0..<50 { _ = try await store.save(token(AccountID("a\(index)")), replacing: nil, dueAt: now.addingTimeInterval(Double(index))) }
            let reader = try FileTokenStore(directory: directory)
            #expect(try await reader.accounts(dueBefore: now.addingTimeInterval(2), limit: 10) == ["a0", "a1"])
            #expect(reader.indexReads == 50)
            let version = try await store.load("a30")!.version
            _ = try await store.save(token("a30", value: "moved"), replacing: version, dueAt: now.addingTimeInterval(-5))
            #expect(try await reader.accounts(dueBefore: now.addingTimeInterval(2), limit: 10) == ["a30", "a0", "a1"])
            #expect(reader.indexReads == 51)
            _ = try await store.remove("a0", replacing: nil)
            #expect(try await reader.accounts(dueBefore: now.addingTimeInterval(2), limit: 10) == ["a30", "a1"])
            #expect(reader.indexReads == 51)   // a removal needs no read
            // The reader's own writes keep its index current without reading anything.
            _ = try await reader.save(token("own"), replacing: nil, dueAt: now.addingTimeInterval(-10))
            #expect(try await reader.accounts(dueBefore: now.addingTimeInterval(2), limit: 10) == ["own", "a30", "a1"])
            #expect(reader.indexReads == 51)
        }
    }

    // MARK: Temporary files and crashes

    @Test func temporaryFilesOfDeadWritersAreRemovedWhenTheStoreOpens() async throws {
        try await withDirectory { directory in
            _ = try FileTokenStore(directory: directory)
            let dead = directory + "/.tmp/7531.token.999999-1f"          // no process 999999
            let unnamed = directory + "/.tmp/leftover"                   // no writer named: its lock decides
            for path in [dead, unnamed] { _ = FileManager.default.createFile(atPath: path, contents: Data("A0-secret".utf8)) }
            let live = directory + "/.tmp/7531.token.1-2a"                // pid 1 runs: a live writer's file
            _ = FileManager.default.createFile(atPath: live, contents: Data())
            _ = try FileTokenStore(directory: directory)
            let left = try FileManager.default.contentsOfDirectory(atPath: directory + "/.tmp")
            #expect(left == ["7531.token.1-2a"])
        }
    }

    /// A writer killed at random moments: every account stays readable, no record is torn, versions
    /// never go back, and the next open leaves no temporary file behind.
    @Test func killedWritersNeverTearARecordOrLeaveTemporaryFiles() async throws {
        try await withDirectory { directory in
            let store = try FileTokenStore(directory: directory)
            var last = TokenVersion(0)
            for round in 0..<25 {
                let writer = try ChildProcess(BuildProducts.path("OneTapTestHelper"), ["write-loop", directory, "crash"], output: .pipe, errors: .null)
                let said = await Self.line(of: writer)   // its first rewrite is saved: the kill lands among writes
                try await Task.sleep(for: .milliseconds((round * 7) % 40))
                writer.signal(SIGKILL)
                _ = await writer.exited()
                #expect(said == "writing", "round \(round): the writer ended before its first write")
                let reopened = try FileTokenStore(directory: directory)
                let stored = try #require(try await reopened.load("crash"), "round \(round)")
                #expect(stored.version > last, "round \(round): version went back or no write landed")
                #expect(stored.token.value.reveal().hasPrefix("value-"))
                last = stored.version
                #expect(try FileManager.default.contentsOfDirectory(atPath: directory + "/.tmp").isEmpty, "round \(round)")
            }
            #expect(try await store.load("crash") != nil)
        }
    }

    // MARK: With the vault, across processes

    @Test func vaultOverTheFileStoreRefreshes() async throws {
        try await withDirectory { directory in
            let store = try FileTokenStore(directory: directory)
            let clock = FakeClock(now: now)
            let vault = TokenVault(store: store, refresher: MockRefresher(), clock: clock, events: DiscardingEventSink())
            try await vault.store(token(age: 31 * 86_400))
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await vault.run() }
                #expect(try await vault.validToken(for: "u1").value.reveal() == "refreshed-1")
                await vault.shutdown()
                try await group.waitForAll()
            }
            #expect(try await FileTokenStore(directory: directory).load("u1")?.token.value.reveal() == "refreshed-1")
        }
    }

    /// Two processes on one machine, one stale token: one refresh between them.
    @Test func twoProcessesRefreshOnce() async throws {
        try await withDirectory { directory in
            let store = try FileTokenStore(directory: directory)
            let issued = Date().addingTimeInterval(-2 * 86_400)
            _ = try await store.save(
                AccessToken(value: Secret("OLD"), refreshToken: Secret("R"), flow: .tianyi, account: "shared", issuedAt: issued,
                            expiresAt: issued.addingTimeInterval(30 * 86_400)),
                replacing: nil, dueAt: issued)
            let counter = directory + "-refresh-count"
            defer { removeTemporary(counter) }
            let processes = try (0..<2).map { _ in
                try ChildProcess(BuildProducts.path("OneTapTestHelper"), ["refresh", directory, "shared", counter, "300"], input: .pipe, output: .pipe)
            }
            // Both let go at once, so the second asks while the first's refresh (held 300 ms) runs.
            var ready = true
            for process in processes {
                let said = await Self.line(of: process)
                #expect(said == "ready")
                ready = ready && said == "ready"
            }
            if ready { for process in processes { try process.input?.write(contentsOf: Data("go\n".utf8)) } }
            var values: [String] = []
            for process in processes {
                #expect(await process.exited().succeeded)   // two short lines of output: they fit in the pipe
                let data = try #require(process.output).readDataToEndOfFile()
                values.append(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
            }
            let calls = try String(contentsOfFile: counter, encoding: .utf8).split(separator: "\n")
            #expect(calls.count == 1, "\(calls)")
            #expect(Set(values).count == 1 && values[0].hasPrefix("refreshed-by-"))
        }
    }

    /// Four processes refreshing 200 due accounts in the background: 200 refreshes in all.
    @Test func fourProcessesRefreshEachDueAccountOnce() async throws {
        try await withDirectory { directory in
            let store = try FileTokenStore(directory: directory)
            let issued = Date().addingTimeInterval(-2 * 86_400)
            for index in 0..<200 {
                _ = try await store.save(
                    AccessToken(value: Secret("OLD"), refreshToken: Secret("R"), flow: .tianyi, account: try AccountID("acct-\(index)"),
                                issuedAt: issued, expiresAt: issued.addingTimeInterval(30 * 86_400)),
                    replacing: nil, dueAt: issued)
            }
            let counter = directory + "-refresh-count"
            defer { removeTemporary(counter) }
            let processes = try (0..<4).map { _ in try ChildProcess(BuildProducts.path("OneTapTestHelper"), ["refresh-due", directory, counter]) }
            for process in processes {
                #expect(await process.exited().succeeded)
            }
            let lines = try String(contentsOfFile: counter, encoding: .utf8).split(separator: "\n")
            #expect(lines.count == 200)
            #expect(Set(lines.map { $0.split(separator: " ")[1] }).count == 200)
            #expect(try await store.accounts(dueBefore: Date(), limit: 1).isEmpty)
        }
    }
}
