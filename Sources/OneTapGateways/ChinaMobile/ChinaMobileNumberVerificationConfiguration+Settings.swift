import Foundation
import OneTap

extension ChinaMobileNumberVerificationConfiguration {
    /// Number verification's configuration from the `cmcc` object of the gateways' configuration file, which the
    /// token exchange shares (``ChinaMobileConfiguration/init(settings:)``):
    ///
    /// ```json
    /// {"cmcc": {"appId": "300011111111", "appKey": {"env": "CMCC_APP_KEY"}}}
    /// ```
    ///
    /// `appId`, the `appKey` (a secret), and optionally `tokenValidateUrl` (the `tokenValidate` endpoint; `url` is the
    /// exchange's).
    /// - Parameter settings: The `cmcc` object.
    /// - Throws: ``GatewayError`` `misconfigured` naming the field and the fix: a missing `appId` or `appKey`, a field
    ///   `cmcc` does not have.
    public init(settings: GatewaySettings) throws(GatewayError) {
        try settings.refuseUnknownFields(ChinaMobileConfiguration.settingsFields)
        self.init(appID: try settings.text("appId"), appKey: try settings.secret("appKey"))
        try settings.applyEndpoint(to: &self, urlField: "tokenValidateUrl")
    }
}
