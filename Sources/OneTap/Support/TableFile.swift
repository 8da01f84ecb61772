#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads table files from disk: the replacement `Data/` tables, and any other line-oriented table file
/// (such as the CLI's decision tables) that wants the same errors.
package enum TableFile {
    /// The path of a table file in a directory, if the directory holds one by that name.
    /// - Parameters:
    ///   - name: The file name, e.g. `plmn.csv`.
    ///   - directory: The directory.
    /// - Returns: The path, or nil when the directory holds no entry by that name. Any entry is a table to read, and
    ///   reading it reports why it cannot be (a dangling link, a directory); so is a name the directory does not let
    ///   be looked up (no search permission): it may hold the table, and the built-in one must not stand in silently.
    package static func path(of name: String, in directory: String) -> String? {
        let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
        var info = stat()
        return lstat(path, &info) == 0 || errno != ENOENT ? path : nil
    }

    /// Whether a path names a directory.
    /// - Parameter path: The path.
    /// - Returns: True for a directory.
    package static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Reads the text of a table file (at most 64 MiB), without a byte-order mark at its start (as standard input is
    /// read: an editor's UTF-8 mark is no part of the first line).
    /// - Parameter path: The file's path.
    /// - Returns: The file's text.
    /// - Throws: ``TableError`` of kind `unreadable` (with the system's reason), `too-large` (past 64 MiB) or
    ///   `encoding` (with the first line that is not valid UTF-8).
    package static func read(_ path: String) throws(TableError) -> String {
        let bytes: [UInt8]
        do {
            bytes = try FileBytes.read(path: path, limit: 64 << 20)
        } catch where error.code == EFBIG {
            throw TableError(file: path, line: 0, kind: .tooLarge, message: "the file is larger than a table may be (64 MiB)")
        } catch {
            throw TableError(file: path, line: 0, kind: .unreadable, message: "cannot read the file: \(error.reason)")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            // The first line that is not UTF-8, found line by line (never every line split up front).
            var line = 0, start = bytes.startIndex
            while start <= bytes.endIndex {
                line += 1
                let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.endIndex
                if String(validating: bytes[start..<end], as: UTF8.self) == nil { break }
                start = end + 1
            }
            throw TableError(file: path, line: line, kind: .encoding, message: "the file is not valid UTF-8 text")
        }
        return text.unicodeScalars.first == "\u{FEFF}" ? String(text.unicodeScalars.dropFirst()) : text
    }
}

extension DataTable {
    /// Loads a replacement table file, in the format of its `Data/` file.
    /// - Parameter path: The file's path.
    /// - Throws: ``TableError`` when the file is unreadable (`unreadable`), not UTF-8 (`encoding`) or
    ///   malformed (naming the line and column).
    public init(contentsOf path: String) throws(TableError) {
        try self.init(csv: TableFile.read(path), file: path)
    }
}

extension BuiltInTable {
    /// Loads the replacement for this table from a directory, when it holds one under the table's
    /// `Data/` name.
    /// - Parameter directory: The directory.
    /// - Returns: The table, or nil when the directory holds no such file.
    /// - Throws: ``TableError`` when the file is unreadable or malformed.
    package static func replacement(in directory: String) throws(TableError) -> Self? {
        guard let path = TableFile.path(of: fileName, in: directory) else { return nil }
        return try Self(contentsOf: path)
    }
}

extension DecisionTables {
    /// Loads the tables a directory holds under their `Data/` names (`plmn.csv`, `number-segments.csv`,
    /// `ipv6-prefixes.csv`, `result-codes.csv`); a table the directory lacks stays built in. New codes
    /// can ship this way without a release.
    /// - Parameter directory: The directory.
    /// - Throws: ``TableError`` naming the file and line of a malformed table, or `unreadable` for a file
    ///   that exists but cannot be read, or a directory that does not exist.
    public init(directory: String) throws(TableError) {
        guard TableFile.isDirectory(directory) else {
            throw TableError(file: directory, line: 0, kind: .unreadable, message: "not a readable directory")
        }
        self.init(
            plmn: try PLMNTable.replacement(in: directory) ?? .builtIn,
            segments: try NumberSegmentTable.replacement(in: directory) ?? .builtIn,
            ipv6: try IPv6PrefixTable.replacement(in: directory) ?? .builtIn,
            outcomes: try OutcomeTable.replacement(in: directory) ?? .builtIn)
    }
}
