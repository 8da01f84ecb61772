/// A limit on how many number verifications one caller may make in a sliding window: each is a paid gateway call
/// (``NumberVerificationService``), and a caller driving the service in a loop with fresh tokens would otherwise
/// run up the bill. Counted in a ``LoginQuotaStore``, the login quotas' counters: ``InMemoryLoginQuotaStore`` counts
/// per instance, `PostgresStores.loginQuotaStore()` (`OneTapPostgres`) once across instances.
///
/// Each caller key has one counter, `exchanges:session:verify:` and the SHA-256 of the key's UTF-8 (a key no app
/// session id can spell, and no store ever holds the key itself); no key counts in one shared `(not given)` bucket.
/// The window is sliding and exact: a call at `t` counts while `now < t + window`.
public struct NumberVerificationQuota: Sendable {
    /// How many calls the window may hold.
    package let limit: Int
    /// The sliding window.
    package let window: Duration
    /// Where the counters live.
    package let store: any LoginQuotaStore

    /// Creates a quota.
    /// - Parameters:
    ///   - limit: How many verifications one caller may make in the window: 1 to 1,000,000.
    ///   - window: The sliding window: 1 s to 365 days.
    ///   - store: Where the counters live; this process's memory by default (share one across instances).
    /// - Throws: ``ParseError`` with subject `quota` and kind `out-of-range` naming the limit or window given.
    public init(limit: Int, per window: Duration, store: any LoginQuotaStore = InMemoryStores.newLoginQuotaStore()) throws(ParseError) {
        guard (1...1_000_000).contains(limit) else {
            throw ParseError(.quota, .outOfRange, input: "\(limit)", reason: "a verification quota's limit must be 1 to 1000000 calls")
        }
        guard window >= .seconds(1), window <= .seconds(31_536_000) else {
            throw ParseError(.quota, .outOfRange, input: "\(window)", reason: "a verification quota's window must be 1 s to 31536000 s (365 days)")
        }
        self.limit = limit
        self.window = window
        self.store = store
    }

    /// The counter a caller key counts in.
    /// - Parameter caller: The caller key; nil or empty for the shared bucket.
    /// - Returns: `exchanges:session:verify:<SHA-256 hex>`, or `exchanges:session:verify:(not given)`.
    package static func counter(for caller: String?) -> LoginQuotaPolicy.Counter {
        let value = caller.flatMap { $0.isEmpty ? nil : SHA256.hash(Array($0.utf8)).hex } ?? SMSPolicy.notGiven
        return LoginQuotaPolicy.Counter(counts: .exchanges, key: .session, value: "verify:\(value)")
    }

    /// Counts one more call for a caller, atomically with every other, or refuses it.
    /// - Parameters:
    ///   - caller: The caller key; nil or empty for the shared bucket.
    ///   - now: The time.
    /// - Returns: Nil when the call is admitted (and counted); else the answer to give: `unknown`, not billed,
    ///   `limited` with when to try again, or `quota-store-failed` when the store failed (fail closed).
    /// - Throws: `CancellationError` when the caller's task was cancelled.
    package func refusal(_ caller: String?, at now: Date) async throws -> NumberVerification? {
        let counter = Self.counter(for: caller)
        let (limit, window) = (limit, window.seconds)
        let retryAfter: Date?
        do {
            retryAfter = try await store.update(counters: [counter], at: now) { state -> Date? in
                let held = (state.events[counter] ?? []).filter { $0 > now.addingTimeInterval(-window) }.sorted()
                if held.count >= limit { return max(held[held.count - limit].addingTimeInterval(window), now) }
                state.events[counter] = held + [now]
                state.keepUntil = max(state.keepUntil, now.addingTimeInterval(window))
                return nil
            }
        } catch where CallerCancellation.reads(error) {
            throw CancellationError()
        } catch {
            return NumberVerification(code: nil, verdict: .unknown, billed: false, reason: .quotaStoreFailed, detail: "\(error)")
        }
        return retryAfter.map { after in
            let detail = "over the quota of \(limit) verifications per \(Self.seconds(window)) s for this caller; try again after \(after.iso8601)"
            return NumberVerification(code: nil, verdict: .unknown, billed: false, reason: .limited, detail: detail)
        }
    }

    /// Takes back a call ``refusal(_:at:)`` counted that then sent nothing (the ledger refused its claim), even for a
    /// caller whose task was cancelled. A store that fails leaves it counted: the quota is the stricter for it until the
    /// window moves.
    /// - Parameters:
    ///   - caller: The caller key, as counted.
    ///   - countedAt: The instant it was counted at.
    package func refund(_ caller: String?, countedAt: Date) async {
        await store.uncount([Self.counter(for: caller)], countedAt: countedAt)
    }

    /// `60`, `0.5`: whole seconds without a fraction.
    private static func seconds(_ value: Double) -> String {
        value == value.rounded() ? String(Int64(value)) : String(value)
    }
}
