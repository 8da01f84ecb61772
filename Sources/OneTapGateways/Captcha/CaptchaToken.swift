import OneTap
import OneTapSupport

/// The captcha token a client sends (``SMSContext/captcha``) for a gateway whose widget yields several values:
/// one JSON object holding the widget's own result members under the widget's own names, as its callback gives
/// them (Tencent's `{"ret":0,"ticket":"…","randstr":"…"}`, GeeTest's `getValidate()` object), so the client sends
/// `JSON.stringify(result)` unchanged. Members the gateway does not read are ignored.
package enum CaptchaToken {
    /// The longest token read: 8 KiB (a Tencent ticket is a few hundred bytes).
    package static let maximumBytes = 8192

    /// Reads a token's members.
    /// - Parameters:
    ///   - token: The client's token.
    ///   - gateway: The gateway's name, for errors.
    ///   - required: The members that must hold non-empty text.
    ///   - optional: Members read when present (as text).
    /// - Returns: Each member read, by name.
    /// - Throws: ``CaptchaTokenError`` naming the missing or mistyped member and the form expected.
    package static func members(_ token: Secret, gateway: String, required: [String], optional: [String] = []) throws(CaptchaTokenError) -> [String: String] {
        let form = "a JSON object with \(required.map { "\"\($0)\"" }.joined(separator: ", ")) as the widget's callback gives them"
        let text = token.reveal()
        guard text.utf8.count <= maximumBytes else { throw CaptchaTokenError(gateway: gateway, "longer than \(maximumBytes) bytes; expected \(form)") }
        let value: JSONValue
        do {
            value = try JSONValue.parse(text)
        } catch {
            throw CaptchaTokenError(gateway: gateway, "not JSON (\(text.utf8.count) bytes); expected \(form)")
        }
        guard let object = value.objectValue else { throw CaptchaTokenError(gateway: gateway, "not a JSON object; expected \(form)") }
        var members: [String: String] = [:]
        for name in required + optional {
            switch object[name] {
            case .string(let member)?:
                guard !member.isEmpty || !required.contains(name) else { throw CaptchaTokenError(gateway: gateway, "\"\(name)\" is empty; expected \(form)") }
                guard !member.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                    throw CaptchaTokenError(gateway: gateway, "\"\(name)\" holds a control character")
                }
                members[name] = member
            case .number(let number)? where number.rounded() == number && abs(number) < 1e15:
                members[name] = String(Int64(number))
            case nil, .null?:
                if required.contains(name) { throw CaptchaTokenError(gateway: gateway, "no \"\(name)\"; expected \(form)") }
            default:
                throw CaptchaTokenError(gateway: gateway, "\"\(name)\" is not a string; expected \(form)")
            }
        }
        return members
    }
}
