/// Passwords written into a PostgreSQL connection string, found without libpq (pure text), so that a
/// message quoting a command line can be redacted by code that does not link libpq (the `onetap` tool).
package enum ConnectionPasswords {
    /// Text with whatever looks like a password in any of `inputs` (a URI's user information, a
    /// `password=` parameter, as written and percent-decoded) replaced by `<redacted>`.
    /// - Parameters:
    ///   - text: The message.
    ///   - inputs: The inputs it may quote.
    /// - Returns: The message, redacted.
    package static func redacting(in text: String, foundIn inputs: [String]) -> String {
        Secret.scrub(text, of: inputs.flatMap(found(in:)).map { Secret($0) })
    }

    /// Whether a URI holds a password libpq does not read whole: one with an unencoded `/` (`user:pass/word@host`:
    /// libpq ends the user information at the `/` and reads the pieces as host, port and database) or `@`
    /// (`user:pass@word@host`: it ends at the first `@`, and the rest becomes the host). Their pieces would show in
    /// descriptions and in libpq's own connect errors. Keyword strings are read as written: never.
    /// - Parameter text: The connection string.
    /// - Returns: True for such a URI.
    package static func holdsAPasswordLibpqMisreads(_ text: String) -> Bool {
        let scalars = Substring(text).unicodeScalars
        guard let scheme = scalars.firstRange(of: "://".unicodeScalars) else { return false }
        let rest = scalars[scheme.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" }
        if authority.filter({ $0 == "@" }).count > 1, let at = authority.firstIndex(of: "@"), authority[..<at].contains(":") { return true }
        return holdsASlashPassword(authority, in: rest)
    }

    /// Whether the text before a URI's first `/` is `user:` and a piece of a password holding an unencoded `/`:
    /// `user:` and no `@` before the `/`, after the colon something that is no port, an `@` later, and not a
    /// host list (`h1:5432,h2:5433/d@b`) nor an IPv6 host (`[::1]:5432/…`).
    private static func holdsASlashPassword(_ head: Substring.UnicodeScalarView, in rest: Substring.UnicodeScalarView) -> Bool {
        guard head.endIndex < rest.endIndex, rest[head.endIndex] == "/", !head.contains("@"), !head.contains(","), head.first != "[",
              let colon = head.firstIndex(of: ":"), !head[head.index(after: colon)...].allSatisfy({ ("0"..."9").contains($0) })
        else { return false }
        return rest.prefix(while: { $0 != "?" }).contains("@")
    }

    /// What looks like a password in a URI's user information or `password=` parameters, as written and
    /// percent-decoded. Read by Unicode scalars, as libpq reads bytes: a password that starts with a combining mark is
    /// one character with the `:` or `=` before it, which a reading by characters would not find.
    package static func found(in text: String) -> [String] {
        var found: [String] = []
        func add(_ value: Substring.UnicodeScalarView) {
            guard !value.isEmpty else { return }
            let written = String(Substring(value))
            found.append(written)
            if let decoded = written.removingPercentEncodingIfValid, decoded != written { found.append(decoded) }
        }
        // Any scheme: a URL libpq refuses (`mysql://user:pw@host`) is quoted back in its message.
        let text = Substring(text).unicodeScalars
        if let scheme = text.firstRange(of: "://".unicodeScalars) {
            let rest = text[scheme.upperBound...]
            // libpq ends the user information at the first `@` or `/` (never at `?`); the last `@` is looked at
            // too, for a password holding an unencoded `@`.
            for authority in [rest.prefix { $0 != "/" && $0 != "@" }, rest.prefix { $0 != "/" && $0 != "?" }] {
                let end = authority.endIndex < rest.endIndex && rest[authority.endIndex] == "@" ? authority.endIndex : authority.lastIndex(of: "@")
                if let at = end, let colon = rest[..<at].firstIndex(of: ":") { add(rest[rest.index(after: colon)..<at]) }
            }
            // A password holding an unencoded `/` (`user:Ab/cD@host`): libpq reads no user information then, and
            // takes the password's pieces for the port and the database, which its messages quote. Told from a
            // host and port (`db:5432/name@x`, `[::1]:5432/…`) by what stands before the first `/`: `user:` and
            // no `@`, and after the colon something that is not a port.
            let head = rest.prefix { $0 != "/" && $0 != "?" }
            if Self.holdsASlashPassword(head, in: rest), let colon = head.firstIndex(of: ":"),
               let at = rest.prefix(while: { $0 != "?" }).lastIndex(of: "@") {
                let password = rest[rest.index(after: colon)..<at]
                add(password)
                // Each piece of four characters or more: a shorter one would hide every such word of a message.
                for piece in password.split(separator: "/") where piece.count >= 4 { add(piece) }
            }
            if let query = rest.firstIndex(of: "?") {
                for pair in rest[rest.index(after: query)...].split(separator: "&") {
                    let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                    // libpq percent-decodes a parameter's keyword as it does its value (`pass%77ord`).
                    guard parts.count == 2 else { continue }
                    let keyword = String(Substring(parts[0])).removingPercentEncodingIfValid ?? String(Substring(parts[0]))
                    if keyword.lowercased().hasSuffix("password") { add(parts[1]) }
                }
            }
        }
        // keyword = value forms, quoted or not, separated by any white space (libpq's `isspace`).
        let scalars = Array(text)
        var index = 0
        while index < scalars.count {
            let word = String(String.UnicodeScalarView(scalars[index...].prefix(while: isKeywordScalar)))
            guard !word.isEmpty else { index += 1; continue }
            index += word.unicodeScalars.count
            guard word.lowercased().hasSuffix("password") else { continue }
            var cursor = index
            while cursor < scalars.count, isSpace(scalars[cursor]) { cursor += 1 }
            guard cursor < scalars.count, scalars[cursor] == "=" else { continue }
            cursor += 1
            while cursor < scalars.count, isSpace(scalars[cursor]) { cursor += 1 }
            // As libpq's parser reads a value, quoted or not: a backslash takes the next character as it is (`\'`,
            // `\\`, and in an unquoted value `\ `, a space that is the password's). Both forms are found: the value as
            // libpq reads it (its messages quote that), and as written (a message quoting the string shows that).
            var value = String.UnicodeScalarView()
            let quoted = cursor < scalars.count && scalars[cursor] == "'"
            if quoted { cursor += 1 }
            let start = cursor
            while cursor < scalars.count, quoted ? scalars[cursor] != "'" : !isSpace(scalars[cursor]) {
                if scalars[cursor] == "\\", cursor + 1 < scalars.count { cursor += 1 }
                value.append(scalars[cursor])
                cursor += 1
            }
            let written = Substring(String(String.UnicodeScalarView(scalars[start..<cursor]))).unicodeScalars
            // Up to an `&` too, as a URI's parameter would end.
            if !quoted, let ampersand = written.firstIndex(of: "&") { add(written[..<ampersand]) }
            add(written)
            add(Substring(String(value)).unicodeScalars)
            index = cursor
        }
        return found
    }
}

extension String {
    /// The text with `%XX` escapes decoded, or nil when an escape is malformed or the bytes are not UTF-8.
    package var removingPercentEncodingIfValid: String? {
        var bytes: [UInt8] = []
        var iterator = Array(utf8).makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else { bytes.append(byte); continue }
            guard let high = iterator.next().flatMap(hexDigit), let low = iterator.next().flatMap(hexDigit) else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }
}

/// Whether a character can be part of a libpq keyword.
private func isKeywordScalar(_ scalar: Unicode.Scalar) -> Bool {
    (scalar >= "a" && scalar <= "z") || (scalar >= "A" && scalar <= "Z") || scalar == "_"
}

/// Whether a character is white space as C's `isspace` has it in the C locale: what separates libpq's
/// `keyword = value` pairs.
private func isSpace(_ scalar: Unicode.Scalar) -> Bool {
    scalar == " " || ("\t"..."\r").contains(scalar)
}

private func hexDigit(_ byte: UInt8) -> UInt8? {
    switch byte {
    case 48...57: byte - 48
    case 65...70: byte - 55
    case 97...102: byte - 87
    default: nil
    }
}
