import OneTap
@testable import OneTapCLI
import OneTapInsights
import Testing

@Suite struct ArgumentsTests {
    @Test(arguments: [
        [] as [String], ["--help"], ["-h"], ["help"],
    ])
    func overviewHelp(arguments: [String]) throws {
        #expect(try OneTapCommandLine.parse(arguments) == .help(command: nil))
    }

    @Test(arguments: ["carrier", "number", "route", "outcome", "check", "session", "sms", "stats", "replay"])
    func helpOnEveryLevel(command: String) throws {
        #expect(try OneTapCommandLine.parse([command, "--help"]) == .help(command: command))
        #expect(try OneTapCommandLine.parse(["help", command]) == .help(command: command))
        #expect(try OneTapCommandLine.parse(["-h", command]) == .help(command: command))
    }

    @Test func version() throws {
        #expect(try OneTapCommandLine.parse(["--version"]) == .version)
        #expect(try OneTapCommandLine.parse(["carrier", "--version"]) == .version)
    }

    @Test func optionsAndOperandsInAnyOrder() throws {
        let expected = Invocation.command(CarrierCommand.self, LookupOptions(inputs: ["46000", "46001"], readsStandardInput: false, common: CommonOptions(json: true)))
        #expect(try OneTapCommandLine.parse(["carrier", "46000", "--json", "46001"]) == expected)
        #expect(try OneTapCommandLine.parse(["--json", "carrier", "46000", "46001"]) == expected)
        #expect(try OneTapCommandLine.parse(["carrier", "--json", "--", "46000", "46001"]) == expected)
    }

    @Test func spaceAndEqualsFormsAreTheSame() throws {
        let spaced = try OneTapCommandLine.parse(["route", "--plmn", "46000", "--network", "wifi"])
        let equals = try OneTapCommandLine.parse(["route", "--plmn=46000", "--network=wifi"])
        #expect(spaced == equals)
        #expect(try OneTapCommandLine.parse(["--data", "dir", "carrier", "46000"]) == OneTapCommandLine.parse(["carrier", "--data=dir", "46000"]))
    }

