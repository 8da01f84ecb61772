import Foundation
import OneTap

/// What a gateway does, as `onetap gateway check` lists it.
package enum GatewayCapability: String, Sendable, CaseIterable {
    /// One-tap token → number (``TokenExchangeProvider``).
    case exchange
    /// Is this number the SIM's own (``NumberVerificationProvider``).
    case verify
    /// Sends the SMS code (``SMSSender``).
    case sms
    /// Checks a solved captcha (``CaptchaVerifier``).
    case captcha
    /// Renews a long-lived token (``TokenRefresher``).
    case refresh
}

/// A gateway built from its object in the configuration file: the roles it plays (each nil when it does not play it),
/// its description (no secret) and how it shows what it signs.
package struct BuiltGateway: Sendable {
    /// `cmcc appid 300011111111, MD5 sign, www.cmpassport.com/…`: the configuration's description, never a secret.
    package var summary: String
    /// The exchange, with the one-tap flow whose tokens `onetap gateway exchange` hands it.
    package var exchange: (provider: any TokenExchangeProvider, flow: LoginFlow)?
    /// Number verification, with the flow whose tokens `onetap gateway verify` hands it.
    package var verification: (provider: any NumberVerificationProvider, flow: LoginFlow)?
    /// The one-tap flows whose tokens its exchange and verification take (an aggregator's: all three; a carrier's:
    /// its own), which `onetap gateway exchange|verify --flow` may name.
    package var flows: [LoginFlow] = []
    /// The SMS sender.
    package var sms: (any SMSSender)?
    /// The captcha verifier.
    package var captcha: (any CaptchaVerifier)?
    /// The token refresher.
    package var refresher: (any TokenRefresher)?
    /// What `onetap gateway sign` prints: the signed text (secrets as `<fieldName>`) and the signature, for the fields
    /// given (`token`, `timestamp`, …; the gateway defaults the rest).
    package var signPreview: (@Sendable ([String: String]) throws(GatewayError) -> SignPreview)?

    /// The roles it was built to play, in ``GatewayCapability``'s order.
    package var roles: [GatewayCapability] {
        GatewayCapability.allCases.filter { role in
            switch role {
            case .exchange: exchange != nil
            case .verify: verification != nil
            case .sms: sms != nil
            case .captcha: captcha != nil
            case .refresh: refresher != nil
            }
        }
    }

    /// A built gateway with its description; set the roles it plays.
    /// - Parameter summary: The configuration's description.
    package init(summary: String) {
        self.summary = summary
    }
}

/// One gateway the configuration file may hold: its name, what it does, and how it is built from its settings. A new
/// gateway is one more registration in ``GatewayRegistry/all``.
package struct GatewayRegistration: Sendable {
    /// Builds a gateway.
    package typealias Build = @Sendable (GatewaySettings, any HTTPTransport, any WallClock) throws(GatewayError) -> BuiltGateway

    /// The configuration file's key: `cmcc`.
    package let name: String
    /// What it does, in the order `check` prints them.
    package let capabilities: [GatewayCapability]
    /// Builds it from its settings: reads every field (and key) so a misconfiguration is found before any call.
    package let build: Build

    /// A registration.
    /// - Parameters:
    ///   - name: The configuration file's key (one of ``GatewayConfigurationFile/gatewayNames``).
    ///   - capabilities: What it does.
    ///   - build: Builds it from its settings, a transport and a clock.
    package init(name: String, capabilities: [GatewayCapability], build: @escaping Build) {
        self.name = name
        self.capabilities = capabilities
        self.build = build
    }
}
