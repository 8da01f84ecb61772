import Foundation
import Testing

/// Every ```swift block of README.md is a region of `ReadmeSnippets.swift`, word for word, so the README's
/// code compiles and runs (the snippets are tests).
@Suite struct ReadmeTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The README's Swift blocks (a first `import OneTap` line and the blank line after it dropped).
    static func readmeBlocks() throws -> [String] {
        var blocks: [String] = []
        for directory in ["README.md"] {
            let text = try String(contentsOf: root.appendingPathComponent(directory), encoding: .utf8)
            var current: [Substring]? = nil
            for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
                if current == nil, line == "```swift" { current = []; continue }
                if current != nil, line == "```" {
                    var lines = current!
                    while let first = lines.first, first.hasPrefix("import ") { lines.removeFirst() }
                    while let first = lines.first, first.isEmpty { lines.removeFirst() }
                    blocks.append(lines.joined(separator: "\n"))
                    current = nil
                    continue
                }
                current?.append(line)
            }
        }
        return blocks
    }

    /// The snippet regions, dedented.
    static func regions(in files: [String]) throws -> [String: String] {
        var regions: [String: String] = [:]
        for file in files {
            let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
            var name: String? = nil
            var lines: [Substring] = []
            for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
                let trimmed = line.drop { $0 == " " }
                if trimmed.hasPrefix("// README: ") {
                    let label = String(trimmed.dropFirst("// README: ".count))
                    if label == "end", let open = name {
                        let indent = lines.filter { !$0.isEmpty }.map { $0.prefix { $0 == " " }.count }.min() ?? 0
                        regions[open] = lines.map { $0.isEmpty ? "" : String($0.dropFirst(indent)) }.joined(separator: "\n")
                        name = nil
                    } else {
                        name = label
                        lines = []
                    }
                    continue
                }
                if name != nil { lines.append(line) }
            }
        }
        return regions
    }

    @Test func everySwiftBlockOfTheReadmeIsACompiledSnippet() throws {
        // Every snippet file must be there: a missing one fails the read, never drops its blocks silently.
        let regions = try Self.regions(in: [
            "Tests/OneTapTests/Readme/ReadmeSnippets.swift", "Tests/OneTapPostgresTests/ReadmeSnippets.swift", "Tests/OneTapGatewaysTests/ReadmeSnippets.swift",
        ])
        let blocks = try Self.readmeBlocks()
        #expect(!blocks.isEmpty)
        for block in blocks {
            if !regions.values.contains(block) {
                Issue.record("this README block is no compiled snippet (regions: \(regions.keys.sorted().joined(separator: ", "))):\n\(block)")
            }
        }
    }
}
