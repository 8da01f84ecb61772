/// What happened to a number verification (``NumberVerificationService``), for the event log (area `verify`): the
/// token is named by the first 8 hexadecimal digits of its ledger key only, and no number is written.
package enum VerificationEvent: Hashable, Sendable, CustomStringConvertible {
    /// A verification ended: the key's first 8 digits, the flow, the gateway (`*` for an integrator's own
    /// provider), the gateway's code (nil for none), the verdict, whether billed (nil: may be), and why.
    case verified(token: String, flow: LoginFlow, gateway: String, code: ResultCode?, verdict: NumberVerdict, billed: Bool?, reason: NumberVerification.Reason)
    /// The ledger could not record how a verification ended (its row stays `pending`, listed for reconciliation):
    /// the key's first 8 digits, the state that was to be written, and the ledger's error.
    case settleFailed(token: String, state: String, reason: String)
    /// The service was made without a quota: nothing bounds how many paid gateway calls one caller makes
    /// (with fresh tokens, or garbage ones, each sent once). The gateway.
    case quotaMissing(gateway: String)

    /// `verified`, `settle-failed` or `quota-missing`.
    package var name: String {
        switch self {
        case .verified: "verified"
        case .settleFailed: "settle-failed"
        case .quotaMissing: "quota-missing"
        }
    }

    /// `verified 1f2e3d4c… mobile cmcc 000 pass (billed)`, `settle-failed 1f2e3d4c… (unknown): the database is down`.
    package var description: String {
        switch self {
        case .verified(let token, let flow, let gateway, let code, let verdict, let billed, let reason):
            "verified \(token)… \(flow) \(gateway) \(code.map(\.description) ?? "none") \(verdict.rawValue) (\(reason.rawValue), billed \(Self.billed(billed)))"
        case .settleFailed(let token, let state, let reason): "settle-failed \(token)… (\(state)): \(PhoneNumber.maskingNumbers(in: reason))"
        case .quotaMissing(let gateway):
            "quota-missing \(gateway): no NumberVerificationQuota bounds how many paid verifications one caller makes; give the service one"
        }
    }

    /// Writes the event's members after the schema's `v`, `at` and `area`: `event`, `token`; for `verified`
    /// `flow`, `gateway`, `code` (absent when none), `verdict`, `billed` (`yes`, `no`, `maybe`), `reason`; for
    /// `settle-failed` `state` and `reason` (numbers masked); for `quota-missing` only `gateway`.
    /// - Parameter writer: The writer.
    package func writeMembers(to writer: inout JSONWriter) {
        writer.member("event", name)
        switch self {
        case .verified(let token, let flow, let gateway, let code, let verdict, let billed, let reason):
            writer.member("token", token)
            writer.member("flow", flow.rawValue)
            writer.member("gateway", gateway)
            if let code { writer.member("code", code.description) }
            writer.member("verdict", verdict.rawValue)
            writer.member("billed", Self.billed(billed))
            writer.member("reason", reason.rawValue)
        case .settleFailed(let token, let state, let reason):
            writer.member("token", token)
            writer.member("state", state)
            writer.member("reason", PhoneNumber.maskingNumbers(in: reason))
        case .quotaMissing(let gateway):
            writer.member("gateway", gateway)
        }
    }

    private static func billed(_ billed: Bool?) -> String { billed.map { $0 ? "yes" : "no" } ?? "maybe" }
}
