import Foundation
import OneTapChildProcess
import OneTapTesting
import Testing

/// Runs the built `onetap` binary and checks stdout, stderr and the exit status.
@Suite struct EndToEndTests {
    /// An attacker's read of the CLI: a secret typed where a command's name or a file belongs was repeated on standard
    /// error: `help` quoted its topic whole, and an error while a command ran (a file that cannot be read) was not
    /// redacted as a usage error is, so a connection URL given as the file showed its password.
    @Test func aSecretWhereANameOrAFileBelongsIsNotRepeated() async throws {
        let help = try await Binary.run(["help", "ota2.SECRET-TOKEN-1"])
        #expect(help.status == 64 && !help.stderr.contains("SECRET-TOKEN-1"), "\(help.stderr)")
        let stats = try await Binary.run(["stats", "postgresql://api:hunter2@db.example/onetap"])
        #expect(stats.status == 66, "\(stats.stderr)")
        #expect(!stats.stderr.contains("hunter2") && stats.stderr.contains("cannot read"), "\(stats.stderr)")
    }

    /// An option `help` does not know was taken silently: `onetap --bogus help carrier` printed the help and exited 0.
    @Test func anUnknownOptionAroundHelpIsAUsageError() async throws {
        let help = try await Binary.run(["--bogus", "help", "carrier"])
        #expect(help.status == 64 && help.stdout.isEmpty, "\(help.status) \(help.stdout)")
        #expect(help.stderr == "onetap: error: unknown option '--bogus'; this command takes --json, --data (see 'onetap carrier --help')\n", "\(help.stderr)")
        let known = try await Binary.run(["--json", "help", "carrier"])
        #expect(known.status == 0 && known.stdout.hasPrefix("USAGE") && known.stderr.isEmpty, "\(known.status) \(known.stderr)")
    }

    /// An attacker's read of the CLI: a flag given twice was taken silently (a value option given twice is refused).
    @Test func aFlagGivenTwiceIsAUsageError() async throws {
        let run = try await Binary.run(["carrier", "46000", "--json", "--json"])
        #expect(run.status == 64 && run.stdout.isEmpty)
        #expect(run.stderr.contains("option --json is given twice"), "\(run.stderr)")
    }

