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
@Suite(.timeLimit(.minutes(2))) struct PostgresSocketWaiterTests {
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

    static func waiter() throws -> PostgresSocketWaiter { try #require(PostgresSocketWaiter(), "Linux has epoll and eventfd") }

    static func deadline(in duration: Duration) -> UInt64 { Monotonic.now + Monotonic.nanoseconds(duration) }

    @Test func aSocketThatIsReadyIsTakenAtOnce() async throws {
        let waiter = try Self.waiter()
        let pair = try Pair()
        pair.send()
        #expect(await waiter.wait(pair.socket, for: Int16(POLLIN), until: Self.deadline(in: .seconds(3600))))
        #expect(!waiter.isWaiting(on: pair.socket))
    }

    @Test func aQuietSocketTimesOutAtItsDeadlineNotBefore() async throws {
        let waiter = try Self.waiter()
        let pair = try Pair()
        let started = Monotonic.now
        #expect(!(await waiter.wait(pair.socket, for: Int16(POLLIN), until: started + 300_000_000)))
        let elapsed = Monotonic.now - started
        #expect(elapsed >= 300_000_000, "\(elapsed) ns: before the deadline")
    }

    /// The waiter sleeps until its earliest deadline; a statement whose deadline comes sooner wakes it, and is not held
    /// until the other's (an hour here).
    @Test func aSoonerDeadlineWakesTheWaiterAndTheLaterStillHolds() async throws {
        let waiter = try Self.waiter()
        let (late, soon) = (try Pair(), try Pair())
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                #expect(await waiter.wait(late.socket, for: Int16(POLLIN), until: Self.deadline(in: .seconds(3600))), "its byte came")
            }
            while !waiter.isWaiting(on: late.socket) { try await Task.sleep(for: .milliseconds(1)) }
            try #require(waiter.isWaiting(on: late.socket))
            #expect(!(await waiter.wait(soon.socket, for: Int16(POLLIN), until: Self.deadline(in: .milliseconds(200)))))
            #expect(waiter.isWaiting(on: late.socket))
            late.send()
            try await group.waitForAll()
        }
    }

    /// A socket waited on again after a time-out is armed again; a closed socket's number, reused by a new one, is
    /// watched anew; a number that is no socket is answered at once (libpq's next call says what is wrong).
    @Test func socketsAreArmedAgainAndNumbersReused() async throws {
        let waiter = try Self.waiter()
        var pair: Pair? = try Pair()
        let number = try #require(pair?.socket)
        #expect(!(await waiter.wait(number, for: Int16(POLLIN), until: Self.deadline(in: .milliseconds(50)))))
        pair?.send()
        #expect(await waiter.wait(number, for: Int16(POLLIN), until: Self.deadline(in: .seconds(3600))))
        pair = nil
        let again = try Pair()
        again.send()
        #expect(await waiter.wait(again.socket, for: Int16(POLLIN), until: Self.deadline(in: .seconds(3600))), "socket \(again.socket) after \(number)")
        var unused: Int32 = 900
        while fcntl(unused, F_GETFD) != -1 { unused += 1 }
        #expect(await waiter.wait(unused, for: Int16(POLLIN), until: Self.deadline(in: .seconds(3600))))
        #expect(!waiter.isWaiting(on: unused))
    }

    /// Many statements wait at once, each resumed when its own socket is ready, none by another's; a socket waited on
    /// for writing is ready at once.
    @Test func manyWaitsEachEndByTheirOwnSocket() async throws {
        let waiter = try Self.waiter()
        let pairs = try (0..<100).map { _ in try Pair() }
        try await withThrowingTaskGroup(of: Int.self) { group in
            for (index, pair) in pairs.enumerated() {
                group.addTask {
                    #expect(await waiter.wait(pair.socket, for: Int16(POLLIN), until: Self.deadline(in: .seconds(3600))))
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
        #expect(await waiter.wait(pairs[0].peer, for: Int16(POLLOUT), until: Self.deadline(in: .seconds(3600))))
    }
}
