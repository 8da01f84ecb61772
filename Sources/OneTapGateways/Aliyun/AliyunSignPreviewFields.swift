import Foundation
import OneTap
import OneTapSupport

/// The fields `onetap gateway sign` hands an Aliyun gateway (`--field NAME=VALUE`), read with errors that name the
/// field.
package enum AliyunSignPreviewFields {
    /// Refuses a field the gateway does not take.
    /// - Parameters:
    ///   - fields: The fields given.
    ///   - known: The fields it takes.
    ///   - gateway: The gateway's name.
    /// - Throws: ``GatewayError`` `misconfigured` naming the first unknown field and the known ones.
    package static func refuseUnknown(_ fields: [String: String], known: Set<String>, gateway: String) throws(GatewayError) {
        if let unknown = fields.keys.sorted().first(where: { !known.contains($0) }) {
            throw GatewayError(gateway: gateway, .misconfigured("--field \(unknown) is not taken (fields: \(known.sorted().joined(separator: ", ")))"))
        }
    }

    /// A field that must be given.
    /// - Parameters:
    ///   - fields: The fields given.
    ///   - name: The field.
    ///   - gateway: The gateway's name.
    /// - Returns: Its value.
    /// - Throws: ``GatewayError`` `misconfigured` when it is missing or empty.
    package static func required(_ fields: [String: String], _ name: String, gateway: String) throws(GatewayError) -> String {
        guard let value = fields[name], !value.isEmpty else { throw GatewayError(gateway: gateway, .misconfigured("--field \(name)=… is needed")) }
        return value
    }

    /// `date`: `x-acs-date` as Aliyun writes it, `2023-10-26T10:22:32Z`.
    /// - Parameters:
    ///   - fields: The fields given.
    ///   - gateway: The gateway's name.
    /// - Returns: The instant, or nil when not given (the gateway's clock then).
    /// - Throws: ``GatewayError`` `misconfigured` when it is not an ISO 8601 UTC time.
    package static func date(_ fields: [String: String], gateway: String) throws(GatewayError) -> Date? {
        guard let text = fields["date"] else { return nil }
        do {
            return try Timestamp.parse(text)
        } catch {
            throw GatewayError(gateway: gateway, .misconfigured("--field date must be UTC like 2023-10-26T10:22:32Z, not '\(text.prefix(40))'"))
        }
    }
}
