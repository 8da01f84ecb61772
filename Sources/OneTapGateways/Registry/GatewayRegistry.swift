import OneTap

/// Every gateway `onetap gateway` can check and call, by its configuration file's key. A gateway is registered by one
/// line in ``all`` naming a static ``GatewayRegistration`` (in a file beside the gateway's own, `<Vendor>Registration.swift`).
package enum GatewayRegistry {
    /// The registrations, in ``GatewayConfigurationFile/gatewayNames``'s order.
    package static let all: [GatewayRegistration] = [
        .cmcc,
        .tianyi,
        .aliyunPNVS,
        .jverification,
        .shanyan,
        .yidun,
        .aliyunSMS,
        .tencentSMS,
        .tencentCaptcha,
        .geetest,
    ]

    /// The registration of a name.
    /// - Parameter name: The configuration file's key.
    /// - Returns: Its registration, or nil when no gateway of that name is registered.
    package static func registration(named name: String) -> GatewayRegistration? {
        all.first { $0.name == name }
    }

    /// `cmcc, tianyi`: the registered names, for an error.
    package static var names: String { all.map(\.name).joined(separator: ", ") }
}
