#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Splits standard input into lines in a fixed-size buffer, so memory stays bounded whatever the input.
///
/// Lines end with `\n`; a `\r` before it is dropped (CRLF input). The last line may lack its `\n`. A
/// UTF-8 byte-order mark at the very start of the input is skipped. A line longer than ``maxLineLength``
/// is handed over cut to that length and flagged, and the rest of it is skipped.
final class LineReader {
    /// The longest line handed over whole.
    let maxLineLength: Int
    private let io: any CommandIO
    private let chunk: Int
    private let buffer: UnsafeMutableRawBufferPointer

    /// Creates a reader.
    /// - Parameters:
    ///   - io: Where to read.
    ///   - maxLineLength: The longest line handed over whole (4 MiB by default).
    ///   - chunk: How much to read at a time.
    init(io: any CommandIO, maxLineLength: Int = 4 << 20, chunk: Int = 1 << 20) {
        self.io = io
        self.maxLineLength = maxLineLength
        self.chunk = chunk
        buffer = .allocate(byteCount: maxLineLength + 1 + chunk, alignment: 16)
    }

    deinit {
        buffer.deallocate()
    }

    /// The bytes of a line from `from` to `to`, without a trailing `\r` unless the line was cut.
    @inline(__always)
    private static func line(_ base: UnsafeMutablePointer<UInt8>, _ from: Int, _ to: Int, cut: Bool) -> UnsafeBufferPointer<UInt8> {
        var to = to
        if to > from, base[to - 1] == UInt8(ascii: "\r"), !cut { to -= 1 }
        return UnsafeBufferPointer(start: base + from, count: to - from)
    }

    /// How a read of every line ended.
    enum Ending {
        /// Every line was handed over.
        case complete
        /// `body` asked to stop (the output failed).
        case stopped
        /// Reading standard input failed.
        case readFailed

        /// The exit code this ending forces (after saying why on standard error), or nil when every line
        /// was read and the command decides.
        func failure(output: OutputBuffer, io: any CommandIO) -> ExitCode? {
            switch self {
            case .complete:
                return nil
            case .stopped:
                return .ioError  // the entry point reports the failed output
            case .readFailed:
                output.flush()
                io.writeError("onetap: error: cannot read standard input")
                return .noInput
            }
        }
    }

    /// Reads every line, until the input ends or `body` returns false.
    /// - Parameter body: Called with each line's bytes, its 1-based number, and whether it was cut;
    ///   returns whether to go on.
    /// - Returns: How reading ended.
    func forEachLine(_ body: (_ line: UnsafeBufferPointer<UInt8>, _ number: Int, _ cut: Bool) -> Bool) -> Ending {
        let base = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let limit = maxLineLength
        var start = 0
        var end = 0
        var number = 0
        var skipping = false  // inside the rest of an over-long line
        // A byte-order mark at the very start is skipped: read on while what came may still be one (a first line
        // shorter than three bytes is handed over at once, not after the next line is typed) or the input ends.
        let mark: (UInt8, UInt8, UInt8) = (0xEF, 0xBB, 0xBF)
        func mayBeMark() -> Bool {
            (end < 1 || base[0] == mark.0) && (end < 2 || base[1] == mark.1) && (end < 3 || base[2] == mark.2)
        }
        while end < 3, mayBeMark() {
            let count = io.readInput(into: UnsafeMutableRawBufferPointer(start: base + end, count: chunk))
            if count < 0 { return .readFailed }
            if count == 0 { break }
            end += count
        }
        if end >= 3, mayBeMark() { start = 3 }
        while true {
            // Hand over every complete line in the buffer.
            while start < end {
                guard let found = memchr(base + start, 0x0A, end - start) else { break }
                let newline = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                if skipping {
                    skipping = false
                } else {
                    number += 1
                    let cut = newline - start > limit
                    if !body(Self.line(base, start, cut ? start + limit : newline, cut: cut), number, cut) { return .stopped }
                }
                start = newline + 1
            }
            if skipping {
                start = end  // still inside the over-long line: drop what was read
            } else if end - start > limit {
                number += 1
                if !body(Self.line(base, start, start + limit, cut: true), number, true) { return .stopped }
                skipping = true
                start = end
            }
            // Move the partial line to the front and read more.
            if start > 0 {
                if end > start { memmove(base, base + start, end - start) }
                end -= start
                start = 0
            }
            let room = min(chunk, buffer.count - end)
            let count = io.readInput(into: UnsafeMutableRawBufferPointer(start: base + end, count: room))
            if count < 0 { return .readFailed }
            if count == 0 {
                if end > start, !skipping {
                    number += 1
                    _ = body(Self.line(base, start, end, cut: false), number, false)
                }
                return .complete
            }
            end += count
        }
    }
}