    @Test func negativeNumbersAreValues() throws {
        #expect(try OneTapCommandLine.parse(["outcome", "tianyi", "-8994014"])
            == .command(OutcomeCommand.self, OutcomeOptions(flow: .tianyi, code: "-8994014", common: CommonOptions(json: false))))
        #expect(try OneTapCommandLine.parse(["outcome", "--json", "tianyi", "-1"])
            == .command(OutcomeCommand.self, OutcomeOptions(flow: .tianyi, code: "-1", common: CommonOptions(json: true))))
        #expect(try OneTapCommandLine.parse(["carrier", "-46000"])
            == .command(CarrierCommand.self, LookupOptions(inputs: ["-46000"], readsStandardInput: false, common: CommonOptions(json: false))))
    }

    /// `--` ends the options, so a `--version` after it is no request for the version (it printed it); and
    /// `help`'s topic is its first operand, not an option before it.
    @Test func versionAfterTheEndOfOptionsAndHelpAfterAnOption() throws {
        #expect(try OneTapCommandLine.parse(["carrier", "--", "--version"]) != .version)
        #expect(try OneTapCommandLine.parse(["carrier", "--version"]) == .version)
        #expect(try OneTapCommandLine.parse(["--json", "help", "carrier"]) == .help(command: "carrier"))
        #expect(try OneTapCommandLine.parse(["--data", "DIR", "help", "carrier"]) == .help(command: "carrier"))
        #expect(try OneTapCommandLine.parse(["help", "--data", "DIR", "carrier"]) == .help(command: "carrier"))
        #expect(try OneTapCommandLine.parse(["help", "carrier", "--json"]) == .help(command: "carrier"))
        #expect(try OneTapCommandLine.parse(["--json", "--help"]) == .help(command: nil))
        #expect(try OneTapCommandLine.parse(["--data", "DIR", "help"]) == .help(command: nil))
        #expect(try OneTapCommandLine.parse(["--version", "help"]) == .help(command: nil))
        #expect(try OneTapCommandLine.parse(["help", "carrier", "--version"]) == .help(command: "carrier"))
    }

    @Test func standardInputOperand() throws {
        #expect(try OneTapCommandLine.parse(["number", "-", "--json"])
            == .command(NumberCommand.self, LookupOptions(inputs: [], readsStandardInput: true, common: CommonOptions(json: true))))
    }

    @Test(arguments: [
        (["frobnicate"], "unknown command 'frobnicate'"),
        // Control and format characters are escaped: ESC, C1's CSI (U+009B), a right-to-left override.
        (["\u{1B}[2J\u{9B}31m\u{202E}x"], "unknown command (an argument of 10 characters, not repeated: it may be a secret)"),
        // A token typed alone is never repeated.
        (["eyJhbGciOiJIUzI1NiJ9.secret-part"], "unknown command (an argument of 32 characters, not repeated: it may be a secret)"),
        (["carrier"], "carrier needs at least one value"),
        (["carrier", "--jsn", "46000"], "unknown option '--jsn'"),
        (["carrier", "-x", "46000"], "unknown option '-x'"),
        (["carrier", "-", "46000"], "- reads standard input and must be the only operand"),
        (["carrier", "--json=yes", "46000"], "option --json takes no value"),
        // A lookup reads no policy: --policy was taken and silently ignored.
        (["carrier", "46000", "--policy", "p.csv"], "unknown option '--policy'"),
        (["number", "13800138000", "--policy", "p.csv"], "unknown option '--policy'"),
        (["outcome", "mobile", "103000", "--policy", "p.csv"], "unknown option '--policy'"),
        (["route", "--plmn"], "option --plmn needs a value"),
        (["route", "--plmn", "46000", "--plmn", "46001"], "option --plmn is given twice"),
        (["route", "--plmn", "46000", "--mcc", "460", "--mnc", "00"], "give --plmn or --mcc with --mnc, not both"),
        (["route", "--mcc", "460"], "--mcc and --mnc come together"),
        (["route", "--no-sim", "--plmn", "46000"], "--no-sim contradicts a PLMN"),
        (["route", "--sim", "absent", "--plmn", "46000"], "--sim absent contradicts a PLMN"),
        (["route", "--sim=absent", "--mcc", "460", "--mnc", "00"], "--sim absent contradicts a PLMN"),
        (["route", "--network", "5g"], "option --network must be one of wifi, cellular, both, none, not '5g'"),
        (["route", "--mobile-data", "yes"], "option --mobile-data must be on or off, not 'yes'"),
        (["route", "--cellular-access", "denied"], "option --cellular-access must be one of allowed, restricted, unknown"),
        (["route", "-", "--plmn", "46000"], "snapshot options cannot be combined"),
        (["route", "46000"], "unexpected '46000'"),
        (["outcome", "tianyi"], "outcome takes a flow and a code"),
        (["outcome", "telecom", "0"], "unknown flow 'telecom'"),
        (["check"], "check needs at least one decision-table file"),
        (["check", "-"], "check reads files, not standard input"),
        (["help", "nothing"], "no help for unknown command 'nothing'"),
        // Options around `help` are the topic's, checked as the topic checks them; with no topic (or no command), an
        // option no command takes is no option: each was taken silently and the help printed (exit 0).
        (["--bogus", "help", "carrier"], "unknown option '--bogus'; this command takes --json"),
        (["help", "carrier", "--policy", "p.csv"], "unknown option '--policy'"),
        (["help", "route", "--plmn"], "option --plmn needs a value"),
        (["help", "carrier", "number"], "help takes one command's name, not 'number' too"),
        (["--bogus", "help"], "unknown option '--bogus'; no command takes it"),
        (["--bogus", "--help"], "unknown option '--bogus'; no command takes it"),
        (["-x", "--version"], "unknown option '-x'"),
        (["help", "-1"], "no help for unknown command (an argument of 2 characters"),
        (["--json"], "no command given"),
    ])
    func usageErrors(arguments: [String], message: String) {
        #expect {
            try OneTapCommandLine.parse(arguments)
        } throws: { error in
            (error as! UsageError).description.contains(message)
        }
    }

    @Test func usageErrorPointsAtHelp() {
        #expect(UsageError("bad", command: "route").description == "bad (see 'onetap route --help')")
        #expect(UsageError("bad").description == "bad (see 'onetap --help')")
    }

    @Test func snapshotArgumentsBuildTheSnapshot() throws {
        guard let options = try OneTapCommandLine.parse([
            "route", "--mcc", "460", "--mnc", "11", "--mobile-data", "off", "--cellular-access", "restricted",
            "--network", "cellular", "--ip", "240e:400::1", "--phone", "+86 189 0000 0000", "--sim", "present",
        ]).options(of: RouteCommand.self) else { Issue.record("not a route"); return }
        #expect(try options.snapshot.snapshot() == DeviceSnapshot(
            sim: .present, plmn: try PLMN("46011"), mobileData: false, cellularAccess: .restricted, network: .cellular,
            clientIP: try IPAddress("240e:400::1"), phoneHint: try PhoneNumber("18900000000")))
    }
}

