import OneTap
import OneTapSupport

extension GatewayRegistration {
    /// China Mobile's 统一认证 `loginTokenValidate` (one-tap token → number) and, when the `cmcc` object has `appKey`,
    /// `tokenValidate` (number verification).
    package static let cmcc = GatewayRegistration(name: ChinaMobileTokenExchange.name, capabilities: [.exchange, .verify]) { settings, transport, clock throws(GatewayError) in
        let configuration = try ChinaMobileConfiguration(settings: settings)
        let exchange = try ChinaMobileTokenExchange(configuration: configuration, transport: transport, clock: clock)
        let signer = try ChinaMobileSigner(configuration.signing)
        var built = BuiltGateway(summary: configuration.description)
        built.exchange = (exchange, .mobile)
        if settings.fields["appKey"] != nil {
            let verification = try ChinaMobileNumberVerification(
                configuration: try ChinaMobileNumberVerificationConfiguration(settings: settings), transport: transport, clock: clock)
            built.verification = (verification, .mobile)
        }
        // `onetap gateway sign cmcc --field token=- --field msgid=… --field systemtime=…` (the token on standard input): the rest as a call makes them.
        built.signPreview = { fields throws(GatewayError) in
            let given = try SignPreviewFields(fields, known: ["token", "msgid", "systemtime"], of: "loginTokenValidate's sign", gateway: ChinaMobileTokenExchange.name)
            let request = try ChinaMobileRequest(
                token: Secret(given["token"] ?? "TOKEN"), messageID: given["msgid"] ?? RequestNonce.make(),
                systemTime: given["systemtime"] ?? SystemTime17.format(clock.now(), offset: configuration.systemTimeUTCOffset),
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
