import OneTap

/// `onetap carrier` and `onetap number`: look values up, from operands or standard input.
package struct LookupOptions: Hashable, Sendable {
    /// The values given as operands (empty when reading standard input).
    package var inputs: [String]
    /// Whether `-` asked to read one value per line from standard input.
    package var readsStandardInput: Bool
    /// `--json` (NDJSON) and the tables.
    package var common: CommonOptions

    /// Reads the operands of `command`: values, or a single `-`.
    init(_ arguments: ParsedArguments, command: String) throws(UsageError) {
        let stdin = arguments.operands.contains("-")
        if stdin && arguments.operands.count > 1 {
            throw UsageError("- reads standard input and must be the only operand", command: command)
        }
        if arguments.operands.isEmpty {
            throw UsageError("\(command) needs at least one value, or - to read standard input", command: command)
        }
        self.init(inputs: stdin ? [] : arguments.operands, readsStandardInput: stdin, common: CommonOptions(arguments))
    }

    /// Creates lookup options.
    /// - Parameters:
    ///   - inputs: The values (empty when reading standard input).
    ///   - readsStandardInput: Whether to read one value per line from standard input.
    ///   - common: `--json` (NDJSON) and the tables.
    package init(inputs: [String], readsStandardInput: Bool, common: CommonOptions) {
        self.inputs = inputs
        self.readsStandardInput = readsStandardInput
        self.common = common
    }
}

/// `onetap carrier`: which carrier each PLMN belongs to, one lookup per operand or per line of standard input.
///
/// The standard-input path is the CLI's hot loop: bytes go from a fixed buffer through the byte-level
/// parsers into a fixed output buffer, with no per-line allocation, so it streams at I/O speed in bounded
/// memory whatever the input size. Each command's state lives in one object, so the loop holds a single
/// reference rather than retaining every captured table and buffer per line.
enum CarrierCommand: LookupCommand {
    static let name = "carrier"
    static let summary = "which carrier a PLMN (MCC+MNC) belongs to"
    static let help = """
        USAGE: onetap carrier <PLMN>... [--json]
               onetap carrier - [--json]        (one PLMN per line on standard input)

        A PLMN is written 46000, 460001, 460-00 or "460 00". MCC 460 is mainland China; any other
        valid MCC is `other` (Hong Kong 454, Macau 455, Taiwan 466, every other country); an
        unassigned 460 MNC, the iOS placeholder 65535, -- and an empty value are `unknown`.

        JSON fields: input, mcc, mnc, carrier, name (English). A malformed value prints
        {"input":…,"error":…} and processing continues; the exit status is then 65.

        EXAMPLE: onetap carrier 46000 460-11 45412 --json
        """
    /// Prints each PLMN's carrier.
    /// - Returns: 0, or 65 when an input was malformed (its error is printed and the rest go on).
    static func run(_ options: LookupOptions, output: OutputBuffer, io: any CommandIO) throws(CommandFailure) -> ExitCode {
        let lookup = CarrierLookup(table: try TableLoader(options: options.common.tables).table(PLMNTable.builtIn), json: options.common.json, output: output, io: io)
        return lookup.run(options)
    }
}

/// `onetap number`: which carrier first issued each number, as ``CarrierCommand`` reads its inputs.
enum NumberCommand: LookupCommand {
    static let name = "number"
    static let summary = "which carrier first issued a mainland mobile number"
    static let help = """
        USAGE: onetap number <phone>... [--json]
               onetap number - [--json]         (one number per line on standard input)

        Accepts 13800138000, "+86 138 0013 8000", 0086-138-0013-8000, "86 13800138000". The segment
        (号段) names the carrier that first issued the number; since number portability (携号转网,
        2019) the SIM's PLMN is the better evidence whenever it is known.

        JSON fields: input, number, carrier, name, kind (standard, virtual, data, satellite, iot;
        null for an unallocated segment). A malformed value prints {"input":…,"error":…}; exit 65.
        """
    /// Prints each number's segment and carrier.
    /// - Returns: 0, or 65 when an input was malformed (its error is printed and the rest go on).
    static func run(_ options: LookupOptions, output: OutputBuffer, io: any CommandIO) throws(CommandFailure) -> ExitCode {
        let lookup = NumberLookup(table: try TableLoader(options: options.common.tables).table(NumberSegmentTable.builtIn), json: options.common.json, output: output, io: io)
        return lookup.run(options)
    }
}

