#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads table files from disk: the replacement `Data/` tables, and any other line-oriented table file
/// (such as the CLI's decision tables) that wants the same errors.
public enum TableFile {
    /// Whether a file exists at a path (readable or not: reading it reports why not).
    /// - Parameter path: The path.
    /// - Returns: True when something is there.
    public static func exists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }

    /// The path of a table file in a directory, if the directory holds one by that name.
    /// - Parameters:
    ///   - name: The file name, e.g. `plmn.csv`.
    ///   - directory: The directory.
    /// - Returns: The path, or nil when nothing is there.
    public static func path(of name: String, in directory: String) -> String? {
        let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
        return exists(path) ? path : nil
    }

    /// Whether a path names a directory.
    /// - Parameter path: The path.
    /// - Returns: True for a directory.
    public static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Reads the text of a table file (at most 64 MiB).
    /// - Parameter path: The file's path.
    /// - Returns: The file's text.
    /// - Throws: ``TableError`` of kind `unreadable` (with the system's reason) or `encoding` (with the
    ///   first line that is not valid UTF-8).
    public static func read(_ path: String) throws(TableError) -> String {
        let bytes: [UInt8]
        do {
            bytes = try FileBytes.read(path: path, limit: 64 << 20)
        } catch {
            throw TableError(file: path, line: 0, kind: .unreadable, message: "cannot read the file: \(error.reason)")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            let line = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
                .firstIndex { String(validating: $0, as: UTF8.self) == nil }.map { $0 + 1 } ?? 0
            throw TableError(file: path, line: line, kind: .encoding, message: "the file is not valid UTF-8 text")
        }
        return text
    }
}
