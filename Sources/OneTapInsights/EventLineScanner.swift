import OneTapCore
import OneTapSupport

/// Reads the fields `onetap stats` needs from one NDJSON line of the event schema, without building
/// strings or allocating: a strict JSON object scanner (RFC 8259: strings with their escapes, numbers,
/// literals, nested objects and arrays up to 64 deep) that keeps where each known field's value is in
/// the line and skips every other member. It is the stream's reader, not a second JSON reader: white
/// space, the number grammar, string escapes and what they stand for come from ``JSONGrammar``, the
/// same code `JSONReader` reads records with; what is its own is the single pass over ten million lines
/// that keeps spans instead of values (and its messages).
struct EventLineScanner {
    /// Where a string value is in the line.
    struct Span {
        /// The offset of its first byte (after the opening quote).
        var start = 0
        /// Its length in bytes, as written (escapes not decoded); -1 when the key was absent or `null`.
        var count = -1
        /// Whether it holds an escape (`\n`, `\u00e9`, …).
        var escaped = false

        var isPresent: Bool { count >= 0 }
    }

    /// The known keys, and which kind of value each must have (17: ``Fields`` keeps a slot for each).
    enum Key: UInt8, CaseIterable {
        case v, at, area, event, session, carrier, evidence, platform, elapsedMs, flow, attempt, code, action, meaning, ending, condition, flows
    }

    /// What one line holds.
    struct Fields {
        var version: Int64? = nil
        var elapsed: Int64? = nil
        var attempt: Int64? = nil
        /// Where each string key's value is, by ``Key/rawValue`` (the slots of the integer and array keys
        /// stay absent): a fixed array, so a line's fields are read with no allocation.
        private var spans = InlineArray<17, Span>(repeating: Span())
        /// The `flows` array's flows, packed one ``LoginFlow/index`` per byte; `flowCount` -1 when absent.
        var flows: UInt32 = 0
        var flowCount = -1

        /// Where a string key's value is (absent when the line does not hold the key).
        subscript(key: Key) -> Span {
            get { spans[Int(key.rawValue)] }
            set { spans[Int(key.rawValue)] = newValue }
        }
    }

    /// Why a line is not a JSON object with the fields' types.
    struct Failure: Error {
        let message: String
        init(_ message: String) { self.message = message }
    }

    let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// Scans the line.
    /// - Returns: The fields found.
    /// - Throws: ``Failure`` for text that is no JSON object, or a known key with a value of the wrong kind.
    static func scan(_ bytes: UnsafeBufferPointer<UInt8>) throws(Failure) -> Fields {
        var scanner = EventLineScanner(bytes)
        return try scanner.object()
    }

    // MARK: The object

