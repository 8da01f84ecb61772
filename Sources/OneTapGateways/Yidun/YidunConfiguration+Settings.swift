import OneTap

extension YidunConfiguration {
    /// Reads the `yidun` object of the gateways' configuration file: `secretId`, `secretKey` (a secret),
    /// `businessId`, and optionally `url` and `verifyUrl` (OneTap's names: Yidun's demo names no such field).
    /// - Parameter settings: The gateway's settings.
    /// - Throws: ``GatewayError`` `misconfigured` naming the field and the fix.
    public init(settings: GatewaySettings) throws(GatewayError) {
        try settings.refuseUnknownFields(["secretId", "secretKey", "businessId", "verifyUrl"])
        self.init(secretID: try settings.text("secretId"), secretKey: try settings.secret("secretKey"), businessID: try settings.text("businessId"))
        try settings.applyEndpoints(to: &self)
    }
}
