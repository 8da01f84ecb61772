/// The sliding windows of both tables of rate rules (`Data/sms-policy.csv`, `Data/login-quotas.csv`),
/// exact to the second: an event at `t` counts while `now < t + window` (one stamped after `now`, because
/// a clock went back, still counts, so a clock change never releases a limit). What a window holds, when
/// a full one frees a place, and what a counter keeps, said once for both.
enum SlidingWindow {
    /// The events of `events` that fall in a window at `now`, as an index range of the list sorted oldest
    /// first. Lists written by the rules are sorted; another order is sorted first.
    /// - Parameters:
    ///   - events: A counter's events.
    ///   - window: The window in seconds.
    ///   - now: The time.
    /// - Returns: The events sorted oldest first, and the index of the first one in the window (the
    ///   list's count when none is).
    @inline(__always)
    static func events(_ events: [Date], _ window: Double, now: Date) -> (sorted: [Date], from: Int) {
        let sorted = Self.sorted(events)
        let start = now.addingTimeInterval(-window)
        var low = 0, high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle] > start { high = middle } else { low = middle + 1 }
        }
        return (sorted, low)
    }

    /// A counter's events oldest first: the list as it is when it is sorted already (as the rules write
    /// it), without a copy; sorted otherwise.
    /// - Parameter events: The events.
    /// - Returns: The events, oldest first.
    @inline(__always)
    static func sorted(_ events: [Date]) -> [Date] {
        var ordered = true
        var index = 1
        while ordered && index < events.count {
            ordered = events[index - 1] <= events[index]
            index += 1
        }
        return ordered ? events : events.sorted()
    }

    /// When a window that holds `limit` or more events frees a place: when the oldest event of the newest
    /// `limit` leaves it, and never before `now`.
    /// - Parameters:
    ///   - sorted: The events, oldest first, at least `limit` of them in the window.
    ///   - limit: How many events the window may hold.
    ///   - window: The window in seconds.
    ///   - now: The time.
    /// - Returns: The instant.
    @inline(__always)
    static func freesAPlace(_ sorted: [Date], limit: Int, _ window: Double, now: Date) -> Date {
        max(sorted[sorted.count - limit].addingTimeInterval(window), now)
    }

    /// The events a counter keeps at `now`: those in a window of the counter's horizon (the longest time
    /// a rule on it may still count them).
    /// - Parameters:
    ///   - events: The counter's events.
    ///   - horizon: The horizon in seconds.
    ///   - now: The time.
    /// - Returns: The events to keep, oldest first.
    static func kept(_ events: [Date], horizon: Double, now: Date) -> [Date] {
        let (sorted, from) = Self.events(events, horizon, now: now)
        return from == 0 ? sorted : Array(sorted[from...])
    }
}