    @Test func carrierJSON() async throws {
        let run = try await Binary.run(["carrier", "46000", "460-11", "45412", "65535", "--json"])
        #expect(run.status == 0)
        #expect(run.stderr == "")
        #expect(run.lines == [
            #"{"input":"46000","mcc":"460","mnc":"00","carrier":"mobile","name":"China Mobile"}"#,
            #"{"input":"460-11","mcc":"460","mnc":"11","carrier":"telecom","name":"China Telecom"}"#,
            #"{"input":"45412","mcc":"454","mnc":"12","carrier":"other","name":"Other"}"#,
            #"{"input":"65535","mcc":null,"mnc":null,"carrier":"unknown","name":"Unknown"}"#,
        ])
    }

    @Test func carrierText() async throws {
        let run = try await Binary.run(["carrier", "46000"])
        #expect(run.status == 0)
        #expect(run.stdout == "46000: China Mobile (mobile, 中国移动); PLMN 460-00\n")
    }

    @Test func carrierBadOperandIsExit65WithOneErrorLine() async throws {
        let run = try await Binary.run(["carrier", "4600a"])
        #expect(run.status == 65)
        #expect(run.stdout == "")
        #expect(run.stderr == "onetap: error: invalid PLMN \"4600a\": 'a' at position 5 is not allowed\n")
    }

    @Test func carrierStdinKeepsGoingPastBadLines() async throws {
        let input = Array("46000\r\nabc\n\n46001\n４６０００\n460 11".utf8)
        let run = try await Binary.run(["carrier", "-", "--json"], stdin: input)
        #expect(run.status == 65)
        #expect(run.lines == [
            #"{"input":"46000","mcc":"460","mnc":"00","carrier":"mobile","name":"China Mobile"}"#,
            #"{"input":"abc","error":"invalid PLMN \"abc\": 'a' at position 1 is not allowed"}"#,
            #"{"input":"","mcc":null,"mnc":null,"carrier":"unknown","name":"Unknown"}"#,
            #"{"input":"46001","mcc":"460","mnc":"01","carrier":"unicom","name":"China Unicom"}"#,
            #"{"input":"４６０００","error":"invalid PLMN \"４６０００\": U+FF14 '４' at position 1 is not an ASCII digit (only 0-9 count)"}"#,
            #"{"input":"460 11","mcc":"460","mnc":"11","carrier":"telecom","name":"China Telecom"}"#,
        ])
        #expect(run.stderr == "onetap: error: 2 of 6 inputs were malformed\n")
    }

    @Test func invalidUTF8OnStdinBecomesAnErrorRecordInValidJSON() async throws {
        let run = try await Binary.run(["carrier", "-", "--json"], stdin: [0x34, 0x36, 0xFF, 0x30, 0x30, 0x0A, 0x22, 0x5C, 0x01, 0x0A])
        #expect(run.status == 65)
        #expect(String(validating: run.stdoutBytes, as: UTF8.self) != nil)
        #expect(run.lines.count == 2)
        for line in run.lines {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object?["error"] is String)
        }
        #expect(run.lines[0].hasPrefix(#"{"input":"46\#u{FFFD}00","error":"#))
        #expect(run.lines[1].hasPrefix(#"{"input":"\"\\\u0001","error":"#))
    }

    @Test func numberJSON() async throws {
        let run = try await Binary.run(["number", "+86 138 0013 8000", "17031234567", "15412345678", "--json"])
        #expect(run.status == 0)
        #expect(run.lines == [
            #"{"input":"+86 138 0013 8000","number":"13800138000","carrier":"mobile","name":"China Mobile","kind":"standard"}"#,
            #"{"input":"17031234567","number":"17031234567","carrier":"mobile","name":"China Mobile","kind":"virtual"}"#,
            #"{"input":"15412345678","number":"15412345678","carrier":"unknown","name":"Unknown","kind":null}"#,
        ])
    }

    @Test func numberErrors() async throws {
        let run = try await Binary.run(["number", "12345", "--json"])
        #expect(run.status == 65)
        #expect(run.lines == [#"{"input":"12345","error":"invalid phone number \"12345\": 5 digits after any country prefix; a mainland mobile number has 11"}"#])
        #expect(run.stderr == "onetap: error: 1 of 1 inputs were malformed\n")
    }

    @Test func routeJSON() async throws {
        let run = try await Binary.run(["route", "--plmn", "46000", "--network", "wifi", "--json"])
        #expect(run.status == 0)
        #expect(run.stdout == #"{"carrier":"mobile","evidence":"plmn","flows":["mobile","sms"],"reason":"policy","condition":"carrier:mobile"}"# + "\n")
        let noSIM = try await Binary.run(["route", "--no-sim", "--json"])
        #expect(noSIM.stdout == #"{"carrier":"unknown","evidence":"none","flows":["sms"],"reason":"no-sim","condition":"sim-absent"}"# + "\n")
    }

    @Test func routeStdinNDJSON() async throws {
        let input = Array("""
            {"sim":"present","plmn":"46011","network":"both"}
            {"network":"wifi","mobileData":"off","plmn":"46000"}
            {"plmn":"4600a"}
            not json
            {"network":"cellular","ip":"240e:400::9"}

            """.utf8)
        let run = try await Binary.run(["route", "-", "--json"], stdin: input)
        #expect(run.status == 65)
        #expect(run.lines.count == 5)
        // Every record starts with the line it answers, as `carrier -` and `number -` records do.
        #expect(run.lines[0] == #"{"input":"{\"sim\":\"present\",\"plmn\":\"46011\",\"network\":\"both\"}","carrier":"telecom","evidence":"plmn","flows":["tianyi","sms"],"reason":"policy","condition":"carrier:telecom"}"#)
        #expect(run.lines[1] == #"{"input":"{\"network\":\"wifi\",\"mobileData\":\"off\",\"plmn\":\"46000\"}","carrier":"mobile","evidence":"plmn","flows":["sms"],"reason":"mobile-data-off","condition":"mobile-data-off"}"#)
        #expect(run.lines[2] == #"{"input":"{\"plmn\":\"4600a\"}","error":"line 3: key 'plmn': invalid PLMN \"4600a\": 'a' at position 5 is not allowed"}"#)
        #expect(run.lines[3].hasPrefix(#"{"input":"not json","error":"line 4: not a JSON object: "#))
        #expect(run.lines[4] == #"{"input":"{\"network\":\"cellular\",\"ip\":\"240e:400::9\"}","carrier":"telecom","evidence":"ipv6","flows":["tianyi","sms"],"reason":"policy","condition":"carrier:telecom"}"#)
        #expect(run.stderr == "onetap: error: 2 of 5 snapshots were malformed\n")
    }

    @Test func routeBadValueIsExit65() async throws {
        let run = try await Binary.run(["route", "--plmn", "46x00"])
        #expect(run.status == 65)
        #expect(run.stderr == "onetap: error: invalid PLMN \"46x00\": 'x' at position 3 is not allowed\n")
    }

    @Test func outcomeNegativeCode() async throws {
        let run = try await Binary.run(["outcome", "tianyi", "-8994014", "--json"])
        #expect(run.status == 0)
        #expect(run.stdout.hasPrefix(#"{"flow":"tianyi","code":"-8994014","action":"fallback","meaning":"#))
        #expect(run.stdout.hasSuffix(#","default":false}"# + "\n"))
        let unknown = try await Binary.run(["outcome", "tianyi", "424242", "--json"])
        #expect(unknown.stdout.contains(#""action":"failed""#) && unknown.stdout.contains(#""default":true"#))
        // Codes are the SDK's text: China Mobile's legacy "000" is listed, "0" is not.
        let legacy = try await Binary.run(["outcome", "mobile", "000", "--json"])
        #expect(legacy.stdout.hasPrefix(#"{"flow":"mobile","code":"000","action":"success""#))
        let zero = try await Binary.run(["outcome", "mobile", "0", "--json"])
        #expect(zero.stdout.hasPrefix(#"{"flow":"mobile","code":"0","action":"fallback""#) && zero.stdout.contains(#""default":true"#))
        let progress = try await Binary.run(["outcome", "mobile", "200087"])
        #expect(progress.stdout.hasPrefix("mobile 200087: progress\n"))
        #expect(progress.stdout.contains("next:     not a result yet: keep waiting for this attempt's result"))
    }

    @Test(arguments: [
        (["bogus"], "onetap: error: unknown command 'bogus'"),
        (["carrier", "--nope", "46000"], "onetap: error: unknown option '--nope'"),
        (["route", "--network", "lte"], "onetap: error: option --network must be one of"),
    ])
    func usageErrorsAreExit64WithOneLine(arguments: [String], prefix: String) async throws {
        let run = try await Binary.run(arguments)
        #expect(run.status == 64)
        #expect(run.stdout == "")
        #expect(run.stderr.hasPrefix(prefix))
        #expect(run.stderr.filter { $0 == "\n" }.count == 1)
    }

    @Test func helpAndVersion() async throws {
        let help = try await Binary.run(["--help"])
        #expect(help.status == 0 && help.stdout.contains("USAGE: onetap <command>"))
        let carrierHelp = try await Binary.run(["carrier", "--help"])
        #expect(carrierHelp.status == 0 && carrierHelp.stdout.hasPrefix("USAGE: onetap carrier"))
        let version = try await Binary.run(["--version"])
        #expect(version.stdout == "onetap 0.1.0\n")
    }

    @Test func missingDataDirectoryIsExit66() async throws {
        let run = try await Binary.run(["carrier", "46000", "--data", "/nonexistent/dir"])
        #expect(run.status == 66)
        #expect(run.stderr.hasPrefix("onetap: error: cannot read the --data directory '/nonexistent/dir'"))
    }

    @Test func malformedReplacementTableIsExit65NamingFileAndLine() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("onetap-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { removeTemporary(directory) }
        try "mcc,mnc,carrier,note,source\n460,00,mobile,n,s\n460,01,unicorn,n,s\n".write(
            to: directory.appendingPathComponent("plmn.csv"), atomically: true, encoding: .utf8)
        let run = try await Binary.run(["carrier", "46001", "--data", directory.path])
        #expect(run.status == 65)
        #expect(run.stderr == "onetap: error: \(directory.path)/plmn.csv:3: column 'carrier': unknown carrier \"unicorn\"; expected one of mobile, unicom, telecom, tietong, broadnet\n")
    }

    /// A `--data` entry that cannot be resolved (a dangling link, a failed generator's) is no absent table: the
    /// built-in one stood in silently and the run passed against it (an attacker's read). It fails 66, naming it.
    @Test func aReplacementTheDirectoryHoldsButCannotBeReadIsExit66() async throws {
        try await TemporaryDirectory.with("onetap-e2e-dangling") { directory in
            try FileManager.default.createSymbolicLink(
                atPath: directory.appendingPathComponent("plmn.csv").path, withDestinationPath: directory.appendingPathComponent("gen/plmn.csv").path)
            let run = try await Binary.run(["carrier", "46000", "--data", directory.path])
            #expect(run.status == 66, "\(run.stdout)")
            #expect(run.stdout.isEmpty)
            #expect(run.stderr.hasPrefix("onetap: error: \(directory.path)/plmn.csv: cannot read the file"), "\(run.stderr)")
        }
    }

    /// A replacement lookup table with no rows (only its header) would make every PLMN unknown, every number not a
    /// mainland one, every prefix no carrier's, with no word about the table (an attacker's read): refused, 65.
    @Test(arguments: [
        ("plmn.csv", "mcc,mnc,carrier,note,source\n", ["carrier", "46000"]),
        ("number-segments.csv", "prefix,carrier,kind,note,source\n", ["number", "13800138000"]),
        ("ipv6-prefixes.csv", "prefix,carrier,pool,note,source\n", ["route", "--ip", "2409:8000::1"]),
    ])
    func anEmptyReplacementLookupTableIsExit65(file: String, header: String, arguments: [String]) async throws {
        try await TemporaryDirectory.with("onetap-e2e-empty") { directory in
            try header.write(to: directory.appendingPathComponent(file), atomically: true, encoding: .utf8)
            let run = try await Binary.run(arguments + ["--data", directory.path])
            #expect(run.status == 65, "\(run.stdout)")
            #expect(run.stderr.hasPrefix("onetap: error: \(directory.path)/\(file)"), "\(run.stderr)")
            #expect(run.stderr.contains("no rows"), "\(run.stderr)")
        }
    }

    @Test func closedStdoutStopsAnEndlessStreamWithAnIOError() async throws {
        // `yes 46000 | onetap carrier - --json | head -c 10`: the reader goes away; onetap must stop reading
        // at once and exit 74, not run forever or die of SIGPIPE. An onetap that ran on would be killed by
        // `timeout` (exit 137) after 90 s: a bound on a hang, not a speed check, so a loaded machine cannot fail it.
        let command = "(yes 46000 | timeout -s KILL 90 '\(Binary.url.path)' carrier - --json; echo \"status $?\" >&2) | head -c 10 > /dev/null"
        let shell = try await ChildProcess.run("/bin/sh", ["-c", command])
        let text = String(decoding: shell.errors, as: UTF8.self)
        #expect(text.contains("onetap: error: cannot write to standard output"))
        #expect(text.contains("status 74"))
    }

    /// A standard error that is closed, or a pipe whose reader went away, loses the message but never the exit
    /// status: onetap exits 65 for a malformed input, 74 for an output it cannot write, and never dies of the
    /// failed write (an attacker's read: Foundation's `FileHandle.write` trapped, exit 132).
    @Test func aClosedOrBrokenStandardErrorLosesTheMessageNotTheStatus() async throws {
        let onetap = "'\(Binary.url.path)'"
        let closed = try await ChildProcess.run("/bin/sh", ["-c", "\(onetap) carrier bogus 2>&-; echo \"status $?\""])
        #expect(String(decoding: closed.output, as: UTF8.self) == "status 65\n")
        // Both streams into a pipe read for 10 bytes: stdout's write fails (74), then the message on stderr fails too.
        let broken = "(yes 46000 | timeout -s KILL 90 \(onetap) carrier - --json 2>&1; echo \"status $?\" > \"$0\") | head -c 10 > /dev/null"
        try await TemporaryDirectory.with("onetap-status") { directory in
            let status = directory.appendingPathComponent("status")
            _ = try await ChildProcess.run("/bin/sh", ["-c", broken, status.path])
            #expect(try String(contentsOf: status, encoding: .utf8) == "status 74\n")
        }
        // The tools onetap runs, too: a usage error (64) whose message meets a pipe nobody reads any more (the reader
        // is gone 0.3 s before the write) is still 64, not a death by SIGPIPE (141).
        for tool in ["onetap-db", "onetap-gateway"] {
            let script = #"exec 3>&1; { sleep 0.3; "$0" --bogus 2>&1 >/dev/null; echo "status $?" >&3; } | true"#
            let run = try await ChildProcess.run("/bin/sh", ["-c", script, BuildProducts.path(tool)])
            #expect(String(decoding: run.output, as: UTF8.self) == "status 64\n", "\(tool)")
        }
    }

}

