import Foundation
import OneTap
import OneTapSupport

/// `onetap gateway …` runs in `onetap-gateway`, the tool built beside `onetap`: it links OpenSSL's libcrypto (through
/// OneTapGateways), which `onetap` itself does not. This side checks the arguments (so a usage error reads as every
/// other command's), reads the token from standard input, runs the tool with the arguments in one form and the token
/// on its standard input, and passes on its output, errors and exit status.
enum GatewayCommand: CommandDescription {
    static let name = "gateway"
    static let summary = "check the vendors' gateways' configuration, show what they sign, make one real call"
    static let help = """
        USAGE: onetap gateway check --config FILE [--json]
               onetap gateway sign GATEWAY --config FILE [--field NAME=VALUE]... [--field SECRET=-] [--json]
               onetap gateway exchange GATEWAY --config FILE --token - [--flow F] [--json]
               onetap gateway verify GATEWAY --config FILE --token - --number N [--flow F] [--json]
               onetap gateway sms GATEWAY --config FILE --to N --param - [--json]

        FILE is the gateways' configuration (one JSON object, one member per gateway keyed by its
        name: cmcc, tianyi, aliyun-pnvs, jverification, shanyan, yidun, aliyun-sms, tencent-sms,
        tencent-captcha, geetest), each secret as {"env": "NAME"} or {"file": "PATH"}, never a literal.

        check builds every gateway in FILE offline: each field read, each secret's variable or file
        read, each key parsed (a PKCS#1 key where PKCS#8 is needed is named, with the openssl command
        that converts it), and no call made. It prints one line per gateway, "cmcc  ok  appid
        300011111111, MD5 sign, www.cmpassport.com/unisdk/rsapi/loginTokenValidate (exchange)" (what
        it does in brackets: exchange, verify, sms, captcha, refresh) or "cmcc  error  cmcc:
        misconfigured: appSecret names the environment variable CMCC_SECRET, which is not set"
        (the gateway, the field and the fix). JSON fields: config, ok, gateways (gateway, ok, does,
        and summary when ok, error when not).

        sign prints the exact string a gateway signs, each secret shown as <appSecret>, and the
        signature, to set beside what the vendor's support says when it answers "sign error". It
        sends nothing. --field NAME=VALUE sets one of the request's values (cmcc: token, msgid,
        systemtime; tianyi: accessToken, timeStamp); the others are made as a call makes them (the
        clock's time, a fresh msgid). A secret field (token, accessToken, refreshToken, ticket,
        code) takes - and its value from standard input (--field token=-: one line each, in the
        order given), never from the command line, and is shown by its name (<token>) where it
        stands in the string signed. JSON
        fields: gateway, algorithm, stringToSign, signature.

        exchange, verify and sms make one real call to the vendor (or to FILE's "url" for the
        gateway). The token is read from standard input (--token -, one line), never from the
        command line, which every user of the machine can read: a literal --token VALUE is refused.
        onetap passes it to onetap-gateway on its standard input too, and nothing prints it.
        exchange prints the code, its action and meaning from Data/exchange-codes.csv for that
        gateway, and the number masked (138****8000); JSON fields: gateway, flow, code, action,
        alert, meaning, meaningZh, number (absent when the answer has none). verify prints the code, its
        verdict (pass, reject, unknown) and meaning from Data/verification-codes.csv for that gateway,
        and the number masked; JSON fields: gateway, flow, code, verdict, meaning, meaningZh (absent
        when the table quotes no Chinese text), number.
        sms is a test send: --to gets the template with the code read from standard input (--param -,
        one line; a literal --param VALUE is refused, as a literal --token is) as its code (the value
        the template's code placeholder gets: use a test code, never one a user must type); it prints the outcome
        (sent, number-rejected, throttled, failed), the vendor's code and its meaning, and the number
        masked; JSON fields: gateway, outcome, code and meaning (absent when sent), number.
        --flow (exchange, verify) names the carrier whose SIM made the token: mobile, tianyi or
        unicom. The aggregators (aliyun-pnvs, jverification, shanyan, yidun) take all three (mobile
        when --flow is absent) and their code is read from that flow's rows; cmcc takes mobile
        tokens and tianyi tianyi tokens only (another --flow is a usage error).

        Each command runs onetap-gateway, built beside onetap (the one tool that links libcrypto).

        EXIT STATUS: 0 all ok (check), shown (sign), success (exchange), pass (verify), sent (sms);
        1 the vendor answered an error (an exchange code whose action is not success, a verify
        reject or unknown, an SMS refused); 64 usage error (a literal --token or --param, a gateway that is
        not built in or does not do the action, a --field the gateway does not sign); 65 a
        malformed answer (not JSON, a wrong content type, an HTTP error status, a body too long),
        or a --token the gateway's request cannot carry;
        69 the vendor cannot be reached, did not answer within the gateway's time-out, or got the
        request twice and its first answer was lost; 70 onetap-gateway crashed (stopped by
        another signal); 74 the output cannot be written; 78 FILE cannot be read or is not a
        configuration, or a gateway in it is misconfigured; 129, 130, 143 onetap-gateway stopped
        by SIGHUP, SIGINT or SIGTERM (sent to onetap, they are passed on to onetap-gateway, and
        onetap then ends by the same signal).

        EXAMPLE: CMCC_APP_SECRET=… onetap gateway check --config gateways.json
        EXAMPLE: onetap gateway sign cmcc --config gateways.json --field msgid=1 --field systemtime=20261203103000000
        EXAMPLE: printf '%s\\n' "$TOKEN" | onetap gateway exchange cmcc --config gateways.json --token - --json
        EXAMPLE: printf '%s\\n' "$TOKEN" | onetap gateway exchange aliyun-pnvs --config gateways.json --token - --flow unicom
        EXAMPLE: printf '%s\\n' 482913 | onetap gateway sms aliyun-sms --config gateways.json --to 13800138000 --param -
        """
    static let options: [OptionSpec] = [
        .value("config"), .flag("json"), .value("field", repeatable: true), .value("token"), .value("number"), .value("to"), .value("param"), .value("flow"),
    ]

