import OneTap

extension JVerificationConfiguration {
    /// Reads the `jverification` object of the gateways' configuration file: `appKey`, `masterSecret` (a secret),
    /// `privateKey` (a secret: the PEM text, e.g. `{"file": "/run/secrets/jverification.pem"}`), and optionally
    /// `url` and `verifyUrl` (OneTap's names: JiGuang's documents name no such field).
    /// - Parameter settings: The gateway's settings.
    /// - Throws: ``GatewayError`` `misconfigured` naming the field and the fix.
    public init(settings: GatewaySettings) throws(GatewayError) {
        try settings.refuseUnknownFields(["appKey", "masterSecret", "privateKey", "verifyUrl"])
        self.init(appKey: try settings.text("appKey"), masterSecret: try settings.secret("masterSecret"), privateKey: try settings.secret("privateKey"))
        try settings.applyEndpoints(to: &self)
    }
}
