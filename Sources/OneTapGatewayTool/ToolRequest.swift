import Foundation
import OneTap
import OneTapGateways
import OneTapSupport

/// What `onetap gateway` asked, in the one form it passes (its own parser has checked the arguments; this one refuses
/// any other form with exit 64).
struct ToolRequest {
    var action: String
    var gateway = ""
    var config = ""
    var json = false
    var fields: [String: String] = [:]
    /// The fields given as `-` (their values on standard input, one line each), in the order given.
    var fromStandardInput: [String] = []
    var number: PhoneNumber?
    var to: PhoneNumber?
    var flow: LoginFlow?

    static let actions = ["check", "sign", "exchange", "verify", "sms"]

    static func parse(_ arguments: [String]) throws(ToolFailure) -> ToolRequest {
        var rest = arguments[...]
        guard let action = rest.popFirst(), actions.contains(action) else {
            throw ToolFailure("onetap-gateway is run by 'onetap gateway' (see 'onetap gateway --help')", .usage)
        }
        var request = ToolRequest(action: action)
        if action != "check" {
            guard let gateway = rest.popFirst(), !gateway.hasPrefix("-") else { throw ToolFailure("onetap gateway \(action) needs a gateway", .usage) }
            request.gateway = gateway
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--json": request.json = true
            case "--config" where !rest.isEmpty: request.config = rest.popFirst() ?? ""
            case "--token" where rest.first == "-", "--param" where rest.first == "-": _ = rest.popFirst()
            case "--field" where !rest.isEmpty:
                let pair = rest.popFirst() ?? ""
                guard let equals = pair.firstIndex(of: "=") else { throw ToolFailure("--field takes NAME=VALUE", .usage) }
                let name = String(pair[..<equals]), value = String(pair[pair.index(after: equals)...])
                // A secret field only from standard input, as `onetap gateway` passes it: on a command line any user
                // of the machine may read it, and the signed line would print it.
                guard GatewaySecretFields.mayBeGiven(name, as: value) else {
                    throw ToolFailure("--field \(name) takes its value from standard input only: --field \(name)=- (see 'onetap gateway --help')", .usage)
                }
                request.fields[name] = value
                if value == "-" { request.fromStandardInput.append(name) }
            case "--number" where !rest.isEmpty: request.number = try phone(rest.popFirst() ?? "", "--number")
            case "--to" where !rest.isEmpty: request.to = try phone(rest.popFirst() ?? "", "--to")
            case "--flow" where !rest.isEmpty:
                guard let flow = LoginFlow(rawValue: rest.popFirst() ?? ""), flow.isOneTap else { throw ToolFailure("--flow takes mobile, tianyi or unicom", .usage) }
                request.flow = flow
            default:
                // Never quoted whole: it may be a token written where `--token -` belongs (`--token=…`, an operand).
                let named = !argument.hasPrefix("--") ? "operand" : argument.contains("=") ? "\(argument.prefix { $0 != "=" })=…" : argument
                throw ToolFailure("onetap-gateway is run by 'onetap gateway'; unexpected \(named) (see 'onetap gateway --help')", .usage)
            }
        }
        guard !request.config.isEmpty else { throw ToolFailure("onetap gateway \(action) needs --config FILE", .usage) }
        return request
    }

    private static func phone(_ text: String, _ option: String) throws(ToolFailure) -> PhoneNumber {
        do { return try PhoneNumber(text) } catch { throw ToolFailure("\(option) takes a mainland mobile number (13800138000): \(error.reason)", .usage) }
    }
}

/// Why the tool stops short: its message (quoting no token or secret) and exit status, thrown up to ``GatewayTool/run(_:)``,
/// which writes the one and returns the other.
struct ToolFailure: Error {
    let message: String
    let code: ToolExit.Code

    init(_ message: String, _ code: ToolExit.Code) {
        self.message = message
        self.code = code
    }
}

/// The tool's exits and output.
enum ToolExit {
    /// An exit status.
    struct Code {
        let rawValue: Int32
        /// The vendor answered an error.
        static let vendorError = Code(rawValue: 1)
        /// An argument the tool cannot use.
        static let usage = Code(rawValue: 64)
        /// A malformed answer.
        static let malformed = Code(rawValue: 65)
        /// The vendor cannot be reached, or did not answer in time.
        static let unreachable = Code(rawValue: 69)
        /// A configuration that cannot be used (EX_CONFIG).
        static let config = Code(rawValue: 78)
    }

    static func print(_ lines: [String]) {
        var text = lines.map { $0 + "\n" }.joined()
        _ = text.withUTF8 { StandardStream.writeAll(1, UnsafeRawBufferPointer($0)) }
    }

    /// One line of standard input: a secret `onetap` passes there, never on a command line.
    static func secretLine(_ option: String) throws(ToolFailure) -> Secret {
        guard let line = readLine(strippingNewline: true), !line.isEmpty else {
            throw ToolFailure("\(option) - reads it from standard input, which held none (see 'onetap gateway --help')", .usage)
        }
        return Secret(line)
    }

    /// The failure a gateway's error calls for: its exit and message (a ``GatewayError``'s quotes no token or secret).
    static func failure(_ error: any Error) -> ToolFailure {
        switch error {
        case let error as GatewayError:
            switch error.kind {
            case .unreachable, .timedOut, .sentTwice, .notSent: return ToolFailure("\(error)", .unreachable)
            case .httpStatus, .bodyTooLarge, .wrongContentType, .malformedBody: return ToolFailure("\(error)", .malformed)
            case .misconfigured: return ToolFailure("\(error) (see 'onetap gateway check')", .config)
            case .refusedCredential: return ToolFailure("\(error)", .malformed)
            }
        case let error as ExchangeNotSentError where error.refusedCredential:
            return ToolFailure("not sent: \(error.reason)", .malformed)
        case let error as ExchangeNotSentError:
            // Nothing left: the transport's own error (a refused connection) says why, else the request could not be made.
            if let sent = CallTransport.failure.withLock({ $0 }) { return failure(sent) }
            return ToolFailure("not sent: \(error.reason)", .config)
        default: return ToolFailure("the call failed: \(type(of: error))", .vendorError)
        }
    }
}

/// The transport the calls go through: URLSession's, remembering its last failure, so that a gateway's "not sent"
/// (which wraps it) exits as unreachable (69) when the connection failed and as misconfigured (78) otherwise.
struct CallTransport: HTTPTransport {
    /// The last error the transport threw.
    static let failure = LockedValue<GatewayError?>(nil)
    let base = URLSessionTransport()

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        do {
            return try await base.send(request)
        } catch let error as GatewayError {
            Self.failure.withLock { $0 = error }
            throw error
        }
    }
}
