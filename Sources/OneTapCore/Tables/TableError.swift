/// Why a table file (one of `Data/*.csv`, or a replacement loaded at run time) was refused.
///
/// It names the file, the line (1-based; 0 when the problem is the file as a whole), the column when
/// one is at fault, and what is wrong. A refused table is never partly applied.
public struct TableError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable identifier for what is wrong. A caller tells ``ErrorKind/unreadable`` (no file or
    /// directory it could read: fall back, or say where) from a malformed file; which rule of the format
    /// a malformed file broke, the description says with its line and column (the other kinds, `package`,
    /// name it for OneTap's own tests). New kinds may be added; switch with a `default` case.
    package typealias Kind = ErrorKind<TableError>

    /// The file, as given to the loader (`Data/plmn.csv` for a built-in table).
    public let file: String
    /// The 1-based line, or 0 when the problem is the file as a whole.
    public let line: Int
    /// The column at fault, when one is.
    public let column: String?
    /// What is wrong.
    public let kind: ErrorKind<TableError>
    /// A human-readable explanation.
    public let message: String

    /// Creates a table error.
    /// - Parameters:
    ///   - file: The file name or path.
    ///   - line: The 1-based line, or 0 for the whole file.
    ///   - column: The column at fault, if any.
    ///   - kind: What is wrong.
    ///   - message: A human-readable explanation.
    package init(file: String, line: Int, column: String? = nil, kind: Kind, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.kind = kind
        self.message = message
    }

    /// `Data/plmn.csv:12: column 'carrier': unknown carrier "mobil" (expected one of …)`.
    public var description: String {
        var text = line > 0 ? "\(file):\(line): " : "\(file): "
        if let column { text += "column '\(column)': " }
        return text + message
    }
}

extension ErrorKind where Failure == TableError {
    /// The file could not be opened or read.
    public static let unreadable = Self("unreadable")
    /// The file is not valid UTF-8 text.
    package static let encoding = Self("encoding")
    /// The file has no header row.
    package static let missingHeader = Self("missing-header")
    /// The header lacks a column the table needs.
    package static let missingColumn = Self("missing-column")
    /// The header names a column the table does not know, or names one twice.
    package static let unknownColumn = Self("unknown-column")
    /// A row has more or fewer fields than the header.
    package static let fieldCount = Self("field-count")
    /// A quoted field is not closed on its line, or a quote stands inside an unquoted field.
    package static let quoting = Self("quoting")
    /// A field holds a value the column does not accept.
    package static let invalidValue = Self("invalid-value")
    /// Two rows have the same key.
    package static let duplicateKey = Self("duplicate-key")
    /// The file is larger than a table may be (64 MiB): a data error, as a key ring past its size is.
    package static let tooLarge = Self("too-large")
    /// The table lacks rows it must have (for example a flow without a `*` default).
    package static let incomplete = Self("incomplete")
}
