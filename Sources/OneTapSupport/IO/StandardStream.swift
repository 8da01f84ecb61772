#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writing to a process's standard output or error without trapping: a stream that is closed, or a pipe
/// nobody reads, makes the write fail (`SIGPIPE` ignored), where Foundation's `FileHandle.write` traps. What
/// every tool of the package writes its messages with, so the exit status always tells.
package enum StandardStream {
    /// Writes every byte to a descriptor (standard output or error, or a file a command makes), again after an
    /// interruption.
    /// - Parameters:
    ///   - descriptor: The descriptor.
    ///   - bytes: The bytes.
    /// - Returns: False when a write failed (the rest is not written; `errno` says why).
    package static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        var offset = 0
        while offset < bytes.count {
            let written = write(descriptor, base + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += written
        }
        return true
    }

    /// Writes text to standard error, any control or format character in it but a tab or a line feed shown as
    /// U+FFFD (``DisplayText/line(_:)``: a message may quote outside text); a failed write loses it.
    /// - Parameter text: The text, its line breaks included.
    package static func writeError(_ text: String) {
        var text = DisplayText.line(text)
        _ = text.withUTF8 { writeAll(2, UnsafeRawBufferPointer($0)) }
    }

    /// Makes a write to a pipe nobody reads fail (`EPIPE`) instead of ending the process with `SIGPIPE`, so a
    /// tool whose reader went away still exits with its own status. Call once, first thing in `main`.
    package static func ignoreBrokenPipes() {
        signal(SIGPIPE, SIG_IGN)
    }
}