    static func parse(_ arguments: ParsedArguments) throws(UsageError) -> GatewayOptions {
        let actions = GatewayOptions.Action.allCases.map(\.rawValue).joined(separator: ", ")
        guard let first = arguments.operands.first else {
            throw UsageError("gateway needs an action: \(actions)", command: name)
        }
        guard let action = GatewayOptions.Action(rawValue: first) else {
            throw UsageError("unknown gateway action \(quotedAction(first)); the actions are \(actions)", command: name)
        }
        let rest = arguments.operands.dropFirst()
        var gateway: String? = nil
        if action != .check {
            guard let given = rest.first else {
                throw UsageError("gateway \(action.rawValue) needs a gateway: onetap gateway \(action.rawValue) cmcc --config FILE …", command: name)
            }
            guard !given.isEmpty, given.utf8.count <= 32, given.utf8.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D }) else {
                throw UsageError("a gateway is named in lower-case letters, digits and '-' (cmcc, aliyun-sms)", command: name)
            }
            gateway = given
        }
        // An extra operand is never quoted: it may be a token given where --token - belongs.
        if rest.count > (action == .check ? 0 : 1) {
            throw UsageError("gateway \(action.rawValue) takes \(action == .check ? "no operand" : "one gateway") and options; one operand too many", command: name)
        }
        guard let config = arguments.value("config") else {
            throw UsageError("gateway \(action.rawValue) needs --config FILE, the gateways' configuration", command: name)
        }
        let allowed: [GatewayOptions.Action: Set<String>] = [.sign: ["field"], .exchange: ["token", "flow"], .verify: ["token", "number", "flow"], .sms: ["to", "param"]]
        for option in ["field", "token", "number", "to", "param", "flow"] where arguments.values[option] != nil && !(allowed[action]?.contains(option) ?? false) {
            throw UsageError("--\(option) is not an option of gateway \(action.rawValue)", command: name)
        }
        let fields = arguments.values["field"] ?? []
        var named = Set<String>()
        for pair in fields {
            guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                throw UsageError("--field takes NAME=VALUE (--field msgid=1)", command: name)
            }
            // A secret field's value is never quoted back: it may be a live token.
            let field = String(pair[..<equals])
            guard named.insert(field).inserted else { throw UsageError("--field \(QuotedInput.nameOrLength(field)) is given twice; give each field once", command: name) }
            if !GatewaySecretFields.mayBeGiven(field, as: pair[pair.index(after: equals)...]) {
                throw UsageError(
                    "--field \(field) takes - and reads the value from standard input: a secret on the command line can be read by every user of this machine "
                        + "(printf '%s\\n' \"$TOKEN\" | onetap gateway sign \(gateway ?? "cmcc") --config FILE --field \(field)=-)",
                    command: name)
            }
        }

        if action == .exchange || action == .verify {
            guard let token = arguments.value("token") else {
                throw UsageError("gateway \(action.rawValue) needs the token on standard input: --token -", command: name)
            }
            guard token == "-" else {
                throw UsageError(
                    "--token takes - and reads the token from standard input: a token on the command line can be read by every user of this machine "
                        + "(printf '%s\\n' \"$TOKEN\" | onetap gateway \(action.rawValue) \(gateway ?? "cmcc") --config FILE --token -)",
                    command: name)
            }
        }
        // Read as the library reads a number (`+86 138 0013 8000` too), and passed on as its 11 digits.
        func mobile(_ option: String) throws(UsageError) -> String? {
            guard let value = arguments.value(option) else { return nil }
            do { return String(try PhoneNumber(value).value) } catch {
                throw UsageError("--\(option) takes a mainland mobile number (13800138000): \(error.reason)", command: name)
            }
        }
        let number = try mobile("number"), to = try mobile("to")
        if action == .verify, number == nil { throw UsageError("gateway verify needs --number N, the number to verify", command: name) }
        if action == .sms {
            guard to != nil, let param = arguments.value("param") else {
                throw UsageError("gateway sms needs --to N and the code the template gets on standard input: --param -", command: name)
            }
            guard param == "-" else {
                throw UsageError(
                    "--param takes - and reads the code from standard input: a code on the command line can be read by every user of this machine "
                        + "(printf '%s\\n' \"$CODE\" | onetap gateway sms \(gateway ?? "aliyun-sms") --config FILE --to N --param -)",
                    command: name)
            }
        }
        var flow: LoginFlow? = nil
        if let text = arguments.value("flow") {
            guard let named = LoginFlow(rawValue: text), named.isOneTap else {
                throw UsageError("--flow takes mobile, tianyi or unicom (the carrier whose SIM made the token); got \(quoted(text))", command: name)
            }
            flow = named
        }
        return GatewayOptions(
            action: action, gateway: gateway, config: config, json: arguments.has("json"), fields: fields, number: number, to: to, flow: flow)
    }

    /// The tool `onetap gateway` runs.
    static let tool = SiblingTool(name: "onetap-gateway", command: name)

    /// Runs `onetap-gateway` with the options, the token (or SMS code) on its standard input.
    /// - Returns: The tool's exit status.
    /// - Throws: ``CommandFailure``: 64 when `--token -` finds no token on standard input, 69 when the tool is
    ///   missing or cannot start, 70 when a signal stopped it (a crash), 129, 130 or 143 when `SIGHUP`, `SIGINT` or
    ///   `SIGTERM` did.
    static func run(_ options: GatewayOptions, output: OutputBuffer, io: any CommandIO) async throws(CommandFailure) -> ExitCode {
        var secrets: [String] = []  // what the tool reads on standard input: the token, the code, or sign's fields given as `-`
        switch options.action {
        case .exchange, .verify:
            guard let token = try SiblingTool.readLine(io) else {
                throw CommandFailure(message: "--token - reads the token from standard input, which held none (see 'onetap gateway --help')", code: .usage)
            }
            secrets = [token]
        case .sms:
            guard let code = try SiblingTool.readLine(io), !code.isEmpty else {
                throw CommandFailure(message: "--param - reads the code from standard input, which held none (see 'onetap gateway --help')", code: .usage)
            }
            secrets = [code]
        case .sign:
            for field in options.fields where GatewayOptions.readsStandardInput(field) {
                guard let value = try SiblingTool.readLine(io), !value.isEmpty else {
                    throw CommandFailure(
                        message: "--field \(field) reads its value from standard input (one line each field given as -, in order), which held none (see 'onetap gateway --help')",
                        code: .usage)
                }
                secrets.append(value)
            }
        case .check: break
        }
        let input = Data(secrets.map { $0 + "\n" }.joined().utf8)
        // The longest first: a secret inside another (a token inside an access token) is hidden whole.
        let hidden = secrets.filter { !$0.isEmpty }.sorted { $0.count > $1.count }
        let redact: (String) -> String = { line in hidden.reduce(line) { redacting($1, in: $0) } }
        return try await tool.run(options.toolArguments, input: input, output: output, io: io, redactingOutput: redact, redacting: redact)
    }

    /// `line` with each occurrence of `secret` replaced by `<redacted>`. A secret longer than 8 characters (a token) is
    /// hidden wherever it stands, inside another word too (a vendor's `token%3D…` echo); a short one (an SMS code,
    /// `503`) only where no letter or digit touches it on either side (a percent-escape before it, `%3D`, counts as
    /// none), so it leaves "HTTP status 5031" or a longer number alone (the tool never prints the code inside another
    /// word or number).
    /// - Parameters:
    ///   - secret: The token or code (not empty).
    ///   - line: A line the tool printed.
    /// - Returns: The line, redacted.
    static func redacting(_ secret: String, in line: String) -> String {
        var out = ""
        var rest = line[...]
        while let found = rest.range(of: secret) {
            // A percent-escape just before it (`code%3D482913`) ends the word before, as a `=` would.
            let escape = line[..<found.lowerBound].suffix(3)
            let escaped = escape.count == 3 && escape.first == "%" && escape.dropFirst().allSatisfy(\.isHexDigit)
            let before = found.lowerBound > line.startIndex && !escaped ? line[line.index(before: found.lowerBound)] : nil
            let after = found.upperBound < line.endIndex ? line[found.upperBound] : nil
            let whole = secret.count > 8 || ![before, after].contains { $0.map { $0.isLetter || $0.isNumber } ?? false }
            out += rest[..<found.lowerBound]
            out += whole ? "<redacted>" : String(line[found])
            rest = line[found.upperBound...]
        }
        return out + rest
    }
}
