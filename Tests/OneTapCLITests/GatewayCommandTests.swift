import Foundation
import OneTap
@testable import OneTapCLI
import OneTapSupport
import OneTapTesting
import Testing

/// `onetap gateway` on the command line: what it parses to and how it refuses, in process (no tool run).
@Suite struct GatewayCommandArgumentsTests {
    @Test(arguments: [
        (["gateway", "check", "--config", "g.json"], GatewayOptions(action: .check, config: "g.json")),
        (["gateway", "sign", "cmcc", "--config", "g.json", "--field", "msgid=1=2", "--field", "token=-", "--json"],
         GatewayOptions(action: .sign, gateway: "cmcc", config: "g.json", json: true, fields: ["msgid=1=2", "token=-"])),
        // Yidun signs two secrets: each `-`, one line each on standard input (a review: one `-` at most made it unusable).
        (["gateway", "sign", "yidun", "--config", "g.json", "--field", "token=-", "--field", "accessToken=-"],
         GatewayOptions(action: .sign, gateway: "yidun", config: "g.json", fields: ["token=-", "accessToken=-"])),
        (["gateway", "exchange", "tianyi", "--config", "g.json", "--token", "-"], GatewayOptions(action: .exchange, gateway: "tianyi", config: "g.json")),
        (["gateway", "verify", "cmcc", "--config", "g.json", "--token", "-", "--number", "13800138000"],
         GatewayOptions(action: .verify, gateway: "cmcc", config: "g.json", number: "13800138000")),
        (["gateway", "exchange", "aliyun-pnvs", "--config", "g.json", "--token", "-", "--flow", "unicom"],
         GatewayOptions(action: .exchange, gateway: "aliyun-pnvs", config: "g.json", flow: .unicom)),
        // A number in any form the library reads (`onetap number` takes them), passed on as its 11 digits (an attacker's
        // read: the command refused `+86 13800138000` with a rule of its own).
        (["gateway", "sms", "aliyun-sms", "--config", "g.json", "--to", "+86 138 0013 8000", "--param", "-"],
         GatewayOptions(action: .sms, gateway: "aliyun-sms", config: "g.json", to: "13800138000")),
        (["gateway", "verify", "cmcc", "--config", "g.json", "--token", "-", "--number", "0086-13800138000"],
         GatewayOptions(action: .verify, gateway: "cmcc", config: "g.json", number: "13800138000")),
    ])
    func parses(arguments: [String], expected: GatewayOptions) throws {
        #expect(try OneTapCommandLine.parse(arguments) == .command(GatewayCommand.self, expected))
    }

    /// The tool's command line holds no token and no SMS code: both go on its standard input.
    @Test func toolArgumentsHoldNoSecret() throws {
        let sms = GatewayOptions(action: .sms, gateway: "aliyun-sms", config: "g.json", to: "13800138000")
        #expect(sms.toolArguments == ["sms", "aliyun-sms", "--config", "g.json", "--to", "13800138000", "--param", "-"])
        let exchange = GatewayOptions(action: .exchange, gateway: "cmcc", config: "g.json", json: true)
        #expect(exchange.toolArguments == ["exchange", "cmcc", "--config", "g.json", "--token", "-", "--json"])
        let unicom = GatewayOptions(action: .verify, gateway: "shanyan", config: "g.json", number: "13800138000", flow: .unicom)
        #expect(unicom.toolArguments == ["verify", "shanyan", "--config", "g.json", "--token", "-", "--number", "13800138000", "--flow", "unicom"])
    }

    @Test func helpIsTheCommandsHelp() throws {
        #expect(try OneTapCommandLine.parse(["gateway", "--help"]) == .help(command: "gateway"))
        #expect(GatewayCommand.help.contains("EXIT STATUS:") && GatewayCommand.help.contains("EXAMPLE:"))
    }

