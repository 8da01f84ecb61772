import OneTap

extension GeeTestConfiguration {
    /// Reads the configuration file's `geetest` object: `captchaId`, `captchaKey` (a secret reference), and optionally
    /// `url`.
    /// - Parameter settings: The gateway's settings.
    /// - Throws: ``GatewayError`` `misconfigured` naming the field and the fix.
    public init(settings: GatewaySettings) throws(GatewayError) {
        try settings.refuseUnknownFields(["captchaId", "captchaKey"])
        self.init(captchaID: try settings.text("captchaId"), captchaKey: try settings.secret("captchaKey"))
        try settings.applyEndpoint(to: &self)
    }
}
