import Foundation
import OneTap
import OneTapGateways
import OneTapSupport

/// The tool's run, from its arguments to its exit status: what `main.swift` exits with.
enum GatewayTool {
    /// Runs one request: parses it, reads the configuration, builds the gateway and makes the call (its one secret
    /// line each read from standard input), printing what it prints.
    /// - Parameter arguments: The arguments, without the tool's name.
    /// - Returns: The exit status: 0 ok, 1 the vendor answered an error, 64 usage, 65 a malformed answer, 69
    ///   unreachable, timed out or sent twice (its first answer lost), 78 a configuration that cannot be used; the message of a failure (anything but a vendor's
    ///   answer) on standard error.
    static func run(_ arguments: [String]) async -> Int32 {
        do {
            return try await call(arguments)
        } catch {
            StandardStream.writeError("onetap: error: \(error.message)\n")
            return error.code.rawValue
        }
    }

    private static func call(_ arguments: [String]) async throws(ToolFailure) -> Int32 {
        let request = try ToolRequest.parse(arguments)
        let configuration: GatewayConfigurationFile
        do {
            configuration = try GatewayConfigurationFile(contentsOf: request.config)
        } catch {
            throw ToolFailure("\(error) (see 'onetap gateway --help')", .config)
        }
        if request.action == "check" {
            let report = GatewayCheck.run(configuration, file: request.config)
            ToolExit.print(request.json ? [report.json] : report.lines)
            return report.allOK ? 0 : ToolExit.Code.config.rawValue
        }
        guard let registration = GatewayRegistry.registration(named: request.gateway) else {
            throw ToolFailure("\(request.gateway) is not built into this onetap (built in: \(GatewayRegistry.names))", .usage)
        }
        let clock = SystemClock()
        let built: BuiltGateway
        do {
            built = try registration.build(try configuration.settings(request.gateway), CallTransport(), clock)
        } catch {
            throw ToolFailure("\(error) (see 'onetap gateway check')", .config)
        }
        let call = GatewayCall(gateway: request.gateway, built: built, can: registration.capabilities, json: request.json, flow: request.flow)
        switch request.action {
        case "sign":
            // A field given as `-` (a secret one: `onetap gateway` takes those from standard input only) is its one line.
            var fields = request.fields
            for name in request.fromStandardInput { fields[name] = try ToolExit.secretLine("--field \(name)").reveal() }
            return try await call.sign(fields, secrets: request.fromStandardInput)
        case "exchange": return try await call.exchange(try ToolExit.secretLine("--token"))
        case "verify": return try await call.verify(try ToolExit.secretLine("--token"), number: request.number)
        default: return try await call.sms(to: request.to, code: try ToolExit.secretLine("--param"), at: clock.now())
        }
    }
}
