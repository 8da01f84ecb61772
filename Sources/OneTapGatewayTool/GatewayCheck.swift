import Foundation
import OneTap
import OneTapGateways
import OneTapSupport

/// `check`: every gateway in the file built offline (its fields read, its secrets resolved, its keys parsed) with a
/// transport that is never called.
struct GatewayCheck {
    struct Result {
        let gateway: String
        let does: [GatewayCapability]
        /// The configuration's description without the leading name, or nil on an error.
        let summary: String?
        let error: String?
    }

    let file: String
    let results: [Result]

    var allOK: Bool { results.allSatisfy { $0.error == nil } }

    static func run(_ configuration: GatewayConfigurationFile, file: String) -> GatewayCheck {
        let names = GatewayConfigurationFile.gatewayNames.filter { configuration.gateways[$0] != nil }
        let results = names.map { name -> Result in
            guard let registration = GatewayRegistry.registration(named: name) else {
                return Result(gateway: name, does: [], summary: nil, error: "\(name) is not built into this onetap (built in: \(GatewayRegistry.names))")
            }
            do {
                let built = try registration.build(try configuration.settings(name), NeverCalledTransport(), SystemClock())
                let prefix = name + " "
                let summary = built.summary.hasPrefix(prefix) ? String(built.summary.dropFirst(prefix.count)) : built.summary
                return Result(gateway: name, does: built.roles, summary: summary, error: nil)
            } catch {
                return Result(gateway: name, does: registration.capabilities, summary: nil, error: "\(error)")
            }
        }
        return GatewayCheck(file: file, results: results)
    }

    /// `cmcc  ok  appid 300011111111, MD5 sign, www.cmpassport.com/… (exchange)`, one line per gateway, and the
    /// file's line when it holds none.
    var lines: [String] {
        guard !results.isEmpty else { return ["\(file) configures no gateway"] }
        let width = results.map(\.gateway.count).max() ?? 0
        return results.map { result in
            let name = result.gateway.padding(toLength: width, withPad: " ", startingAt: 0)
            if let error = result.error { return "\(name)  error  \(error)" }
            return "\(name)  ok  \(result.summary ?? "") (\(result.does.map(\.rawValue).joined(separator: ", ")))"
        }
    }

    /// `{"config":"FILE","ok":true,"gateways":[{"gateway":"cmcc","ok":true,"does":["exchange"],"summary":"…"}]}`.
    var json: String {
        var writer = JSONWriter()
        writer.object { writer in
            writer.member("config", file)
            writer.member("ok", allOK)
            writer.member("gateways", objects: results) { writer, result in
                writer.member("gateway", result.gateway)
                writer.member("ok", result.error == nil)
                writer.member("does", strings: result.does.map(\.rawValue))
                writer.member("summary", result.summary)
                writer.member("error", result.error)
            }
        }
        return writer.text
    }
}

/// The transport `check` builds gateways with: it is never called (a call is a programming error, answered as one
/// that did not leave).
struct NeverCalledTransport: HTTPTransport {
    func send(_ request: HTTPRequest) async throws(GatewayError) -> HTTPResponse {
        throw GatewayError(gateway: request.gateway, .notSent("onetap gateway check makes no call"))
    }
}
