/// Which login an event belongs to: the session, the carrier and the evidence that named it, the app's
/// platform, and when the login started. Every login event carries it (``LoginSession/context``), so
/// each line of the event stream stands alone: `onetap stats` counts logins from the lines alone.
package struct LoginContext: Hashable, Sendable, CustomStringConvertible {
    /// The login session.
    package let session: LoginSessionID
    /// The carrier the plan resolved.
    package let carrier: Carrier
    /// Which evidence named the carrier.
    package let evidence: EvidenceSource
    /// The app's platform, when its snapshot named one.
    package let platform: Platform?
    /// When the login started.
    package let startedAt: Date

    /// Creates a context.
    /// - Parameters:
    ///   - session: The login session.
    ///   - carrier: The plan's carrier.
    ///   - evidence: What named it.
    ///   - platform: The app's platform, if known.
    ///   - startedAt: When the login started.
    package init(session: LoginSessionID, carrier: Carrier, evidence: EvidenceSource, platform: Platform?, startedAt: Date) {
        self.session = session
        self.carrier = carrier
        self.evidence = evidence
        self.platform = platform
        self.startedAt = startedAt
    }

    /// Whole milliseconds from the login's start to an instant, never negative (a clock that stepped
    /// back counts as no time).
    /// - Parameter instant: The instant, on the clock that started the login.
    /// - Returns: The milliseconds, rounded to the nearest.
    package func elapsedMilliseconds(at instant: Date) -> Int64 {
        let milliseconds = (instant.timeIntervalSince(startedAt) * 1000).rounded()
        guard milliseconds > 0 else { return 0 }
        return milliseconds < 9.2e18 ? Int64(milliseconds) : Int64.max
    }

    /// `session Ab…: mobile from plmn (ios)`.
    package var description: String {
        "session \(session): \(carrier) from \(evidence)\(platform.map { " (\($0))" } ?? "")"
    }
}
