import OneTap
import OneTapSupport

/// An Aliyun API's answer: the JSON object every RPC API returns, with its `Code` (`OK` on success) and `RequestId`.
///
/// Aliyun answers a business error (`isv.TOKEN_INVALID`, `isv.BUSINESS_LIMIT_CONTROL`) with HTTP 200 and a gateway
/// error (`SignatureDoesNotMatch`, `InvalidAccessKeyId.NotFound`, `Throttling.User`) with a 4xx status and the same
/// JSON shape: both are answers, read here for their `Code`. A 4xx without such a body, and any other status, is
/// ``GatewayError/Kind/httpStatus(_:)``.
package struct AliyunAnswer: Sendable {
    /// `Code`, exactly as it came.
    package let code: ResultCode
    /// `RequestId`, Aliyun's id of the call (for its support and for reconciliation), at most 128 characters.
    package let requestID: String?
    /// The HTTP status it came with.
    package let status: Int
    /// The whole object, for the API's own members.
    package let object: [String: JSONValue]

    /// Reads an answer.
    /// - Parameters:
    ///   - response: The HTTP answer.
    ///   - gateway: The gateway's name, for errors.
    ///   - contentTypes: The media types accepted.
    /// - Returns: The answer.
    /// - Throws: ``GatewayError``: `httpStatus` (5xx, or a 4xx without an Aliyun error body or whose `Code` is `OK`), `wrongContentType`,
    ///   `malformedBody` (not JSON, no `Code`, a `Code` that is no code). Never the body's words.
    package static func read(_ response: HTTPResponse, gateway: String, contentTypes: [String]) throws(GatewayError) -> AliyunAnswer {
        let object: [String: JSONValue]
        if (400...499).contains(response.status) {
            // Judged as a 200 would be; anything but an Aliyun error object is the status itself.
            let judged = HTTPResponse(status: 200, headers: response.headers, body: response.body)
            let errorObject: [String: JSONValue]
            do {
                errorObject = try GatewayAnswer.jsonObject(judged, gateway: gateway, contentTypes: contentTypes)
            } catch {
                throw GatewayError(gateway: gateway, .httpStatus(response.status))
            }
            guard case .string? = errorObject["Code"] else { throw GatewayError(gateway: gateway, .httpStatus(response.status)) }
            object = errorObject
        } else {
            object = try GatewayAnswer.jsonObject(response, gateway: gateway, contentTypes: contentTypes)
        }
        let code = try GatewayAnswer.code(object, "Code", gateway: gateway, label: "Code")
        // An error object names an error: a 4xx whose body says `OK` (as the code reads: padded with white space too) is
        // no answer to read, never a login, a pass or "sent".
        if (400...499).contains(response.status), code == "OK" { throw GatewayError(gateway: gateway, .httpStatus(response.status)) }
        let requestID = GatewayAnswer.bookkeepingID(object, "RequestId")
        return AliyunAnswer(code: code, requestID: requestID, status: response.status, object: object)
    }

    /// A member of a nested object (`GetMobileResultDTO.Mobile`) as text.
    /// - Parameters:
    ///   - container: The nested object's name.
    ///   - member: The member's name.
    ///   - gateway: The gateway's name, for errors.
    ///   - acceptingNumbers: Whether a whole number reads as its digits (``GatewayAnswer/text(_:_:gateway:acceptingNumbers:)``).
    /// - Returns: The text, or nil when either is absent.
    /// - Throws: ``GatewayError/Kind/malformedBody(_:)`` when the container is not an object or the member no text.
    package func text(in container: String, _ member: String, gateway: String, acceptingNumbers: Bool = false) throws(GatewayError) -> String? {
        switch object[container] {
        case nil, .null?:
            return nil
        case .object(let members)?:
            return try GatewayAnswer.text(members, member, gateway: gateway, acceptingNumbers: acceptingNumbers)
        default:
            throw GatewayError(gateway: gateway, .malformedBody("'\(container)' is not an object"))
        }
    }
}
