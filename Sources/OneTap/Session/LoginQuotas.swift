/// The quotas a ``LoginServer`` enforces on logins started and paid exchanges caused per address block,
/// device and app session (`Data/login-quotas.csv`, or your own ``LoginQuotaPolicy``), counted in a
/// ``LoginQuotaStore``. A start over a quota, or a success report whose token would be sent to the
/// carrier's paid exchange over one, is refused with ``LoginRejection`` `over-quota` and changes
/// nothing; every admitted one is counted, whatever happens to it next.
///
/// A request without an address or a device id counts in the rule's one shared `(not given)` bucket
/// (fail closed): pass both to ``LoginServer/start(_:for:pending:address:device:)`` and
/// ``LoginServer/report(_:to:version:from:address:device:)``, or every such request shares one quota.
/// The in-memory store counts per instance; share one store across instances to count per deployment
/// (`PostgresStores.loginQuotaStore()` from `OneTapPostgres`).
public struct LoginQuotas: Sendable {
    /// The rules.
    package let policy: LoginQuotaPolicy
    /// Where the counters live.
    package let store: any LoginQuotaStore

    /// Creates the quotas.
    /// - Parameters:
    ///   - policy: The rules; `Data/login-quotas.csv` by default.
    ///   - store: Where the counters live; this process's memory by default.
    public init(policy: LoginQuotaPolicy = .builtIn, store: any LoginQuotaStore = InMemoryStores.newLoginQuotaStore()) {
        self.policy = policy
        self.store = store
    }

    /// Admits and counts one more start or exchange, atomically with every other, or refuses it.
    /// - Parameters:
    ///   - counts: Starts or exchanges.
    ///   - id: The login session (named in the rejection).
    ///   - appSession: The caller's app session.
    ///   - address: The client's address (its block is counted), nil for the shared `(not given)` bucket.
    ///   - device: The device id, nil for the shared `(not given)` bucket.
    ///   - now: The time.
    /// - Throws: ``LoginRejection`` `over-quota` naming the rule and when to try again, or ``StoreError``
    ///   when the store fails (nothing is admitted then).
    package func admit(
        _ counts: LoginQuotaPolicy.Counts, session id: LoginSessionID, appSession: AppSessionID, address: IPAddress?, device: DeviceID?, at now: Date
    ) async throws {
        let request = LoginQuotaPolicy.Request(address: address, device: device?.rawValue, session: appSession.text)
        let counters = policy.counters(for: request, counting: counts)
        guard !counters.isEmpty else { return }
        let policy = policy
        let decision = try await store.update(counters: counters, at: now) { state in
            let decision = policy.decide(request, counting: counts, events: state.events, at: now)
            guard decision == .admit else { return decision }
            for counter in counters {
                policy.count(now, in: &state.events[counter, default: []], of: counter)
                state.keepUntil = max(state.keepUntil, now.addingTimeInterval(policy.horizon(of: counter)))
            }
            return decision
        }
        if case .over(let rule, let retryAfter) = decision {
            let what = counts == .starts ? "logins started" : "paid exchanges"
            let described = policy.rules.first { $0.id == rule }.map { " (\($0))" } ?? ""
            throw LoginRejection(.overQuota, session: id, "too many \(what): over the quota \(rule)\(described); try again after \(retryAfter.iso8601)")
        }
    }
}