/// The line reader's edges, in process with a small limit.
@Suite struct LineReaderTests {
    func lines(_ input: String, limit: Int, chunk: Int) -> [(String, Bool)] {
        let io = CapturedIO(input: Array(input.utf8))
        var seen: [(String, Bool)] = []
        let ending = LineReader(io: io, maxLineLength: limit, chunk: chunk).forEachLine { bytes, _, cut in
            seen.append((String(decoding: bytes, as: UTF8.self), cut))
            return true
        }
        #expect(ending == .complete)
        return seen
    }

    @Test(arguments: [1, 2, 3, 7, 64])
    func aLineOfExactlyTheLimitIsWholeWhateverTheReadSize(chunk: Int) {
        let seen = lines("12345678\n123456789\nab\r\nlast", limit: 8, chunk: chunk)
        #expect(seen.map(\.0) == ["12345678", "12345678", "ab", "last"])
        #expect(seen.map(\.1) == [false, true, false, false])
    }

    @Test func byteOrderMarkAndEmptyInput() {
        #expect(lines("\u{FEFF}a\nb", limit: 8, chunk: 2).map(\.0) == ["a", "b"])
        #expect(lines("", limit: 8, chunk: 2).isEmpty)
        #expect(lines("\u{FEFF}", limit: 8, chunk: 1).isEmpty)
    }

    /// A first line shorter than a byte-order mark is handed over before reading on: the reader waited for three
    /// bytes, so `onetap carrier -` typed into answered nothing for a one-character line until the next (an
    /// attacker's read of the CLI). Only a start that may still be a mark waits.
    @Test func aShortFirstLineIsHandedOverWithoutWaitingForMore() {
        let io = PacedIO([Array("1\n".utf8), Array("22\n".utf8)])
        var seen: [(line: String, readsBefore: Int)] = []
        let ending = LineReader(io: io, maxLineLength: 8, chunk: 64).forEachLine { bytes, _, _ in
            seen.append((String(decoding: bytes, as: UTF8.self), io.reads))
            return true
        }
        #expect(ending == .complete)
        #expect(seen.map(\.line) == ["1", "22"])
        #expect(seen.first?.readsBefore == 1, "the first line waited for \(seen.first.map { $0.readsBefore - 1 } ?? 0) more reads")
        // A mark split over reads is still skipped, and a start that only looks like one is kept.
        let split = PacedIO([[0xEF], [0xBB], [0xBF] + Array("a\n".utf8)])
        var splitLines: [String] = []
        _ = LineReader(io: split, maxLineLength: 8, chunk: 64).forEachLine { bytes, _, _ in
            splitLines.append(String(decoding: bytes, as: UTF8.self))
            return true
        }
        #expect(splitLines == ["a"])
        let almost = PacedIO([[0xEF, 0xBB], Array("\n".utf8)])
        var almostLines: [[UInt8]] = []
        _ = LineReader(io: almost, maxLineLength: 8, chunk: 64).forEachLine { bytes, _, _ in
            almostLines.append(Array(bytes))
            return true
        }
        #expect(almostLines == [[0xEF, 0xBB]])
    }

    @Test func stopsWhenAskedTo() {
        let io = CapturedIO(input: Array("a\nb\nc\n".utf8))
        var count = 0
        let ending = LineReader(io: io, maxLineLength: 8, chunk: 4).forEachLine { _, _, _ in
            count += 1
            return count < 2
        }
        #expect(ending == .stopped && count == 2)
    }

    // MARK: stats and replay

