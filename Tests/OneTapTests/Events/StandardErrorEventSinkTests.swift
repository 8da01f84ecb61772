#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Testing
@testable import OneTap

/// The sink under load: a standard error that does not drain (a pipe nobody reads) never blocks the
/// caller, and what is dropped is counted and said.
@Suite struct StandardErrorEventSinkTests {
    @Test func linesDroppedWhileTheQueueIsFullAreCountedInALineOfTheirOwn() throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        let (readEnd, writeEnd) = (ends[0], ends[1])
        defer { close(readEnd) }
        // Fill the pipe, so the sink's first write blocks until the test reads.
        let flags = fcntl(writeEnd, F_GETFL)
        #expect(fcntl(writeEnd, F_SETFL, flags | O_NONBLOCK) == 0)
        let filler = [UInt8](repeating: UInt8(ascii: "x"), count: 4096)
        var filled = 0
        while true {
            let written = filler.withUnsafeBytes { write(writeEnd, $0.baseAddress, $0.count) }
            if written <= 0 { break }
            filled += written
        }
        #expect(fcntl(writeEnd, F_SETFL, flags) == 0)

        let sink = StandardErrorEventSink(descriptor: writeEnd, limit: 3)
        let start = Date(timeIntervalSince1970: 1_796_083_200)  // 2026-12-01T00:00:00Z
        let clock = ContinuousClock()
        let began = clock.now
        let accounts: [AccountID] = ["a-0", "a-1", "a-2", "a-3", "a-4", "a-5", "a-6", "a-7", "a-8", "a-9"]
        for account in accounts {
            sink.receive(OneTapEvent(at: start, .token(.loggedOut(account: account))))
        }
        // Ten events were taken without waiting for the blocked pipe.
        #expect(clock.now - began < .seconds(5))

        // Read everything on a thread of its own while the sink drains, then close and collect.
        let collected = LockedBytes()
        let reader = Thread {
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
                if count <= 0 { break }
                collected.append(buffer[0..<count])
            }
            collected.finish()
        }
        reader.start()
        sink.flush()
        close(writeEnd)
        let bytes = collected.wait()
        #expect(bytes.count > filled)
        let text = String(decoding: bytes[filled...], as: UTF8.self)
        let lines = text.split(separator: "\n").map(String.init)
        // Written by hand from the schema: the three admitted events in order, then the count of the other seven.
        #expect(lines == [
            #"{"v":2,"at":"2026-12-01T00:00:00.000Z","area":"token","event":"logged-out","account":"a-0"}"#,
            #"{"v":2,"at":"2026-12-01T00:00:00.000Z","area":"token","event":"logged-out","account":"a-1"}"#,
            #"{"v":2,"at":"2026-12-01T00:00:00.000Z","area":"token","event":"logged-out","account":"a-2"}"#,
            #"{"v":2,"area":"events","event":"dropped","count":7}"#,
        ])
    }
}

/// Bytes gathered by a reader thread, handed over once it finished.
private final class LockedBytes: @unchecked Sendable {
    private let condition = NSCondition()
    private var bytes: [UInt8] = []
    private var done = false

    func append(_ slice: ArraySlice<UInt8>) {
        condition.lock()
        bytes += slice
        condition.unlock()
    }

    func finish() {
        condition.lock()
        done = true
        condition.broadcast()
        condition.unlock()
    }

    func wait() -> [UInt8] {
        condition.lock()
        defer { condition.unlock() }
        while !done { condition.wait() }
        return bytes
    }
}
