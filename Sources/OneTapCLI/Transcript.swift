import Foundation
import OneTap

/// A login transcript: NDJSON, the first line a `DeviceSnapshot`, every other line a report, replayed
/// through the session machine the server runs (exchanges on). What `onetap session` and the
/// `.transcript` decision tables read.
///
/// ```
/// {"sim":"present","plmn":"46000"}
/// {"flow":"mobile","code":"103000","token":"…","uniqueId":"…"}
/// {"exchange":"103000"}
/// ```
/// Reports: `{"flow":F,"code":C}` (with `token`, `uniqueId`, `refreshToken`, `expiresIn`),
/// `{"flow":F,"timeout":true}`, `{"flow":F,"fault":"…"}`, `{"flow":F,"switch":true}`,
/// `{"flow":F,"cancel":true}`, `{"flow":"sms","verified":true}` (optional `phone`), `{"exchange":CODE}`
/// (optional `phone`), `{"exchange":"timeout"}`, `{"exchange":"fault"}`, `{"exchange":"token-expired"}`,
/// `{"exchange":"replayed"}`. Any line may carry `"at"` (ISO 8601; otherwise lines are one second
/// apart from 2026-12-01T00:00:00Z) and a report `"version"` (checked against the session's).
package struct Transcript {
    /// What one line came to.
    package enum Record {
        /// The session after the line, what it asks for next, and the line's instant.
        case transition(LoginTransition, at: Date)
        /// The session refused the report.
        case rejected(LoginRejection)
        /// The line is not a snapshot or a report.
        case malformed(String)
        /// A blank line or a comment.
        case skipped
    }

    /// The fixed start of a transcript's clock.
    static let start = Date(timeIntervalSince1970: 1_796_083_200)
    /// The number an exchange or SMS verification answers with when the line names none.
    static let placeholderNumber = PhoneNumber(unchecked: 13_800_138_000)

    let machine: LoginSessionMachine
    /// The login, once the snapshot line started it.
    private var driver: LoginDriver? = nil
    private(set) var rejected = false
    private(set) var malformed = false
    private var number: PhoneNumber? = nil
    private var lines = 0
    private let sessionID: LoginSessionID?

    /// Creates a replay.
    /// - Parameters:
    ///   - engine: The engine the session machine plans and classifies with.
    ///   - sessionID: The session's id; a random one by default (`onetap session --events` gives fixed
    ///     ones, so the same transcripts make the same events).
    package init(engine: LoginDecisionEngine, sessionID: LoginSessionID? = nil) {
        machine = LoginSessionMachine(engine: engine)
        self.sessionID = sessionID
    }

    /// The session, once the snapshot line started it.
    package var session: LoginSession? { driver?.session }

    /// Whether the replay ended with the login over.
    var ended: Bool { driver?.end != nil }

    /// Replays one line read as bytes (standard input): a line cut for its length, or one that is not UTF-8, is
    /// malformed (reported and skipped), as such a line makes a whole file unreadable.
    /// - Parameters:
    ///   - bytes: The line's bytes.
    ///   - number: Its 1-based number, for the message.
    ///   - cut: Whether it was cut for its length.
    /// - Returns: What came of it.
    mutating func replay(bytes: UnsafeBufferPointer<UInt8>, number: Int, cut: Bool) -> Record {
        if !cut, let text = String(validating: bytes, as: UTF8.self) { return replay(text) }
        lines += 1
        malformed = true
        return .malformed("line \(number) \(cut ? "is too long to be a report" : "is not UTF-8 text"); it was skipped")
    }

    /// Replays one line.
    /// - Parameter text: The line's text (a JSON object), or blank, or a `#` comment, or a `=> {…}` expectation (what
    ///   `onetap check` compares; a replay skips it, so one `.transcript` file serves both).
    /// - Returns: What came of it.
    package mutating func replay(_ text: String) -> Record {
        lines += 1
        let trimmed = text.trimmingCharacters(in: " \t\r")
        if trimmed.isEmpty || trimmed.hasPrefix("#") || trimmed.hasPrefix("=>") { return .skipped }
        let line: Line
        do {
            line = try Line(json: trimmed)
        } catch {
            malformed = true
            return .malformed(RouteCommand.describe(error))
        }
        let at: Date
        do {
            at = try line.at.map { (text) throws(ParseError) in try Timestamp.parse(text) } ?? Self.start.addingTimeInterval(Double(lines - 1))
        } catch {
            malformed = true
            return .malformed("key 'at': \(error)")
        }
        guard var current = driver else {
            if let problem = line.reportKeys.first {
                malformed = true
                return .malformed("the first line is the device snapshot; key '\(problem)' belongs to a report")
            }
            do {
                let snapshot = try DeviceSnapshot(json: trimmed)
                number = snapshot.phoneHint
                let started = LoginDriver(machine, starting: snapshot, at: at, id: sessionID ?? .random())
                driver = started
                return .transition(started.transition, at: at)
            } catch {
                malformed = true
                return .malformed(RouteCommand.describe(error))
            }
        }
        let report: LoginReport
        do {
            // A transcript stands for the server: its exchange answers are bound to the token the session exchanges.
            report = try line.report(session: current.session.id, at: at, number: number ?? Self.placeholderNumber).bound(to: current.session)
        } catch {
            malformed = true
            return .malformed(error.message)
        }
        do {
            // A line is a report from outside: the session may refuse it, and the replay goes on.
            let transition = try current.take(report, version: line.version, at: at)
            driver = current
            return .transition(transition, at: at)
        } catch {
            rejected = true
            return .rejected(error)
        }
    }

    /// One line's JSON: the snapshot's keys are read by `DeviceSnapshot` itself; these are the report's.
    struct Line: JSONReadable {
        var at: String?
        var version: Int?
        var flow: String?
        var code: String?
        var token: String?
        var uniqueId: String?
        var refreshToken: String?
        var expiresIn: ExpiresIn?
        var timeout: Bool?
        var fault: String?
        var `switch`: Bool?
        var cancel: Bool?
        var verified: Bool?
        var phone: String?
        var exchange: String?

        /// The report keys present.
        var reportKeys: [String] {
            [("flow", flow != nil), ("code", code != nil), ("token", token != nil), ("timeout", timeout != nil), ("fault", fault != nil),
             ("switch", self.switch != nil), ("cancel", cancel != nil), ("verified", verified != nil), ("exchange", exchange != nil),
             ("version", version != nil)]
                .filter(\.1).map(\.0)
        }

        struct Problem: Error {
            let message: String
        }

        func report(session: LoginSessionID, at: Date, number: PhoneNumber) throws(Problem) -> LoginReport {
            var given = 0
            for present in [code != nil, timeout == true, fault != nil, self.switch == true, cancel == true, verified == true, exchange != nil] where present {
                given += 1
            }
            guard given == 1 else {
                throw Problem(message: given == 0
                    ? "a report needs one of code, timeout, fault, switch, cancel, verified or exchange"
                    : "a report holds one of code, timeout, fault, switch, cancel, verified or exchange, not several")
            }
            let phoneNumber: PhoneNumber
            do {
                phoneNumber = try phone.map { (text) throws(ParseError) in try PhoneNumber(text) } ?? number
            } catch {
                throw Problem(message: "key 'phone': \(error)")
            }
            if let exchange {
                guard flow == nil else { throw Problem(message: "an exchange answer names no flow (it answers for the token being exchanged)") }
                switch exchange {
                case "timeout": return .exchanged(.timeout)
                case "fault": return .exchanged(.fault("the exchange call failed"))
                case "token-expired": return .exchanged(.tokenExpired)
                case "replayed": return .exchanged(.replayed)
                default:
                    do {
                        return .exchanged(.answered(try ResultCode(exchange), phoneNumber: phoneNumber))
                    } catch {
                        throw Problem(message: "key 'exchange': \(error)")
                    }
                }
            }
            guard let name = flow else { throw Problem(message: "a report names its flow: \"flow\": mobile, tianyi, unicom or sms") }
            guard let flow = LoginFlow(rawValue: name) else {
                throw Problem(message: "key 'flow': unknown flow \(quoted(name)); the flows are \(LoginFlow.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            if timeout == true { return .timeout(flow) }
            if let fault { return .fault(flow, fault) }
            if self.switch == true { return .switchToSMS(flow) }
            if cancel == true { return .cancel(flow) }
            if verified == true {
                guard flow == .sms else { throw Problem(message: "only the sms flow is verified") }
                return .smsVerified(SMSVerdict(phoneNumber: phoneNumber, session: session, verifiedAt: at))
            }
            let result: ResultCode
            do {
                result = try ResultCode(code ?? "")
            } catch {
                throw Problem(message: "key 'code': \(error)")
            }
            let credential = token.map {
                CarrierCredential(flow: flow, token: Secret($0), refreshToken: refreshToken.map(Secret.init), uniqueID: uniqueId, expiresIn: expiresIn)
            }
            return .result(flow, code: result, credential: credential)
        }
    }

    /// The JSON record of a line: `{"line":N,"next":…,"flow":…,"attempt":…,"ending":…,"reason":…,"version":…}`,
    /// `{"line":N,"rejected":…,"reason":…}` or `{"line":N,"error":…}`; never a token.
    package static func json(_ record: Record, line: Int) -> JSONObject? {
        var object = JSONObject()
        object.add("line", Int64(line))
        switch record {
        case .skipped:
            return nil
        case .malformed(let message):
            object.add("error", message)
        case .rejected(let rejection):
            object.add("rejected", rejection.kind.id)
            object.add("reason", rejection.message)
        case .transition(let transition, _):
            let session = transition.session
            object.add("next", transition.instruction.next)
            object.add("flow", session.flow?.rawValue)
            if let attempt = session.attempt { object.add("attempt", Int64(attempt)) } else { object.add("attempt", json: "null") }
            object.add("ending", session.ending?.rawValue)
            object.add("reason", reason(transition))
            object.add("version", Int64(session.version))
        }
        return object
    }

    /// Why the session is where it is: the plan's reason at the start, else the last step's meaning.
    static func reason(_ transition: LoginTransition) -> String {
        if case .progress(_, let code) = transition.events.first { return "progress \(code): keep waiting" }
        if transition.session.version == 1 && transition.session.trace.isEmpty { return transition.session.plan.reason.rawValue }
        return transition.session.trace.last?.meaning ?? transition.session.plan.reason.rawValue
    }

    /// The text record of a line.
    static func text(_ record: Record, line: Int) -> String? {
        switch record {
        case .skipped:
            return nil
        case .malformed(let message):
            return "line \(line): error: \(message)"
        case .rejected(let rejection):
            return "line \(line): rejected (\(rejection.kind)): \(rejection.message)"
        case .transition(let transition, _):
            let session = transition.session
            let what = switch transition.instruction {
            case .run(let flow, let attempt): "run \(flow) (attempt \(attempt))"
            case .sms: "sms"
            case .exchange(let credential): "exchange the \(credential.flow) token"
            case .done(let ending, let flow, _): "done: \(ending)\(flow.map { " via \($0)" } ?? "")"
            }
            return "line \(line): \(what) · version \(session.version) · \(reason(transition))"
        }
    }
}
