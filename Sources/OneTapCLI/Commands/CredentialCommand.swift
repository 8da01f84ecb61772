import Foundation
import OneTap

/// `onetap credential inspect - [--keys FILE] [--now ISO8601] [--json]`. The token is a secret, so it is
/// only ever read from standard input, never from the command line; the options hold none.
package struct CredentialOptions: Hashable, Sendable, CustomStringConvertible {
    /// `--keys`, as given; `ONETAP_SERVER_KEYS` when absent.
    package var keysFile: String?
    /// `--now`, as given (the current time when absent).
    package var now: String?
    /// Whether to print JSON.
    package var json: Bool

    /// `CredentialOptions(inspect -, keys $ONETAP_SERVER_KEYS, now now, json false)`.
    package var description: String {
        "CredentialOptions(inspect -, keys \(keysFile ?? "$ONETAP_SERVER_KEYS"), now \(now ?? "now"), json \(json))"
    }
}

/// `onetap credential inspect`: checks an app access token with the server's keys.
enum CredentialCommand: CommandDescription {
    static let name = "credential"
    static let summary = "check an app access token with the server's keys"
    static let help = """
        USAGE: onetap credential inspect - [--keys FILE] [--now ISO8601] [--json]

        Checks an access token the auth server issued to an app (ota2.…, or ota1.… issued
        before format 2): its format, the key that signed it, its signature and its expiry,
        with the keys of ONETAP_SERVER_KEYS or of FILE (one id:base64 entry per line, the
        signing key first; # starts a comment). Prints the verdict (valid, expired,
        bad-signature, unknown-key, malformed) and, for a token whose signature checked out, its
        claims: app session, guest or account, key, login epoch (format 2), issued, expires.
        Never prints the token or a key.

        The token is read from the first line of standard input (-), never from the command line,
        which every user of the machine can read while the command runs (and the shell's history
        keeps): a token given there is refused. --now judges expiry at another time (default: the
        current time).

        JSON fields: verdict, reason (malformed), key, session, kind (guest or account),
        subject, epoch (format 2: the session's login epoch, seconds since 1970, 0 before any
        login), issuedAt, expiresAt.

        EXIT STATUS: 0 valid; 1 not valid (expired, bad-signature, unknown-key); 65 malformed
        (the token, or the keys); 64 usage error (no keys given, a token on the command line); 66 the key file cannot be read.

        EXAMPLE: printf '%s\\n' "$TOKEN" | onetap credential inspect - --keys /etc/onetap/keys
        """
    static let options: [OptionSpec] = [.value("keys"), .value("now"), .flag("json")]

    static func parse(_ arguments: ParsedArguments) throws(UsageError) -> CredentialOptions {
        guard let action = arguments.operands.first else {
            throw UsageError("credential needs an action: onetap credential inspect -", command: name)
        }
        guard action == "inspect" else {
            throw UsageError("unknown credential action \(quotedAction(action)); the actions are inspect", command: name)
        }
        let operands = arguments.operands.dropFirst()
        guard let token = operands.first else {
            throw UsageError("credential inspect needs -, to read the token from standard input", command: name)
        }
        if operands.count > 1 {
            throw UsageError("credential inspect takes one token, not \(operands.count)", command: name)
        }
        guard token == "-" else {
            throw UsageError(
                "credential inspect reads the token from standard input (-): a token on the command line can be read by every user of this machine "
                    + "(printf '%s\\n' \"$TOKEN\" | onetap credential inspect -)",
                command: name)
        }
        return CredentialOptions(keysFile: arguments.value("keys"), now: arguments.value("now"), json: arguments.has("json"))
    }

