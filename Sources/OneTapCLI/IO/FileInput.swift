#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import OneTap
import OneTapSupport

/// A file read as a command's standard input, so ``LineReader`` streams it in its fixed buffer: memory
/// stays bounded whatever the file's size. Output and errors go to the command's own streams.
final class FileInput: CommandIO {
    private let descriptor: Int32
    private let io: any CommandIO

    /// Opens a file for reading.
    /// - Parameters:
    ///   - path: The file.
    ///   - io: The command's streams, for output and errors.
    /// - Throws: ``CommandFailure`` (exit 66) naming the file and the system's reason.
    init(path: String, io: any CommandIO) throws(CommandFailure) {
        let descriptor: Int32
        let info: stat
        do {
            (descriptor, info) = try FileBytes.openToRead(path)
        } catch {
            throw CommandFailure(message: "cannot read \(quoted(path)): \(error.reason)", code: .noInput)
        }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            close(descriptor)
            throw CommandFailure(message: "cannot read \(quoted(path)): it is a directory", code: .noInput)
        }
        self.descriptor = descriptor
        self.io = io
    }

    deinit {
        close(descriptor)
    }

    func writeOutput(_ bytes: UnsafeRawBufferPointer) -> Bool { io.writeOutput(bytes) }

    func writeError(_ line: String) { io.writeError(line) }

    func environment(_ name: String) -> String? { io.environment(name) }

    var clock: any WallClock { io.clock }

    func readInput(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        while true {
            let count = read(descriptor, buffer.baseAddress, buffer.count)
            if count < 0, errno == EINTR { continue }
            return count
        }
    }
}

/// Writes a whole file a command makes (a chart): to a temporary file beside it, then renamed over it,
/// so a reader never sees half a file. The temporary file has a random name and is created anew
/// (`O_EXCL | O_NOFOLLOW`), so in a folder others can write to nothing planted there is written through.
enum FileOutput {
    /// Refuses, before anything is read, a file to write that is a file the command reads (the same device and
    /// inode, whatever the path that names it), or that is there and not a regular file (a symbolic link, a FIFO, a
    /// device, a socket, a directory): the rename would put the output in its place (`--svg /dev/null` run as root
    /// would replace the system's `/dev/null`; a link to a published chart would be replaced, not followed).
    /// - Parameters:
    ///   - path: The file to write, if any.
    ///   - option: The option that names it (`--svg`).
    ///   - inputs: The files the command reads (nil: standard input, looked at as the file it is, when it is one).
    /// - Throws: ``CommandFailure`` (exit 64) naming the file and why; nothing was read or written.
    static func refuseReplacing(_ path: String?, option: String, inputs: [String?]) throws(CommandFailure) {
        guard let path else { return }
        if let output = identity(of: path) {
            for input in inputs {
                var info = stat()
                let same = input.map { identity(of: $0) == output } ?? (fstat(STDIN_FILENO, &info) == 0 && identity(info) == output)
                guard same else { continue }
                let named = input.map { quoted($0) } ?? "standard input"
                throw CommandFailure(
                    message: "\(option) \(quoted(path)) is \(named), which this command reads: the output would replace it; nothing was read or written",
                    code: .usage)
            }
        }
        try refuseSpecial(path, option: option)
    }

    /// Refuses a path that names something other than a regular file (looked at without following a link).
    /// - Parameters:
    ///   - path: The file to write.
    ///   - option: The option that names it.
    /// - Throws: ``CommandFailure`` (exit 64) naming what the path is.
    private static func refuseSpecial(_ path: String, option: String) throws(CommandFailure) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        let kind: String
        switch info.st_mode & S_IFMT {
        case S_IFREG: return
        case S_IFLNK: kind = "a symbolic link"
        case S_IFIFO: kind = "a FIFO"
        case S_IFCHR: kind = "a character device"
        case S_IFBLK: kind = "a block device"
        case S_IFSOCK: kind = "a socket"
        case S_IFDIR: kind = "a directory"
        default: kind = "of another kind"
        }
        throw CommandFailure(
            message: "\(option) \(quoted(path)) is \(kind), not a regular file: the output would replace it; name a regular file or a new path; nothing was read or written",
            code: .usage)
    }

    /// A file's device and inode, or nil when it cannot be looked at (it does not exist yet).
    private static func identity(of path: String) -> [UInt64]? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return identity(info)
    }

    private static func identity(_ info: stat) -> [UInt64] {
        [UInt64(truncatingIfNeeded: info.st_dev), UInt64(truncatingIfNeeded: info.st_ino)]
    }

    /// Writes the bytes.
    /// - Parameters:
    ///   - text: What to write.
    ///   - path: The file.
    /// - Throws: ``CommandFailure`` (exit 74) naming the file and the system's reason.
    static func write(_ text: String, to path: String, what: String) throws(CommandFailure) {
        func failure(_ code: Int32) -> CommandFailure {
            CommandFailure(message: "cannot write the \(what) to \(quoted(path)): \(String(cString: strerror(code)))", code: .ioError)
        }
        var temporary = ""
        var descriptor: Int32 = -1
        for _ in 0..<8 where descriptor < 0 {
            temporary = path + ".onetap-" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
            descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
            if descriptor < 0, errno != EEXIST { break }
        }
        guard descriptor >= 0 else { throw failure(errno) }
        var text = text
        var problem: Int32 = 0
        if !text.withUTF8({ StandardStream.writeAll(descriptor, UnsafeRawBufferPointer($0)) }) { problem = errno }
        if problem == 0, fsync(descriptor) != 0 { problem = errno }
        close(descriptor)
        if problem == 0, rename(temporary, path) != 0 { problem = errno }
        if problem != 0 {
            unlink(temporary)
            throw failure(problem)
        }
    }
}
