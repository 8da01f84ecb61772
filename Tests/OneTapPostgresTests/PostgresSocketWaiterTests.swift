import Foundation
@testable import OneTapPostgres
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The one thread that waits on every connection's socket (no server needed: socket pairs stand for connections). Each
/// test makes a waiter of its own, so that what it waits on is only the test's. A wait that must end by its socket has
/// an hour's deadline: the suite's time limit fails it if only the deadline would end it (a bound by the wall clock
/// failed under a loaded full run, the cooperative pool resuming a ready wait seconds late).
@Suite(.timeLimit(.minutes(4))) struct PostgresSocketWaiterTests {
    /// A socket pair: a byte written to `peer` makes `socket` readable.
    final class Pair: Sendable {
        let socket: Int32
        let peer: Int32
        init() throws {
            var ends: [Int32] = [0, 0]
            try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0)
            (socket, peer) = (ends[0], ends[1])
        }
        func send() { #expect(write(peer, "x", 1) == 1) }
        deinit {
            close(socket)
            close(peer)
        }
    }

    static func waiter(restsAfterWork: Bool = true) throws -> PostgresSocketWaiter {
        try #require(PostgresSocketWaiter(restsAfterWork: restsAfterWork), "Linux has epoll and eventfd")
    }

    static func deadline(in duration: Duration) -> UInt64 { Monotonic.now + Monotonic.nanoseconds(duration) }

    @Test func aSocketThatIsReadyIsTakenAtOnce() async throws {
        let waiter = try Self.waiter()
        let pair = try Pair()
        pair.send()
        #expect(await waiter.wait(pair.socket, for: Int16(POLLIN), until: Self.deadline(in: .seconds(3600))) == true)
        #expect(!waiter.isWaiting(on: pair.socket))
    }

    @Test func aQuietSocketTimesOutAtItsDeadlineNotBefore() async throws {
        let waiter = try Self.waiter()
        let pair = try Pair()
        let started = Monotonic.now
        #expect(await waiter.wait(pair.socket, for: Int16(POLLIN), until: started + 300_000_000) == false)
        let elapsed = Monotonic.now - started
        #expect(elapsed >= 300_000_000, "\(elapsed) ns: before the deadline")
    }

    /// The waiter sleeps until its earliest deadline; a statement whose deadline comes sooner wakes it, and is not held
    /// until the other's (an hour here: the suite's time limit fails it). The waiter here does not rest a second after
    /// work (which would end the sooner wait in time without the wake-up).
    @Test func aSoonerDeadlineWakesTheWaiterAndTheLaterStillHolds() async throws {
        let waiter = try Self.waiter(restsAfterWork: false)
        let (late, soon) = (try Pair(), try Pair())
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                #expect(await waiter.wait(late.socket, for: Int16(POLLIN), until: Self.deadline(in: .seconds(3600))) == true, "its byte came")
            }
            while !waiter.isWaiting(on: late.socket) { try await Task.sleep(for: .milliseconds(1)) }
            #expect(await waiter.wait(soon.socket, for: Int16(POLLIN), until: Self.deadline(in: .milliseconds(200))) == false)
            #expect(waiter.isWaiting(on: late.socket))
            late.send()
            try await group.waitForAll()
        }
    }

    /// A socket is armed again for each wait: after a wait its byte ended (the one-shot registration spent), and after
    /// one that timed out; a new socket under a closed one's number (forced with `dup2`) is watched anew; a descriptor
    /// the kernel will not watch (a file: `EPERM`, as `ENOSPC` past the watch limit) is answered at once, nil: the
    /// caller waits another way.
    @Test func socketsAreArmedAgainAndNumbersReused() async throws {
        let waiter = try Self.waiter()
        let first = try Pair()
        first.send()
        #expect(await waiter.wait(first.socket, for: Int16(POLLIN), until: Self.deadline(in: .seconds(3600))) == true)
        var byte: UInt8 = 0
        #expect(read(first.socket, &byte, 1) == 1)
        #expect(await waiter.wait(first.socket, for: Int16(POLLIN), until: Self.deadline(in: .milliseconds(50))) == false, "read: quiet again")
        first.send()
        #expect(await waiter.wait(first.socket, for: Int16(POLLIN), until: Self.deadline(in: .seconds(3600))) == true, "armed again")

        // A socket number closed, then reused by another socket (another connection's).
        let reused = try Pair()
        let number = reused.socket
        #expect(await waiter.wait(number, for: Int16(POLLIN), until: Self.deadline(in: .milliseconds(50))) == false)
        let second = try Pair()
        // Closes the old socket and puts the new one in its place at once (`reused` closes it at the end).
        try #require(dup2(second.socket, number) == number)
        second.send()
        #expect(await waiter.wait(number, for: Int16(POLLIN), until: Self.deadline(in: .seconds(3600))) == true, "the new socket under \(number)")

        let file = open("/dev/null", O_RDONLY | O_CLOEXEC)
        try #require(file >= 0)
        defer { close(file) }
        #expect(await waiter.wait(file, for: Int16(POLLIN), until: Self.deadline(in: .seconds(3600))) == nil)
        #expect(!waiter.isWaiting(on: file))
    }

    /// A wait whose deadline passed before it began (a loaded machine ran nothing until then): a quiet socket times
    /// out, a ready one is taken (by its event, or by the one last look past the deadline, which is the connection's
    /// own wait's, tested in `PostgresSocketWaitTests`).
    @Test func pastTheDeadlineAReadySocketIsTakenAndAQuietOneTimesOut() async throws {
        let waiter = try Self.waiter()
        let pair = try Pair()
        let passed = Monotonic.now - 1
        #expect(await waiter.wait(pair.socket, for: Int16(POLLIN), until: passed) == false, "nothing came")
        pair.send()
        #expect(await waiter.wait(pair.socket, for: Int16(POLLIN), until: passed) == true, "the byte that came is taken")
    }

    /// A second wait on a socket (one connection used by two callers at once, which the pool never does) ends the first
    /// as if its socket were ready, rather than leave it waiting for ever.
    @Test func aSecondWaitOnASocketEndsTheFirst() async throws {
        let waiter = try Self.waiter()
        let pair = try Pair()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { #expect(await waiter.wait(pair.socket, for: Int16(POLLIN), until: Self.deadline(in: .seconds(3600))) == true) }
            while !waiter.isWaiting(on: pair.socket) { try await Task.sleep(for: .milliseconds(1)) }
            group.addTask { #expect(await waiter.wait(pair.socket, for: Int16(POLLIN), until: Self.deadline(in: .milliseconds(50))) == false) }
            try await group.waitForAll()  // the suite's time limit fails a first wait left waiting
        }
    }

    /// Many statements wait at once, each resumed when its own socket is ready, none by another's; a socket waited on
    /// for writing is ready at once.
    @Test func manyWaitsEachEndByTheirOwnSocket() async throws {
        let waiter = try Self.waiter()
        let pairs = try (0..<100).map { _ in try Pair() }
        try await withThrowingTaskGroup(of: Int.self) { group in
            for (index, pair) in pairs.enumerated() {
                group.addTask {
                    #expect(await waiter.wait(pair.socket, for: Int16(POLLIN), until: Self.deadline(in: .seconds(3600))) == true)
                    return index
                }
            }
            while !pairs.allSatisfy({ waiter.isWaiting(on: $0.socket) }) { try await Task.sleep(for: .milliseconds(1)) }
            for (index, pair) in pairs.enumerated() where index.isMultiple(of: 2) { pair.send() }
            var ended: Set<Int> = []
            for _ in 0..<50 { ended.insert(try await group.next()!) }
            #expect(ended == Set(stride(from: 0, to: 100, by: 2)), "only the sockets written to")
            #expect(pairs.enumerated().allSatisfy { $0.offset.isMultiple(of: 2) || waiter.isWaiting(on: $0.element.socket) })
            for (index, pair) in pairs.enumerated() where !index.isMultiple(of: 2) { pair.send() }
            try await group.waitForAll()
        }
        #expect(await waiter.wait(pairs[0].peer, for: Int16(POLLOUT), until: Self.deadline(in: .seconds(3600))) == true)
    }
}
