import OneTap

extension TianyiConfiguration {
    /// The fields of the `tianyi` object, beside `url`.
    static let fieldNames: Set<String> = [
        "appId", "appSecret", "signSecret", "mode", "signDigest", "signCase", "refreshUrl", "clientType", "format", "version", "clientIp",
    ]

    /// Reads the configuration file's `tianyi` object: `appId`, `appSecret` (a secret), and optionally `signSecret`
    /// (a secret), `mode` (`encrypted` or `plain`), `signDigest` (`HMAC-SHA1` or `HMAC-MD5`), `signCase` (`upper` or
    /// `lower`), `url`, `refreshUrl`, `clientType`, `format`, `version`, `clientIp`: the open API's own names where it
    /// has them (`appId`, `clientType`, `format`, `version`, `clientIp`); the rest name OneTap's settings.
    /// - Parameter settings: The `tianyi` object.
    /// - Throws: ``GatewayError`` `misconfigured` naming the field and the fix.
    public init(settings: GatewaySettings) throws(GatewayError) {
        try settings.refuseUnknownFields(Self.fieldNames)
        self.init(appID: try settings.text("appId"), appSecret: try settings.secret("appSecret"))
        signSecret = try settings.optionalSecret("signSecret")
        if let mode = try settings.optionalText("mode") {
            switch mode {
            case "encrypted": self.mode = .encrypted
            case "plain": self.mode = .plain
            default: throw settings.misconfigured("mode", "must be \"encrypted\" (XXTEA paras) or \"plain\", not \"\(mode.prefix(40))\"")
            }
        }
        if let digest = try settings.optionalText("signDigest") {
            guard let value = SignDigest(rawValue: digest) else {
                throw settings.misconfigured("signDigest", "must be \"HMAC-SHA1\" or \"HMAC-MD5\", not \"\(digest.prefix(40))\"")
            }
            signDigest = value
        }
        if let signCase = try settings.optionalText("signCase") {
            guard ["upper", "lower"].contains(signCase) else { throw settings.misconfigured("signCase", "must be \"upper\" or \"lower\"") }
            uppercaseSign = signCase == "upper"
        }
        try settings.applyEndpoint(to: &self)
        if let url = try settings.url("refreshUrl") { refreshURL = url }
        clientType = try settings.optionalText("clientType") ?? clientType
        format = try settings.optionalText("format") ?? format
        version = try settings.optionalText("version") ?? version
        clientIP = try settings.optionalText("clientIp")
    }
}