/// `onetap simulate` and `onetap token`, end to end.
@Suite struct SimulateAndTokenEndToEndTests {
    /// A replacement result-code table under which a simulation cannot fail SMS (its code 1 is a success, or
    /// keeps the login waiting) stops the simulation with exit 65 and says why (an attacker's read: the first
    /// trapped, exit 132, and the second never ended). Code 1 is listed (a flow's default can be neither since).
    @Test(arguments: ["success", "progress"])
    func tablesASimulationCannotRunOnAreAnErrorNotATrapOrAHang(smsDefault: String) async throws {
        let table = try String(contentsOfFile: Package.path("Data/result-codes.csv"), encoding: .utf8)
        let replaced = table.replacingOccurrences(of: "sms,*,failed,", with: "sms,1,\(smsDefault),一,code one,test\nsms,*,failed,")
        #expect(replaced != table)
        let run = try await TemporaryDirectory.with("onetap-sim") { directory in
            try replaced.write(to: directory.appendingPathComponent("result-codes.csv"), atomically: true, encoding: .utf8)
            return try await Binary.run(["simulate", "--sim", "absent", "--sms", "fail", "--data", directory.path])
        }
        #expect(run.status == 65)
        #expect(run.stderr == "onetap: error: the result-code table makes SMS code 1 a \(smsDefault), where a simulation fails SMS with it: "
            + "give the sms flow a failure for code 1\n", "\(run.stderr)")
    }

    @Test func simulateJSON() async throws {
        let run = try await Binary.run(["simulate", "--plmn", "46000", "--mobile", "200023,103000", "--json"])
        #expect(run.status == 0)
        #expect(run.stdout == #"{"outcome":"success","flow":"mobile","carrier":"mobile","plan":["mobile","sms"],"steps":[{"flow":"mobile","code":"200023","action":"retry"},{"flow":"mobile","code":"103000","action":"success"}],"alerts":[]}"# + "\n")
        #expect(run.stderr == "")
    }

    /// A hang is a timeout report (the simulation runs on no clock), so the login falls back at once. No
    /// wall time is asserted: on a loaded machine spawning the command alone can take seconds.
    @Test func simulateHangIsATimeoutAtOnce() async throws {
        let run = try await Binary.run(["simulate", "--plmn=46011", "--hang=tianyi", "--json"])
        #expect(run.status == 0 && run.stderr == "")
        #expect(run.stdout.contains(#"{"flow":"tianyi","code":"timeout","action":"fallback"}"#))
    }

    @Test func simulateText() async throws {
        let run = try await Binary.run(["simulate", "--plmn", "46000", "--mobile", "103101"])
        #expect(run.status == 0)
        #expect(run.stdout == """
            plan:     mobile → sms (policy; carrier mobile from plmn)
            step 1:   mobile 103101 → misconfigured: request signature wrong (appKey)
            step 2:   sms 0 → success: the SMS code was verified
            alert:    mobile 103101: request signature wrong (appKey)
            outcome:  success via sms

            """)
    }

    /// An unscripted call answers the flow's success code from the result-code table; a replacement table
    /// that lists none for China Mobile leaves the simulation nothing to succeed with there: the call is a
    /// provider fault that says so, and the login falls back.
    @Test func simulateWithATableWithoutASuccessCodeSaysSoAndFallsBack() async throws {
        let directory = try Package.temporaryDirectory()
        defer { removeTemporary(directory) }
        let builtIn = try String(contentsOfFile: Package.path("Data/result-codes.csv"), encoding: .utf8)
        let withoutMobileSuccess = builtIn.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.hasPrefix("mobile,103000,") && !$0.hasPrefix("mobile,000,") }
            .joined(separator: "\n")
        #expect(withoutMobileSuccess.utf8.count < builtIn.utf8.count)
        try withoutMobileSuccess.write(to: directory.appendingPathComponent("result-codes.csv"), atomically: true, encoding: .utf8)

        let json = try await Binary.run(["simulate", "--plmn", "46000", "--data", directory.path, "--json"])
        #expect(json.status == 0)
        #expect(json.stdout == #"{"outcome":"success","flow":"sms","carrier":"mobile","plan":["mobile","sms"],"steps":[{"flow":"mobile","code":"provider-error","action":"fallback"},{"flow":"sms","code":"0","action":"success"}],"alerts":[]}"# + "\n")
        let text = try await Binary.run(["simulate", "--plmn", "46000", "--data", directory.path])
        #expect(text.status == 0)
        #expect(text.stdout.contains(
            "step 1:   mobile provider-error → fallback: the provider failed (the result-code table lists no success code for mobile: a simulation cannot succeed on it): fall back\n"))
        #expect(text.stdout.hasSuffix("outcome:  success via sms\n"))
        // A scripted code still runs as given, and the other flows keep their success codes.
        let scripted = try await Binary.run(["simulate", "--plmn", "46011", "--data", directory.path, "--json"])
        #expect(scripted.stdout.contains(#""steps":[{"flow":"tianyi","code":"0","action":"success"}]"#))
    }

    @Test(arguments: [
        (["simulate", "--plmn", "46000", "--mobile", "103000,,1"], Int32(65), "onetap: error: invalid result code \"\": no code"),
        (["simulate", "--hang", "wifi"], 64, "onetap: error: option --hang takes a flow"),
        (["simulate", "--sms", "maybe"], 64, "onetap: error: option --sms must be ok or fail"),
        (["simulate", "--plmn", "4600"], 65, "onetap: error: invalid PLMN \"4600\""),
    ])
    func simulateErrors(arguments: [String], status: Int32, prefix: String) async throws {
        let run = try await Binary.run(arguments)
        #expect(run.status == status)
        #expect(run.stderr.hasPrefix(prefix))
        #expect(run.stdout == "")
    }

    @Test func tokenJSON() async throws {
        let run = try await Binary.run(["token", "--issued", "2026-11-01T00:00:00Z", "--now", "2026-11-15T00:00:00Z", "--json"])
        #expect(run.status == 0)
        #expect(run.stdout == #"{"state":"stale","issuedAt":"2026-11-01T00:00:00.000Z","expiresAt":"2026-12-01T00:00:00.000Z","refreshFrom":"2026-11-02T00:00:00.000Z","remainingSeconds":1382400}"# + "\n")
    }

    /// The time left reads as a span, and an expired token says how long ago, never as `-0d 14h…`.
    @Test(arguments: [
        ("2026-12-01T14:36:13Z", "remaining:     none: expired 14h 36m 13s ago (-52573 s)"),
        ("2026-11-02T00:00:00Z", "remaining:     29d 0h 0m 0s (2505600 s)"),
        ("2026-12-01T00:00:00Z", "remaining:     0s (0 s)"),
        ("2026-11-30T23:59:30Z", "remaining:     30s (30 s)"),
    ])
    func tokenTextRemaining(now: String, line: String) async throws {
        let run = try await Binary.run(["token", "--issued", "2026-11-01T00:00:00Z", "--now", now])
        #expect(run.status == 0)
        #expect(run.lines.contains(line), "\(run.stdout)")
    }

    @Test(arguments: [
        (["--expires-in", "7200", "--now", "2026-11-01T00:59:59.999Z"], "fresh"),
        (["--expires-in", "7200", "--now", "2026-11-01T01:00:00Z"], "stale"),
        (["--expires-in", "7200", "--now", "2026-11-01T01:58:59.999Z"], "stale"),
        (["--expires-in", "7200", "--now", "2026-11-01T01:59:00Z"], "expired"),
        (["--lifetime", "30d", "--now", "2026-11-01T23:59:59Z"], "fresh"),
        (["--lifetime", "30d", "--now", "2026-11-02T00:00:00Z"], "stale"),
        (["--lifetime", "90m", "--now", "2026-11-01T00:45:00Z"], "stale"),
        (["--lifetime", "12h", "--now", "2026-11-01T05:59:59Z"], "fresh"),
        (["--lifetime", "45s", "--now", "2026-11-01T00:00:00Z"], "expired"),
        (["--now", "2026-10-01T00:00:00Z"], "fresh"),
    ])
    func tokenStates(arguments: [String], state: String) async throws {
        let run = try await Binary.run(["token", "--issued", "2026-11-01T00:00:00Z", "--json"] + arguments)
        #expect(run.status == 0)
        #expect(run.stdout.hasPrefix("{\"state\":\"\(state)\""), "\(run.stdout)")
    }

    @Test(arguments: [
        (["token"], Int32(64), "onetap: error: token needs --issued"),
        (["token", "--issued", "2026-11-01T00:00:00Z", "--lifetime", "1d", "--expires-in", "5"], 64, "onetap: error: give --expires-in or --lifetime, not both"),
        (["token", "--issued", "yesterday"], 65, "onetap: error: invalid timestamp \"yesterday\""),
        (["token", "--issued", "1969-12-31T23:59:59Z"], 65, "onetap: error: invalid timestamp \"1969-12-31T23:59:59Z\": a timestamp here lies between 1970-01-01 and 9999-12-31"),
        (["token", "--issued", "2026-11-01T00:00:00Z", "--expires-in", "-5"], 65, "onetap: error: invalid seconds \"-5\""),
        (["token", "--issued", "2026-11-01T00:00:00Z", "--expires-in", "99999999999"], 65, "onetap: error: invalid seconds \"99999999999\""),
        (["token", "--issued", "2026-11-01T00:00:00Z", "--lifetime", "3w"], 65, "onetap: error: invalid duration \"3w\""),
        (["token", "--issued", "2026-11-01T00:00:00Z", "--lifetime", "0d"], 65, "onetap: error: invalid duration \"0d\""),
        (["token", "--issued", "2026-11-01T00:00:00Z", "--lifetime", "9999999999999s"], 65,
         "onetap: error: invalid duration \"9999999999999s\": a token lifetime is 1 second to ten years"),
    ])
    func tokenErrors(arguments: [String], status: Int32, prefix: String) async throws {
        let run = try await Binary.run(arguments)
        #expect(run.status == status)
        #expect(run.stderr.hasPrefix(prefix), "\(run.stderr)")
    }

    /// A carrier token typed where `token` takes none (`onetap token "$TIANYI_ACCESS_TOKEN"`) is refused without being
    /// repeated: before (an attacker's read), stderr quoted it whole.
    @Test func aTokenGivenAsAnOperandIsNotRepeated() async throws {
        let run = try await Binary.run(["token", "--issued", "2026-11-01T00:00:00Z", "TY-ACCESS-hunter2-0123456789"])
        #expect(run.status == 64 && run.stdout.isEmpty)
        #expect(run.stderr.hasPrefix("onetap: error: token takes options only; unexpected (an argument of 28 characters, not repeated"), "\(run.stderr)")
        #expect(!run.stderr.contains("hunter2"))
    }
}

/// Hostile input through the binary: exit codes and stderr lines asserted end to end.
@Suite struct HostileEndToEndTests {
    @Test func byteOrderMarkOnStandardInputIsSkipped() async throws {
        let run = try await Binary.run(["carrier", "-", "--json"], stdin: [0xEF, 0xBB, 0xBF] + Array("46000\n46001\n".utf8))
        #expect(run.status == 0)
        #expect(run.lines.count == 2)
        #expect(run.lines.first?.hasPrefix(#"{"input":"46000","mcc":"460""#) == true)
        #expect(run.lines.last?.hasPrefix(#"{"input":"46001","mcc":"460""#) == true)
    }

    /// A byte-order mark at the start of a file is skipped as on standard input (an attacker's read: a transcript saved
    /// with one read its first line, a comment, as JSON, and `check` read `\u{feff}route` as no command).
    @Test func byteOrderMarkInAFileIsSkippedAsOnStandardInput() async throws {
        let directory = try Package.temporaryDirectory()
        let transcript = "# a comment first\n" + SessionCommandTests.iosMobile
        let transcriptFile = directory.appendingPathComponent("bom.transcript")
        try Data([0xEF, 0xBB, 0xBF] + Array(transcript.utf8)).write(to: transcriptFile)
        let fromFile = try await Binary.run(["session", "--events", transcriptFile.path])
        let fromInput = try await Binary.run(["session", "--events", "-"], stdin: [0xEF, 0xBB, 0xBF] + Array(transcript.utf8))
        #expect(fromFile.status == 0 && fromFile.stderr == "", "\(fromFile.stderr)")
        #expect(fromFile.lines.count == 5 && fromInput.status == 0)
        // The same logins (each run draws its own session id).
        let events = { (run: Run) in run.lines.map { $0.replacing(/"session":"[^"]*"/, with: "") } }
        #expect(events(fromFile) == events(fromInput))
        let table = directory.appendingPathComponent("bom.table")
        try Data([0xEF, 0xBB, 0xBF] + Array("route --no-sim => flows=sms\n".utf8)).write(to: table)
        let check = try await Binary.run(["check", table.path])
        #expect(check.status == 0, "\(check.stdout)")
        #expect(check.stdout == "1 passed, 0 failed\n" && check.stderr == "")
    }

    @Test func overlongLineIsReportedAndSkippedAndTheRestRuns() async throws {
        let long = [UInt8](repeating: 0x34, count: (4 << 20) + 10)
        let run = try await Binary.run(["carrier", "-", "--json"], stdin: Array("46000\n".utf8) + long + Array("\n46011\n".utf8))
        #expect(run.status == 65)
        #expect(run.lines.count == 3)
        #expect(run.lines[0].hasPrefix(#"{"input":"46000""#))
        #expect(run.lines[1] == #"{"input":""# + String(repeating: "4", count: 64) + #"","error":"line 2 is longer than 4194304 bytes; it was skipped"}"#)
        #expect(run.lines[2].hasPrefix(#"{"input":"46011""#))
        #expect(run.stderr == "onetap: error: 1 of 3 inputs were malformed\n")
    }

    @Test func oneMegabyteLineIsAnErrorRecordNamingIt() async throws {
        let run = try await Binary.run(["number", "-", "--json"], stdin: [UInt8](repeating: 0x31, count: 1 << 20) + [0x0A])
        #expect(run.status == 65)
        #expect(run.lines.count == 1)
        // The whole input is echoed (valid JSON); the message shortens it to 64 characters and its size.
        let record = try JSONSerialization.jsonObject(with: Data(run.lines[0].utf8)) as? [String: String]
        #expect(record?["input"] == String(repeating: "1", count: 1 << 20))
        #expect(record?["error"] == "invalid phone number \"" + String(repeating: "1", count: 64)
            + "…\" (1048576 bytes): 1048576 digits after any country prefix; a mainland mobile number has 11")
    }

    @Test func embeddedNULIsAnErrorRecord() async throws {
        let run = try await Binary.run(["carrier", "-", "--json"], stdin: Array("460\u{0}00\n".utf8))
        #expect(run.status == 65)
        #expect(run.lines == [#"{"input":"460\u000000","error":"invalid PLMN \"460\\u{0}00\": NUL at position 4 is not allowed"}"#])
    }

    static let nines64 = String(repeating: "9", count: 64)

    @Test(arguments: [
        (["carrier", "４６０００"], Int32(65), "onetap: error: invalid PLMN \"４６０００\": U+FF14 '４' at position 1 is not an ASCII digit (only 0-9 count)\n"),
        (["carrier", ""], 0, ""),
        (["number", "+86 138 0013 800"], 65, "onetap: error: invalid phone number \"+86 138 0013 800\": 10 digits after any country prefix; a mainland mobile number has 11\n"),
        (["outcome", "mobile", " "], 65, "onetap: error: invalid result code \" \": no code\n"),
        (["outcome", "mobile", nines64 + "9"], 65, "onetap: error: invalid result code \"" + nines64 + "…\" (65 bytes): 65 bytes; a result code has at most 64\n"),
        (["outcome", "mobile", "10\u{1}3"], 65, "onetap: error: invalid result code \"10\\u{1}3\": U+0001 at position 3 is not allowed (a code holds no control characters)\n"),
        (["route", "--ip", "fe80::1%eth0"], 65, "onetap: error: invalid IP address \"fe80::1%eth0\": a zone id (%…) is not part of an address the server sees\n"),
        (["route", "--phone", "１３８００１３８０００"], 65, "onetap: error: invalid phone number \"１３８００１３８０００\": U+FF11 '１' at position 1 is not an ASCII digit (only 0-9 count)\n"),
        (["token", "--issued", "10000-01-01T00:00:00Z"], 65, "onetap: error: invalid timestamp \"10000-01-01T00:00:00Z\": a timestamp here lies between 1970-01-01 and 9999-12-31\n"),
        (["token", "--issued", "2026-13-01T00:00:00Z"], 65, "onetap: error: invalid timestamp \"2026-13-01T00:00:00Z\": month 13 does not exist\n"),
        (["token", "--issued", "2026-02-30T00:00:00Z"], 65, "onetap: error: invalid timestamp \"2026-02-30T00:00:00Z\": 2026-02 has no day 30\n"),
        (["token", "--issued", "tomorrow"], 65, "onetap: error: invalid timestamp \"tomorrow\": not ISO 8601; write 2026-11-30T18:48:26Z (or with +08:00)\n"),
        (["token", "--issued", "2026-11-01T00:00:00Z", "--expires-in", "1.5"], 65, "onetap: error: invalid seconds \"1.5\": a lifetime is a whole number of seconds in ASCII digits\n"),
        (["token", "--issued", "9999-12-31T00:00:00Z", "--lifetime", "3660d"], 65, "onetap: error: the token would expire after 9999-12-31; give an earlier --issued or a shorter lifetime\n"),
        (["route", "--mobile-data=", "--plmn", "46000"], 64, "onetap: error: option --mobile-data must be on or off, not '' (see 'onetap route --help')\n"),
        (["carrier", "--json=", "46000"], 64, "onetap: error: option --json takes no value (see 'onetap carrier --help')\n"),
    ] as [([String], Int32, String)])
    func hostileOperands(arguments: [String], status: Int32, stderr: String) async throws {
        let run = try await Binary.run(arguments)
        #expect(run.status == status)
        #expect(run.stderr == stderr)
    }

    @Test func routeStdinWithWrongTypesKeepsGoing() async throws {
        let input = Array(#"{"plmn":46000}"#.utf8) + [0x0A] + Array(#"{"sim":true}"#.utf8) + [0x0D, 0x0A] + Array(#"{"plmn":"46000"}"#.utf8) + [0x0A] + [0xFF, 0xFE, 0x0A]
        let run = try await Binary.run(["route", "-", "--json"], stdin: input)
        #expect(run.status == 65)
        #expect(run.lines.count == 4)
        #expect(run.lines[0].contains(#""error":"line 1: key 'plmn': expected a string""#))
        #expect(run.lines[1].contains(#""error":"line 2: key 'sim': expected a string""#))
        #expect(run.lines[2] == #"{"input":"{\"plmn\":\"46000\"}","carrier":"mobile","evidence":"plmn","flows":["mobile","sms"],"reason":"policy","condition":"carrier:mobile"}"#)
        #expect(run.lines[3].hasPrefix(#"{"input":"\#u{FFFD}\#u{FFFD}","error":"line 4: not a JSON object"#))
        #expect(run.stderr == "onetap: error: 3 of 4 snapshots were malformed\n")
    }
}

/// The CLI never prints a token: the tokens of a simulation's successful flows appear in no output.
@Suite struct SecretsEndToEndTests {
    @Test(arguments: [
        ["simulate", "--plmn", "46000", "--json"], ["simulate", "--plmn", "46000"], ["simulate", "--plmn", "46011", "--json"],
        ["simulate", "--plmn", "46011"], ["simulate", "--plmn", "46000", "--mobile", "102101", "--json"], ["simulate", "--plmn", "46001", "--tianyi", "0"],
    ])
    func simulateNeverPrintsTokens(arguments: [String]) async throws {
        let run = try await Binary.run(arguments)
        #expect(run.status == 0)
        for secret in ["mobile-token", "tianyi-token", "tianyi-refresh", "sms-session", "uid-"] {
            #expect(!run.stdout.contains(secret) && !run.stderr.contains(secret), "\(secret) leaked")
        }
    }
}
