import OneTap

/// `onetap carrier` and `onetap number`: one lookup per operand or per line of standard input.
///
/// The standard-input path is the CLI's hot loop: bytes go from a fixed buffer through the byte-level
/// parsers into a fixed output buffer, with no per-line allocation, so it streams at I/O speed in bounded
/// memory whatever the input size.
enum LookupCommand {
    /// Counts of a run, for the exit code and the closing error line.
    private struct Tally {
        var total = 0
        var bad = 0
    }

    static func carrier(_ options: LookupOptions, output: OutputBuffer, io: any CommandIO) throws(CommandFailure) -> ExitCode {
        let table = try TableLoader(options: options.tables).plmn()
        let suffixes = Carrier.allCases.map { carrier in
            Array(",\"carrier\":\"\(carrier.rawValue)\",\"name\":\"\(carrier.englishName)\"}\n".utf8)
        }
        func one(_ bytes: UnsafeBufferPointer<UInt8>, _ tally: inout Tally, line: Int?) {
            tally.total += 1
            let plmn: PLMN?
            let carrier: Carrier
            do {
                let parsed = try PLMN(utf8: bytes)
                plmn = parsed
                carrier = table.carrier(for: parsed)
            } catch where error.kind == .empty || error.kind == .placeholder {
                plmn = nil
                carrier = .unknown
            } catch {
                tally.bad += 1
                report(error.description, input: bytes, line: line, options: options, output: output, io: io)
                return
            }
            if options.json {
                output.raw("{\"input\":")
                output.jsonString(bytes)
                if let plmn {
                    writePLMNFields(plmn, output)
                } else {
                    output.raw(",\"mcc\":null,\"mnc\":null")
                }
                suffixes[carrierIndex(carrier)].withUnsafeBytes { output.append($0) }
            } else {
                let input = String(decoding: bytes, as: UTF8.self)
                let where_ = plmn.map { "PLMN \($0)" } ?? "no PLMN reported"
                output.line("\(input): \(carrier.englishName) (\(carrier.rawValue), \(carrier.chineseName)); \(where_)")
            }
        }
        return drive(options, output: output, io: io, one)
    }

    static func number(_ options: LookupOptions, output: OutputBuffer, io: any CommandIO) throws(CommandFailure) -> ExitCode {
        let table = try TableLoader(options: options.tables).segments()
        let kinds: [NumberSegment.Kind?] = NumberSegment.Kind.allCases + [nil]
        // The JSON after the number, per (carrier, kind), built once.
        var suffixes: [[UInt8]] = []
        for carrier in Carrier.allCases {
            for kind in kinds {
                let kindText = kind.map { "\"\($0.rawValue)\"" } ?? "null"
                suffixes.append(Array("\",\"carrier\":\"\(carrier.rawValue)\",\"name\":\"\(carrier.englishName)\",\"kind\":\(kindText)}\n".utf8))
            }
        }
        func one(_ bytes: UnsafeBufferPointer<UInt8>, _ tally: inout Tally, line: Int?) {
            tally.total += 1
            let number: PhoneNumber
            do {
                number = try PhoneNumber(utf8: bytes)
            } catch {
                tally.bad += 1
                report(error.description, input: bytes, line: line, options: options, output: output, io: io)
                return
            }
            if options.json {
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
                let kindIndex = kind.map(kindIndex) ?? kinds.count - 1
                suffixes[carrierIndex(carrier) * kinds.count + kindIndex].withUnsafeBytes { output.append($0) }
            } else {
                let segment = table.segment(for: number)
                let carrier = segment?.carrier ?? .unknown
                let input = String(decoding: bytes, as: UTF8.self)
                let detail = segment.map { "segment \($0.prefix), \($0.kind)" } ?? "unallocated segment"
                output.line("\(input): \(number) \(carrier.englishName) (\(carrier.rawValue), \(carrier.chineseName)); \(detail)")
            }
        }
        return drive(options, output: output, io: io, one)
    }

    private static func carrierIndex(_ carrier: Carrier) -> Int {
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

    private static func kindIndex(_ kind: NumberSegment.Kind) -> Int {
        switch kind {
        case .standard: 0
        case .virtual: 1
        case .data: 2
        case .satellite: 3
        }
    }

    /// Writes `,"mcc":"460","mnc":"00"` without allocating.
    private static func writePLMNFields(_ plmn: PLMN, _ output: OutputBuffer) {
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

    /// Reports one malformed input: an error record in JSON mode, an error line otherwise.
    private static func report(
        _ message: String, input: UnsafeBufferPointer<UInt8>, line: Int?, options: LookupOptions, output: OutputBuffer, io: any CommandIO
    ) {
        if options.json {
            output.raw("{\"input\":")
            output.jsonString(input)
            output.raw(",\"error\":")
            output.jsonString(message)
            output.raw("}\n")
        } else {
            output.flush()  // keep stdout and stderr in order on a terminal
            io.writeError("onetap: error: \(line.map { "line \($0): " } ?? "")\(message)")
        }
    }

    /// Runs `one` over the operands or the lines of standard input, and picks the exit code.
    private static func drive(
        _ options: LookupOptions, output: OutputBuffer, io: any CommandIO,
        _ one: (UnsafeBufferPointer<UInt8>, inout Tally, Int?) -> Void
    ) -> ExitCode {
        var tally = Tally()
        if options.readsStandardInput {
            let reader = LineReader(io: io)
            let complete = reader.forEachLine { bytes, number, cut in
                if cut {
                    tally.total += 1
                    tally.bad += 1
                    report(
                        "line \(number) is longer than \(reader.maxLineLength) bytes; it was skipped", input: UnsafeBufferPointer(rebasing: bytes[0..<64]),
                        line: number, options: options, output: output, io: io)
                    return
                }
                one(bytes, &tally, number)
            }
            if !complete {
                output.flush()
                io.writeError("onetap: error: cannot read standard input")
                return .noInput
            }
        } else {
            for input in options.inputs {
                var input = input
                input.withUTF8 { one($0, &tally, nil) }
            }
        }
        if tally.bad > 0 {
            output.flush()
            if options.json || options.readsStandardInput {
                io.writeError("onetap: error: \(tally.bad) of \(tally.total) inputs were malformed")
            }
            return .dataError
        }
        return .success
    }
}
