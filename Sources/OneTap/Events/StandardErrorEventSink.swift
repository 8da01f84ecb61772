#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch

/// The default sink: one NDJSON line per event on standard error (`{"v":2,"at":…,"area":…,"event":…}`, the schema ``OneTapEvent`` documents),
/// as swift-log's default handler writes to standard error.
///
/// Lines are written in order by one serial dispatch queue, never on the caller's thread, so a slow or
/// blocked standard error never stalls a request or Swift's cooperative pool. At most ``limit`` lines
/// wait; beyond that new ones are dropped and counted, and the count is written once the queue drains.
public final class StandardErrorEventSink: EventSink {
    /// The most lines that may wait to be written: 10,000.
    package let limit: Int
    private let queue = DispatchQueue(label: "onetap.events.stderr")
    private let state = LockedValue((pending: 0, dropped: 0))
    private let descriptor: Int32

    /// The sink writing to the process's standard error.
    public static let shared = StandardErrorEventSink()

    /// Creates a sink writing to standard error (``shared`` is the one a process needs: two would
    /// interleave their lines).
    /// - Parameter limit: The most lines that may wait; 10,000.
    package convenience init(limit: Int = 10_000) {
        self.init(descriptor: 2, limit: limit)
    }

    /// Creates a sink writing to a file descriptor it does not own (tests).
    package init(descriptor: Int32, limit: Int = 10_000) {
        self.descriptor = descriptor
        self.limit = max(1, limit)
    }

    /// Queues the event's line.
    /// - Parameter event: The event.
    public func receive(_ event: OneTapEvent) {
        let admitted = state.withLock { state -> Bool in
            guard state.pending < limit else {
                state.dropped += 1
                return false
            }
            state.pending += 1
            return true
        }
        guard admitted else { return }
        let line = Self.line(event)
        queue.async { [self] in
            write(line)
            let dropped = state.withLock { state -> Int in
                state.pending -= 1
                guard state.pending == 0, state.dropped > 0 else { return 0 }
                defer { state.dropped = 0 }
                return state.dropped
            }
            if dropped > 0 {
                write(Self.dropped(dropped))
            }
        }
    }

    /// Waits until every queued line is written.
    package func flush() {
        queue.sync {}
    }

    /// The NDJSON line of an event, with its line break: the fields in the order ``OneTapEvent``
    /// documents (``OneTapEvent/json()``).
    package static func line(_ event: OneTapEvent) -> String {
        event.json() + "\n"
    }

    /// The line that says how many lines were dropped: `{"v":2,"area":"events","event":"dropped","count":N}`.
    package static func dropped(_ count: Int) -> String {
        var writer = JSONWriter(capacity: 64)
        writer.object { writer in
            writer.key("v")
            writer.int(OneTapEvent.schemaVersion)
            writer.key("area")
            writer.string("events")
            writer.key("event")
            writer.string("dropped")
            writer.key("count")
            writer.int(count)
        }
        return writer.text + "\n"
    }

    private func write(_ line: String) {
        var line = line
        line.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = posixWrite(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return  // standard error is gone: nothing more can be said
                }
                offset += written
            }
        }
    }
}
