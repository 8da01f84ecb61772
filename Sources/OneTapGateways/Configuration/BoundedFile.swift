import Foundation
import OneTap
#if canImport(Glibc)
import Glibc
#endif

/// Reads a file a configuration names (a secret's file, the configuration itself): only a regular file, and
/// only up to a size. `/dev/zero` would be read until memory ran out, and opening a FIFO would wait for a
/// writer for ever (the server's start, `onetap gateway check`).
@usableFromInline package enum BoundedFile {
    /// Why a file was not read.
    @usableFromInline package struct Refused: Error, CustomStringConvertible {
        /// `not a regular file`, `larger than 64 KiB`, or the system's reason.
        package let reason: String
        /// The reason.
        @usableFromInline package var description: String { reason }
    }

    /// The most a secret's file may hold: a PEM private key of 8192 bits is under 7 KiB.
    @usableFromInline package static let secretLimit = 64 * 1024

    /// Reads a whole file.
    /// - Parameters:
    ///   - path: The file (a symbolic link is followed: mounted secrets are links).
    ///   - limit: The most bytes it may hold.
    /// - Returns: Its bytes.
    /// - Throws: ``Refused`` for a file that cannot be opened or read, is not a regular file, or holds more than
    ///   `limit` bytes.
    /// - Complexity: O(`limit`) at most.
    @usableFromInline package static func read(_ path: String, limit: Int) throws(Refused) -> Data {
        let fd: Int32
        let info: stat
        do {
            (fd, info) = try FileBytes.openToRead(path)
        } catch {
            throw Refused(reason: error.reason)
        }
        defer { close(fd) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw Refused(reason: "not a regular file") }
        let tooLarge = Refused(reason: "larger than \(limit / 1024) KiB")
        guard info.st_size <= limit else { throw tooLarge }
        // Read by the one bounded reader (the file may have grown since `fstat`).
        do {
            return Data(try FileBytes.read(fd: fd, path: path, limit: limit))
        } catch where error.code == EFBIG {
            throw tooLarge
        } catch {
            throw Refused(reason: error.reason)
        }
    }
}
