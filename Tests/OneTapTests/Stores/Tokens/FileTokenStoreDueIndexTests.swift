import Foundation
import OneTapTesting
import Testing
@testable import OneTap

/// The due index of `FileTokenStore` (FileTokenStore+DueIndex.swift) across processes: another
/// process's write must reach this instance's listing even when the directory's modification time
/// cannot tell it (the kernel stamps times from a coarse clock, so two renames a few milliseconds apart
/// leave the directory with one time; a write can also land between this instance's own write and its
/// look at the directory).
@Suite struct FileTokenStoreDueIndexTests {
    let now = Date(timeIntervalSince1970: 1_796_083_200)

    func token(_ account: AccountID, value: String) -> AccessToken {
        AccessToken(
            value: Secret(value), refreshToken: Secret("R0"), flow: .tianyi, account: account, issuedAt: now,
            expiresAt: now.addingTimeInterval(30 * 86_400))
    }

    /// Runs `body` with a store directory in a fresh temporary directory, removed afterwards (a failed
    /// removal fails the test).
    func withDirectory(_ body: (String) async throws -> Void) async throws {
        let base = try Package.temporaryDirectory()
        do {
            try await body(base.appendingPathComponent("store").path)
        } catch {
            try FileManager.default.removeItem(at: base)
            throw error
        }
        try FileManager.default.removeItem(at: base)
    }

    /// The directory's modification time, and a way to set it back.
    func modificationTime(_ path: String) throws -> timespec {
        var info = stat()
        guard stat(path, &info) == 0 else { throw POSIXError(.ENOENT) }
        return info.st_mtim
    }

    func setModificationTime(_ path: String, _ time: timespec) throws {
        var times = [time, time]
        guard utimensat(AT_FDCWD, path, &times, 0) == 0 else { throw POSIXError(.EPERM) }
    }

    /// A foreign write that leaves the directory's time as it was (the same clock tick) still reaches
    /// the listing: before the fix the reader kept the old due time and listed the account as due for
    /// ever, so a process waiting for "nothing due" (four vaults refreshing one store) never ended.
    @Test func aForeignWriteInTheSameClockTickIsListed() async throws {
        try await withDirectory { directory in
            let writer = try FileTokenStore(directory: directory)
            for index in 0..<5 { _ = try await writer.save(token(AccountID("a\(index)"), value: "v0"), replacing: nil, dueAt: now) }
            // A settle time no stall of the machine reaches: the listings below never trust the directory's time.
            let reader = try FileTokenStore(directory: directory, clock: SystemClock(), lockTimeout: .seconds(30), settleTime: .seconds(86_400))
            #expect(try await reader.accounts(dueBefore: now.addingTimeInterval(1), limit: 10).count == 5)

            let tick = try modificationTime(directory)
            for index in 0..<5 {
                let version = try #require(try await writer.load(AccountID("a\(index)"))).version
                _ = try await writer.save(token(AccountID("a\(index)"), value: "v1"), replacing: version, dueAt: now.addingTimeInterval(86_400))
            }
            try setModificationTime(directory, tick)   // the renames fell in the listing's clock tick

            #expect(try await reader.accounts(dueBefore: now.addingTimeInterval(1), limit: 10) == [])
        }
    }

    /// A foreign write landing between the reader's own write and its look at the directory afterwards
    /// is listed too (the reader must not take the directory's new time as its own change only).
    @Test func aForeignWriteDuringAnOwnWriteIsListed() async throws {
        try await withDirectory { directory in
            let writer = try FileTokenStore(directory: directory)
            _ = try await writer.save(token("foreign", value: "v0"), replacing: nil, dueAt: now)
            // A settle time no stall of the machine reaches: the listings below never trust the directory's time.
            let reader = try FileTokenStore(directory: directory, clock: SystemClock(), lockTimeout: .seconds(30), settleTime: .seconds(86_400))
            #expect(try await reader.accounts(dueBefore: now.addingTimeInterval(1), limit: 10) == ["foreign"])

            // The foreign write, then the reader's own, with the directory's time set back in between: to the
            // reader, the directory changed only by its own hand.
            let tick = try modificationTime(directory)
            let version = try #require(try await writer.load("foreign")).version
            _ = try await writer.save(token("foreign", value: "v1"), replacing: version, dueAt: now.addingTimeInterval(86_400))
            try setModificationTime(directory, tick)
            _ = try await reader.save(token("own", value: "v0"), replacing: nil, dueAt: now.addingTimeInterval(86_400))

            #expect(try await reader.accounts(dueBefore: now.addingTimeInterval(1), limit: 10) == [])
        }
    }
}
