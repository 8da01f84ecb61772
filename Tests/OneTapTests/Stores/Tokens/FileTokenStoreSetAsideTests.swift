import Foundation
import OneTapTesting
import Testing
@testable import OneTap

/// Issue 21, scenario 7: what `FileTokenStore` sets aside as corrupt may hold tokens, so it is kept mode 0600 for
/// ``FileTokenStore/setAsideRetention`` (7 days, on the injected clock) for a person to look at, then deleted.
@Suite struct FileTokenStoreSetAsideTests {
    let now = Date(timeIntervalSince1970: 1_796_083_200)
    /// A record that holds a token but is not valid (an unknown key): what a damaged file looks like.
    let damaged = #"{"accessToken":"SECRET-A","account":"u1","dueAtMs":0,"expiresAtMs":0,"flow":"tianyi","format":"onetap-token/1","issuedAtMs":0,"version":1,"x":1}"#

    func withDirectory(_ body: (String) async throws -> Void) async throws {
        try await TemporaryDirectory.with("onetap-set-aside") { directory in
            try await body(directory.appendingPathComponent("store").path)
        }
    }

    func setAside(_ directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.contains(".corrupt-") }.sorted()
    }

    func mode(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as! NSNumber).intValue
    }

    /// Sets a damaged file aside for `account` at the clock's time.
    func damage(_ store: FileTokenStore, _ account: AccountID) async throws {
        _ = FileManager.default.createFile(atPath: store.path(for: account), contents: Data(damaged.utf8), attributes: [.posixPermissions: 0o600])
        await #expect(throws: StoreError.self) { try await store.load(account) }
    }

    @Test func aSetAsideFileIsDeletedOnceItsRetentionPassedAndNotBefore() async throws {
        try await withDirectory { directory in
            let clock = FakeClock(now: now)
            let store = try FileTokenStore(directory: directory, clock: clock)
            try await damage(store, "u1")
            let first = try setAside(directory)
            #expect(first.count == 1)
            #expect(try mode(directory + "/" + first[0]) == 0o600)
            // A day later, a second one; a repair keeps both (neither is 7 days old).
            clock.advance(by: .seconds(86_400))
            try await damage(store, "u2")
            #expect(try await store.repair().isEmpty)
            #expect(try setAside(directory).count == 2)
            // 7 days after the first: a store that opens the directory deletes it, keeps the second.
            clock.advance(by: .seconds(6 * 86_400))
            _ = try FileTokenStore(directory: directory, clock: clock)
            let left = try setAside(directory)
            #expect(left.count == 1 && left[0] != first[0])
            // Past the second's retention: repair deletes it.
            clock.advance(by: .seconds(86_400))
            _ = try await store.repair()
            #expect(try setAside(directory).isEmpty)
        }
    }

    @Test func aSetAsideFileOthersCanReadIsMade0600AndAStrangeNameIsLeftAlone() async throws {
        try await withDirectory { directory in
            let clock = FakeClock(now: now)
            let store = try FileTokenStore(directory: directory, clock: clock)
            try await damage(store, "u1")
            let aside = directory + "/" + (try setAside(directory))[0]
            chmod(aside, 0o644)
            // A name whose stamp is not a number is not one the store made: never deleted.
            let foreign = directory + "/notes.corrupt-later"
            _ = FileManager.default.createFile(atPath: foreign, contents: Data("x".utf8), attributes: [.posixPermissions: 0o600])
            _ = try await store.repair()
            #expect(try mode(aside) == 0o600)
            clock.advance(by: .seconds(30 * 86_400))
            _ = try await store.repair()
            #expect(!FileManager.default.fileExists(atPath: aside))
            #expect(FileManager.default.fileExists(atPath: foreign))
        }
    }

    @Test func twoFilesSetAsideInTheSameMillisecondAreBothKept() async throws {
        try await withDirectory { directory in
            // The clock does not move: both damaged files are set aside at the same millisecond, and the
            // second must not take the first's name (a rename over it would delete what the first held).
            let clock = FakeClock(now: now)
            let store = try FileTokenStore(directory: directory, clock: clock)
            try await damage(store, "u1")
            let second = damaged.replacingOccurrences(of: "SECRET-A", with: "SECRET-B")
            _ = FileManager.default.createFile(atPath: store.path(for: "u1"), contents: Data(second.utf8), attributes: [.posixPermissions: 0o600])
            await #expect(throws: StoreError.self) { try await store.load("u1") }
            let names = try setAside(directory)
            #expect(names.count == 2)
            let contents = try names.map { try String(contentsOfFile: directory + "/" + $0, encoding: .utf8) }
            #expect(contents.contains(damaged) && contents.contains(second))
            // Both are still the store's own: deleted once the retention passed.
            clock.advance(by: .seconds(7 * 86_400))
            _ = try await store.repair()
            #expect(try setAside(directory).isEmpty)
        }
    }
}