/// The two lookup commands (`carrier`, `number`): their options and how they are read.
protocol LookupCommand: CommandDescription where Options == LookupOptions {}

extension LookupCommand {
    /// `--json` and `--data` (a lookup reads one table and no policy: `--policy` was taken and ignored).
    static var options: [OptionSpec] { [.flag("json"), .value("data")] }

    /// Reads the operands (or `-`) and the lookup options.
    static func parse(_ arguments: ParsedArguments) throws(UsageError) -> LookupOptions {
        try LookupOptions(arguments, command: name)
    }
}

/// What the two lookups share: counting, error reporting, and driving operands or standard input.
class Lookup {
    let json: Bool
    let output: OutputBuffer
    let io: any CommandIO
    /// Inputs seen and inputs refused.
    var total = 0
    var bad = 0

    init(json: Bool, output: OutputBuffer, io: any CommandIO) {
        self.json = json
        self.output = output
        self.io = io
    }

    /// Looks one input up and writes its record.
    func one(_ bytes: UnsafeBufferPointer<UInt8>, line: Int?) {}

    /// Reports one malformed input: an error record in JSON mode, an error line otherwise.
    final func report(_ message: String, input: UnsafeBufferPointer<UInt8>, line: Int?) {
        bad += 1
        if json {
            output.refusal(input: input, error: message)
        } else {
            output.flush()  // keep stdout and stderr in order on a terminal
            io.writeError("onetap: error: \(line.map { "line \($0): " } ?? "")\(message)")
        }
    }

    /// Runs ``one(_:line:)`` over the operands or the lines of standard input, and picks the exit code.
    final func run(_ options: LookupOptions) -> ExitCode {
        if options.readsStandardInput {
            let reader = LineReader(io: io)
            let ending = reader.forEachLine { bytes, number, cut in
                if cut {
                    total += 1
                    report(
                        "line \(number) is longer than \(reader.maxLineLength) bytes; it was skipped",
                        input: UnsafeBufferPointer(rebasing: bytes[0..<64]), line: number)
                } else {
                    one(bytes, line: number)
                }
                return !output.failed  // a closed output pipe: stop reading at once
            }
            if let failure = ending.failure(output: output, io: io) { return failure }
        } else {
            for input in options.inputs {
                var input = input
                input.withUTF8 { one($0, line: nil) }
            }
        }
        if bad > 0 {
            output.flush()
            if json || options.readsStandardInput {
                io.writeError("onetap: error: \(bad) of \(total) inputs were malformed")
            }
            return .dataError
        }
        return .success
    }

    static func carrierIndex(_ carrier: Carrier) -> Int {
        switch carrier {
        case .mobile: 0
        case .unicom: 1
        case .telecom: 2
        case .tietong: 3
        case .broadnet: 4
        case .other: 5
        case .unknown: 6
        }
    }
}

/// `onetap carrier`.
final class CarrierLookup: Lookup {
    private let table: PLMNTable
    /// `,"carrier":"…","name":"…"}\n` per carrier.
    private let suffixes: Fragments

    init(table: PLMNTable, json: Bool, output: OutputBuffer, io: any CommandIO) {
        self.table = table
        suffixes = Fragments(Carrier.allCases.map { ",\"carrier\":\"\($0.rawValue)\",\"name\":\"\($0.englishName)\"}\n" })
        super.init(json: json, output: output, io: io)
    }

    deinit { suffixes.deallocate() }

    override func one(_ bytes: UnsafeBufferPointer<UInt8>, line: Int?) {
        total += 1
        let plmn: PLMN?
        let carrier: Carrier
        if let parsed = PLMN(parsing: bytes) {
            plmn = parsed
            carrier = table.carrier(for: parsed)
        } else {
            do {
                plmn = try PLMN(utf8: bytes)
                carrier = table.carrier(for: plmn!)
            } catch where error.kind == .empty || error.kind == .placeholder {
                plmn = nil
                carrier = .unknown
            } catch {
                report(error.description, input: bytes, line: line)
                return
            }
        }
        if json {
            output.raw("{\"input\":")
            output.jsonString(bytes)
            if let plmn {
                writePLMNFields(plmn)
            } else {
                output.raw(",\"mcc\":null,\"mnc\":null")
            }
            output.append(suffixes[Self.carrierIndex(carrier)])
        } else {
            let input = String(decoding: bytes, as: UTF8.self)
            let where_ = plmn.map { "PLMN \($0)" } ?? "no PLMN reported"
            output.line("\(input): \(carrier.englishName) (\(carrier.rawValue), \(carrier.chineseName)); \(where_)")
        }
    }

