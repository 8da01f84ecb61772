#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What happened to the record of a paid exchange, for the event log: a token's digest is named by its
/// first 8 hexadecimal digits only, never the token.
package enum ExchangeEvent: Hashable, Sendable, CustomStringConvertible {
    /// The exchange ledger could not record how an exchange ended: its row stays `pending` (a resend is
    /// refused, the safe side) until reconciliation lists it. The digest's first 8 digits, the state that
    /// was to be written (`answered`, `unknown`, `failed`), and the ledger's error (it never quotes a
    /// token).
    case settleFailed(tokenPrefix: String, state: String, reason: String)
    /// A login server was made without login quotas: nothing bounds how many logins one client starts nor how many
    /// paid exchanges its success reports cause (said once, when the server is made).
    case quotaMissing
    /// A login server was made with a machine that makes no exchange (`LoginSessionMachine(exchanges: nil)`): it
    /// finishes a client's one-tap success report with no verified number, on the client's word alone, and no account
    /// can be made from it (said once, when the server is made).
    case exchangeOff
    /// A start or a paid exchange was refused by the login quotas: what it counts (`starts`, `exchanges`), the rule
    /// (a login quota's, or the SMS policy's `captcha-rejects` for a start or report whose captcha checks wait) and the outcome:
    /// `over-quota`, `captcha-required` (no token), `captcha-rejected`, `captcha-unchecked` (the provider down or at
    /// fault) or `captcha-waits`. Never the client's address, device or token: a flood shows as a run of them.
    case quotaRefused(counts: String, rule: String, outcome: String)

    /// `settle-failed`, `quota-missing`, `exchange-off` or `quota-refused`.
    package var name: String {
        switch self {
        case .settleFailed: "settle-failed"
        case .quotaMissing: "quota-missing"
        case .exchangeOff: "exchange-off"
        case .quotaRefused: "quota-refused"
        }
    }

    /// `settle-failed ba7816bf… (answered): the database is down`.
    package var description: String {
        switch self {
        case .settleFailed(let prefix, let state, let reason): "settle-failed \(prefix)… (\(state)): \(PhoneNumber.maskingNumbers(in: reason))"
        case .quotaMissing: "quota-missing: no LoginQuotas bounds the logins one client starts or the paid exchanges it causes; give the server one"
        case .exchangeOff: "exchange-off: the server's machine makes no exchange, so a one-tap success ends on the client's word with no verified number; give it exchange rules"
        case .quotaRefused(let counts, let rule, let outcome): "quota-refused \(counts) by \(rule): \(outcome)"
        }
    }

    /// Writes the event's members after the schema's `v`, `at` and `area`: `event`; for `settle-failed`, `token`
    /// (the digest's first 8 digits), `state`, `reason` (numbers masked); for `quota-refused`, `counts`, `rule`,
    /// `outcome`.
    package func writeMembers(to writer: inout JSONWriter) {
        writer.member("event", name)
        switch self {
        case .settleFailed(let prefix, let state, let reason):
            writer.member("token", prefix)
            writer.member("state", state)
            writer.member("reason", PhoneNumber.maskingNumbers(in: reason))
        case .quotaMissing, .exchangeOff:
            break
        case .quotaRefused(let counts, let rule, let outcome):
            writer.member("counts", counts)
            writer.member("rule", rule)
            writer.member("outcome", outcome)
        }
    }
}
