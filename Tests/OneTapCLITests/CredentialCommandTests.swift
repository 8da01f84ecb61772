import Foundation
@testable import OneTapCLI
import Testing

/// `onetap credential inspect`: tokens computed outside the project (Python's `hmac`, `hashlib` and
/// `base64`) under the key 0x00…0x1f named `k1`.
@Suite struct CredentialCommandTests {
    static let keys = ["ONETAP_SERVER_KEYS": "k1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="]
    /// Account 42, app session AAAA…, issued 2026-11-27T10:00:00Z, expires two hours later.
    static let token = "ota1.k1.AAAAAAAAAAAAAAAAAAAAAA.a.NDI.1795773600.1795780800.UyPHf0sLEAIrEJWD44sBY6cMOOV3A6vig4K3_maQ3Wg"
    static let signature = "UyPHf0sLEAIrEJWD44sBY6cMOOV3A6vig4K3_maQ3Wg"
    /// The same claims in format 2, in the login epoch 1795773591 (2026-11-27T09:59:51Z).
    static let tokenInAnEpoch = "ota2.k1.AAAAAAAAAAAAAAAAAAAAAA.a.NDI.1795773591.1795773600.1795780800.dWyvuZ6oEnxPAduWVK-Sxr-XByuM1W-qnRN6OAI6OWg"

