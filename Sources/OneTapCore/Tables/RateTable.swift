/// A table of sliding-window rules over counters (``SMSPolicy``, ``LoginQuotaPolicy``): how long each
/// counter's events matter is the table's own (its windows, and its locks); what a counter keeps, and
/// how an event is counted in it, are the same for both and written here.
package protocol RateTable {
    /// The table's counter type.
    associatedtype Counter: RateCounting

    /// How long a counter's events matter: the longest time a rule on it may still count one (0 when
    /// no rule counts it).
    /// - Parameter counter: The counter.
    /// - Returns: The horizon in seconds.
    func horizon(of counter: Counter) -> Double
}

extension RateTable {
    /// The events a counter keeps at `now`: those some rule on it may still count (the others are
    /// pruned by stores on write).
    /// - Parameters:
    ///   - counter: The counter.
    ///   - events: Its events.
    ///   - now: The time.
    /// - Returns: The events to keep, oldest first.
    package func keep(_ counter: Counter, _ events: [Date], at now: Date) -> [Date] {
        SlidingWindow.kept(events, horizon: horizon(of: counter), now: now)
    }

    /// Counts an event at `now` in a counter's list, in place (one dictionary access when the list is
    /// `events[counter, default: []]`), and drops what no rule on the counter counts any more.
    /// - Parameters:
    ///   - now: The event's time.
    ///   - events: The counter's events, oldest first; changed in place.
    ///   - counter: The counter.
    package func count(_ now: Date, in events: inout [Date], of counter: Counter) {
        events.append(now)
        events = keep(counter, events, at: now)
    }

    /// Takes back one event counted at `now` (``count(_:in:of:)``) whose request then did not happen: the newest
    /// within a millisecond of it (stores keep whole milliseconds), if any is still there. A counter with no events
    /// is left absent.
    /// - Parameters:
    ///   - now: The instant it was counted at.
    ///   - events: Every counter's events; the counter's changed in place.
    ///   - counter: The counter.
    package static func uncount(_ now: Date, in events: inout [Counter: [Date]], of counter: Counter) {
        guard let index = events[counter]?.lastIndex(where: { abs($0.timeIntervalSince(now)) < 0.001 }) else { return }
        events[counter]?.remove(at: index)
    }

    /// Takes back one event counted at `now` in each of `counters`, as the one-counter `uncount` does: a request
    /// counted in all of them that then did not happen.
    /// - Parameters:
    ///   - now: The instant it was counted at.
    ///   - events: Every counter's events; changed in place.
    ///   - counters: The counters.
    package static func uncount(_ now: Date, in events: inout [Counter: [Date]], of counters: some Sequence<Counter>) {
        for counter in counters { uncount(now, in: &events, of: counter) }
    }
}