    private mutating func object() throws(Failure) -> Fields {
        var fields = Fields()
        var seen: UInt32 = 0  // the known keys met, one bit each
        skipSpace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "{") else {
            throw Failure(index >= bytes.count ? "an empty line is no event" : "not a JSON object: an event is one object per line")
        }
        index += 1
        if !isClosed(UInt8(ascii: "}")) {
            repeat {
                skipSpace()
                guard peek == UInt8(ascii: "\"") else { throw Failure("not JSON: a member name (a string) expected at byte \(index + 1)") }
                let name = try string()
                skipSpace()
                guard peek == UInt8(ascii: ":") else { throw Failure("not JSON: ':' expected after a member name at byte \(index + 1)") }
                index += 1
                skipSpace()
                // A known key is one whatever its spelling (`"dig\u0065st"` too), and only once, as the one JSON reader
                // reads a stored record: a line `{"event":"planned",…,"event":"succeeded"}` is refused, not read by its last.
                if let key = name.escaped ? Self.key(named: EventValues.text(bytes, name)) : Self.key(bytes, name) {
                    let bit = UInt32(1) << UInt32(key.rawValue)
                    guard seen & bit == 0 else { throw Failure("key '\(key)' appears twice") }
                    seen |= bit
                    try value(for: key, into: &fields)
                } else {
                    try skipValue(depth: 1)
                }
            } while try continues(UInt8(ascii: "}"), "the object")
        }
        skipSpace()
        guard index == bytes.count else { throw Failure("not JSON: text after the object at byte \(index + 1)") }
        return fields
    }

    private static let keys: [(name: [UInt8], key: Key)] = {
        let pairs: [(String, Key)] = [
            ("v", .v), ("at", .at), ("area", .area), ("event", .event), ("session", .session), ("carrier", .carrier), ("evidence", .evidence),
            ("platform", .platform), ("elapsedMs", .elapsedMs), ("flow", .flow), ("attempt", .attempt), ("code", .code), ("action", .action),
            ("meaning", .meaning), ("ending", .ending), ("condition", .condition), ("flows", .flows),
        ]
        return pairs.map { (Array($0.0.utf8), $0.1) }
    }()

    /// The known key a member name written with escapes stands for, decoded.
    private static func key(named name: String) -> Key? {
        let utf8 = Array(name.utf8)
        return keys.first { $0.name == utf8 }?.key
    }

    @inline(__always)
    private static func key(_ bytes: UnsafeBufferPointer<UInt8>, _ span: Span) -> Key? {
        for (name, key) in keys where name.count == span.count && name[0] == bytes[span.start] {
            var same = true
            for offset in 1..<max(1, name.count) where name[offset] != bytes[span.start + offset] {
                same = false
                break
            }
            if same { return key }
        }
        return nil
    }

    private mutating func value(for key: Key, into fields: inout Fields) throws(Failure) {
        switch key {
        case .v: fields.version = try integer(key)
        case .elapsedMs: fields.elapsed = try integer(key)
        case .attempt: fields.attempt = try integer(key)
        case .flows: try flows(into: &fields)
        case .at, .area, .event, .session, .carrier, .evidence, .platform, .flow, .code, .action, .meaning, .ending, .condition:
            fields[key] = try stringValue(key)
        }
    }

    /// A string, or `null` (absent).
    private mutating func stringValue(_ key: Key) throws(Failure) -> Span {
        if peek == UInt8(ascii: "\"") { return try string() }
        if try literal("null") { return Span() }
        throw Failure("key '\(key)': a string expected")
    }

    /// A whole number, or `null`.
    private mutating func integer(_ key: Key) throws(Failure) -> Int64? {
        if try literal("null") { return nil }
        let start = index
        let number: (end: Int, integral: Bool)
        do {
            number = try JSONGrammar.number(in: bytes, from: start)
        } catch {
            switch error.problem {
            case .noDigits: throw Failure("key '\(key)': a whole number expected")
            case .leadingZero: throw Failure("not JSON: a number with a leading zero at byte \(start + 1)")
            case .fractionWithoutDigits, .exponentWithoutDigits: throw Failure("key '\(key)': a whole number expected, not a fraction")
            }
        }
        guard number.integral else { throw Failure("key '\(key)': a whole number expected, not a fraction") }
        let end = number.end
        let negative = bytes[start] == UInt8(ascii: "-")
        var value: Int64 = 0
        for position in (negative ? start + 1 : start)..<end {
            let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = negative ? times.subtractingReportingOverflow(Int64(bytes[position] &- 48)) : times.addingReportingOverflow(Int64(bytes[position] &- 48))
            guard !overflow1, !overflow2 else { throw Failure("key '\(key)': the number is too large") }
            value = sum
        }
        index = end
        return value
    }

    private mutating func flows(into fields: inout Fields) throws(Failure) {
        if try literal("null") { return }
        guard peek == UInt8(ascii: "[") else { throw Failure("key 'flows': an array of flow ids expected") }
        index += 1
        var packed: UInt32 = 0
        var count = 0
        if !isClosed(UInt8(ascii: "]")) {
            repeat {
                skipSpace()
                guard peek == UInt8(ascii: "\"") else { throw Failure("key 'flows': an array of flow ids expected") }
                let span = try string()
                guard let flow = EventValues.flow(bytes, span) else {
                    throw Failure("key 'flows': unknown flow \(EventValues.quoted(bytes, span)); the flows are mobile, tianyi, unicom, sms")
                }
                guard count < 4 else { throw Failure("key 'flows': more than four flows") }
                packed |= UInt32(flow.index) << (8 * UInt32(count))
                count += 1
            } while try continues(UInt8(ascii: "]"), "the array")
        }
        fields.flows = packed
        fields.flowCount = count
    }

    // MARK: JSON values

    private var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    @inline(__always)
    private mutating func skipSpace() { index = JSONGrammar.endOfSpace(in: bytes, from: index) }

    /// Just past a container's opening bracket: whether it is empty (its closing bracket, consumed).
    @inline(__always)
    private mutating func isClosed(_ close: UInt8) -> Bool {
        skipSpace()
        guard peek == close else { return false }
        index += 1
        return true
    }

    /// After a container's element: whether another follows (a comma) or the container ends (`close`);
    /// either is consumed.
    /// - Parameters:
    ///   - close: The closing bracket.
    ///   - container: What is not closed, for the message ("the object", "an array").
    /// - Throws: ``Failure`` for a line that ends there, or anything else.
    @inline(__always)
    private mutating func continues(_ close: UInt8, _ container: StaticString) throws(Failure) -> Bool {
        skipSpace()
        guard let next = peek else { throw Failure("not JSON: \(container) is not closed") }
        index += 1
        if next == close { return false }
        guard next == UInt8(ascii: ",") else { throw Failure("not JSON: ',' or '\(Character(Unicode.Scalar(close)))' expected at byte \(index)") }
        return true
    }

    /// A string at `index` (its opening quote): where its text is.
    @inline(__always)
    private mutating func string() throws(Failure) -> Span {
        let start = index + 1
        do {
            let (end, escaped) = try JSONGrammar.string(in: bytes, from: start)
            index = end + 1
            return Span(start: start, count: end - start, escaped: escaped)
        } catch {
            switch error.problem {
            case .shortUnicodeEscape: throw Failure("not JSON: a \\u escape needs four hex digits at byte \(error.at + 1)")
            case .unknownEscape: throw Failure("not JSON: an unknown escape at byte \(error.at + 1)")
            case .controlCharacter: throw Failure("not JSON: a control character inside a string at byte \(error.at + 1)")
            case .unterminated: throw Failure("not JSON: a string is not closed")
            }
        }
    }

    /// Whether the literal is at `index` (consumed if so).
    private mutating func literal(_ word: StaticString) throws(Failure) -> Bool {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { return false }
        index += count
        return true
    }

    private mutating func skipValue(depth: Int) throws(Failure) {
        guard depth <= 64 else { throw Failure("values nested more than 64 deep") }
        guard let byte = peek else { throw Failure("not JSON: a value expected at the end of the line") }
        switch byte {
        case UInt8(ascii: "\""):
            _ = try string()
        case UInt8(ascii: "{"):
            index += 1
            if isClosed(UInt8(ascii: "}")) { return }
            repeat {
                skipSpace()
                guard peek == UInt8(ascii: "\"") else { throw Failure("not JSON: a member name expected at byte \(index + 1)") }
                _ = try string()
                skipSpace()
                guard peek == UInt8(ascii: ":") else { throw Failure("not JSON: ':' expected at byte \(index + 1)") }
                index += 1
                skipSpace()
                try skipValue(depth: depth + 1)
            } while try continues(UInt8(ascii: "}"), "an object")
        case UInt8(ascii: "["):
            index += 1
            if isClosed(UInt8(ascii: "]")) { return }
            repeat {
                skipSpace()
                try skipValue(depth: depth + 1)
            } while try continues(UInt8(ascii: "]"), "an array")
        case UInt8(ascii: "t"):
            guard try literal("true") else { throw Failure("not JSON: an unknown word at byte \(index + 1)") }
        case UInt8(ascii: "f"):
            guard try literal("false") else { throw Failure("not JSON: an unknown word at byte \(index + 1)") }
        case UInt8(ascii: "n"):
            guard try literal("null") else { throw Failure("not JSON: an unknown word at byte \(index + 1)") }
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            try number()
        default:
            throw Failure("not JSON: a value expected at byte \(index + 1)")
        }
    }

    /// A number as RFC 8259 writes one (``JSONGrammar/number(in:from:)``).
    private mutating func number() throws(Failure) {
        do {
            index = try JSONGrammar.number(in: bytes, from: index).end
        } catch {
            throw Failure("not JSON: a malformed number at byte \(index + 1)")
        }
    }
}

