import Foundation
import OneTapPostgres

/// One statement as a store sent it, seen by the pool's values observer: its text with `$1`, `$2`… and its
/// values (`bytea` values zero-filled by the observer, so no token reaches a benchmark).
struct ObservedStatement: Sendable {
    let sql: String
    let values: [PostgresValue]
}

/// Statements a real call sent, turned into a `pgbench` custom script that sends the same statements, in the
/// same order and the same transaction grouping (a `BEGIN` … `COMMIT` the store sent is two statements of the
/// script), one round trip each, with each `$n` replaced by its value as a typed literal. One script run (one
/// pgbench "transaction") is one replay of the call.
///
/// So that runs do not collide on keys, each run draws `:replay` (`\set replay random(…)`), and
/// - every text value listed as a key (a login session's id) becomes `'pgb-' || :client_id || '-' || :replay` (each
///   variable cast to `bigint`: with `-M prepared` it is a parameter whose type the server must be told)
///   (or another prefix) wherever it is a whole value (inside a JSON document it is left as captured);
/// - every `bytea` value (zero-filled by the observer: the exchange ledger's token digest) becomes the first
///   bytes of `sha512('pgb-<client>-<replay>')` (the key's), the same within a run, so a statement that reaches the row
///   an earlier one wrote (the ledger's settle after its claim) reaches it in the script too.
/// - every text value listed as a number (a verified phone number: the account directory's key, which must
///   look like a mainland mobile number) becomes a number drawn from `:replay`, `1[3-9]` and nine digits
///   (7 × 10⁹ of them: two runs of one benchmark row meet on one with a chance of about runs² / 1.4 × 10¹⁰);
/// - every text value listed as suffixed (an SMS counter's id, a code record's key), whole or an element of a
///   `text[]`, becomes itself followed by `-<client>-<replay>`: each such value unique per run and distinct from
///   the others, the same within a run (the write reaches the row the read read);
/// - every `bigint` listed as a lock key (an advisory-lock key the store hashed from a per-call row), whole or
///   an element of a `bigint[]`, becomes `hashtextextended('<value>-<client>-<replay>', 0)`, so runs do not
///   queue on one another's locks; a key not listed (a shared counter's) stays shared, as in the store.
/// Every other value (versions, instants, the session's JSON) is the captured one.
enum PgbenchReplay {
    /// pgbench's variables a literal must not name (`-D v=1` of ``PostgresBenchmarks/runPgbench``, the
    /// automatic ones, and the script's own): in simple mode pgbench substitutes `:name` even inside quotes.
    private static let variables: Set<String> = ["v", "client_id", "scale", "random_seed", "default_seed", "replay"]

    /// The script.
    /// - Parameters:
    ///   - statements: The statements, in the order they were sent.
    ///   - keys: Text values to make unique per run.
    ///   - numbers: Phone numbers (text values) to make unique per run, as phone numbers.
    ///   - prefix: What the keys start with (`pgb-`), so that a check finds one script's rows.
    ///   - suffixed: Text values (whole or in a `text[]`) to make unique per run and keep distinct.
    ///   - lockKeys: `bigint` values (whole or in a `bigint[]`) to make unique per run.
    /// - Returns: The script's text.
    /// - Throws: ``PostgresBenchmarks/BenchmarkFailure`` when a statement names a value it was not given, a
    ///   `bytea` value is longer than 64 bytes, or a literal would name one of pgbench's variables.
    static func script(
        _ statements: [ObservedStatement], keys: Set<String>, numbers: Set<String> = [], prefix: String = "pgb-", suffixed: Set<String> = [],
        lockKeys: Set<Int64> = []
    ) throws -> String {
        var script = "\\set replay random(1, 1000000000000000000)\n"
        let key = "\(quoted(prefix)) || (:client_id)::bigint || '-' || (:replay)::bigint"
        let number = "'1' || (3 + (:replay)::bigint % 7)::text || lpad(((:replay)::bigint / 7 % 1000000000)::text, 9, '0')"
        let run = "'-' || (:client_id)::bigint || '-' || (:replay)::bigint"
        func suffix(_ text: String) throws -> String {
            let literal = quoted(text)
            if let name = namedVariable(literal) {
                throw PostgresBenchmarks.BenchmarkFailure("a captured value holds `:\(name)`, which pgbench would replace with its variable")
            }
            return "(\(literal) || \(run))"
        }
        func lock(_ value: Int64) -> String { "hashtextextended('\(value)' || \(run), 0)" }
        for statement in statements {
            let literals = try statement.values.map { value -> String in
                switch value {
                case .text(let text) where keys.contains(text): return "(\(key))"
                case .text(let text) where numbers.contains(text): return "(\(number))"
                case .text(let text) where suffixed.contains(text): return try suffix(text)
                case .textArray(let texts) where texts.contains(where: { suffixed.contains($0) }):
                    return try "ARRAY[" + texts.map { try suffixed.contains($0) ? suffix($0) : literal(.text($0)) }.joined(separator: ",") + "]::text[]"
                case .int64(let value) where lockKeys.contains(value): return lock(value)
                case .int64Array(let values) where values.contains(where: { lockKeys.contains($0) }):
                    return "ARRAY[" + values.map { lockKeys.contains($0) ? lock($0) : "(\($0))" }.joined(separator: ",") + "]::bigint[]"
                case .bytes(let bytes):
                    guard bytes.count <= 64 else { throw PostgresBenchmarks.BenchmarkFailure("a bytea value of \(bytes.count) bytes (at most 64 are replayed)") }
                    return "substring(sha512(convert_to(\(key), 'UTF8')) FROM 1 FOR \(bytes.count))"
                default: return try literal(value)
                }
            }
            script += try substitute(statement.sql, literals) + ";\n"
        }
        return script
    }

