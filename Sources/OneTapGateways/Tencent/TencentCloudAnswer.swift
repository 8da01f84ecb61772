import OneTap
import OneTapSupport

/// A Tencent Cloud API 3.0 answer: every answer is `{"Response": {…, "RequestId": "…"}}`, and a failed call's
/// `Response` holds `Error: {"Code": "AuthFailure.SignatureFailure", "Message": "…"}` (Tencent's "返回结果" document,
/// `Data/gateways/tencent-sms.md`), with HTTP status 200 either way.
package enum TencentCloudAnswer {
    /// What the answer said.
    package enum Outcome: Sendable {
        /// The call's own members (`SendStatusSet`, `CaptchaCode`), `RequestId` among them.
        case response([String: JSONValue])
        /// `Response.Error`: the code exactly as it came, and the request's id for Tencent's support.
        case error(code: String, requestID: String?)
    }

    /// Reads an answer.
    /// - Parameters:
    ///   - response: The HTTP answer.
    ///   - gateway: The gateway's name, for errors.
    ///   - contentTypes: The accepted media types.
    /// - Returns: The call's members or its error code.
    /// - Throws: ``GatewayError``: `httpStatus`, `wrongContentType`, `malformedBody` (not JSON, no `Response`
    ///   object, an `Error` without a `Code`), naming what was wrong, never the body.
    package static func read(_ response: HTTPResponse, gateway: String, contentTypes: [String]) throws(GatewayError) -> Outcome {
        let object = try GatewayAnswer.jsonObject(response, gateway: gateway, contentTypes: contentTypes)
        guard let members = object["Response"]?.objectValue else { throw GatewayError(gateway: gateway, .malformedBody("no Response object")) }
        let requestID = GatewayAnswer.bookkeepingID(members, "RequestId")
        if let error = members["Error"] {
            guard let fields = error.objectValue, let code = try GatewayAnswer.text(fields, "Code", gateway: gateway, acceptingNumbers: true), !code.isEmpty else {
                throw GatewayError(gateway: gateway, .malformedBody("Response.Error without a Code"))
            }
            return .error(code: DisplayText.label(code), requestID: requestID)
        }
        return .response(members)
    }
}
