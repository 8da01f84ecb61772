/// How long each flow's provider call may take before it counts as a timeout (a `fallback`).
public struct FlowTimeouts: Hashable, Sendable {
    /// China Mobile one-tap: 8 s, the SDK's own default.
    package var mobile: Duration?
    /// Tianyi one-tap: 8 s, the SDK's own default.
    package var tianyi: Duration?
    /// Unicom one-tap: 8 s.
    package var unicom: Duration?
    /// SMS login: none by default (the user types the code at their own pace).
    package var sms: Duration?
    /// How much longer a one-tap call may run once its provider told a progress code (the authorization page is
    /// shown: the user's time, the SDK answering when they tap or leave): 5 minutes, counted from the end of the
    /// flow's own limit; nil for no limit.
    package var page: Duration?

    /// Creates limits; nil means no limit.
    /// - Parameters:
    ///   - mobile: China Mobile's limit.
    ///   - tianyi: Tianyi's limit.
    ///   - unicom: Unicom's limit.
    ///   - sms: SMS's limit.
    ///   - page: How much longer a one-tap call may run once its authorization page is shown (a progress code told).
    public init(
        mobile: Duration? = .seconds(8), tianyi: Duration? = .seconds(8), unicom: Duration? = .seconds(8), sms: Duration? = nil,
        page: Duration? = .seconds(300)
    ) {
        self.mobile = mobile
        self.tianyi = tianyi
        self.unicom = unicom
        self.sms = sms
        self.page = page
    }

    /// The limit of a flow.
    /// - Parameter flow: The flow.
    /// - Returns: Its limit, or nil.
    package subscript(flow: LoginFlow) -> Duration? {
        switch flow {
        case .mobile: mobile
        case .tianyi: tianyi
        case .unicom: unicom
        case .sms: sms
        }
    }

    /// How long an SDK call a login gave up on (past its limit, or its caller cancelled) keeps its flow from being called
    /// again while it still runs, from when the login gave up on it: the page's limit (the longest a call's user may
    /// take), or 10 minutes where the page has none. An SDK that never calls back is called again after it.
    package var hold: Duration { page ?? .seconds(600) }
}
