import OneTap

extension GatewayRegistration {
    /// China Telecom's Tianyi open API: the access token → number (`userInfo.do`) and the month-long token's
    /// refresh (`refreshToken.do`), from the `tianyi` object (``TianyiConfiguration/init(settings:)``).
    package static let tianyi = GatewayRegistration(name: TianyiTokenExchange.name, capabilities: [.exchange, .refresh]) { settings, transport, clock throws(GatewayError) in
        let configuration = try TianyiConfiguration(settings: settings)
        let exchange = try TianyiTokenExchange(configuration: configuration, transport: transport, clock: clock)
        var built = BuiltGateway(summary: configuration.description)
        built.exchange = (exchange, .tianyi)
        built.refresher = try TianyiTokenRefresher(configuration: configuration, transport: transport, clock: clock)
        built.signPreview = { fields throws(GatewayError) in try exchange.signPreview(fields: fields) }
        return built
    }
}
