/// The one grammar of OneTap's 22-character ids (a login session's, a guest's): 128 bits as URL-safe
/// base64 (RFC 4648 §5) without padding.
enum URLSafeID {
    /// Checks an id a client or a store sent back.
    /// - Parameters:
    ///   - text: The id.
    ///   - subject: What kind of id it is, for the error.
    /// - Throws: ``ParseError`` with that subject: `empty`, `invalid-character` or `wrong-length`.
    /// - Complexity: One pass over the bytes for a well-formed id.
    static func check(_ text: String, _ subject: ParseError.Subject) throws(ParseError) {
        // The common case, a well-formed id, in one pass over the bytes.
        if text.utf8.count == 22, text.utf8.allSatisfy({ Base64.isURLSafe($0) }) { return }
        if text.isEmpty { throw ParseError(subject, .empty, input: text, reason: "no id") }
        if let error = firstBadCharacterError(subject, in: text, allowed: Base64.isURLSafe) {
            throw ParseError(subject, error.kind, input: text, reason: error.reason + " (an id is URL-safe base64)")
        }
        guard text.utf8.count == 22 else {
            // "an app session id", "a guest id".
            let article = subject.description.first.map { "aeiou".contains($0) } == true ? "an" : "a"
            throw ParseError(subject, .wrongLength, input: text, reason: "\(text.utf8.count) characters; \(article) \(subject) has 22")
        }
    }
}