/// The event schema's enumerated values, matched on a line's bytes.
enum EventValues {
    private static func table<T>(_ pairs: [(String, T)]) -> [([UInt8], T)] { pairs.map { (Array($0.0.utf8), $0.1) } }

    static let flows = table(LoginFlow.allCases.map { ($0.rawValue, $0) })
    static let carriers = table(Carrier.allCases.map { ($0.rawValue, $0) })
    static let evidence = table(EvidenceSource.allCases.map { ($0.rawValue, $0) })
    static let actions = table(OutcomeAction.allCases.map { ($0.rawValue, $0) })
    static let conditions = table(RoutingPolicy.Condition.all.map { ($0.description, $0) })

    /// The login events `onetap stats` reads.
    enum Event: CaseIterable {
        case planned, flowStarted, result, alert, succeeded, cancelled, failed, progress, fallback
    }

    static let events = table([
        ("planned", Event.planned), ("flow-started", .flowStarted), ("result", .result), ("alert", .alert), ("succeeded", .succeeded),
        ("cancelled", .cancelled), ("failed", .failed), ("progress", .progress), ("fallback", .fallback),
    ])

    @inline(__always)
    static func match<T>(_ bytes: UnsafeBufferPointer<UInt8>, _ span: EventLineScanner.Span, in table: [([UInt8], T)]) -> T? {
        guard span.count > 0, !span.escaped else { return nil }
        for (name, value) in table where name.count == span.count {
            var same = true
            for offset in 0..<name.count where name[offset] != bytes[span.start + offset] {
                same = false
                break
            }
            if same { return value }
        }
        return nil
    }

    static func flow(_ bytes: UnsafeBufferPointer<UInt8>, _ span: EventLineScanner.Span) -> LoginFlow? { match(bytes, span, in: flows) }

    /// A string value's text, its escapes decoded (invalid UTF-8 and lone surrogates repaired).
    static func text(_ bytes: UnsafeBufferPointer<UInt8>, _ span: EventLineScanner.Span) -> String {
        guard span.count > 0 else { return "" }
        let raw = UnsafeBufferPointer(rebasing: bytes[span.start..<(span.start + span.count)])
        guard span.escaped else { return String(decoding: raw, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        _ = JSONGrammar.unescape(raw, repairing: true) { out.append($0) }
        return String(decoding: out, as: UTF8.self)
    }

    /// A value quoted for a message.
    static func quoted(_ bytes: UnsafeBufferPointer<UInt8>, _ span: EventLineScanner.Span) -> String {
        "\(QuotedInput(text(bytes, span)))"
    }
}
