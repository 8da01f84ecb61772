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
        buffer = .allocate(byteCount: maxLineLength + chunk, alignment: 16)
    }

    deinit {
        buffer.deallocate()
    }

    /// Reads every line.
    /// - Parameter body: Called with each line's bytes, its 1-based number, and whether it was cut.
    /// - Returns: False if reading failed part way.
    func forEachLine(_ body: (_ line: UnsafeBufferPointer<UInt8>, _ number: Int, _ cut: Bool) -> Void) -> Bool {
        let base = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
        var start = 0
        var end = 0
        var number = 0
        var skipping = false  // inside the rest of an over-long line
        func emit(_ from: Int, _ to: Int, cut: Bool) {
            var from = from
            var to = to
            if number == 0, to - from >= 3, base[from] == 0xEF, base[from + 1] == 0xBB, base[from + 2] == 0xBF {
                from += 3  // a byte-order mark before the first line
            }
            if to > from, base[to - 1] == UInt8(ascii: "\r"), !cut { to -= 1 }
            number += 1
            body(UnsafeBufferPointer(start: base + from, count: to - from), number, cut)
        }
        while true {
            // Hand over every complete line in the buffer.
            while start < end {
                guard let found = memchr(base + start, 0x0A, end - start) else { break }
                let newline = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                if skipping {
                    skipping = false
                } else if newline - start > maxLineLength {
                    emit(start, start + maxLineLength, cut: true)
                } else {
                    emit(start, newline, cut: false)
                }
                start = newline + 1
            }
            if skipping {
                start = end  // still inside the over-long line: drop what was read
            } else if end - start >= maxLineLength {
                emit(start, start + maxLineLength, cut: true)
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
            if count < 0 { return false }
            if count == 0 {
                if end > start, !skipping { emit(start, end, cut: false) }
                return true
            }
            end += count
        }
    }
}
