import OneTap

extension TencentCaptchaConfiguration {
    /// Reads the configuration file's `tencent-captcha` object: `secretId`, `secretKey` and `appSecretKey` (secret
    /// references), `captchaAppId`, and optionally `url`.
    /// - Parameter settings: The gateway's settings.
    /// - Throws: ``GatewayError`` `misconfigured` naming the field and the fix.
    public init(settings: GatewaySettings) throws(GatewayError) {
        try settings.refuseUnknownFields(["secretId", "secretKey", "captchaAppId", "appSecretKey"])
        self.init(
            secretID: try settings.text("secretId"), secretKey: try settings.secret("secretKey"), captchaAppID: try settings.text("captchaAppId"),
            appSecretKey: try settings.secret("appSecretKey"))
        try settings.applyEndpoint(to: &self)
    }
}
