import Foundation
import OneTap
import OneTapSupport

/// One gateway's object in the gateways' configuration file (``GatewayConfigurationFile``): its ids under the
/// vendor's own field names, an optional `url` and `timeout` (seconds), and each secret as `{"env": "NAME"}` or `{"file": "PATH"}`, resolved
/// when read. A gateway's configuration type reads its fields from it, with errors that name the gateway, the field
/// and the fix.
public struct GatewaySettings: Sendable, CustomStringConvertible {
    /// The gateway's name: the object's key in the file (`cmcc`, `aliyun-sms`).
    public let gateway: String
    /// The object's members as they were written (secrets as their `env`/`file` references, never their values).
    package let fields: [String: JSONValue]
    /// Reads a secret reference's environment variable.
    package let environment: @Sendable (String) -> String?
    /// Reads a secret reference's file.
    package let readFile: @Sendable (String) throws -> Data

    /// Settings for one gateway.
    /// - Parameters:
    ///   - gateway: The gateway's name.
    ///   - fields: Its object's members.
    ///   - environment: Reads an environment variable (the process's, in production).
    ///   - readFile: Reads a file.
    package init(
        gateway: String, fields: [String: JSONValue], environment: @escaping @Sendable (String) -> String?,
        readFile: @escaping @Sendable (String) throws -> Data
    ) {
        self.gateway = gateway
        self.fields = fields
        self.environment = environment
        self.readFile = readFile
    }

    /// `cmcc (appId, appSecret, url)`: the gateway and its field names, never a value.
    public var description: String { "\(gateway) (\(fields.keys.sorted().joined(separator: ", ")))" }

    /// A required plain field (an id, a name, a region): a non-empty string without surrounding spaces.
    /// - Parameter field: The vendor's field name.
    /// - Returns: The value.
    /// - Throws: ``GatewayError`` `misconfigured` naming the gateway and the field: missing, not a string, empty,
    ///   padded, or a secret reference where an id belongs.
    package func text(_ field: String) throws(GatewayError) -> String {
        guard let value = try optionalText(field) else { throw misconfigured(field, "is missing: add \"\(field)\": \"…\" to \"\(gateway)\"") }
        return value
    }

    /// An optional plain field.
    /// - Parameter field: The vendor's field name.
    /// - Returns: The value, or nil when the field is absent.
    /// - Throws: ``GatewayError`` `misconfigured` as ``text(_:)``.
    package func optionalText(_ field: String) throws(GatewayError) -> String? {
        guard let value = fields[field] else { return nil }
        guard case .string(let text) = value else {
            if case .object = value { throw misconfigured(field, "is an id, not a secret: write it as a string") }
            throw misconfigured(field, "must be a string (write numbers in quotes: \"\(field)\": \"1400000000\")")
        }
        try check(field, text)
        return text
    }

    /// A required secret: `{"env": "NAME"}` (an environment variable) or `{"file": "PATH"}` (a file's contents, one
    /// trailing newline dropped), never a literal.
    /// - Parameter field: The vendor's field name (`appSecret`, `secretKey`, `privateKey`).
    /// - Returns: The secret.
    /// - Throws: ``GatewayError`` `misconfigured` naming the gateway, the field and the fix: missing, a literal
    ///   string, a reference to an unset variable or an unreadable file, an empty or padded value. Never the value.
    package func secret(_ field: String) throws(GatewayError) -> Secret {
        guard let value = try optionalSecret(field) else {
            throw misconfigured(field, "is missing: add \"\(field)\": {\"env\": \"NAME\"} or {\"file\": \"PATH\"} to \"\(gateway)\"")
        }
        return value
    }

