import OneTap

extension AliyunPNVSGateway: SignPreviewing {}
extension JVerificationGateway: SignPreviewing {}
extension ShanyanGateway: SignPreviewing {}
extension YidunGateway: SignPreviewing {}
extension AliyunSMSSender: SignPreviewing {}
extension TencentSMSSender: SignPreviewing {}
extension TencentCaptchaVerifier: SignPreviewing {}
extension GeeTestCaptchaVerifier: SignPreviewing {}

extension GatewayRegistration {
    // The aggregators serve every carrier's SIMs: `onetap gateway exchange` and `verify` hand them a token of the
    // mobile flow (the flow their code rows are read for).

    /// Aliyun PNVS `GetMobile` and `VerifyMobile`, from the `aliyun-pnvs` object.
    package static let aliyunPNVS = GatewayRegistration(name: AliyunPNVSGateway.name, capabilities: [.exchange, .verify]) { settings, transport, clock throws(GatewayError) in
        .oneTap(try AliyunPNVSGateway(configuration: try AliyunPNVSConfiguration(settings: settings), transport: transport, clock: clock), flow: .mobile)
    }

    /// JVerification `loginTokenVerify` and `verify`, from the `jverification` object.
    package static let jverification = GatewayRegistration(name: JVerificationGateway.name, capabilities: [.exchange, .verify]) { settings, transport, _ throws(GatewayError) in
        .oneTap(try JVerificationGateway(configuration: try JVerificationConfiguration(settings: settings), transport: transport), flow: .mobile)
    }

    /// Shanyan `mobile-query` and `mobile-validate`, from the `shanyan` object.
    package static let shanyan = GatewayRegistration(name: ShanyanGateway.name, capabilities: [.exchange, .verify]) { settings, transport, _ throws(GatewayError) in
        .oneTap(try ShanyanGateway(configuration: try ShanyanConfiguration(settings: settings), transport: transport), flow: .mobile)
    }

    /// Netease Yidun `oneclick/check` and `check`, from the `yidun` object.
    package static let yidun = GatewayRegistration(name: YidunGateway.name, capabilities: [.exchange, .verify]) { settings, transport, clock throws(GatewayError) in
        .oneTap(try YidunGateway(configuration: try YidunConfiguration(settings: settings), transport: transport, clock: clock), flow: .mobile)
    }

    /// Aliyun SMS `SendSms`, from the `aliyun-sms` object.
    package static let aliyunSMS = GatewayRegistration(name: AliyunSMSSender.name, capabilities: [.sms]) { settings, transport, clock throws(GatewayError) in
        .sms(try AliyunSMSSender(configuration: try AliyunSMSConfiguration(settings: settings), transport: transport, clock: clock))
    }

    /// Tencent Cloud SMS `SendSms`, from the `tencent-sms` object.
    package static let tencentSMS = GatewayRegistration(name: TencentSMSSender.name, capabilities: [.sms]) { settings, transport, clock throws(GatewayError) in
        .sms(try TencentSMSSender(configuration: try TencentSMSConfiguration(settings: settings), transport: transport, clock: clock))
    }

    /// Tencent Captcha `DescribeCaptchaResult`, from the `tencent-captcha` object.
    package static let tencentCaptcha = GatewayRegistration(name: TencentCaptchaVerifier.name, capabilities: [.captcha]) { settings, transport, clock throws(GatewayError) in
        .captcha(try TencentCaptchaVerifier(configuration: try TencentCaptchaConfiguration(settings: settings), transport: transport, clock: clock))
    }

    /// GeeTest v4 `validate`, from the `geetest` object.
    package static let geetest = GatewayRegistration(name: GeeTestCaptchaVerifier.name, capabilities: [.captcha]) { settings, transport, _ throws(GatewayError) in
        .captcha(try GeeTestCaptchaVerifier(configuration: try GeeTestConfiguration(settings: settings), transport: transport))
    }
}