    /// A token on the command line is refused, and the refusal does not quote it: every user of the machine can
    /// read a process's arguments.
    @Test func aTokenOnTheCommandLineIsRefusedUnquoted() throws {
        let error = #expect(throws: UsageError.self) { try OneTapCommandLine.parse(["credential", "inspect", Self.token, "--json"]) }
        #expect(error?.message.hasPrefix("credential inspect reads the token from standard input (-): a token on the command line") == true)
        #expect(error?.message.contains(Self.signature) == false)
        #expect(try OneTapCommandLine.parse(["credential", "inspect", "-"]).options(of: CredentialCommand.self)
            == CredentialOptions(keysFile: nil, now: nil, json: false))
    }

    @Test(arguments: [
        (["credential"], "credential needs an action: onetap credential inspect -"),
        (["credential", "show", "x"], "unknown credential action 'show'; the actions are inspect"),
        // A token typed where the action goes (`onetap credential "$TOKEN"`) is never repeated.
        (["credential", "eyJhbGciOiJIUzI1NiJ9.secret-part"], "unknown credential action (an argument of 32 characters, not repeated: it may be a secret); the actions are inspect"),
        (["credential", "inspect"], "credential inspect needs -, to read the token from standard input"),
        (["credential", "inspect", "a", "b"], "credential inspect takes one token, not 2"),
    ])
    func usageErrors(arguments: [String], message: String) {
        let error = #expect(throws: UsageError.self) { try OneTapCommandLine.parse(arguments) }
        #expect(error?.message == message)
    }

    /// A valid token's claims, in either format (format 2 also prints its login epoch).
    @Test(arguments: [(token, ""), (tokenInAnEpoch, "login epoch:  1795773591\n")])
    func aValidTokenPrintsItsClaims(token: String, epochLine: String) async {
        let (code, io) = await runInProcess(["credential", "inspect", "-", "--now", "2026-11-27T11:00:00Z"], stdin: Array("\(token)\n".utf8), environment: Self.keys)
        #expect(code == .success)
        #expect(io.outputText == """
            verdict:      valid
            app session:  AAAAAAAAAAAAAAAAAAAAAA
            identity:     account 42
            key:          k1
            \(epochLine)issued at:    2026-11-27T10:00:00.000Z
            expires at:   2026-11-27T12:00:00.000Z

            """)
        #expect(io.errors.isEmpty)
    }

    @Test func aKeyFileServesAsWellAsTheEnvironment() async throws {
        let directory = try Package.temporaryDirectory()
        let file = directory.appendingPathComponent("keys")
        try "# newest first\n2026-12:ZGVmZ2hpamtsbW5vcHFyc3R1dnd4eXp7fH1+f4CBgoM=\nk1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\n".write(to: file, atomically: true, encoding: .utf8)
        let (code, io) = await runInProcess(["credential", "inspect", "-", "--keys", file.path, "--now", "2026-11-27T12:00:00Z", "--json"], stdin: Array("\(Self.token)\n".utf8))
        #expect(code == .failed)
        #expect(io.outputText == #"{"verdict":"expired","key":"k1","session":"AAAAAAAAAAAAAAAAAAAAAA","kind":"account","subject":"42","issuedAt":"2026-11-27T10:00:00.000Z","expiresAt":"2026-11-27T12:00:00.000Z"}"# + "\n")
        try FileManager.default.removeItem(at: directory)
    }

    /// A key file is read to a bound, and one that is no key ring is malformed (65), as the help says: an endless
    /// file (`/dev/zero`) was read until memory ran out, and one that is not UTF-8 was "cannot read" (66) (an
    /// attacker's read).
    @Test func aKeyFileThatIsNoKeyRingIsMalformedAndReadToABound() async throws {
        let (endless, endlessIO) = await runInProcess(["credential", "inspect", "-", "--keys", "/dev/zero"], stdin: Array("\(Self.token)\n".utf8))
        #expect(endless == .dataError)
        #expect(endlessIO.errors == ["onetap: error: the key file '/dev/zero' is larger than any key ring (64 KiB)"])
        let directory = try Package.temporaryDirectory()
        let file = directory.appendingPathComponent("keys")
        try Data([0x6B, 0x31, 0x3A, 0xFF, 0x0A]).write(to: file)
        let (binary, binaryIO) = await runInProcess(["credential", "inspect", "-", "--keys", file.path], stdin: Array("\(Self.token)\n".utf8))
        #expect(binary == .dataError)
        #expect(binaryIO.errors == ["onetap: error: the key file '\(file.path)' is not UTF-8 text"])
        try FileManager.default.removeItem(at: directory)
    }

    @Test func withoutKeysItIsAUsageError() async {
        let (code, io) = await runInProcess(["credential", "inspect", "-"], stdin: Array("\(Self.token)\n".utf8))
        #expect(code == .usage)
        #expect(io.output.isEmpty)
        #expect(io.errors == ["onetap: error: credential inspect needs the server's keys: set ONETAP_SERVER_KEYS or give --keys FILE (one id:base64 per line)"])
    }
}

/// The built binary: stdout, stderr and exit status, and never the token or a key in either.
@Suite struct CredentialEndToEndTests {
    static let key = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let token: String
        let keys: String
        let status: Int32
        let stdout: String
        let stderr: String
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "expired", token: CredentialCommandTests.token, keys: "k1:\(key)", status: 1,
             stdout: #"{"verdict":"expired","key":"k1","session":"AAAAAAAAAAAAAAAAAAAAAA","kind":"account","subject":"42","issuedAt":"2026-11-27T10:00:00.000Z","expiresAt":"2026-11-27T12:00:00.000Z"}"# + "\n", stderr: ""),
        Case(name: "expired, format 2", token: CredentialCommandTests.tokenInAnEpoch, keys: "k1:\(key)", status: 1,
             stdout: #"{"verdict":"expired","key":"k1","session":"AAAAAAAAAAAAAAAAAAAAAA","kind":"account","subject":"42","epoch":1795773591,"issuedAt":"2026-11-27T10:00:00.000Z","expiresAt":"2026-11-27T12:00:00.000Z"}"# + "\n", stderr: ""),
        Case(name: "bad signature", token: CredentialCommandTests.token.replacingOccurrences(of: ".NDI.", with: ".NDM."), keys: "k1:\(key)", status: 1,
             stdout: #"{"verdict":"bad-signature"}"# + "\n", stderr: ""),
        Case(name: "unknown key", token: CredentialCommandTests.token, keys: "k2:\(key)", status: 1,
             stdout: #"{"verdict":"unknown-key","key":"k1"}"# + "\n", stderr: ""),
        Case(name: "malformed", token: "Bearer x", keys: "k1:\(key)", status: 65,
             stdout: #"{"verdict":"malformed","reason":"not an access token (it starts with ota2., or ota1. for one issued before format 2)"}"# + "\n", stderr: ""),
        Case(name: "malformed keys", token: CredentialCommandTests.token, keys: "k1:short", status: 65,
             stdout: "", stderr: "onetap: error: the keys of ONETAP_SERVER_KEYS: invalid server keys \"<redacted>\": the key k1 (entry 1): the text is not base64\n"),
    ]

    /// A command that exits before reading its input (keys it cannot read) leaves the writer a closed
    /// pipe: 4 MiB of input cannot fit in the pipe, so this write always meets it.
    @Test func aCommandThatReadsNoInputLeavesTheTestProcessAlive() async throws {
        let run = try await Binary.run(["credential", "inspect", "-"], stdin: [UInt8](repeating: UInt8(ascii: "a"), count: 4 << 20), environment: ["ONETAP_SERVER_KEYS": "k1:short"])
        #expect(run.status == 65 && run.stdout == "")
    }

    @Test(arguments: cases)
    func verdicts(_ test: Case) async throws {
        let run = try await Binary.run(["credential", "inspect", "-", "--json"], stdin: Array(test.token.utf8), environment: ["ONETAP_SERVER_KEYS": test.keys])
        #expect(run.status == test.status)
        #expect(run.stdout == test.stdout)
        #expect(run.stderr == test.stderr)
        for secret in ["UyPHf0", "dWyvuZ6o", "AAECAwQF"] { #expect(!run.stdout.contains(secret) && !run.stderr.contains(secret)) }
    }

    /// A FIFO named as a file to read (a key ring, a table of `--data`) is refused at once, exit 66: opening it waited
    /// for a writer for ever (a CLI attacker's read; a FIFO planted in a shared data directory hung every command).
    @Test(.timeLimit(.minutes(1))) func aFIFONamedAsAFileIsRefusedAtOnce() async throws {
        let directory = try Package.temporaryDirectory()
        defer { removeTemporary(directory) }
        let fifo = directory.appendingPathComponent("keys").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let keys = try await Binary.run(["credential", "inspect", "-", "--keys", fifo], stdin: Array("\(CredentialCommandTests.token)\n".utf8))
        #expect(keys.status == 66, "\(keys.stderr)")
        #expect(keys.stderr.contains(fifo) && keys.stderr.contains("not a regular file"), "\(keys.stderr)")
        let data = directory.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        #expect(mkfifo(data.appendingPathComponent("plmn.csv").path, 0o600) == 0)
        let route = try await Binary.run(["--data", data.path, "route", "--plmn", "46000"])
        #expect(route.status == 66, "\(route.stdout)\(route.stderr)")
        #expect(route.stderr.contains("plmn.csv") && route.stderr.contains("not a regular file"), "\(route.stderr)")
        let stats = try await Binary.run(["stats", fifo])
        #expect(stats.status == 66 && stats.stderr.contains("not a regular file"), "\(stats.stdout)\(stats.stderr)")
    }

    /// A file too large to be what it is named as is a data error (65) whichever file it is: a key ring past 64 KiB
    /// was 65 and a table past 64 MiB 66, "cannot read" (a CLI attacker's read). The table is a sparse file: no disk.
    @Test(.timeLimit(.minutes(1))) func aFileTooLargeForItsKindIsADataError() async throws {
        let directory = try Package.temporaryDirectory()
        defer { removeTemporary(directory) }
        let table = directory.appendingPathComponent("big.table").path
        let keys = directory.appendingPathComponent("keys").path
        #expect(FileManager.default.createFile(atPath: table, contents: nil) && truncate(table, (64 << 20) + 1) == 0)
        #expect(FileManager.default.createFile(atPath: keys, contents: nil) && truncate(keys, (64 << 10) + 1) == 0)
        let check = try await Binary.run(["check", table])
        #expect(check.status == 65, "\(check.stdout)\(check.stderr)")
        #expect(check.stdout == "" && check.stderr == "onetap: error: \(table): the file is larger than a table may be (64 MiB)\n")
        let inspect = try await Binary.run(["credential", "inspect", "-", "--keys", keys], stdin: Array("\(CredentialCommandTests.token)\n".utf8))
        #expect(inspect.status == 65, "\(inspect.stdout)\(inspect.stderr)")
        #expect(inspect.stderr == "onetap: error: the key file '\(keys)' is larger than any key ring (64 KiB)\n")
    }
}
