import OneTap

/// The success codes the test doubles answer with, read from the built-in tables instead of written
/// as literals: a flow's SDK success (`Data/result-codes.csv`, its first `success` row) and its
/// exchange's success (`Data/exchange-codes.csv`).
enum BuiltInSuccessCodes {
    /// A flow's SDK success code: `103000` for China Mobile, `0` for Tianyi, Unicom and SMS.
    /// - Parameter flow: The flow.
    /// - Returns: The code.
    static func sdk(_ flow: LoginFlow) -> ResultCode {
        guard let code = OutcomeTable.builtIn.successCode(for: flow) else {
            preconditionFailure("Data/result-codes.csv lists no success code for \(flow)")
        }
        return code
    }

    /// A one-tap flow's exchange success code: `103000` for China Mobile, `0` for Tianyi and Unicom.
    /// - Parameter flow: The one-tap flow.
    /// - Returns: The code.
    static func exchange(_ flow: LoginFlow) -> ResultCode {
        guard let code = ExchangeRules.builtIn.successCode(for: flow) else {
            preconditionFailure("Data/exchange-codes.csv lists no success code for \(flow)")
        }
        return code
    }

    /// Whether a code is the exchange success code of some one-tap flow.
    /// - Parameter code: The code.
    /// - Returns: True for `103000` and `0` with the built-in table.
    static func isExchangeSuccess(_ code: ResultCode) -> Bool {
        LoginFlow.allCases.contains { $0.isOneTap && ExchangeRules.builtIn.successCode(for: $0) == code }
    }
}
