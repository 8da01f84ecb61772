/// One step of a login's trace: a flow attempted (or skipped), what came back, and what was decided.
/// The trace answers "why did this user get SMS?".
package struct LoginStep: Hashable, Sendable, CustomStringConvertible {
    /// What came back from the flow, or from the server's exchange of its token.
    package enum Answer: Hashable, Sendable, CustomStringConvertible {
        /// The SDK's result code.
        case code(ResultCode)
        /// The flow did not answer within its time limit.
        case timeout
        /// The provider failed (it threw, or its answer made no sense).
        case providerError(String)
        /// A success code without the pieces the flow promises (a token, China Mobile's uniqueid).
        case incomplete(code: ResultCode, missing: String)
        /// The user chose SMS ("other login method") without a code saying so.
        case switched
        /// The login was abandoned without a code.
        case abandoned(CancelReason)
        /// The flow was not tried: its channel's circuit is open.
        case circuitOpen
        /// The flow was not tried: no provider can run it now (none is configured, or its SDK still runs an earlier
        /// call a login gave up on).
        case unavailable
        /// The server's exchange of the flow's token answered with a code.
        case exchangeCode(ResultCode)
        /// The exchange gave no answer in time: its result is unknown (it may have been billed and spent).
        case exchangeTimeout
        /// The exchange call failed (network, provider fault).
        case exchangeFailed(String)
        /// The token was older than its lifetime, so it was not sent to the paid exchange.
        case tokenExpired
        /// The token had been exchanged already (a replay), so it was not sent again.
        case tokenReplayed

        /// The code as printed in traces and JSON: the SDK's code, or `timeout`, `provider-error`,
        /// `exchange-104201`, `exchange-timeout`, …
        ///
        /// Every result has its own text, so a trace read back names the same results: a code whose text
        /// would read as another result (an SDK code `timeout` or `exchange-1`, an exchange code
        /// `failed`) is written after the mark `code:` (`code:timeout`, `code:exchange-1`,
        /// `exchange-code:failed`), as is a code that starts with the mark itself. Codes that start with a
        /// digit or `-`, as every carrier's do, are written as they are.
        package var code: String {
            switch self {
            case .code(let code), .incomplete(let code, _): Self.marked(code.text, exchange: false)
            case .exchangeCode(let code): Self.exchangePrefix + Self.marked(code.text, exchange: true)
            case .timeout: "timeout"
            case .providerError: "provider-error"
            case .switched: "switch"
            case .abandoned(let reason): reason == .user ? "cancelled" : reason == .caller ? "caller-cancelled" : "no-phone-number"
            case .circuitOpen: "circuit-open"
            case .unavailable: "unavailable"
            case .exchangeTimeout: "exchange-timeout"
            case .exchangeFailed: "exchange-failed"
            case .tokenExpired: "token-expired"
            case .tokenReplayed: "token-replayed"
            }
        }

        /// Every result that carries no code, by its ``code`` text (a message read back is put in
        /// after the lookup).
        private static let fixedByText: [String: Answer] = {
            let fixed: [Answer] = [.timeout, .providerError(""), .switched, .circuitOpen, .unavailable, .exchangeTimeout, .exchangeFailed(""), .tokenExpired, .tokenReplayed]
                + CancelReason.allCases.map { .abandoned($0) }
            return Dictionary(uniqueKeysWithValues: fixed.map { ($0.code, $0) })
        }()

        /// The result that carries no code whose text is `text`, with its message, or nil.
        private static func fixed(_ text: String, detail: String?) -> Answer? {
            switch fixedByText[text] {
            case .providerError?: .providerError(detail ?? "")
            case .exchangeFailed?: .exchangeFailed(detail ?? "")
            case let result: result
            }
        }

        /// What an exchange code is written after: `exchange-`.
        private static let exchangePrefix = "exchange-"
        /// What a code that would read as another result is written after: `code:`.
        private static let mark = "code:"

        /// Whether text could be a fixed text, the exchange prefix or the mark: only if it starts with
        /// an ASCII letter (carrier codes start with a digit or `-`).
        @inline(__always)
        private static func startsWithLetter(_ text: some StringProtocol) -> Bool {
            guard let first = text.utf8.first else { return false }
            return (first | 0x20) &- UInt8(ascii: "a") < 26
        }

        /// A code's text as written: after ``mark`` when it would otherwise read as another result.
        /// - Parameters:
        ///   - text: The code's text.
        ///   - exchange: Whether it follows `exchange-` (an exchange code).
        /// - Returns: The text to write.
        private static func marked(_ text: String, exchange: Bool) -> String {
            guard startsWithLetter(text) else { return text }
            let ambiguous = after(mark, in: text) != nil
                || (exchange ? fixed(exchangePrefix + text, detail: nil) != nil : fixed(text, detail: nil) != nil || after(exchangePrefix, in: text) != nil)
            return ambiguous ? mark + text : text
        }

        /// What follows `prefix` when `text` starts with its bytes (compared as bytes, not as characters,
        /// so that a combining mark after the prefix does not hide it), or nil.
        private static func after(_ prefix: String, in text: some StringProtocol) -> Substring? {
            guard text.utf8.starts(with: prefix.utf8) else { return nil }
            let text = Substring(text)
            return text[text.utf8.index(text.utf8.startIndex, offsetBy: prefix.utf8.count)...]
        }

        /// The code after ``mark``, or nil when the text does not start with it (or no code follows).
        private static func unmarked(_ text: some StringProtocol) -> ResultCode? {
            after(mark, in: text).flatMap { ResultCode(parsing: String($0)) }
        }

        /// A readable form, for messages and logs.
        package var description: String {
            switch self {
            case .code(let code): "\(code)"
            case .timeout: "timeout"
            case .providerError(let message): "provider error: \(message)"
            case .incomplete(let code, let missing): "\(code) without \(missing)"
            case .switched: "the user chose SMS"
            case .abandoned(.user): "the user backed out"
            case .abandoned(.noPhoneNumber): "no phone number given"
            case .abandoned(.caller): "the caller stopped waiting"
            case .circuitOpen: "skipped: circuit open"
            case .unavailable: "skipped: no provider"
            case .exchangeCode(let code): "exchange answered \(code)"
            case .exchangeTimeout: "exchange timed out"
            case .exchangeFailed(let message): "exchange failed: \(message)"
            case .tokenExpired: "token too old to exchange"
            case .tokenReplayed: "token already exchanged"
            }
        }

        /// The text a result carries beside its code (a provider's message, what was missing).
        package var detail: String? {
            switch self {
            case .providerError(let message), .exchangeFailed(let message): message
            case .incomplete(_, let missing): missing
            default: nil
            }
        }

        /// The message for a code that is no step result.
        static func unknown(_ code: String) -> String { "not a step result: \(QuotedInput(code))" }

        /// Reads back what ``code`` and ``detail`` wrote.
        /// - Parameters:
        ///   - code: The code's text.
        ///   - detail: The text beside it, if any.
        package init?(code: String, detail: String?) {
            if !Self.startsWithLetter(code) {
                // A carrier's code (`103000`, `-8100`): the common case, no lookup.
            } else if let value = Self.unmarked(code) {
                self = detail.map { .incomplete(code: value, missing: $0) } ?? .code(value)
                return
            } else if let result = Self.fixed(code, detail: detail) {
                self = result
                return
            } else if let rest = Self.after(Self.exchangePrefix, in: code) {
                if let value = Self.unmarked(rest) ?? ResultCode(parsing: String(rest)) {
                    self = .exchangeCode(value)
                    return
                }
            }
            guard let value = ResultCode(parsing: code) else { return nil }
            self = detail.map { .incomplete(code: value, missing: $0) } ?? .code(value)
        }
    }

    /// The flow.
    package let flow: LoginFlow
    /// Which attempt of the flow, from 1 (0 for a skipped flow).
    package let attempt: Int
    /// What came back.
    package let result: Answer
    /// The action it led to.
    package let action: OutcomeAction
    /// What the result means.
    package let meaning: String
    /// What was decided next.
    package let next: Decision.Step

    /// Creates a step.
    package init(flow: LoginFlow, attempt: Int, result: Answer, action: OutcomeAction, meaning: String, next: Decision.Step) {
        self.flow = flow
        self.attempt = attempt
        self.result = result
        self.action = action
        self.meaning = meaning
        self.next = next
    }

    /// `mobile 200023 → retry (…) ⇒ retry mobile`.
    package var description: String { "\(flow) \(result) → \(action) (\(meaning)) ⇒ \(next)" }
}

/// An operator alert: a code said our own configuration is wrong (credentials, signature, whitelist,
/// quota). The user was moved on; someone should fix the configuration.
package struct LoginAlert: Hashable, Sendable, CustomStringConvertible {
    /// The flow.
    package let flow: LoginFlow
    /// The code: the SDK's, or `exchange-…` for the server's exchange.
    package let code: String
    /// What it means.
    package let meaning: String

    /// Creates an alert.
    package init(flow: LoginFlow, code: String, meaning: String) {
        self.flow = flow
        self.code = code
        self.meaning = meaning
    }

    /// `mobile 103101: …`.
    package var description: String { "\(flow) \(code): \(meaning)" }
}
