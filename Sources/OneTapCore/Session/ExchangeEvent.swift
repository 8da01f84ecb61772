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

    /// `settle-failed` or `quota-missing`.
    package var name: String {
        switch self {
        case .settleFailed: "settle-failed"
        case .quotaMissing: "quota-missing"
        }
    }

    /// `settle-failed ba7816bf… (answered): the database is down`.
    package var description: String {
        switch self {
        case .settleFailed(let prefix, let state, let reason): "settle-failed \(prefix)… (\(state)): \(PhoneNumber.maskingNumbers(in: reason))"
        case .quotaMissing: "quota-missing: no LoginQuotas bounds the logins one client starts or the paid exchanges it causes; give the server one"
        }
    }

    /// Writes the event's members after the schema's `v`, `at` and `area`: `event`; for `settle-failed`, `token`
    /// (the digest's first 8 digits), `state`, `reason` (numbers masked).
    package func writeMembers(to writer: inout JSONWriter) {
        writer.member("event", name)
        switch self {
        case .settleFailed(let prefix, let state, let reason):
            writer.member("token", prefix)
            writer.member("state", state)
            writer.member("reason", PhoneNumber.maskingNumbers(in: reason))
        case .quotaMissing:
            break
        }
    }
}
