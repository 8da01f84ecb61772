import OneTap

extension ShanyanConfiguration {
    /// Reads the `shanyan` object of the gateways' configuration file: `appId`, `appKey` (a secret), optionally
    /// `privateKey` (a secret: the PEM text; set when the app's console holds an RSA public key), `url` and
    /// `verifyUrl` (OneTap's names: the document names no such field).
    /// - Parameter settings: The gateway's settings.
    /// - Throws: ``GatewayError`` `misconfigured` naming the field and the fix.
    public init(settings: GatewaySettings) throws(GatewayError) {
        try settings.refuseUnknownFields(["appId", "appKey", "privateKey", "verifyUrl"])
        self.init(appID: try settings.text("appId"), appKey: try settings.secret("appKey"))
        privateKey = try settings.optionalSecret("privateKey")
        try settings.applyEndpoints(to: &self)
    }
}
