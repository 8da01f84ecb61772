import Foundation
import OneTap
import OneTapSupport

/// Calls one Tencent Cloud API 3.0 product (SMS, Captcha) as its documents give it: a POST of a JSON body to the
/// configured endpoint, signed with ``TC3Signer``, its answer read by ``TencentCloudAnswer``. One request per call,
/// never retried; `X-TC-Timestamp` from the injected clock.
package struct TencentCloudClient: Sendable {
    /// The signer (the gateway's name, the API key and the service).
    package let signer: TC3Signer
    /// `X-TC-Action`: `SendSms`, `DescribeCaptchaResult`.
    package let action: String
    /// `X-TC-Version`: `2021-01-11`.
    package let version: String
    /// The clock `X-TC-Timestamp` is read from.
    package let clock: any WallClock
    private let endpoint: any GatewayEndpoint
    private let transport: any HTTPTransport

    /// A client, its API key checked before any call.
    /// - Parameters:
    ///   - signer: The signer.
    ///   - action: `X-TC-Action`.
    ///   - version: `X-TC-Version`.
    ///   - endpoint: Where requests go and the call's limits (the gateway's configuration).
    ///   - transport: The HTTP transport.
    ///   - clock: The clock.
    /// - Throws: ``GatewayError/Kind/misconfigured(_:)`` naming the field and the fix (``TC3Signer/validate()``), or a
    ///   URL with a path, a query or a user (TC3 signs the request at `/` with no query: it would be sent elsewhere
    ///   than it is signed for, and every call refused `AuthFailure.SignatureFailure`).
    package init(
        signer: TC3Signer, action: String, version: String, endpoint: some GatewayEndpoint, transport: any HTTPTransport, clock: any WallClock
    ) throws(GatewayError) {
        try signer.validate()
        let url = endpoint.url
        guard url.host?.isEmpty == false, ["", "/"].contains(url.path), url.query == nil, url.user == nil, url.password == nil else {
            throw GatewayError(
                gateway: signer.gateway, .misconfigured("url must be the endpoint alone (https://host), without a path, query or user: TC3 signs the request at /"))
        }
        self.signer = signer
        self.action = action
        self.version = version
        self.endpoint = endpoint
        self.transport = transport
        self.clock = clock
    }

    /// Signs a POST of a JSON body and makes the request.
    /// - Parameters:
    ///   - body: The JSON body.
    ///   - region: `X-TC-Region`, or nil for an API that takes none.
    ///   - now: The clock's time (`X-TC-Timestamp`, whole seconds).
    /// - Returns: The request and its signature's strings.
    /// - Throws: ``GatewayError/Kind/misconfigured(_:)`` when the signature cannot be made.
    package func request(_ body: JSONValue, region: String?, at now: Date) throws(GatewayError) -> (HTTPRequest, TC3Signer.Signed) {
        let payload = Array(body.json.utf8)
        let signed = try signer.sign(
            action: action, version: version, region: region, host: TC3Signer.host(of: endpoint.url), timestamp: Int64(now.timeIntervalSince1970.rounded(.down)),
            payload: payload)
        return (endpoint.post(gateway: signer.gateway, headers: signed.headers, body: payload), signed)
    }

    /// Sends a request once and reads its answer.
    /// - Parameter request: The request (``request(_:region:at:)``).
    /// - Returns: The call's members or its error code.
    /// - Throws: ``GatewayError`` from the transport or ``TencentCloudAnswer/read(_:gateway:contentTypes:)``;
    ///   `CancellationError`.
    package func send(_ request: HTTPRequest) async throws -> TencentCloudAnswer.Outcome {
        try TencentCloudAnswer.read(try await transport.send(request), gateway: signer.gateway, contentTypes: endpoint.contentTypes)
    }
}

extension TC3Signer.Signed {
    /// What `onetap gateway sign` shows: the string to sign (no secret in it) and the signature.
    package var preview: SignPreview { SignPreview(stringToSign: stringToSign, signature: signature, algorithm: TC3Signer.algorithm) }
}
