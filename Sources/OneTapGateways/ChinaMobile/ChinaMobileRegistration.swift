import OneTap
import OneTapSupport

extension GatewayRegistration {
    /// China Mobile's 统一认证 `loginTokenValidate` (one-tap token → number), from the `cmcc` object.
    package static let cmcc = GatewayRegistration(name: ChinaMobileTokenExchange.name, capabilities: [.exchange]) { settings, transport, clock throws(GatewayError) in
        let configuration = try ChinaMobileConfiguration.registrySettings(settings)
        let exchange = try ChinaMobileTokenExchange(configuration: configuration, transport: transport, clock: clock)
        let signer = try ChinaMobileSigner(configuration.signing)
        var built = BuiltGateway(summary: configuration.description)
        built.exchange = (exchange, .mobile)
        // `onetap gateway sign cmcc --field token=… --field msgid=… --field systemtime=…`: the rest as a call makes them.
        built.signPreview = { fields throws(GatewayError) in
            let known = ["token", "msgid", "systemtime"]
            if let unknown = fields.keys.sorted().first(where: { !known.contains($0) }) {
                throw GatewayError(gateway: ChinaMobileTokenExchange.name, .misconfigured("--field \(unknown) is not a field of loginTokenValidate's sign (its fields: \(known.joined(separator: ", ")))"))
            }
            let request = try ChinaMobileRequest(
                token: Secret(fields["token"] ?? "TOKEN"), messageID: fields["msgid"] ?? Hex.encode(systemRandomBytes(16)),
                systemTime: fields["systemtime"] ?? SystemTime17.format(clock.now(), offset: configuration.systemTimeUTCOffset),
                configuration: configuration, signer: signer)
            let signature = request.fields.first { $0.name == "sign" }?.value ?? ""
            let algorithm: String
            switch configuration.signing {
            case .md5: algorithm = "MD5"
            case .rsa(_, _, let digest, let encoding): algorithm = "\(digest.rawValue) (\(encoding.rawValue))"
            }
            return SignPreview(stringToSign: request.signedText, signature: signature, algorithm: algorithm)
        }
        return built
    }
}

extension ChinaMobileConfiguration {
    /// The `cmcc` object read for the registry: `appId`, and `appSecret` (the MD5 sign) or `privateKey` (the RSA mode,
    /// PEM, with `msisdnPrivateKey` when `msisdn` comes encrypted to a second key pair), and `url`. Until the
    /// configuration's own `init(settings:)` lands (helper verify's branch), which then replaces this.
    /// - Parameter settings: The `cmcc` object.
    /// - Returns: The configuration.
    /// - Throws: ``GatewayError`` `misconfigured` naming the field and the fix.
    static func registrySettings(_ settings: GatewaySettings) throws(GatewayError) -> ChinaMobileConfiguration {
        try settings.refuseUnknownFields(["appId", "appSecret", "privateKey", "msisdnPrivateKey"])
        let appID = try settings.text("appId")
        let signing: Signing
        switch (try settings.optionalSecret("appSecret"), try settings.optionalSecret("privateKey")) {
        case (let secret?, nil): signing = .md5(secret: secret)
        case (nil, let key?): signing = .rsa(signingKey: key, msisdnKey: try settings.optionalSecret("msisdnPrivateKey"))
        case (nil, nil):
            throw settings.misconfigured("appSecret", "is missing: add \"appSecret\": {\"env\": \"NAME\"} (the MD5 sign) or \"privateKey\": {\"file\": \"PATH\"} (the RSA mode) to \"cmcc\"")
        case (_?, _?):
            throw settings.misconfigured("privateKey", "and appSecret are both set: keep appSecret for the MD5 sign or privateKey for the RSA mode")
        }
        var configuration = ChinaMobileConfiguration(appID: appID, signing: signing)
        if let url = try settings.url() { configuration.url = url }
        return configuration
    }
}
