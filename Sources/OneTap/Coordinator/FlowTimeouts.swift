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

    /// Creates limits; nil means no limit.
    /// - Parameters:
    ///   - mobile: China Mobile's limit.
    ///   - tianyi: Tianyi's limit.
    ///   - unicom: Unicom's limit.
    ///   - sms: SMS's limit.
    public init(mobile: Duration? = .seconds(8), tianyi: Duration? = .seconds(8), unicom: Duration? = .seconds(8), sms: Duration? = nil) {
        self.mobile = mobile
        self.tianyi = tianyi
        self.unicom = unicom
        self.sms = sms
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
}
