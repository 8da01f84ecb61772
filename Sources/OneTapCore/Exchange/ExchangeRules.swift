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
    /// The gateway that exchanges each flow's tokens: the carrier's own (`cmcc`, `tianyi`, `unicom`) unless
    /// ``serving(_:with:)`` named another.
    package var gateways = ExchangeCodeTable.carrierGateways

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

    /// The same rules with a flow's tokens exchanged by another gateway (an aggregator's), whose answers are read
    /// by that gateway's rows of `Data/exchange-codes.csv`.
    /// - Parameters:
    ///   - flow: The one-tap flow.
    ///   - gateway: The gateway's name (`aliyun-pnvs`, `jverification`, `shanyan`, `yidun`, or a carrier's own).
    /// - Returns: The rules with the flow's answers read by the gateway's rows.
    /// - Throws: ``TableError`` `incomplete` when the code table has no rows of the gateway for the flow.
    public func serving(_ flow: LoginFlow, with gateway: String) throws(TableError) -> ExchangeRules {
        guard codes.lists(gateway, for: flow) else {
            let known = codes.gatewayNames.filter { codes.lists($0, for: flow) }.joined(separator: ", ")
            throw TableError(
                file: ExchangeCodeTable.fileName, line: 0, kind: .incomplete,
                message: "gateway \(gateway) has no rows for flow \(flow) (gateways with \(flow) rows: \(known))")
        }
        var rules = self
        rules.gateways[flow] = gateway
        return rules
    }

    /// What an exchange answer for a flow's token means, read by the rows of the gateway that exchanges the flow.
    /// - Parameters:
    ///   - flow: The one-tap flow.
    ///   - code: The exchange's code as it came.
    /// - Returns: The row.
    /// - Complexity: O(1) expected.
    package func entry(for flow: LoginFlow, code: ResultCode) -> ExchangeCodeTable.Entry {
        codes.entry(for: flow, gateway: gateway(for: flow), code: code)
    }

    /// Whether a token is too old to be sent to the exchange: its age, from the server's receipt of the
    /// success report, has reached its flow's lifetime.
    /// - Parameters:
    ///   - flow: The one-tap flow whose token it is.
    ///   - receivedAt: When the success report was received.
    ///   - now: The time.
    /// - Returns: True when the token must not be sent (a flow without a row never expires).
    package func hasExpired(_ flow: LoginFlow, receivedAt: Date, at now: Date) -> Bool {
        lifetimes.hasExpired(flow, gateway: gateway(for: flow), receivedAt: receivedAt, at: now)
    }

    /// Whether an exchange's answer says the token is spent or stale ("already used"): its row runs the
    /// flow once more (`retry`).
    /// - Parameters:
    ///   - code: The exchange's code.
    ///   - flow: The one-tap flow whose token was exchanged.
    /// - Returns: True for a `retry` row.
    package func saysAlreadyUsed(_ code: ResultCode, for flow: LoginFlow) -> Bool {
        entry(for: flow, code: code).action == .retry
    }

    /// The code the exchange answers a flow's token with when it returns the number: the code of the
    /// flow's first `success` row.
    /// - Parameter flow: The one-tap flow.
    /// - Returns: The code, or nil when the table lists none for the flow (or for SMS).
    package func successCode(for flow: LoginFlow) -> ResultCode? {
        let served = gateway(for: flow)
        for entry in codes.entries where entry.flow == flow && entry.gateway == served && entry.action == .success {
            if let code = entry.code { return code }
        }
        return nil
    }

    /// The gateway whose rows read a flow's answers: the one ``serving(_:with:)`` named, else the carrier's own.
    /// - Parameter flow: The one-tap flow.
    /// - Returns: The gateway's name.
    package func gateway(for flow: LoginFlow) -> String {
        if let named = gateways[flow], codes.lists(named, for: flow) { return named }
        return ExchangeCodeTable.carrierGateways[flow] ?? "cmcc"
    }
}