    /// Prints the verdict and the claims.
    /// - Returns: 0 valid, 1 not valid, 65 malformed.
    /// - Throws: ``CommandFailure``: 64 without keys, 65 for malformed keys or `--now`, 66 for an unreadable key file.
    static func run(_ options: CredentialOptions, output: OutputBuffer, io: any CommandIO) throws(CommandFailure) -> ExitCode {
        let ring = try keys(options, io: io)
        let now: Date
        do {
            now = try options.now.map(Timestamp.parse) ?? io.clock.now()
        } catch {
            throw CommandFailure(error)
        }
        let token = try firstLine(io)
        let verdict = ring.verifyAccessToken(token, at: now)
        let claims: AccessClaims?
        switch verdict {
        case .valid(let read), .expired(let read): claims = read
        default: claims = nil
        }
        if options.json {
            var object = JSONObject()
            object.add("verdict", verdict.name)
            if case .malformed(let reason) = verdict { object.add("reason", reason) }
            if case .unknownKey(let id) = verdict { object.add("key", id.text) }
            if let claims {
                object.add("key", claims.keyID.text)
                object.add("session", claims.session.text)
                switch claims.identity {
                case .guest(let guest):
                    object.add("kind", "guest")
                    object.add("subject", guest.text)
                case .account(let account):
                    object.add("kind", "account")
                    object.add("subject", account.rawValue)
                }
                if let epoch = claims.epoch { object.add("epoch", epoch) }
                object.add("issuedAt", Timestamp.format(claims.issuedAt))
                object.add("expiresAt", Timestamp.format(claims.expiresAt))
            }
            output.line(object.json)
        } else {
            switch verdict {
            case .malformed(let reason): output.line("verdict:      malformed: \(reason)")
            case .unknownKey(let id): output.line("verdict:      unknown-key (\(id) is not among the keys: \(ring.ids.map(\.text).joined(separator: ", ")))")
            default: output.line("verdict:      \(verdict.name)")
            }
            if let claims {
                output.line("""
                    app session:  \(claims.session)
                    identity:     \(claims.identity)
                    key:          \(claims.keyID)\(claims.epoch.map { "\nlogin epoch:  \($0)" } ?? "")
                    issued at:    \(Timestamp.format(claims.issuedAt))
                    expires at:   \(Timestamp.format(claims.expiresAt))
                    """)
            }
        }
        switch verdict {
        case .valid: return .success
        case .malformed: return .dataError
        case .expired, .badSignature, .unknownKey: return .failed
        }
    }

    /// The key ring of `--keys FILE` or `ONETAP_SERVER_KEYS`.
    private static func keys(_ options: CredentialOptions, io: any CommandIO) throws(CommandFailure) -> ServerKeyRing {
        let text: String
        let source: String
        if let path = options.keysFile {
            source = quoted(path)
            let bytes: [UInt8]
            do {
                bytes = try FileBytes.read(path: path, limit: 64 << 10)
            } catch where error.code == EFBIG {
                throw CommandFailure(message: "the key file \(quoted(path)) is larger than any key ring (64 KiB)", code: .dataError)
            } catch {
                throw CommandFailure(message: "cannot read the key file \(quoted(path)): \(error.reason)", code: .noInput)
            }
            guard let decoded = String(validating: bytes, as: UTF8.self) else {
                throw CommandFailure(message: "the key file \(quoted(path)) is not UTF-8 text", code: .dataError)
            }
            text = decoded
        } else if let variable = io.environment("ONETAP_SERVER_KEYS"), !variable.isEmpty {
            source = "ONETAP_SERVER_KEYS"
            text = variable
        } else {
            throw CommandFailure(
                message: "credential inspect needs the server's keys: set ONETAP_SERVER_KEYS or give --keys FILE (one id:base64 per line)",
                code: .usage)
        }
        do {
            return try ServerKeyRing(parsing: Secret(text))
        } catch {
            throw CommandFailure(message: "the keys of \(source): \(error)", code: .dataError)
        }
    }

    /// The first line of standard input, without its line break and surrounding blanks.
    private static func firstLine(_ io: any CommandIO) throws(CommandFailure) -> String {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while bytes.count <= 8192, !bytes.contains(UInt8(ascii: "\n")) {
            let count = buffer.withUnsafeMutableBytes { io.readInput(into: $0) }
            if count < 0 { throw CommandFailure(message: "cannot read the token from standard input", code: .noInput) }
            if count == 0 { break }
            bytes.append(contentsOf: buffer[0..<count])
        }
        let line = bytes.split(separator: UInt8(ascii: "\n"), maxSplits: 1, omittingEmptySubsequences: false).first ?? []
        return String(decoding: line, as: UTF8.self).trimmingCharacters(in: " \t\r")
    }
}