    /// An optional secret, as ``secret(_:)``.
    /// - Parameter field: The vendor's field name.
    /// - Returns: The secret, or nil when the field is absent.
    /// - Throws: ``GatewayError`` `misconfigured` as ``secret(_:)``.
    package func optionalSecret(_ field: String) throws(GatewayError) -> Secret? {
        guard let value = fields[field] else { return nil }
        guard case .object(let reference) = value, reference.count == 1 else {
            if case .string = value {
                throw misconfigured(field, "is a secret and must not be written in the file: use {\"env\": \"NAME\"} or {\"file\": \"PATH\"}")
            }
            throw misconfigured(field, "must be {\"env\": \"NAME\"} or {\"file\": \"PATH\"}")
        }
        let text: String
        switch (reference["env"], reference["file"]) {
        case (.string(let name)?, nil):
            guard let found = environment(name) else { throw misconfigured(field, "names the environment variable \(name), which is not set") }
            text = found
        case (nil, .string(let path)?):
            let data: Data
            do { data = try readFile(path) } catch {
                throw misconfigured(field, "names the file \(path), which cannot be read" + ((error as? BoundedFile.Refused).map { ": \($0.reason)" } ?? ""))
            }
            guard let decoded = String(data: data, encoding: .utf8) else { throw misconfigured(field, "names the file \(path), which is not UTF-8 text") }
            text = decoded.hasSuffix("\r\n") ? String(decoded.dropLast(2)) : decoded.hasSuffix("\n") ? String(decoded.dropLast()) : decoded
        default:
            throw misconfigured(field, "must be {\"env\": \"NAME\"} or {\"file\": \"PATH\"}")
        }
        // A PEM key spans lines; every other secret is one token.
        if !text.hasPrefix("-----BEGIN") { try check(field, text) } else if text.isEmpty { throw misconfigured(field, "is empty") }
        return Secret(text)
    }

    /// The optional `url` overriding the documented endpoint: absolute `https` (or `http` to a loopback host, for a
    /// fake in tests), as ``EndpointRule`` says.
    /// - Returns: The URL, or nil when the field is absent.
    /// - Throws: ``GatewayError`` `misconfigured` naming the field: not an absolute URL, or `http` to another host.
    package func url(_ field: String = "url") throws(GatewayError) -> URL? {
        guard let text = try optionalText(field) else { return nil }
        guard let url = URL(string: text) else { throw misconfigured(field, "is not an absolute URL") }
        if let refusal = EndpointRule.refusal(of: url) { throw misconfigured(field, refusal) }
        return url
    }

    /// The optional `timeout`: the limit on one call in seconds, a number from 0.1 to 120 (`"timeout": 8`), in place of
    /// the gateway's documented default.
    /// - Returns: The limit, or nil when the field is absent.
    /// - Throws: ``GatewayError`` `misconfigured` naming the field: not a number, or outside 0.1 to 120 seconds.
    package func timeout() throws(GatewayError) -> Duration? {
        guard let value = fields["timeout"] else { return nil }
        guard case .number(let seconds) = value else { throw misconfigured("timeout", "must be a number of seconds (\"timeout\": 8)") }
        guard seconds >= 0.1, seconds <= 120 else { throw misconfigured("timeout", "must be from 0.1 to 120 seconds") }
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }

    /// Sets what every gateway's object may hold beside its own fields, each where it is written: the ``timeout()``
    /// and the endpoint's ``url(_:)``, in place of the configuration's documented defaults.
    /// - Parameters:
    ///   - configuration: The configuration read from the object's own fields.
    ///   - urlField: The field naming its endpoint: `url` unless given (`tokenValidateUrl`).
    /// - Throws: ``GatewayError`` `misconfigured`, as ``timeout()`` and ``url(_:)``.
    package func applyEndpoint(to configuration: inout some GatewayEndpoint, urlField: String = "url") throws(GatewayError) {
        if let timeout = try timeout() { configuration.timeout = timeout }
        if let url = try url(urlField) { configuration.url = url }
    }

    /// Refuses fields the gateway does not read, so a misspelt field is an error rather than a silent default.
    /// - Parameter known: Every field the gateway reads (`url` and `timeout` are every gateway's).
    /// - Throws: ``GatewayError`` `misconfigured` naming the first unknown field and the known ones.
    package func refuseUnknownFields(_ known: Set<String>) throws(GatewayError) {
        let all = known.union(["url", "timeout"])
        if let unknown = fields.keys.sorted().first(where: { !all.contains($0) }) {
            throw misconfigured(unknown, "is not a field of \(gateway) (its fields: \(all.sorted().joined(separator: ", ")))")
        }
    }

    /// An error naming this gateway and a field.
    /// - Parameters:
    ///   - field: The field.
    ///   - problem: What is wrong and the fix.
    /// - Returns: ``GatewayError`` `misconfigured`.
    package func misconfigured(_ field: String, _ problem: String) -> GatewayError {
        GatewayError(gateway: gateway, .misconfigured("\(field) \(problem)"))
    }

    private func check(_ field: String, _ text: String) throws(GatewayError) {
        guard !text.isEmpty else { throw misconfigured(field, "is empty") }
        guard text.trimmingCharacters(in: .whitespacesAndNewlines) == text else {
            throw misconfigured(field, "has leading or trailing spaces (a common cause of sign errors): remove them")
        }
        guard !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw misconfigured(field, "holds a control character")
        }
    }
}
