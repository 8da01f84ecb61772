import OneTap

extension AliyunPNVSConfiguration {
    /// Reads the `aliyun-pnvs` object of the gateways' configuration file, under Aliyun's own field names:
    ///
    /// ```json
    /// "aliyun-pnvs": {"accessKeyId": "LTAI…", "accessKeySecret": {"env": "ALIYUN_ACCESS_KEY_SECRET"}}
    /// ```
    ///
    /// and an optional `url` overriding ``documentedURL``.
    /// - Parameter settings: The gateway's settings.
    /// - Throws: ``GatewayError`` `misconfigured` naming the field and the fix: a missing or padded id, a secret
    ///   written as a literal, an unknown field, a URL that is not https.
    public init(settings: GatewaySettings) throws(GatewayError) {
        try settings.refuseUnknownFields(["accessKeyId", "accessKeySecret"])
        self.init(accessKeyID: try settings.text("accessKeyId"), accessKeySecret: try settings.secret("accessKeySecret"))
        try settings.applyEndpoint(to: &self)
    }
}
