/// A CSV table read from text: the header and the data rows, each row with its line number.
///
/// The dialect is the one the `Data/` files use:
/// - one record per line; `\n` or `\r\n` line ends; a UTF-8 byte-order mark at the start is skipped;
/// - lines whose first non-blank character is `#` are comments, blank lines are skipped;
/// - the first other line is the header; columns are found by name, so their order is free;
/// - fields are separated by commas and trimmed of surrounding spaces and tabs; a field may be quoted
///   with `"` to hold commas, with `""` standing for one quote inside it;
/// - every row of a table with a `source` column cites one: a fact's source is what makes it reviewable, in a
///   replacement table as in `Data/`.
struct CSVTable {
    /// One data row.
    struct Row {
        /// The 1-based line the row is on.
        let line: Int
        /// The fields, in the order of the `columns` the table was read with.
        let fields: [String]

        subscript(_ index: Int) -> String { fields[index] }
    }

    /// The file name used in errors.
    let file: String
    /// The column names asked for, in the order of each row's fields.
    let columns: [String]
    /// The data rows in file order.
    let rows: [Row]

    /// Reads a table.
    /// - Parameters:
    ///   - text: The file's text.
    ///   - file: The file name used in errors.
    ///   - columns: The columns every row must have, in the order wanted in ``Row/fields``.
    ///   - optional: The columns of `columns` the header may leave out; their fields are then empty.
    /// - Throws: ``TableError`` naming the file and line of the first problem found (`invalid-value` on column
    ///   `source` for a row whose source is empty).
    /// - Complexity: O(*n*) in the length of the text.
    init(text: String, file: String, columns: [String], optional: Set<String> = []) throws(TableError) {
        self.file = file
        self.columns = columns
        let source = columns.firstIndex(of: "source")
        var header: [Int]? = nil  // header field index -> wanted column index
        var headerWidth = 0
        var rows: [Row] = []
        var lineNumber = 0
        var body = Substring(text)
        if body.unicodeScalars.first == "\u{FEFF}" {
            body = Substring(body.unicodeScalars.dropFirst())
        }
        // Lines end at LF and CRLF, each found as the loop comes to it, never split up front.
        for rawLine in TextLines(body) {
            lineNumber += 1
            var line = rawLine
            if line.utf8.last == UInt8(ascii: "\r") { line = line.dropLast() }
            let content = line.drop { $0 == " " || $0 == "\t" }
            if content.isEmpty || content.first == "#" { continue }
            if line.utf8.contains(0) {
                throw TableError(file: file, line: lineNumber, kind: .invalidValue, message: "the line holds a NUL character")
            }
            let fields = try Self.split(line, file: file, line: lineNumber)
            guard let mapping = header else {
                header = try Self.mapHeader(fields, columns: columns, optional: optional, file: file, line: lineNumber)
                headerWidth = fields.count
                continue
            }
            guard fields.count == headerWidth else {
                throw TableError(
                    file: file, line: lineNumber, kind: .fieldCount,
                    message: "expected \(headerWidth) fields as in the header (\(columns.joined(separator: ","))), found \(fields.count)")
            }
            var ordered = [String](repeating: "", count: columns.count)
            for (index, target) in mapping.enumerated() { ordered[target] = fields[index] }
            if let source, ordered[source].allSatisfy(\.isWhitespace) {
                throw TableError(
                    file: file, line: lineNumber, column: "source", kind: .invalidValue,
                    message: "the row cites no source; every row says where its fact comes from (a document, a page, or why it is a choice)")
            }
            rows.append(Row(line: lineNumber, fields: ordered))
        }
        guard header != nil else {
            throw TableError(
                file: file, line: 0, kind: .missingHeader,
                message: "no header row; expected the columns \(columns.joined(separator: ","))")
        }
        self.rows = rows
    }

    /// The rows of a lookup table, which must have some: one with none would answer every lookup with nothing
    /// found, without a word about the table.
    /// - Parameter what: What a row holds, for the message (`PLMNs`).
    /// - Returns: The rows.
    /// - Throws: ``TableError`` of kind `incomplete` for a table with no rows.
    func requiringRows(_ what: String) throws(TableError) -> [Row] {
        guard !rows.isEmpty else {
            throw TableError(file: file, line: 0, kind: .incomplete, message: "the table has no rows; without \(what) every lookup would find nothing")
        }
        return rows
    }

    /// Maps the header's fields to the wanted columns.
    private static func mapHeader(
        _ fields: [String], columns: [String], optional: Set<String>, file: String, line: Int
    ) throws(TableError) -> [Int] {
        guard fields.contains(where: columns.contains) else {
            // Quoting what is no header would print the first line of whatever file was named by mistake: a key, a
            // password file.
            throw TableError(
                file: file, line: line, kind: .unknownColumn,
                message: "the first line names none of the table's columns (\(columns.joined(separator: ","))): no header of this table; its text is not shown")
        }
        var mapping: [Int] = []
        var seen = Set<String>()
        for name in fields {
            guard let index = columns.firstIndex(of: name) else {
                throw TableError(
                    file: file, line: line, kind: .unknownColumn,
                    message: "unknown column \(QuotedInput(name)) in the header; the columns are \(columns.joined(separator: ","))")
            }
            guard seen.insert(name).inserted else {
                throw TableError(file: file, line: line, kind: .unknownColumn, message: "column '\(name)' appears twice in the header")
            }
            mapping.append(index)
        }
        if let missing = columns.first(where: { !seen.contains($0) && !optional.contains($0) }) {
            throw TableError(
                file: file, line: line, column: missing, kind: .missingColumn,
                message: "the header lacks this column; expected \(columns.joined(separator: ","))")
        }
        return mapping
    }

