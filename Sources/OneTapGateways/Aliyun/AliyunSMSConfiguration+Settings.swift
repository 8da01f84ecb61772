import OneTap

extension AliyunSMSConfiguration {
    /// Reads the `aliyun-sms` object of the gateways' configuration file, under Aliyun's own field names:
    ///
    /// ```json
    /// "aliyun-sms": {"accessKeyId": "LTAI…", "accessKeySecret": {"env": "ALIYUN_ACCESS_KEY_SECRET"},
    ///                "signName": "阿里云短信测试", "templateCode": "SMS_154950909", "templateParamName": "code"}
    /// ```
    ///
    /// `templateParamName` (optional, `code` by default) names the template's variable the code goes in; Aliyun has
    /// no field of that name (the variable's name is the template's, a key of `TemplateParam`). An optional `url`
    /// overrides ``documentedURL``.
    /// - Parameter settings: The gateway's settings.
    /// - Throws: ``GatewayError`` `misconfigured` naming the field and the fix.
    public init(settings: GatewaySettings) throws(GatewayError) {
        try settings.refuseUnknownFields(["accessKeyId", "accessKeySecret", "signName", "templateCode", "templateParamName"])
        self.init(
            accessKeyID: try settings.text("accessKeyId"), accessKeySecret: try settings.secret("accessKeySecret"), signName: try settings.text("signName"),
            templateCode: try settings.text("templateCode"))
        if let name = try settings.optionalText("templateParamName") { templateParamName = name }
        try settings.applyEndpoint(to: &self)
    }
}
