import OneTap

/// A store wrapper that fails on demand: every call goes to the wrapped store through ``faults``, which
/// may refuse it, lose its write, report a landed write as failed, or slow it down. One wrapper for every
/// store protocol: `FaultyStore<any TokenStore>` (``FaultyTokenStore``) is a ``TokenStore``,
/// `FaultyStore<any LoginSessionStore>` (``FaultyLoginSessionStore``) a ``LoginSessionStore``, and so on,
/// each by a conformance of its own beside its store.
///
/// ```swift
/// let sessions = FaultyLoginSessionStore(InMemoryLoginSessionStore())
/// sessions.faults.inject(.refuse(.io, "the database is down"), into: [.replace], after: 1, times: nil)
/// ```
public final class FaultyStore<Base: Sendable>: Sendable {
    /// The store that does the real work.
    let base: Base
    /// Which calls fail, and how.
    public let faults: Faults
    /// How many calls ``faults`` had counted when the last `fail(after:)` began counting afresh.
    let counted = LockedValue(0)

    /// Wraps a store.
    /// - Parameters:
    ///   - base: The store that does the real work.
    ///   - clock: The clock injected delays wait on.
    public init(_ base: Base, clock: any WallClock = SystemClock()) {
        self.base = base
        faults = Faults(clock: clock)
    }
}
