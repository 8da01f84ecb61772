/// The rules of the server's token exchange, configured once: what the exchange's codes mean
/// (`Data/exchange-codes.csv`) and how long a one-tap token may be exchanged (`Data/token-lifetimes.csv`).
///
/// One value holds both tables, and the session machine holds that value
/// (``LoginSessionMachine/exchanges``): the machine classifies the exchange's answers by it, and the
/// guard around the paid call (`ExchangeGuard` in `OneTap`) is handed the same value by whoever asks it
/// to exchange (`LoginServer` and `LoginCoordinator` pass their machine's). The guard holds no tables of
/// its own, so the token-age check and the reading of an answer cannot follow other tables than the
/// classification.
public struct ExchangeRules: Sendable {
    /// The exchange's codes.
    package var codes: ExchangeCodeTable
    /// The tokens' lifetimes.
    package var lifetimes: TokenLifetimeTable

    /// The built-in tables.
    package static let builtIn = ExchangeRules()

    /// Creates exchange rules; the built-in tables by default.
    /// - Parameters:
    ///   - codes: The exchange's codes.
    ///   - lifetimes: The tokens' lifetimes.
    public init(codes: ExchangeCodeTable = .builtIn, lifetimes: TokenLifetimeTable = .builtIn) {
        self.codes = codes
        self.lifetimes = lifetimes
    }

    /// Whether a token is too old to be sent to the exchange: its age, from the server's receipt of the
    /// success report, has reached its flow's lifetime.
    /// - Parameters:
    ///   - flow: The one-tap flow whose token it is.
    ///   - receivedAt: When the success report was received.
    ///   - now: The time.
    /// - Returns: True when the token must not be sent (a flow without a row never expires).
    package func hasExpired(_ flow: LoginFlow, receivedAt: Date, at now: Date) -> Bool {
        guard let lifetime = lifetimes.entry(for: flow)?.lifetime else { return false }
        return now.timeIntervalSince(receivedAt) >= lifetime.seconds
    }

    /// Whether an exchange's answer says the token is spent or stale ("already used"): its row runs the
    /// flow once more (`retry`).
    /// - Parameters:
    ///   - code: The exchange's code.
    ///   - flow: The one-tap flow whose token was exchanged.
    /// - Returns: True for a `retry` row.
    package func saysAlreadyUsed(_ code: ResultCode, for flow: LoginFlow) -> Bool {
        codes.entry(for: flow, code: code).action == .retry
    }

    /// The code the exchange answers a flow's token with when it returns the number: the code of the
    /// flow's first `success` row.
    /// - Parameter flow: The one-tap flow.
    /// - Returns: The code, or nil when the table lists none for the flow (or for SMS).
    package func successCode(for flow: LoginFlow) -> ResultCode? {
        codes.entries.first { $0.flow == flow && $0.action == .success && $0.code != nil }?.code
    }
}