    @Test(arguments: [
        (["gateway"], "onetap: error: gateway needs an action: check, sign, exchange, verify, sms (see 'onetap gateway --help')"),
        (["gateway", "call", "--config", "g.json"], "onetap: error: unknown gateway action 'call'; the actions are check, sign, exchange, verify, sms (see 'onetap gateway --help')"),
        (["gateway", "check"], "onetap: error: gateway check needs --config FILE, the gateways' configuration (see 'onetap gateway --help')"),
        (["gateway", "exchange", "--config", "g.json", "--token", "-"], "onetap: error: gateway exchange needs a gateway: onetap gateway exchange cmcc --config FILE … (see 'onetap gateway --help')"),
        (["gateway", "exchange", "CMCC", "--config", "g.json", "--token", "-"], "onetap: error: a gateway is named in lower-case letters, digits and '-' (cmcc, aliyun-sms) (see 'onetap gateway --help')"),
        (["gateway", "exchange", "cmcc", "--config", "g.json"], "onetap: error: gateway exchange needs the token on standard input: --token - (see 'onetap gateway --help')"),
        (["gateway", "exchange", "cmcc", "--config", "g.json", "--token", "-", "--field", "msgid=1"], "onetap: error: --field is not an option of gateway exchange (see 'onetap gateway --help')"),
        (["gateway", "sign", "cmcc", "--config", "g.json", "--field", "msgid"], "onetap: error: --field takes NAME=VALUE (--field msgid=1) (see 'onetap gateway --help')"),
        // A secret field on the command line (an attacker's read: a live token went into two processes' argv, and out).
        (["gateway", "sign", "cmcc", "--config", "g.json", "--field", "token=STlive-token"],
         #"onetap: error: --field token takes - and reads the value from standard input: a secret on the command line can be read by every user of this machine (printf '%s\n' "$TOKEN" | onetap gateway sign cmcc --config FILE --field token=-) (see 'onetap gateway --help')"#),
        (["gateway", "sign", "tianyi", "--config", "g.json", "--field", "accessToken=", "--field", "timeStamp=1"],
         #"onetap: error: --field accessToken takes - and reads the value from standard input: a secret on the command line can be read by every user of this machine (printf '%s\n' "$TOKEN" | onetap gateway sign tianyi --config FILE --field accessToken=-) (see 'onetap gateway --help')"#),
        (["gateway", "sign", "yidun", "--config", "g.json", "--field", "token=-", "--field", "token=-"],
         "onetap: error: --field token is given twice; give each field once (see 'onetap gateway --help')"),
        (["gateway", "verify", "cmcc", "--config", "g.json", "--token", "-"], "onetap: error: gateway verify needs --number N, the number to verify (see 'onetap gateway --help')"),
        (["gateway", "verify", "cmcc", "--config", "g.json", "--token", "-", "--number", "1380013800"], "onetap: error: --number takes a mainland mobile number (13800138000): 10 digits after any country prefix; a mainland mobile number has 11 (see 'onetap gateway --help')"),
        // Eleven digits, but no mobile segment: the library's reason, where the command's own rule let it through.
        (["gateway", "sms", "aliyun-sms", "--config", "g.json", "--to", "10000000000", "--param", "-"],
         "onetap: error: --to takes a mainland mobile number (13800138000): 10 is not a mobile segment (10, 11 and 12 are service numbers; mobile numbers start 13 to 19) (see 'onetap gateway --help')"),
        (["gateway", "sms", "tencent-sms", "--config", "g.json", "--to", "13800138000"], "onetap: error: gateway sms needs --to N and the code the template gets on standard input: --param - (see 'onetap gateway --help')"),
        (["gateway", "exchange", "shanyan", "--config", "g.json", "--token", "-", "--flow", "sms"], "onetap: error: --flow takes mobile, tianyi or unicom (the carrier whose SIM made the token); got 'sms' (see 'onetap gateway --help')"),
        (["gateway", "sign", "shanyan", "--config", "g.json", "--flow", "unicom"], "onetap: error: --flow is not an option of gateway sign (see 'onetap gateway --help')"),
    ])
    func usageErrorsAreExit64(arguments: [String], message: String) async {
        let (code, io) = await runInProcess(arguments)
        #expect(code == .usage)
        #expect(io.output.isEmpty)
        #expect(io.errors == [message])
    }

    /// A line of standard input longer than 64 KiB is no token: refused (64), where its first 64 KiB were taken and the
    /// rest left to be read as the next field's value (a review).
    @Test func aStandardInputLineLongerThan64KiBIsRefused() async {
        let (code, io) = await runInProcess(
            ["gateway", "sign", "yidun", "--config", "g.json", "--field", "token=-", "--field", "accessToken=-"], stdin: Array(repeating: UInt8(ascii: "t"), count: 70_000) + [0x0A])
        #expect(code == .usage)
        #expect(io.output.isEmpty)
        #expect(io.errors == ["onetap: error: a line of standard input is longer than 64 KiB, which no URL, token or code is"])
    }

    /// A token on the command line is refused, with why and how, and is never repeated, wherever it stood.
    @Test(arguments: [
        (["gateway", "exchange", "cmcc", "--config", "g.json", "--token", "STsid0000001517196594066OHmZv"],
         "onetap: error: --token takes - and reads the token from standard input: a token on the command line can be read by every user of this machine "
            + "(printf '%s\\n' \"$TOKEN\" | onetap gateway exchange cmcc --config FILE --token -) (see 'onetap gateway --help')"),
        (["gateway", "verify", "cmcc", "--config", "g.json", "--token=STsid0000001517196594066OHmZv", "--number", "13800138000"],
         "onetap: error: --token takes - and reads the token from standard input: a token on the command line can be read by every user of this machine "
            + "(printf '%s\\n' \"$TOKEN\" | onetap gateway verify cmcc --config FILE --token -) (see 'onetap gateway --help')"),
        (["gateway", "exchange", "cmcc", "STsid0000001517196594066OHmZv", "--config", "g.json", "--token", "-"],
         "onetap: error: gateway exchange takes one gateway and options; one operand too many (see 'onetap gateway --help')"),
    ])
    func aTokenOnTheCommandLineIsRefused(arguments: [String], message: String) async {
        let (code, io) = await runInProcess(arguments)
        #expect(code == .usage)
        #expect(io.output.isEmpty)
        #expect(io.errors == [message])
        #expect(!io.errors.joined().contains("STsid0000001517196594066OHmZv"))
    }

    @Test func noTokenOnStandardInputIsAUsageError() async {
        let (code, io) = await runInProcess(["gateway", "exchange", "cmcc", "--config", "g.json", "--token", "-"], stdin: Array("\n".utf8))
        #expect(code == .usage)
        #expect(io.errors == ["onetap: error: --token - reads the token from standard input, which held none (see 'onetap gateway --help')"])
    }

    /// Whole occurrences of a short secret are hidden, parts of longer words and numbers are not; a token (longer than 8
    /// characters) is hidden wherever it stands, inside another word too (a review: a vendor's `token%3D…` echo showed
    /// it); a short one after a percent-escape (`%3D`) stands alone too. Values written here by hand.
    @Test(arguments: [
        ("STsid0000001", "token%3DSTsid0000001&x=1", "token%3D<redacted>&x=1"),
        ("12345678", "id 123456789", "id 123456789"),
        ("503", "HTTP status 503", "HTTP status <redacted>"),
        ("50", "HTTP status 503", "HTTP status 503"),
        ("482913", "code 482913, again 482913.", "code <redacted>, again <redacted>."),
        ("4829", "id x4829 and 4829y and (4829)", "id x4829 and 4829y and (<redacted>)"),
        ("tok-en", "tok-en", "<redacted>"),
        // A short code after a percent-escape stands alone (a re-read: a vendor's `code%3D482913` echo showed it).
        ("482913", "code%3D482913&x=1", "code%3D<redacted>&x=1"),
        ("482913", "a%2c482913", "a%2c<redacted>"),
        ("4829", "x%3G4829 and %34829", "x%3G4829 and %34829"),
    ])
    func redactionHidesWholeOccurrences(secret: String, line: String, expected: String) {
        #expect(GatewayCommand.redacting(secret, in: line) == expected)
    }
}
