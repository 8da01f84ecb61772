import Foundation
import OneTapTesting
import Testing
@testable import OneTap

@Suite struct FileTokenStoreTests {
    let now = Date(timeIntervalSince1970: 1_796_083_200)

    func token(_ account: AccountID = "u1", value: String = "A0", refresh: String? = "R0", age: Double = 0) -> AccessToken {
        let issued = now.addingTimeInterval(-age)
        return AccessToken(
            value: Secret(value), refreshToken: refresh.map(Secret.init), flow: .tianyi, account: account, issuedAt: issued,
            expiresAt: issued.addingTimeInterval(30 * 86_400))
    }

    func withDirectory(_ body: (String) async throws -> Void) async throws {
        let directory = try Package.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await body(directory.appendingPathComponent("store").path)
    }

    func mode(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as! NSNumber).intValue
    }

    @Test func conformsToTheStoreContract() async throws {
        try await withDirectory { base in
            var counter = 0
            try await TokenStoreConformance.check {
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
            let path = try #require(store.path(for: "u1"))
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
            let path = store.path(for: "u1")!
            try FileManager.default.setAttributes([.posixPermissions: permissions], ofItemAtPath: path)
            await #expect {
                try await store.load("u1")
            } throws: { error in
                let error = error as! TokenStoreError
                return error.kind == .insecure && error.message.contains(path)
            }
            #expect(FileManager.default.fileExists(atPath: path))   // reported, not moved or deleted
        }
    }

    @Test func refusesADirectoryOthersCanWrite() throws {
        let directory = try Package.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: directory.path)
        #expect {
            try FileTokenStore(directory: directory.path)
        } throws: { error in
            (error as! TokenStoreError).kind == .insecure
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
        (#"{"accessToken":"A","account":"u1","dueAtMs":"0","expiresAtMs":0,"flow":"tianyi","format":"onetap-token/1","issuedAtMs":0,"version":1}"#, "mistyped"),
    ])
    func corruptOrForeignFilesAreMovedAsideAndReported(content: String, reason: String) async throws {
        try await withDirectory { directory in
            let store = try FileTokenStore(directory: directory)
            let path = store.path(for: "u1")!
            _ = FileManager.default.createFile(atPath: path, contents: Data(content.utf8), attributes: [.posixPermissions: 0o600])
            await #expect {
                try await store.load("u1")
            } throws: { error in
                let error = error as! TokenStoreError
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
            let path = store.path(for: "u1")!
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
                    let error = error as! TokenStoreError
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

    @Test func ownWritesDoNotMakeTheIndexRescan() async throws {
        try await withDirectory { directory in
            let store = try FileTokenStore(directory: directory)
            _ = try await store.save(token("a"), replacing: nil, dueAt: now)
            _ = try await store.save(token("b"), replacing: nil, dueAt: now.addingTimeInterval(10))
            #expect(try await store.accounts(dueBefore: now.addingTimeInterval(60), limit: 10) == ["a", "b"])
            // Rewrite b's file in place (the directory does not change), making it due later.
            let path = store.path(for: "b")!
            let stored = try await store.load("b")!
            try Data(FileTokenStore.encodeRecord(stored, dueAt: now.addingTimeInterval(3600))).write(to: URL(fileURLWithPath: path))
            // The store's own writes (a new version of a, a new account c) keep the index current without a
            // rescan, so the in-place change stays unseen: b is still listed as due soon.
            let v = try await store.load("a")!.version
            _ = try await store.save(token("a", value: "A1"), replacing: v, dueAt: now.addingTimeInterval(5))
            _ = try await store.save(token("c"), replacing: nil, dueAt: now.addingTimeInterval(20))
            #expect(try await store.accounts(dueBefore: now.addingTimeInterval(60), limit: 10) == ["a", "b", "c"])
            // Another process's write changes the directory: the next listing rescans and sees everything.
            let other = try FileTokenStore(directory: directory)
            _ = try await other.save(token("d"), replacing: nil, dueAt: now.addingTimeInterval(30))
            #expect(try await store.accounts(dueBefore: now.addingTimeInterval(60), limit: 10) == ["a", "c", "d"])
        }
    }

    @Test func versionsNeverRepeatAfterARemoval() async throws {
        try await withDirectory { directory in
            let store = try FileTokenStore(directory: directory)
            let v1 = try await store.save(token(), replacing: nil, dueAt: now)
            _ = try await store.remove("u1", replacing: v1)
            let v2 = try await store.save(token(value: "new login"), replacing: nil, dueAt: now)
            #expect(v2 != v1)
            await #expect(throws: TokenStoreError.self) { _ = try await store.save(token(value: "stale"), replacing: v1, dueAt: now) }
            #expect(try await store.load("u1")?.token.value.reveal() == "new login")
        }
    }

    @Test func accountIdsOfAnyTextMapToSafeNames() async throws {
        try await withDirectory { directory in
            let store = try FileTokenStore(directory: directory)
            for account: AccountID in ["../../etc/passwd", "用户", "a/b", " spaced ", "\u{0}nul"] {
                _ = try await store.save(token(account), replacing: nil, dueAt: now)
                #expect(try await store.load(account)?.token.account == account)
                #expect(FileTokenStore.account(fromFileName: FileTokenStore.fileName(account)!) == account)
            }
            await #expect(throws: TokenStoreError.self) { _ = try await store.save(token(""), replacing: nil, dueAt: now) }
            let long = AccountID(String(repeating: "x", count: 101))
            await #expect(throws: TokenStoreError.self) { _ = try await store.save(token(long), replacing: nil, dueAt: now) }
        }
    }

    @Test func vaultOverTheFileStoreRefreshes() async throws {
        try await withDirectory { directory in
            let store = try FileTokenStore(directory: directory)
            let clock = FakeClock(now: now)
            let refresher = MockRefresher()
            let vault = TokenVault(store: store, refresher: refresher, clock: clock)
            try await vault.store(token(age: 2 * 86_400))
            #expect(try await vault.validToken(for: "u1").value.reveal() == "refreshed-1")
            let reopened = try FileTokenStore(directory: directory)
            #expect(try await reopened.load("u1")?.token.value.reveal() == "refreshed-1")
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
            let counter = directory + "/../refresh-count"
            let helper = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("OneTapTestHelper")
            var processes: [(Process, Pipe)] = []
            for _ in 0..<2 {
                let process = Process()
                process.executableURL = helper
                process.arguments = ["refresh", directory, "shared", counter, "300"]
                let output = Pipe()
                process.standardOutput = output
                try process.run()
                processes.append((process, output))
            }
            var values: [String] = []
            for (process, output) in processes {
                let data = output.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                #expect(process.terminationStatus == 0)
                values.append(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
            }
            let calls = try String(contentsOfFile: counter, encoding: .utf8).split(separator: "\n")
            #expect(calls.count == 1, "\(calls)")
            #expect(Set(values).count == 1 && values[0].hasPrefix("refreshed-by-"))
        }
    }
}
