import Foundation
import OneTap

/// `onetap token`: the state of a token issued at a given time, by the default token policy.
package struct TokenOptions: Hashable, Sendable {
    /// `--issued`, as given.
    package var issued: String
    /// `--expires-in`, as given.
    package var expiresIn: String?
    /// `--lifetime`, as given.
    package var lifetime: String?
    /// `--now`, as given (the current time when absent).
    package var now: String?
    /// Whether to print JSON.
    package var json: Bool
}

/// `onetap token --issued …`: a token's state, and when it turns stale and expires.
enum TokenCommand: CommandDescription {
    static let name = "token"
    static let summary = "when a carrier access token turns stale and expires"
    static let help = """
        USAGE: onetap token --issued ISO8601 [--expires-in SECONDS | --lifetime DURATION]
                            [--now ISO8601] [--json]

        The state of a token received at --issued, by the default policy: fresh (use it), stale
        (use it and refresh now: from min(24h, lifetime/2) of age, or min(7d, lifetime/4) before
        expiry) or expired (60 s before expiry, for clock skew). --expires-in is the provider's
        lifetime in seconds; --lifetime takes 30d, 12h, 90m or 45s; the default is 30 days.
        --now defaults to the current time.

        JSON fields: state, issuedAt, expiresAt, refreshFrom, remainingSeconds.

        EXAMPLE: onetap token --issued 2026-11-01T00:00:00Z --now 2026-11-15T00:00:00Z --json
        """
    static let options: [OptionSpec] = [.value("issued"), .value("expires-in"), .value("lifetime"), .value("now"), .flag("json")]

    static func parse(_ arguments: ParsedArguments) throws(UsageError) -> TokenOptions {
        guard let issued = arguments.value("issued") else {
            throw UsageError("token needs --issued ISO8601, the time the token was received", command: name)
        }
        if arguments.value("expires-in") != nil && arguments.value("lifetime") != nil {
            throw UsageError("give --expires-in or --lifetime, not both", command: name)
        }
        if let operand = arguments.operands.first {
            throw UsageError("token takes options only; unexpected \(quotedAction(operand))", command: name)
        }
        return TokenOptions(
            issued: issued, expiresIn: arguments.value("expires-in"), lifetime: arguments.value("lifetime"), now: arguments.value("now"),
            json: arguments.has("json"))
    }

    /// Prints the token's state by the default policy.
    /// - Returns: 0; a malformed time or lifetime (65) is thrown.
    static func run(_ options: TokenOptions, output: OutputBuffer, io: any CommandIO) throws(CommandFailure) -> ExitCode {
        let issued: Date
        let now: Date
        let lifetime: Double
        do {
            issued = try Timestamp.parse(options.issued)
            now = try options.now.map(Timestamp.parse) ?? io.clock.now()
            if let text = options.lifetime {
                lifetime = Double(try DurationText.seconds(text, in: 1...ExpiresIn.maximum, bounds: "a token lifetime is 1 second to ten years"))
            } else {
                lifetime = TokenPolicy().lifetime(given: try options.expiresIn.map { text throws(ParseError) in try ExpiresIn(text) })
            }
        } catch {
            throw CommandFailure(error)
        }
        guard issued.addingTimeInterval(lifetime).timeIntervalSince1970 * 1000 <= Double(Timestamp.latest) else {   // the one time model's bound
            throw CommandFailure(message: "the token would expire after 9999-12-31; give an earlier --issued or a shorter lifetime", code: .dataError)
        }
        let policy = TokenPolicy()
        let token = AccessToken(
            value: Secret(""), refreshToken: nil, flow: .tianyi, account: "cli", issuedAt: issued, expiresAt: issued.addingTimeInterval(lifetime))
        let state = policy.state(of: token, at: now)
        let remaining = Int64(token.expiresAt.timeIntervalSince(now).rounded(.towardZero))
        if options.json {
            var object = JSONObject()
            object.add("state", state.rawValue)
            object.add("issuedAt", Timestamp.format(token.issuedAt))
            object.add("expiresAt", Timestamp.format(token.expiresAt))
            object.add("refreshFrom", Timestamp.format(policy.refreshFrom(token)))
            object.add("remainingSeconds", remaining)
            output.line(object.json)
        } else {
            output.line("""
                state:         \(state)
                issued at:     \(Timestamp.format(token.issuedAt))
                expires at:    \(Timestamp.format(token.expiresAt))
                refresh from:  \(Timestamp.format(policy.refreshFrom(token)))
                expired from:  \(Timestamp.format(policy.expiredFrom(token)))
                remaining:     \(remaining < 0 ? "none: expired \(DurationText.describe(-remaining)) ago" : DurationText.describe(remaining)) (\(remaining) s)
                """)
        }
        return .success
    }
}
