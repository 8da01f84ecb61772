// OneTapTableGenerator OUTPUT INPUT.csv...
//
// Writes OUTPUT, a Swift file that embeds each INPUT verbatim as a raw string literal, keyed by file name.
// The tables are parsed and validated by the OneTap module itself (the same loader that reads replacement
// files at run time), so there is one parser and the CSV stays the only copy of every table.

import Foundation

@main
struct OneTapTableGenerator {
    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("error: \(message)\n".utf8))
        exit(1)
    }

    /// The fewest `#` that make a raw string delimiter no run of `#` inside `text` can close.
    static func rawDelimiter(for text: String) -> String {
        var longest = 0
        var run = 0
        for byte in text.utf8 {
            run = byte == UInt8(ascii: "#") ? run + 1 : 0
            longest = max(longest, run)
        }
        return String(repeating: "#", count: longest + 1)
    }

    static func main() {
        let arguments = CommandLine.arguments.dropFirst()
        guard let outputPath = arguments.first else { fail("usage: OneTapTableGenerator OUTPUT INPUT.csv...") }
        var source = """
            // Generated at build time by OneTapTableGenerator from the package's Data/*.csv. Do not edit.

            extension EmbeddedTable {
                /// Every table in `Data/`, verbatim, in file-name order.
                package static let all: [EmbeddedTable] = [

            """
        for path in arguments.dropFirst() {
            let url = URL(fileURLWithPath: path)
            guard let data = FileManager.default.contents(atPath: path) else { fail("\(path): cannot read") }
            guard let text = String(data: data, encoding: .utf8) else { fail("\(path): not valid UTF-8") }
            let normalised = text.replacingOccurrences(of: "\r\n", with: "\n")
            let hashes = rawDelimiter(for: normalised)
            source += "        EmbeddedTable(\n"
            source += "            fileName: \"\(url.lastPathComponent)\",\n"
            source += "            text: \(hashes)\"\"\"\n\(normalised)\(normalised.hasSuffix("\n") ? "" : "\n")\"\"\"\(hashes)\n"
            source += "        ),\n"
        }
        source += "    ]\n}\n"
        do {
            try Data(source.utf8).write(to: URL(fileURLWithPath: outputPath), options: .atomic)
        } catch {
            fail("\(outputPath): \(error)")
        }
    }
}
