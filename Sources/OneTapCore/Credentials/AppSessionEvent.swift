/// What happened to an app session, for the event log: never a token or a digest, the account id only
/// where the session has one.
package enum AppSessionEvent: Hashable, Sendable, CustomStringConvertible {
    /// A guest session was opened.
    case opened(AppSessionID)
    /// A refresh token was rotated (`repeated`: an honest retry within the grace got the same successor).
    case refreshed(AppSessionID, repeated: Bool)
    /// A login moved the session to an account, with new credentials.
    case loggedIn(AppSessionID, AccountID)
    /// The session was revoked: logged out, logged out everywhere, or a refresh token reused.
    case revoked(AppSessionID, AppSessionRecord.Revocation, account: AccountID?)
    /// A refresh was refused (the kind says why; `invalid` for a token the session never issued).
    case refused(AppSessionID?, AppSessionError.Kind)
    /// The login's guest-data merge finished with kinds left with the guest (no rule, unreadable, too deep or too
    /// large to merge): the kinds, never their data. Told at most once, by whichever call clears the session's pending
    /// merge (none when clearing it failed and the session was revoked before another call could).
    case mergeKept(AppSessionID, AccountID, kinds: [String])
    /// A login's guest-data merge that no call of the session's own finished (its answer lost, or its process gone
    /// between the switch and the merge) was finished by the background (`AppSessions.run(every:)`): the data is the
    /// account's now.
    case mergeResumed(AppSessionID, AccountID)
    /// A round of the background could not list the sessions whose merge is pending, or merges failed in it (how
    /// many, and the first's session and error): the text, numbers masked, its first 200 characters. The next round
    /// tries again.
    case resumeFailed(reason: String)

    /// `opened`, `refreshed`, `logged-in`, `revoked`, `refused`, `merge-kept`, `merge-resumed`, `resume-failed`.
    package var name: String {
        switch self {
        case .opened: "opened"
        case .refreshed: "refreshed"
        case .loggedIn: "logged-in"
        case .revoked: "revoked"
        case .refused: "refused"
        case .mergeKept: "merge-kept"
        case .mergeResumed: "merge-resumed"
        case .resumeFailed: "resume-failed"
        }
    }

    /// `revoked q3Vn… (reuse) account 42`.
    package var description: String {
        switch self {
        case .opened(let id): "opened \(id)"
        case .refreshed(let id, let repeated): "refreshed \(id)\(repeated ? " (repeated within the grace)" : "")"
        case .loggedIn(let id, let account): "logged-in \(id) account \(account)"
        case .revoked(let id, let reason, let account): "revoked \(id) (\(reason))\(account.map { " account \($0)" } ?? "")"
        case .refused(let id, let kind): "refused \(id.map(\.text) ?? "-") (\(kind))"
        case .mergeKept(let id, let account, let kinds): "merge-kept \(id) account \(account): \(kinds.joined(separator: ", ")) stayed with the guest"
        case .mergeResumed(let id, let account): "merge-resumed \(id) account \(account)"
        case .resumeFailed(let reason): "resume-failed: \(PhoneNumber.maskingNumbers(in: reason, limit: 200))"
        }
    }

    /// Writes the event's members after the schema's `v`, `at` and `area`.
    package func writeMembers(to writer: inout JSONWriter) {
        writer.member("event", name)
        switch self {
        case .opened(let id):
            writer.member("appSession", id.text)
        case .refreshed(let id, let repeated):
            writer.member("appSession", id.text)
            writer.member("repeated", repeated)
        case .loggedIn(let id, let account):
            writer.member("appSession", id.text)
            writer.member("account", account.inEvents)
        case .revoked(let id, let reason, let account):
            writer.member("appSession", id.text)
            writer.member("reason", reason.rawValue)
            writer.member("account", account?.inEvents)
        case .refused(let id, let kind):
            writer.member("appSession", id?.text)
            writer.member("reason", kind.id)
        case .mergeKept(let id, let account, let kinds):
            writer.member("appSession", id.text)
            writer.member("account", account.inEvents)
            writer.member("kinds", strings: kinds)
        case .mergeResumed(let id, let account):
            writer.member("appSession", id.text)
            writer.member("account", account.inEvents)
        case .resumeFailed(let reason):
            writer.member("reason", PhoneNumber.maskingNumbers(in: reason, limit: 200))
        }
    }
}