    /// Writes `,"mcc":"460","mnc":"00"` without allocating.
    private func writePLMNFields(_ plmn: PLMN) {
        let target = output.reserve(32)
        var count = 0
        func put(_ byte: UInt8) {
            target[count] = byte
            count += 1
        }
        for byte in ",\"mcc\":\"".utf8 { put(byte) }
        let mcc = Int(plmn.mccCode)
        put(UInt8(mcc / 100) + 48); put(UInt8(mcc / 10 % 10) + 48); put(UInt8(mcc % 10) + 48)
        for byte in "\",\"mnc\":\"".utf8 { put(byte) }
        let mnc = Int(plmn.mncCode)
        if plmn.mncLength == 3 { put(UInt8(mnc / 100) + 48) }
        put(UInt8(mnc / 10 % 10) + 48); put(UInt8(mnc % 10) + 48)
        put(UInt8(ascii: "\""))
        output.commit(count)
    }
}

/// `onetap number`.
final class NumberLookup: Lookup {
    private let table: NumberSegmentTable
    /// The JSON after the number, per (carrier, kind or none).
    private let suffixes: Fragments
    private static let kinds: [NumberSegment.Kind?] = NumberSegment.Kind.allCases + [nil]

    init(table: NumberSegmentTable, json: Bool, output: OutputBuffer, io: any CommandIO) {
        self.table = table
        var texts: [String] = []
        for carrier in Carrier.allCases {
            for kind in Self.kinds {
                let kindText = kind.map { "\"\($0.rawValue)\"" } ?? "null"
                texts.append("\",\"carrier\":\"\(carrier.rawValue)\",\"name\":\"\(carrier.englishName)\",\"kind\":\(kindText)}\n")
            }
        }
        suffixes = Fragments(texts)
        super.init(json: json, output: output, io: io)
    }

    deinit { suffixes.deallocate() }

    private static func kindIndex(_ kind: NumberSegment.Kind?) -> Int {
        switch kind {
        // The order of `kinds`: the cases as declared, then nil.
        case .standard?: 0
        case .virtual?: 1
        case .data?: 2
        case .iot?: 3
        case .satellite?: 4
        case nil: 5
        }
    }

    override func one(_ bytes: UnsafeBufferPointer<UInt8>, line: Int?) {
        total += 1
        let number: PhoneNumber
        if let parsed = PhoneNumber(parsing: bytes) {
            number = parsed
        } else {
            do {
                number = try PhoneNumber(utf8: bytes)
            } catch {
                report(error.description, input: bytes, line: line)
                return
            }
        }
        if json {
            let (carrier, kind) = table.match(number)
            output.raw("{\"input\":")
            output.jsonString(bytes)
            output.raw(",\"number\":\"")
            let target = output.reserve(11)
            var value = number.value
            for position in stride(from: 10, through: 0, by: -1) {
                target[position] = UInt8(truncatingIfNeeded: value % 10) &+ 48
                value /= 10
            }
            output.commit(11)
            output.append(suffixes[Self.carrierIndex(carrier) * Self.kinds.count + Self.kindIndex(kind)])
        } else {
            let input = String(decoding: bytes, as: UTF8.self)
            let segment = table.segment(for: number)
            let carrier = segment?.carrier ?? .unknown
            let detail = segment.map { "segment \($0.prefix), \($0.kind)" } ?? "unallocated segment"
            output.line("\(input): \(number) \(carrier.englishName) (\(carrier.rawValue), \(carrier.chineseName)); \(detail)")
        }
    }
}

/// Precomputed output fragments in one flat buffer, so the hot loop appends them without touching an
/// array of arrays (whose element copies retain and release).
struct Fragments {
    private let storage: UnsafeMutableRawBufferPointer
    private let offsets: [Int]

    init(_ texts: [String]) {
        let bytes = texts.flatMap { Array($0.utf8) }
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, bytes.count), alignment: 1)
        bytes.withUnsafeBytes { storage.copyMemory(from: $0) }
        self.storage = storage
        var offsets = [0]
        for text in texts { offsets.append(offsets.last! + text.utf8.count) }
        self.offsets = offsets
    }

    func deallocate() { storage.deallocate() }

    @inline(__always)
    subscript(_ index: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: storage[offsets[index]..<offsets[index + 1]])
    }
}
