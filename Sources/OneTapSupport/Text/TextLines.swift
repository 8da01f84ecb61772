/// A text's lines, found one at a time as they are read, never split up front (a file of 64 MiB of line breaks split
/// whole made an array of 67 million slices before its first line was read): each line ends at LF or CRLF (one
/// `Character` in Swift) or at the text's end, without its line break, so a text that ends with one has an empty last
/// line, and an empty text is one empty line, as `split(omittingEmptySubsequences: false)` gives them.
package struct TextLines: Sequence, IteratorProtocol {
    /// What is left to read; nil once the last line was read.
    private var rest: Substring?

    /// The lines of a text.
    /// - Parameter text: The text.
    package init(_ text: Substring) {
        rest = text
    }

    /// The next line.
    /// - Returns: The line, or nil after the last.
    /// - Complexity: O(the line's length).
    package mutating func next() -> Substring? {
        guard let remaining = rest else { return nil }
        guard let end = remaining.firstIndex(where: { $0 == "\n" || $0 == "\r\n" }) else {
            rest = nil
            return remaining
        }
        rest = remaining[remaining.index(after: end)...]
        return remaining[..<end]
    }
}