    /// A value as a typed SQL literal.
    private static func literal(_ value: PostgresValue) throws -> String {
        let literal: String
        switch value {
        case .null: return "NULL"
        case .text(let text): literal = quoted(text) + "::text"
        case .bytes(let bytes): literal = "'\\x" + bytes.map { String(format: "%02x", $0) }.joined() + "'::bytea"
        case .int64(let number): return "(\(number))::bigint"
        case .bool(let flag): return flag ? "true" : "false"
        case .textArray(let texts): literal = "ARRAY[" + texts.map(quoted).joined(separator: ",") + "]::text[]"
        case .int64Array(let numbers): return "ARRAY[" + numbers.map { "(\($0))" }.joined(separator: ",") + "]::bigint[]"
        }
        if let name = namedVariable(literal) {
            throw PostgresBenchmarks.BenchmarkFailure("a captured value holds `:\(name)`, which pgbench would replace with its variable")
        }
        return literal
    }

    /// A text literal pgbench passes through untouched in every query mode: with `-M prepared` pgbench reads any
    /// `:name` in a statement as a variable, inside quotes too (a JSON document's `"version":1` would become a
    /// parameter), so a colon is written as the Unicode escape `\003A` of a `U&'…'` literal, which the server reads
    /// once, when it prepares the statement.
    /// - Parameter text: The text.
    /// - Returns: The literal.
    static func quoted(_ text: String) -> String {
        guard text.contains(":") || text.contains("\\") else { return "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }
        let escaped = text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "''").replacingOccurrences(of: ":", with: "\\003A")
        return "U&'" + escaped + "'"
    }

    /// The first pgbench variable `text` names as `:name`, if any.
    private static func namedVariable(_ text: String) -> String? {
        let characters = Array(text.unicodeScalars)
        var index = 0
        while index < characters.count {
            defer { index += 1 }
            guard characters[index] == ":" else { continue }
            var end = index + 1
            while end < characters.count, characters[end].properties.isAlphabetic || ("0"..."9").contains(characters[end]) || characters[end] == "_" { end += 1 }
            let name = String(String.UnicodeScalarView(characters[(index + 1)..<end]))
            if variables.contains(name) { return name }
        }
        return nil
    }

    /// The statement with each `$n` outside a quoted literal replaced by `literals[n - 1]`.
    private static func substitute(_ sql: String, _ literals: [String]) throws -> String {
        var result = ""
        var quoted = false
        var characters = sql.makeIterator()
        var pending: Character? = nil
        while let character = pending ?? characters.next() {
            pending = nil
            if character == "'" { quoted.toggle() }
            guard character == "$", !quoted else {
                result.append(character)
                continue
            }
            var digits = ""
            while let next = characters.next() {
                if next.isASCII, next.isNumber { digits.append(next) } else { pending = next; break }
            }
            guard let number = Int(digits) else {
                result.append("$" + digits)
                continue
            }
            guard number >= 1, number <= literals.count else {
                throw PostgresBenchmarks.BenchmarkFailure("a statement names $\(number) but was sent \(literals.count) values")
            }
            result += literals[number - 1]
        }
        return result
    }
}
