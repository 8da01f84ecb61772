import OneTap

/// `onetap gateway check|sign|exchange|verify|sms …`: what ``GatewayCommand`` parsed. It holds no secret: a token
/// (`--token -`) and the SMS code `sms` sends (`--param -`) are only ever read from standard input.
package struct GatewayOptions: Hashable, Sendable {
    /// What to do.
    package enum Action: String, Hashable, Sendable, CaseIterable {
        /// Every gateway in the file configured and its keys read, offline.
        case check
        /// The exact string a gateway signs and the signature.
        case sign
        /// One token exchange.
        case exchange
        /// One number verification.
        case verify
        /// One SMS send.
        case sms
    }

    /// What to do.
    package var action: Action
    /// The gateway's name (its key in the configuration file); nil for `check`.
    package var gateway: String?
    /// `--config`: the gateways' configuration file.
    package var config: String
    /// Whether to print JSON.
    package var json: Bool
    /// `sign`'s `--field NAME=VALUE`s, as given.
    package var fields: [String]
    /// `verify`'s `--number`.
    package var number: String?
    /// `sms`'s `--to`.
    package var to: String?
    /// The one-tap flow of the token (`exchange`, `verify`): an aggregator takes each carrier's; nil: the gateway's own.
    package var flow: LoginFlow?

    /// Whether a `--field NAME=VALUE` takes its value from standard input: its value (after the first `=`) is `-`, as
    /// `onetap-gateway` reads it.
    /// - Parameter field: The field as given.
    /// - Returns: True for `NAME=-`.
    package static func readsStandardInput(_ field: String) -> Bool {
        field.firstIndex(of: "=").map { field[field.index(after: $0)...] == "-" } ?? false
    }

    /// Creates options.
    /// - Parameters:
    ///   - action: What to do.
    ///   - gateway: The gateway; nil for `check`.
    ///   - config: The configuration file.
    ///   - json: Whether to print JSON.
    ///   - fields: `sign`'s fields.
    ///   - number: `verify`'s number.
    ///   - to: `sms`'s number.
    package init(
        action: Action, gateway: String? = nil, config: String, json: Bool = false, fields: [String] = [], number: String? = nil, to: String? = nil,
        flow: LoginFlow? = nil
    ) {
        self.flow = flow
        self.action = action
        self.gateway = gateway
        self.config = config
        self.json = json
        self.fields = fields
        self.number = number
        self.to = to
    }

    /// The arguments `onetap-gateway` is run with: never a secret (the token, the code and a secret field go on its
    /// standard input).
    package var toolArguments: [String] {
        var arguments = [action.rawValue]
        if let gateway { arguments.append(gateway) }
        arguments += ["--config", config]
        for field in fields { arguments += ["--field", field] }
        switch action {
        case .exchange: arguments += ["--token", "-"] + (flow.map { ["--flow", $0.rawValue] } ?? [])
        case .verify: arguments += ["--token", "-", "--number", number ?? ""] + (flow.map { ["--flow", $0.rawValue] } ?? [])
        case .sms: arguments += ["--to", to ?? "", "--param", "-"]
        case .check, .sign: break
        }
        if json { arguments.append("--json") }
        return arguments
    }
}
