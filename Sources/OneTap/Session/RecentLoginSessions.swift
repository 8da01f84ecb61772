/// The login sessions one ``LoginServer`` stored or read last, kept so that the next report of a login
/// this instance served needs no read of the store: a one-tap login on PostgreSQL is then three round
/// trips (the start's insert, the move to the exchange with the ledger's claim, the answer with the
/// settle) instead of four.
///
/// A copy here is a guess, never the truth: another instance may have taken a report since. Every write
/// made from a copy is the store's compare-and-swap on the copy's version, so a copy that is behind loses
/// it and nothing is written; ``LoginServer`` then decides again on the stored session. An answer that
/// writes nothing (a rejection, a progress report) is never given from a copy alone. Only a login waiting
/// for a report (its `flow` stage) is answered from here: one at its exchange or ended is decided on the
/// stored session (a retry of a success, the guard's kept answer, the check of newer credentials), but
/// is still kept, so that an older copy read or written before it never replaces it.
///
/// Bounded: at most ``capacity`` sessions, the oldest written or read dropped first.
package final class RecentLoginSessions: Sendable {
    /// How many sessions one server keeps by default: more than its logins in flight at a few hundred
    /// logins a second, each a few kilobytes.
    package static let defaultCapacity = 4096

    /// The most sessions kept.
    package let capacity: Int

    private struct Kept: Sendable {
        /// The sessions, each with the number of the write or read that kept it.
        var sessions: [LoginSessionID: (session: LoginSession, stamp: Int)] = [:]
        /// The ids in the order they were kept, with their stamps: an id kept again stands here twice, and
        /// only the entry whose stamp matches the session's counts.
        var order = FIFOQueue<(id: LoginSessionID, stamp: Int)>()
        /// The last stamp given.
        var stamp = 0
    }

    private let kept = LockedValue(Kept())

    /// Creates an empty set of kept sessions.
    /// - Parameter capacity: The most sessions kept, at least 1.
    package init(capacity: Int = RecentLoginSessions.defaultCapacity) {
        self.capacity = max(1, capacity)
    }

    /// The kept copy of a session waiting for a report (its `flow` stage), if the app session it belongs to
    /// is `appSession`.
    /// - Parameters:
    ///   - id: The session's id.
    ///   - appSession: The app session asking (another's login is never answered from here).
    /// - Returns: The copy, or nil (none kept, another app session's, or one at its exchange or ended).
    /// - Complexity: O(1).
    package func session(_ id: LoginSessionID, of appSession: AppSessionID) -> LoginSession? {
        kept.withLock { kept in
            guard let entry = kept.sessions[id], entry.session.appSession == appSession, case .flow = entry.session.stage else { return nil }
            return entry.session
        }
    }

    /// Keeps a session as it was just stored or read, unless a newer version of it is kept.
    /// - Parameter session: The session.
    /// - Complexity: Amortised O(1).
    package func keep(_ session: LoginSession) {
        let capacity = capacity
        kept.withLock { kept in
            if let current = kept.sessions[session.id], current.session.version > session.version { return }  // a newer copy stays
            kept.stamp += 1
            kept.sessions[session.id] = (session, kept.stamp)
            kept.order.append((session.id, kept.stamp))
            while kept.sessions.count > capacity, let oldest = kept.order.popFirst() {
                if kept.sessions[oldest.id]?.stamp == oldest.stamp { kept.sessions[oldest.id] = nil }
            }
            // `order` holds each kept session once, plus entries left behind by sessions kept again: drop
            // those when they pile up, so it never holds more than twice the capacity (plus 16).
            if kept.order.count > 2 * capacity + 16 {
                let sessions = kept.sessions
                kept.order.keep { sessions[$0.id]?.stamp == $0.stamp }
            }
        }
    }

    /// How many sessions are kept (the tests').
    package var count: Int { kept.withLock { $0.sessions.count } }
}
