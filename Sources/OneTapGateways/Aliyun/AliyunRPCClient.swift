import Foundation
import OneTap
import OneTapSupport

/// Calls one Aliyun product's RPC-style APIs (PNVS at `dypnsapi.aliyuncs.com`, SMS at `dysmsapi.aliyuncs.com`) as
/// Aliyun's signature V3 document gives them: `POST /` with the API's parameters in the query string, an empty body,
/// the `x-acs-*` headers and `Authorization` (``AliyunSignatureV3``), `Accept: application/json`.
///
/// One request per call, never retried; the nonce (`x-acs-signature-nonce`, 32 hexadecimal digits) comes from the
/// system's secure generator unless a test pins it, the date (`x-acs-date`) from the injected clock.
package struct AliyunRPCClient: Sendable {
    /// The gateway's name, for errors: `aliyun-pnvs`, `aliyun-sms`.
    package let gateway: String
    /// The signer.
    package let signer: AliyunSignatureV3
    /// The AccessKey, the endpoint (scheme, host and port; its path is `/`), the API's version and the call's limits.
    package let configuration: any AliyunAPIConfiguration
    private let transport: any HTTPTransport
    private let clock: any WallClock
    private let nonces: @Sendable () -> String

    /// A client from an Aliyun gateway's configuration, its settings checked before any call.
    /// - Parameters:
    ///   - gateway: The gateway's name.
    ///   - configuration: Its AccessKey, endpoint, version and limits.
    ///   - transport: The HTTP transport.
    ///   - clock: The clock `x-acs-date` is read from.
    ///   - nonces: Makes each request's `x-acs-signature-nonce`.
    /// - Throws: ``GatewayError`` `misconfigured` naming the field and the fix: an id that is not letters and digits,
    ///   an empty or padded secret, a URL with a path or a query.
    package init(
        gateway: String, configuration: some AliyunAPIConfiguration, transport: any HTTPTransport, clock: any WallClock, nonces: @escaping @Sendable () -> String
    ) throws(GatewayError) {
        let accessKeyID = configuration.accessKeyID, accessKeySecret = configuration.accessKeySecret, url = configuration.url
        guard !accessKeyID.isEmpty, accessKeyID.count <= 128, accessKeyID.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
            throw GatewayError(gateway: gateway, .misconfigured("accessKeyId must be a RAM AccessKey's id (letters and digits, LTAI…), not \(CredentialCheck.glimpse(accessKeyID))"))
        }
        try CredentialCheck.trimmed(
            accessKeySecret, "accessKeySecret", setTo: "the AccessKey's secret from the RAM console", padded: "a SignatureDoesNotMatch", gateway: gateway)
        guard url.host?.isEmpty == false, ["", "/"].contains(url.path), url.query == nil, url.user == nil, url.password == nil else {
            throw GatewayError(gateway: gateway, .misconfigured("url must be the endpoint alone (https://host), without a path, query or user: RPC APIs are signed at /"))
        }
        self.gateway = gateway
        signer = AliyunSignatureV3(accessKeyID: accessKeyID, accessKeySecret: accessKeySecret)
        self.configuration = configuration
        self.transport = transport
        self.clock = clock
        self.nonces = nonces
    }

    /// The `host` header's value: the URL's host, and `:port` when the URL names a port.
    package var host: String { configuration.url.hostAndPort }

    /// Signs a call without sending it.
    /// - Parameters:
    ///   - action: `x-acs-action`.
    ///   - parameters: The API's parameters.
    ///   - date: The instant; the clock's now when nil.
    ///   - nonce: The nonce; a fresh one when nil.
    /// - Returns: The signed request.
    /// - Throws: ``GatewayError`` `misconfigured`.
    package func sign(action: String, parameters: [(name: String, value: String)], date: Date? = nil, nonce: String? = nil) throws(GatewayError) -> AliyunSignatureV3.Signed {
        try signer.sign(host: host, query: parameters, action: action, version: configuration.version, date: date ?? clock.now(), nonce: nonce ?? nonces(), gateway: gateway)
    }

    /// Sends one call.
    /// - Parameters:
    ///   - action: `x-acs-action` (`GetMobile`).
    ///   - parameters: The API's parameters.
    /// - Returns: Aliyun's answer: its `Code` and object.
    /// - Throws: ``GatewayError`` from the signer (`misconfigured`, before sending), the transport (`notSent`,
    ///   `timedOut`, `unreachable`, `bodyTooLarge`) or ``AliyunAnswer/read(_:gateway:contentTypes:)``; `sentTwice` for
    ///   `SignatureNonceUsed` (every call draws a fresh nonce, so the request reached Aliyun twice and the first copy's
    ///   answer was lost: it may have been taken and billed); `CancellationError`.
    package func call(action: String, parameters: [(name: String, value: String)]) async throws -> AliyunAnswer {
        let signed = try sign(action: action, parameters: parameters)
        guard let target = URL(string: "\(configuration.url.scheme ?? "https")://\(host)/?\(signed.query)") else {
            throw GatewayError(gateway: gateway, .misconfigured("url: no request URL can be made from it"))
        }
        let response = try await transport.send(configuration.post(gateway: gateway, to: target, headers: signed.headers + [HTTPHeader("Accept", "application/json")]))
        let answer = try AliyunAnswer.read(response, gateway: gateway, contentTypes: configuration.contentTypes)
        if answer.code == Self.nonceUsed { throw GatewayError(gateway: gateway, .sentTwice) }
        return answer
    }

    /// The `Code` of a request whose `x-acs-signature-nonce` Aliyun had seen (HTTP 400).
    static let nonceUsed: ResultCode = "SignatureNonceUsed"
}

/// What every Aliyun gateway's configuration holds for its RPC client beside its endpoint and limits: the AccessKey
/// and the API's version.
package protocol AliyunAPIConfiguration: GatewayEndpoint {
    /// The AccessKey's id.
    var accessKeyID: String { get }
    /// The AccessKey's secret.
    var accessKeySecret: Secret { get }
    /// `x-acs-version`.
    var version: String { get }
}

extension AliyunPNVSConfiguration: AliyunAPIConfiguration {}
extension AliyunSMSConfiguration: AliyunAPIConfiguration {}
