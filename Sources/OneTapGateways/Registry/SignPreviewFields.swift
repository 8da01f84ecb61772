import Foundation
import OneTap
import OneTapSupport

/// The fields `onetap gateway sign` hands a gateway (`--field NAME=VALUE`), checked against the fields the signed call
/// takes and read with errors that name the field.
package struct SignPreviewFields: Sendable {
    /// The fields given, by name.
    package let values: [String: String]
    /// The gateway's name, for errors.
    package let gateway: String

    /// The fields given, a field the call does not take refused.
    /// - Parameters:
    ///   - values: The fields given.
    ///   - known: The fields the call takes, in the order the error lists them.
    ///   - call: What is signed, as the error names it (`tencent-sms`, `loginTokenValidate's sign`).
    ///   - gateway: The gateway's name.
    /// - Throws: ``GatewayError`` `misconfigured`: `--field X is not a field of <call> (its fields: …)`, naming the
    ///   first unknown field in name order.
    package init(_ values: [String: String], known: [String], of call: String, gateway: String) throws(GatewayError) {
        if let unknown = values.keys.sorted().first(where: { !known.contains($0) }) {
            // Not repeated unless it looks like a name: a token given where `NAME=-` belongs would be.
            throw GatewayError(gateway: gateway, .misconfigured("--field \(QuotedInput.nameOrLength(unknown)) is not a field of \(call) (its fields: \(known.joined(separator: ", ")))"))
        }
        self.values = values
        self.gateway = gateway
    }

    /// A field's value.
    /// - Parameter name: The field.
    /// - Returns: Its value, or nil when not given.
    package subscript(_ name: String) -> String? { values[name] }

    /// A field that must be given.
    /// - Parameter name: The field.
    /// - Returns: Its value.
    /// - Throws: ``GatewayError`` `misconfigured` when it is missing or empty.
    package func required(_ name: String) throws(GatewayError) -> String {
        guard let value = values[name], !value.isEmpty else { throw GatewayError(gateway: gateway, .misconfigured("--field \(name)=… is needed (a secret one as \(name)=-, its value on standard input)")) }
        return value
    }

    /// `date`: an ISO 8601 UTC time as Aliyun writes `x-acs-date`, `2023-10-26T10:22:32Z`.
    /// - Returns: The instant, or nil when not given (the gateway's clock then).
    /// - Throws: ``GatewayError`` `misconfigured` when it is not an ISO 8601 UTC time.
    package func date() throws(GatewayError) -> Date? {
        guard let text = values["date"] else { return nil }
        do {
            return try Timestamp.parse(text)
        } catch {
            throw GatewayError(gateway: gateway, .misconfigured("--field date must be UTC like 2023-10-26T10:22:32Z, not '\(text.prefix(40))'"))
        }
    }

    /// `timestamp`: whole seconds since 1970, as Tencent Cloud's `X-TC-Timestamp`.
    /// - Parameter clock: The gateway's clock, read when the field is not given.
    /// - Returns: The instant.
    /// - Throws: ``GatewayError`` `misconfigured` when the field is not whole seconds since 1970.
    package func timestamp(_ clock: any WallClock) throws(GatewayError) -> Date {
        guard let field = values["timestamp"] else { return clock.now() }
        guard let seconds = Int64(field), (0...32_503_680_000).contains(seconds) else {
            throw GatewayError(gateway: gateway, .misconfigured("--field timestamp must be whole seconds since 1970 (X-TC-Timestamp), such as 1551113065"))
        }
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }
}