    @Test func statsOptions() throws {
        guard let options = try OneTapCommandLine.parse(["stats", "events.ndjson", "--json", "--svg", "out.svg", "--sms-price=0.045", "--top", "3", "--by", "platform,carrier"]).options(of: StatsCommand.self)
        else { Issue.record("not stats"); return }
        #expect(options.file == "events.ndjson")
        #expect(options.json)
        #expect(options.svg == "out.svg")
        #expect(options.smsPrice == 0.045)
        #expect(options.top == 3)
        #expect(options.dimensions == [.platform, .carrier])
        guard let defaults = try OneTapCommandLine.parse(["--svg", "chart.svg", "stats", "-"]).options(of: StatsCommand.self) else { Issue.record("not stats"); return }
        #expect(defaults.file == nil)
        #expect(defaults.svg == "chart.svg")
        #expect(!defaults.json && defaults.smsPrice == nil && defaults.top == 5)
        #expect(defaults.dimensions == [.carrier, .firstFlow])
    }

    @Test func replayOptions() throws {
        guard let options = try OneTapCommandLine.parse(["replay", "-", "--policy", "new.csv", "--sms-price", "0.05", "--onetap-price", "0.03", "--json"]).options(of: ReplayCommand.self)
        else { Issue.record("not replay"); return }
        #expect(options.file == nil)
        #expect(options.policy == "new.csv")
        #expect(options.smsPrice == 0.05 && options.oneTapPrice == 0.03)
        #expect(options.json && options.svg == nil)
        #expect(try OneTapCommandLine.parse(["replay", "--help"]) == .help(command: "replay"))
        #expect(try OneTapCommandLine.parse(["help", "stats"]) == .help(command: "stats"))
    }

    @Test(arguments: [
        (["stats"], "stats needs an events file, or - to read events from standard input"),
        (["stats", "a", "b"], "stats reads one events file (or -); unexpected 'b'"),
        (["stats", "-", "--top", "x"], "option --top must be a whole number from 0 to 100, not 'x'"),
        (["stats", "-", "--top", "101"], "option --top must be a whole number from 0 to 100, not '101'"),
        (["stats", "-", "--by", "carrier,os"], "option --by takes carrier, flow and platform separated by commas, not 'os'"),
        (["stats", "-", "--by", ""], "option --by takes carrier, flow and platform separated by commas, not ''"),
        (["stats", "-", "--sms-price", "-1"], "option --sms-price must be a price of 0 to 1000000 (0.05), not '-1'"),
        (["stats", "-", "--sms-price", "1e3"], "option --sms-price must be a price of 0 to 1000000 (0.05), not '1e3'"),
        (["stats", "-", "--sms-price", "nan"], "option --sms-price must be a price of 0 to 1000000 (0.05), not 'nan'"),
        // A price past any SMS's made the chart's money overflow (a trap) before the bound.
        (["stats", "-", "--sms-price", "100000000000000000"], "option --sms-price must be a price of 0 to 1000000 (0.05), not '100000000000000000'"),
        (["stats", "-", "--svg", "-"], "option --svg needs a file to write the chart to"),
        (["stats", "-", "--policy", "x.csv"], "unknown option '--policy'"),
        (["replay", "-"], "replay needs --policy FILE: the routing policy to try on the recorded logins"),
        (["replay", "--policy", "p.csv"], "replay needs an events file, or - to read events from standard input"),
        (["replay", "-", "--policy", "p.csv", "--onetap-price", "free"], "option --onetap-price must be a price of 0 to 1000000 (0.05), not 'free'"),
        (["replay", "-", "--policy", "p.csv", "--top", "3"], "unknown option '--top'"),
        (["session", "-", "--events", "--json"], "--events prints the logins' events as NDJSON already; give --json or --events, not both"),
    ])
    func insightsUsageErrors(arguments: [String], message: String) {
        #expect {
            try OneTapCommandLine.parse(arguments)
        } throws: { error in
            guard let error = error as? UsageError else { return false }
            return error.message.hasPrefix(message)
        }
    }
}

/// Standard input that arrives in the pieces given, one piece a read, counting the reads.
private final class PacedIO: CommandIO {
    private var pieces: [[UInt8]]
    /// How many reads were made.
    private(set) var reads = 0
    let clock: any WallClock = SystemClock()

    init(_ pieces: [[UInt8]]) { self.pieces = pieces }

    func writeOutput(_ bytes: UnsafeRawBufferPointer) -> Bool { true }
    func writeError(_ line: String) {}
    func environment(_ name: String) -> String? { nil }
    func readInput(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        reads += 1
        guard !pieces.isEmpty else { return 0 }
        let piece = pieces.removeFirst()
        precondition(piece.count <= buffer.count, "a piece larger than the read")
        buffer.copyBytes(from: piece)
        return piece.count
    }
}