    /// Splits one line into trimmed fields, honouring quotes.
    private static func split(_ line: Substring, file: String, line number: Int) throws(TableError) -> [String] {
        var fields: [String] = []
        var field = ""
        var quoted = false       // inside quotes
        var wasQuoted = false    // the current field was quoted
        var iterator = line.unicodeScalars.makeIterator()
        var pending: Unicode.Scalar? = nil
        func trimmed(_ text: String) -> String {
            var scalars = Substring(text).unicodeScalars[...]
            while let first = scalars.first, first == " " || first == "\t" { scalars = scalars.dropFirst() }
            while let last = scalars.last, last == " " || last == "\t" { scalars = scalars.dropLast() }
            return String(String.UnicodeScalarView(scalars))
        }
        while let scalar = pending ?? iterator.next() {
            pending = nil
            if quoted {
                if scalar == "\"" {
                    if let next = iterator.next() {
                        if next == "\"" { field.unicodeScalars.append("\"") } else { quoted = false; pending = next }
                    } else {
                        quoted = false
                    }
                } else {
                    field.unicodeScalars.append(scalar)
                }
                continue
            }
            switch scalar {
            case ",":
                fields.append(wasQuoted ? field : trimmed(field))
                field = ""
                wasQuoted = false
            case "\"":
                guard trimmed(field).isEmpty, !wasQuoted else {
                    throw TableError(
                        file: file, line: number, kind: .quoting,
                        message: "a quote inside field \(fields.count + 1); quote the whole field and double inner quotes")
                }
                field = ""
                quoted = true
                wasQuoted = true
            default:
                if wasQuoted, scalar != " ", scalar != "\t" {
                    throw TableError(
                        file: file, line: number, kind: .quoting,
                        message: "text after the closing quote of field \(fields.count + 1)")
                }
                if !wasQuoted { field.unicodeScalars.append(scalar) }
            }
        }
        if quoted {
            throw TableError(file: file, line: number, kind: .quoting, message: "field \(fields.count + 1) opens a quote that is not closed on this line")
        }
        fields.append(wasQuoted ? field : trimmed(field))
        return fields
    }
}

extension CSVTable.Row {
    /// Reads a field that names one of a fixed set of values by its id.
    /// - Parameters:
    ///   - field: The field's text.
    ///   - name: What the value is, for the message (`"carrier"`).
    ///   - allowed: The values the column accepts, in the order the message lists them.
    ///   - file: The file name used in errors.
    ///   - column: The column.
    /// - Returns: The value.
    /// - Throws: ``TableError`` of kind `invalid-value`: `unknown carrier "mobil"; expected one of …`.
    func choice<Value: RawRepresentable & Equatable>(
        _ field: String, _ name: String, from allowed: [Value], file: String, column: String
    ) throws(TableError) -> Value where Value.RawValue == String {
        guard let value = Value(rawValue: field), allowed.contains(value) else {
            throw unknown(field, name, expected: allowed.map(\.rawValue), file: file, column: column)
        }
        return value
    }

    /// Reads a field that is one of a fixed set of names (a gateway's, a verdict's), with the message a value's id gets.
    /// - Parameters:
    ///   - field: The field's text.
    ///   - name: What the value is, for the message (`"verdict"`).
    ///   - allowed: The names the column accepts, in the order the message lists them.
    ///   - file: The file name used in errors.
    ///   - column: The column.
    /// - Returns: The name.
    /// - Throws: ``TableError`` of kind `invalid-value`: `unknown verdict "passed"; expected one of …`.
    func choice(_ field: String, _ name: String, from allowed: [String], file: String, column: String) throws(TableError) -> String {
        guard allowed.contains(field) else { throw unknown(field, name, expected: allowed, file: file, column: column) }
        return field
    }

    private func unknown(_ field: String, _ name: String, expected allowed: [String], file: String, column: String) -> TableError {
        error(file, column: column, .invalidValue, "unknown \(name) \(QuotedInput(field)); expected one of \(allowed.joined(separator: ", "))")
    }

    /// A table error at this row.
    func error(_ file: String, column: String? = nil, _ kind: TableError.Kind, _ message: String) -> TableError {
        TableError(file: file, line: line, column: column, kind: kind, message: message)
    }
}

/// The line each key of a table was first listed on: the one rule by which every table refuses a key
/// listed twice, naming the line of the first.
struct ListedKeys<Key: Hashable> {
    private var lines: [Key: Int] = [:]

    /// Records a row's key.
    /// - Parameters:
    ///   - key: The row's key.
    ///   - name: The key as the message names it (`rule number-minute`, `mobile code 103000`).
    ///   - row: The row.
    ///   - file: The file name used in errors.
    ///   - column: The key's column, when the key is one column.
    /// - Throws: ``TableError`` of kind `duplicate-key`: `rule x is already listed on line 4`.
    mutating func insert(_ key: Key, _ name: String, at row: CSVTable.Row, file: String, column: String?) throws(TableError) {
        if let first = lines[key] { throw row.error(file, column: column, .duplicateKey, "\(name) is already listed on line \(first)") }
        lines[key] = row.line
    }
}
