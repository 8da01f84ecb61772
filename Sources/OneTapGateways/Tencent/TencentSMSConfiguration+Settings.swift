import Foundation
import OneTap

extension TencentSMSConfiguration {
    /// Reads the configuration file's `tencent-sms` object: `secretId`, `secretKey` (a secret reference), `sdkAppId`,
    /// `signName`, `templateId`, and optionally `region`, `templateParamSet` (`"code"` or `"code,minutes"`) and `url`.
    /// - Parameter settings: The gateway's settings.
    /// - Throws: ``GatewayError`` `misconfigured` naming the field and the fix: missing, a literal secret, an
    ///   unknown field, a template parameter other than `code` and `minutes`.
    public init(settings: GatewaySettings) throws(GatewayError) {
        try settings.refuseUnknownFields(["secretId", "secretKey", "sdkAppId", "signName", "templateId", "region", "templateParamSet"])
        self.init(
            secretID: try settings.text("secretId"), secretKey: try settings.secret("secretKey"), sdkAppID: try settings.text("sdkAppId"),
            signName: try settings.text("signName"), templateID: try settings.text("templateId"))
        if let region = try settings.optionalText("region") { self.region = region }
        if let list = try settings.optionalText("templateParamSet") {
            var parameters: [TemplateParameter] = []
            for name in list.split(separator: ",", omittingEmptySubsequences: false) {
                guard let parameter = TemplateParameter(rawValue: name.trimmingCharacters(in: .whitespaces)) else {
                    throw settings.misconfigured("templateParamSet", "lists '\(name.prefix(20))': write the template's parameters in order, each code or minutes (\"code,minutes\")")
                }
                parameters.append(parameter)
            }
            templateParameters = parameters
        }
        try settings.applyEndpoint(to: &self)
    }
}
