#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed system call on a file, with the operating system's reason.
package struct SystemCallError: Error, Sendable, CustomStringConvertible {
    /// What was attempted, e.g. `"open"`.
    let operation: String
    /// The file concerned.
    let path: String
    /// `errno` after the call.
    package let code: Int32
    /// What was wrong when no system call failed (`not a regular file`), said instead of the system's text.
    var explanation: String? = nil

    /// The system's text for ``code``, e.g. `"No such file or directory"`, or the explanation.
    package var reason: String { explanation ?? String(cString: strerror(code)) }

    /// `read /path: No such file or directory`.
    package var description: String { "\(operation) \(path): \(reason)" }

    /// Captures `errno` for a call that just failed.
    static func last(_ operation: String, _ path: String) -> SystemCallError {
        SystemCallError(operation: operation, path: path, code: errno)
    }
}

/// `read(2)`, named apart from the static methods below.
func posixRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int { read(fd, buffer, count) }
/// `write(2)`, named apart from the static methods below.
func posixWrite(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int { write(fd, buffer, count) }

/// Whole-file reads and durable whole-file writes over POSIX calls.
package enum FileBytes {
    /// Reads a whole file.
    /// - Parameters:
    ///   - path: The file to read.
    ///   - limit: The largest size accepted, in bytes.
    /// - Returns: The file's bytes.
    /// - Throws: ``SystemCallError`` when the file cannot be opened or read, is a FIFO or a socket (`not a regular
    ///   file`: opening a FIFO waited for a writer for ever), or is larger than `limit` (reported as `EFBIG`).
    package static func read(path: String, limit: Int) throws(SystemCallError) -> [UInt8] {
        let (fd, _) = try openToRead(path)
        defer { close(fd) }
        return try read(fd: fd, path: path, limit: limit)
    }

    /// Opens a file to read without waiting: the one way every named file is opened for reading (tables, key rings,
    /// configurations, the CLI's inputs). A FIFO is opened without blocking (a FIFO with no writer made `open` wait for
    /// ever) and refused, as is a socket: a pipe or a process substitution is no file (read standard input with `-`);
    /// a character device (`/dev/zero`) is read to its bound as before, and a caller that takes regular files only
    /// judges `info` itself. The descriptor blocks again for reading.
    /// - Parameter path: The file (a symbolic link is followed).
    /// - Returns: The open descriptor, which the caller closes, and what `fstat` said of it.
    /// - Throws: ``SystemCallError`` when it cannot be opened, or with the explanation `not a regular file (…)`.
    package static func openToRead(_ path: String) throws(SystemCallError) -> (fd: Int32, info: stat) {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw .last("open", path) }
        func fail(_ error: SystemCallError) -> SystemCallError {
            close(fd)  // after `errno` was read
            return error
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw fail(.last("stat", path)) }
        let type = info.st_mode & S_IFMT
        guard type != S_IFIFO, type != S_IFSOCK else {
            throw fail(SystemCallError(operation: "open", path: path, code: EINVAL, explanation: "not a regular file (a FIFO or a socket)"))
        }
        guard fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) == 0 else { throw fail(.last("fcntl", path)) }
        return (fd, info)
    }

    /// Reads everything from an open descriptor, from its current offset.
    /// - Parameters:
    ///   - fd: The open descriptor.
    ///   - path: Its file, for errors.
    ///   - limit: The largest size accepted, in bytes.
    /// - Returns: The bytes read.
    /// - Throws: ``SystemCallError`` when a read fails, or `EFBIG` past `limit`.
    package static func read(fd: Int32, path: String, limit: Int) throws(SystemCallError) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = chunk.withUnsafeMutableBytes { posixRead(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .last("read", path)
            }
            if count == 0 { return bytes }
            guard bytes.count + count <= limit else {
                throw SystemCallError(operation: "read", path: path, code: EFBIG)
            }
            bytes.append(contentsOf: chunk[0..<count])
        }
    }

    /// Writes all of `bytes` to an open descriptor.
    static func write(fd: Int32, _ bytes: some Collection<UInt8>, path: String) throws(SystemCallError) {
        let array = Array(bytes)
        var offset = 0
        while offset < array.count {
            let written = array.withUnsafeBytes { buffer in
                posixWrite(fd, buffer.baseAddress! + offset, buffer.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw .last("write", path)
            }
            offset += written
        }
    }
}
