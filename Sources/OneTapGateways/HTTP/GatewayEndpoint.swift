import Foundation
import OneTap

/// What every gateway's configuration holds for its calls: where they go, how long one may take, and which answer
/// is accepted. The one place a gateway's request is given its limits and its answer is judged by them.
package protocol GatewayEndpoint: Sendable {
    /// Where requests go (a gateway with a second call keeps its second URL beside it: `verifyURL`, `refreshURL`).
    var url: URL { get set }
    /// The whole call's limit.
    var timeout: Duration { get set }
    /// The answer's expected content types (a 2xx body that is a JSON object is read under any:
    /// ``GatewayAnswer/jsonObject(_:gateway:contentTypes:)``).
    var contentTypes: [String] { get }
}

extension GatewayEndpoint {
    /// A POST to the endpoint (or to `url`), with the configuration's time-out and the answers' one bound
    /// (``GatewayAnswer/maximumBytes``).
    /// - Parameters:
    ///   - gateway: The gateway's name, for errors.
    ///   - url: Where it goes: ``url`` unless given.
    ///   - headers: The headers, in order.
    ///   - body: The body's bytes.
    /// - Returns: The request.
    package func post(gateway: String, to url: URL? = nil, headers: [HTTPHeader], body: [UInt8] = []) -> HTTPRequest {
        HTTPRequest(
            gateway: gateway, method: "POST", url: url ?? self.url, headers: headers, body: body, timeout: timeout,
            maximumResponseBytes: GatewayAnswer.maximumBytes)
    }

    /// A configuration's description: what identifies it, then the endpoint's host, port and path, never the URL's
    /// user, password or query, never a secret.
    /// - Parameter identity: `geetest captcha_id 647f5ed2…`.
    /// - Returns: `geetest captcha_id 647f5ed2…, gcaptcha4.geetest.com/validate`.
    package func summary(_ identity: String) -> String { "\(identity), \(url.endpointDescription)" }

    /// The JSON object an answer holds, whatever its content type; the expected ones name what came when it is none
    /// (``GatewayAnswer/jsonObject(_:gateway:contentTypes:)``).
    /// - Parameters:
    ///   - response: The answer.
    ///   - gateway: The gateway's name, for errors.
    /// - Returns: The object's members.
    /// - Throws: ``GatewayError``: `httpStatus`, `wrongContentType`, `malformedBody`.
    package func jsonObject(_ response: HTTPResponse, gateway: String) throws(GatewayError) -> [String: JSONValue] {
        try GatewayAnswer.jsonObject(response, gateway: gateway, contentTypes: contentTypes)
    }
}

extension URL {
    /// `127.0.0.1:8443`, `sms.tencentcloudapi.com`: the host, and `:port` when the URL names one other than its
    /// scheme's own (443 for `https`, 80 for `http`): the request's `Host`, as libcurl sends it and signatures sign it.
    package var hostAndPort: String {
        let defaultPort = scheme?.lowercased() == "https" ? 443 : scheme?.lowercased() == "http" ? 80 : nil
        return "\(host ?? "")\(port.flatMap { $0 == defaultPort ? nil : ":\($0)" } ?? "")"
    }

    /// `www.cmpassport.com/unisdk/rsapi/loginTokenValidate`: the host, port and path a configuration's description
    /// shows, never the URL's user, password or query.
    package var endpointDescription: String { hostAndPort + path }
}

extension AliyunPNVSConfiguration: GatewayEndpoint {}
extension AliyunSMSConfiguration: GatewayEndpoint {}
extension ChinaMobileConfiguration: GatewayEndpoint {}
extension ChinaMobileNumberVerificationConfiguration: GatewayEndpoint {}
extension GeeTestConfiguration: GatewayEndpoint {}
extension JVerificationConfiguration: GatewayEndpoint {}
extension ShanyanConfiguration: GatewayEndpoint {}
extension TencentCaptchaConfiguration: GatewayEndpoint {}
extension TencentSMSConfiguration: GatewayEndpoint {}
extension TianyiConfiguration: GatewayEndpoint {}
extension YidunConfiguration: GatewayEndpoint {}
