import Foundation
import OneTap
@testable import OneTapCLI
import Testing

/// The command registry walked: every command is described once, and what is derived from the list (the
/// overview, `help <command>`, `--help`, dispatch, the options before a command's name) holds for each.
@Suite struct CommandRegistryTests {
    static let names = CommandRegistry.all.map { $0.name }

    @Test func everyCommandOnceInTheOverviewsOrder() {
        #expect(Self.names == [
            "carrier", "number", "route", "outcome", "simulate", "check", "session", "sms", "quota", "gate", "merge", "token", "credential", "stats", "replay", "db",
            "gateway",
        ])
        #expect(Set(Self.names).count == Self.names.count)
    }

    @Test(arguments: names)
    func everyCommandHasASummaryAndHelpAndIsListedOnce(name: String) async throws {
        let command = try #require(CommandRegistry.command(named: name))
        #expect(!command.summary.isEmpty && !command.summary.contains("\n"))
        #expect(command.help.hasPrefix("USAGE: onetap \(name)"))
        let (code, io) = await runInProcess(["--help"])
        #expect(code == .success)
        let listed = io.outputText.split(separator: "\n").filter { $0.hasPrefix("  \(name) ") }
        #expect(listed.count == 1, "\(listed)")
        #expect(listed.first?.hasSuffix(" " + command.summary) == true, "\(listed)")
    }

    @Test(arguments: names)
    func helpOnEveryLevelPrintsTheSameText(name: String) async throws {
        let command = try #require(CommandRegistry.command(named: name))
        let (topicCode, topic) = await runInProcess(["help", name])
        #expect(topicCode == .success && topic.errors.isEmpty)
        #expect(topic.outputText == command.help + "\n")
        for arguments in [[name, "--help"], [name, "-h"], ["--help", name]] {
            let (code, io) = await runInProcess(arguments)
            #expect(code == .success && io.errors.isEmpty, "\(arguments)")
            #expect(io.outputText == topic.outputText, "\(arguments)")
        }
    }

    @Test(arguments: names)
    func anUnknownOptionIsAUsageErrorNamingIt(name: String) async throws {
        let command = try #require(CommandRegistry.command(named: name))
        let expected = "onetap: error: unknown option '--no-such-option'; this command takes "
            + command.options.map { "--" + $0.name }.joined(separator: ", ") + " (see 'onetap \(name) --help')"
        for arguments in [[name, "--no-such-option"], ["--no-such-option", name]] {
            let (code, io) = await runInProcess(arguments)
            #expect(code == .usage, "\(arguments)")
            #expect(io.output.isEmpty)
            #expect(io.errors == [expected])
        }
    }

    /// The options of every command may stand before its name, values and all.
    @Test(arguments: names)
    func everyOptionMayComeBeforeTheCommand(name: String) throws {
        let command = try #require(CommandRegistry.command(named: name))
        for option in command.options {
            let arguments = option.takesValue ? ["--" + option.name, "value", name, "--help"] : ["--" + option.name, name, "--help"]
            #expect(try OneTapCommandLine.parse(arguments) == .help(command: name), "\(arguments)")
        }
    }

    @Test func anUnknownCommandNamesTheCommands() async {
        let (code, io) = await runInProcess(["frobnicate"])
        #expect(code == .usage)
        #expect(io.errors == ["onetap: error: unknown command 'frobnicate'; the commands are \(Self.names.joined(separator: ", ")) (see 'onetap --help')"])
    }

    /// The overview says which commands take the shared options, from the registry.
    @Test func theOverviewNamesTheCommandsOfEachSharedOption() async {
        let (_, io) = await runInProcess(["--help"])
        let lines = io.outputText.split(separator: "\n")
        let words = lines.flatMap { $0.split(separator: " ") }.joined(separator: " ")
        #expect(words.contains("--json print one JSON object per result per line (NDJSON) (every command) --data DIR"))
        #expect(words.contains("stays built in (every command but merge, token, credential, stats, replay, db and gateway) --policy FILE"))
        // The lookups (carrier, number) and outcome read no policy and refuse --policy.
        #expect(words.contains("(route, simulate, check, session, sms, quota and replay) -h, --help"))
        for table in TableLoader.replaceable {
            #expect(words.contains(table.fileName))
        }
        for line in lines {
            #expect(line.count <= 96, "\(line)")
        }
    }
}

/// `--data DIR`: each table is read from the directory under its `Data/` name, the one its type holds.
@Suite struct TableLoaderTests {
    /// A command that reads each replaceable table.
    static let readers: [(file: String, arguments: [String], stdin: String)] = [
        ("plmn.csv", ["carrier", "46000"], ""),
        ("number-segments.csv", ["number", "13800138000"], ""),
        ("ipv6-prefixes.csv", ["route", "--plmn", "46000"], ""),
        ("result-codes.csv", ["outcome", "mobile", "103000"], ""),
        ("routing-policy.csv", ["route", "--plmn", "46000"], ""),
        ("sms-policy.csv", ["sms", "-"], #"{"at":"2026-12-01T10:00:00Z","number":"13800138000"}"# + "\n"),
        ("login-quotas.csv", ["quota", "-"], #"{"at":"2026-12-01T10:00:00Z","counts":"starts"}"# + "\n"),
        ("login-gate.csv", ["gate", "favourite"], ""),
    ]

    @Test func everyReplaceableTableHasACommandThatReadsIt() {
        #expect(Set(Self.readers.map { $0.file }) == Set(TableLoader.replaceable.map { $0.fileName }))
    }

    @Test(arguments: readers.indices)
    func aMalformedTableInTheDirectoryIsReadAndRefused(index: Int) async throws {
        let (file, arguments, stdin) = Self.readers[index]
        let directory = try Package.temporaryDirectory()
        defer { removeTemporary(directory) }
        let (builtIn, _) = await runInProcess(arguments + ["--data", directory.path], stdin: Array(stdin.utf8))
        #expect(builtIn == .success, "an empty directory keeps the built-in tables")
        try "no,such,header\n1,2,3\n".write(to: directory.appendingPathComponent(file), atomically: true, encoding: .utf8)
        let (code, io) = await runInProcess(arguments + ["--data", directory.path], stdin: Array(stdin.utf8))
        #expect(code == .dataError, "\(io.errors)")
        #expect(io.errors.contains { $0.contains(directory.appendingPathComponent(file).path) }, "\(io.errors)")
    }

    /// Every file a command's help names as an example is in the repository, and `number`'s help names every kind
    /// `Data/number-segments.csv` holds (an attacker's read of the CLI found a missing transcript and `iot` unnamed).
    @Test func theHelpTextsExamplesAndKindsAreTrue() throws {
        for command in CommandRegistry.all {
            for word in command.help.split(whereSeparator: { $0 == " " || $0 == "\n" }) where word.hasPrefix("Tests/") {
                #expect(FileManager.default.fileExists(atPath: Package.path(String(word))), "\(command.name): \(word)")
            }
        }
        let kinds = Set(try String(contentsOfFile: Package.path("Data/number-segments.csv"), encoding: .utf8)
            .split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.hasPrefix("prefix,") }.map { $0.split(separator: ",")[2] })
        let help = try #require(CommandRegistry.command(named: "number")?.help)
        for kind in kinds { #expect(help.contains(kind), "\(kind)") }
    }
}
