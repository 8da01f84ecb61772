/// The providers a coordinator can call. A flow whose provider is missing is skipped.
public struct LoginProviders: Sendable {
    /// China Mobile one-tap.
    package let mobile: (any OneTapProvider)?
    /// China Telecom Tianyi one-tap.
    package let tianyi: (any OneTapProvider)?
    /// China Unicom one-tap.
    package let unicom: (any OneTapProvider)?
    /// SMS login.
    package let sms: (any SMSLoginProvider)?
    /// The server-side exchange of a carrier token for the verified number, which the coordinator calls
    /// through an ``ExchangeGuard``; nil to skip it.
    package let exchange: (any TokenExchangeProvider)?

    /// Creates a provider set.
    /// - Parameters:
    ///   - mobile: China Mobile one-tap.
    ///   - tianyi: Tianyi one-tap.
    ///   - unicom: Unicom one-tap.
    ///   - sms: SMS login.
    ///   - exchange: The token exchange.
    public init(
        mobile: (any OneTapProvider)? = nil, tianyi: (any OneTapProvider)? = nil, unicom: (any OneTapProvider)? = nil,
        sms: (any SMSLoginProvider)? = nil, exchange: (any TokenExchangeProvider)? = nil
    ) {
        self.mobile = mobile
        self.tianyi = tianyi
        self.unicom = unicom
        self.sms = sms
        self.exchange = exchange
    }

    /// The one-tap provider of a flow.
    /// - Parameter flow: The flow.
    /// - Returns: Its provider, or nil for SMS and a flow without one.
    package func oneTap(_ flow: LoginFlow) -> (any OneTapProvider)? {
        switch flow {
        case .mobile: mobile
        case .tianyi: tianyi
        case .unicom: unicom
        case .sms: nil
        }
    }
}
