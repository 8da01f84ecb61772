import Foundation
import OneTap
import OneTapSupport

/// The gateways' configuration file: one JSON object, one member per gateway keyed by its name, each holding that
/// gateway's ids under the vendor's own field names and its secrets as `{"env": "NAME"}` or `{"file": "PATH"}`:
///
/// ```json
/// {"cmcc": {"appId": "300011111111", "appSecret": {"env": "CMCC_APP_SECRET"}},
///  "aliyun-sms": {"accessKeyId": "LTAI…", "accessKeySecret": {"file": "/run/secrets/aliyun"}, "signName": "…", "templateCode": "SMS_1"}}
/// ```
public struct GatewayConfigurationFile: Sendable, CustomStringConvertible {
    /// Every gateway name the file may hold, in the order `onetap gateway check` lists them.
    public static let gatewayNames = [
        "cmcc", "tianyi", "aliyun-pnvs", "jverification", "shanyan", "yidun", "aliyun-sms", "tencent-sms", "tencent-captcha", "geetest",
    ]

    /// Each configured gateway's settings, by name.
    public let gateways: [String: GatewaySettings]

    /// Reads a configuration file's text.
    /// - Parameters:
    ///   - text: The file's contents.
    ///   - file: Its path, for errors.
    ///   - environment: Reads environment variables (the process's by default).
    ///   - readFile: Reads the files secrets name (by default from the file system: a regular file of at most 64 KiB).
    /// - Throws: ``GatewayError`` named `config` when the text is not a JSON object of objects, or names a gateway
    ///   OneTap does not know (the error lists the known ones). Secrets are resolved when a gateway reads them.
    public init(
        text: String, file: String,
        environment: @escaping @Sendable (String) -> String? = { ProcessInfo.processInfo.environment[$0] },
        readFile: @escaping @Sendable (String) throws -> Data = { try BoundedFile.read($0, limit: BoundedFile.secretLimit) }
    ) throws(GatewayError) {
        let value: JSONValue
        do {
            value = try JSONValue.parse(text)
        } catch {
            throw GatewayError(gateway: "config", .misconfigured("\(file) is not JSON: \(error.debugDescription)"))
        }
        guard case .object(let members) = value else {
            throw GatewayError(gateway: "config", .misconfigured("\(file) must hold one JSON object keyed by gateway name"))
        }
        var gateways: [String: GatewaySettings] = [:]
        for name in members.keys.sorted() {
            guard Self.gatewayNames.contains(name) else {
                throw GatewayError(gateway: "config", .misconfigured("\(file): \"\(name)\" is not a gateway (known: \(Self.gatewayNames.joined(separator: ", ")))"))
            }
            guard case .object(let fields) = members[name] else {
                throw GatewayError(gateway: name, .misconfigured("\(file): \"\(name)\" must be an object of its fields"))
            }
            gateways[name] = GatewaySettings(gateway: name, fields: fields, environment: environment, readFile: readFile)
        }
        self.gateways = gateways
    }

    /// Reads a configuration file.
    /// - Parameters:
    ///   - path: The file's path.
    ///   - environment: Reads environment variables (the process's by default).
    /// - Throws: ``GatewayError`` named `config` when the file cannot be read or is not a configuration.
    public init(contentsOf path: String, environment: @escaping @Sendable (String) -> String? = { ProcessInfo.processInfo.environment[$0] }) throws(GatewayError) {
        let data: Data
        // A regular file of at most 1 MiB, as a secret's file is read (a FIFO named here blocked the start).
        do { data = try BoundedFile.read(path, limit: 1024 * 1024) } catch {
            throw GatewayError(gateway: "config", .misconfigured("\(path) cannot be read: \(error.reason)"))
        }
        guard let text = String(data: data, encoding: .utf8) else { throw GatewayError(gateway: "config", .misconfigured("\(path) is not UTF-8 text")) }
        try self.init(text: text, file: path, environment: environment)
    }

    /// One gateway's settings.
    /// - Parameter name: The gateway's name.
    /// - Returns: Its settings.
    /// - Throws: ``GatewayError`` `misconfigured` when the file has no object for it.
    public func settings(_ name: String) throws(GatewayError) -> GatewaySettings {
        guard let settings = gateways[name] else {
            throw GatewayError(gateway: name, .misconfigured("the configuration has no \"\(name)\" object"))
        }
        return settings
    }

    /// `gateways: cmcc, aliyun-sms`: the names, never a field's value.
    public var description: String { "gateways: \(gateways.keys.sorted().joined(separator: ", "))" }
}
