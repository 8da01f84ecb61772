import Foundation
import Testing

/// A deliberately small, separate reader of the `Data/*.csv` files, so the tests check the library's
/// tables against what an independent reading of the CSV says, never against the tables' own entries.
///
/// It knows only what the files use: `#` comment lines, blank lines, a header row, commas, and fields in
/// double quotes with `""` for a quote.
struct DataRow: Sendable, CustomTestStringConvertible {
    let file: String
    let line: Int
    let fields: [String: String]
    /// Why the file could not be read, for the one placeholder row an unreadable file yields.
    let problem: String?

    subscript(_ column: String) -> String { fields[column] ?? "" }

    var testDescription: String { problem.map { "\(file): \($0)" } ?? "\(file):\(line)" }
}

enum DataFile {
    /// The rows of `Data/<name>`, or one row carrying the problem when the file cannot be read (so an
    /// unreadable file fails the test that uses it rather than make it test nothing).
    static func rows(_ name: String) -> [DataRow] {
        let path = Package.path("Data/" + name)
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
            return [DataRow(file: name, line: 0, fields: [:], problem: "cannot read \(path): \(error)")]
        }
        var header: [String]? = nil
        var rows: [DataRow] = []
        for (index, raw) in text.components(separatedBy: "\n").enumerated() {
            let line = raw.hasSuffix("\r") ? String(raw.dropLast()) : raw
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            let fields = split(line)
            guard let names = header else {
                header = fields
                continue
            }
            guard fields.count == names.count else {
                rows.append(DataRow(file: name, line: index + 1, fields: [:], problem: "line \(index + 1) has \(fields.count) fields, the header \(names.count)"))
                continue
            }
            rows.append(DataRow(file: name, line: index + 1, fields: Dictionary(uniqueKeysWithValues: zip(names, fields)), problem: nil))
        }
        return rows
    }

    private static func split(_ line: String) -> [String] {
        var fields: [String] = []
        var field = ""
        var quoted = false
        var characters = Array(line)[...]
        while let character = characters.popFirst() {
            if quoted {
                if character == "\"" {
                    if characters.first == "\"" { field.append("\""); characters.removeFirst() } else { quoted = false }
                } else {
                    field.append(character)
                }
            } else if character == "\"" {
                quoted = true
            } else if character == "," {
                fields.append(field.trimmingCharacters(in: .whitespaces))
                field = ""
            } else {
                field.append(character)
            }
        }
        fields.append(field.trimmingCharacters(in: .whitespaces))
        return fields
    }
}
