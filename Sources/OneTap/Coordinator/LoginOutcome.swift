/// How a login ended, with everything that led there.
public struct LoginOutcome: Sendable, CustomStringConvertible {
    /// success, cancelled or failed.
    public let ending: Decision.Ending
    /// The flow that ended the login (nil when it was cancelled before any flow ran).
    public let flow: LoginFlow?
    /// The plan that was run.
    public let plan: LoginPlan
    /// Every step, in order.
    package let trace: [LoginStep]
    /// Operator alerts raised on the way (`misconfigured` codes).
    package let alerts: [LoginAlert]
    /// On success: what the flow produced.
    public let credential: CarrierCredential?
    /// On success with a token exchange: who logged in.
    public let verified: VerifiedLogin?

    /// The outcome of a driven login.
    /// - Parameters:
    ///   - driver: The driver, at its end.
    ///   - credential: What the last flow produced; kept on success only.
    init(_ driver: LoginDriver, credential: CarrierCredential?) {
        let end = driver.end  // nil not reached: made at the end
        ending = end?.ending ?? .failed
        flow = end == nil ? driver.session.flow : end?.flow
        plan = driver.session.plan
        trace = driver.session.trace
        alerts = driver.session.alerts
        self.credential = ending == .success ? credential : nil
        verified = end?.verified
    }

    /// `success via mobile after 2 steps`.
    public var description: String {
        "\(ending)\(flow.map { " via \($0)" } ?? "") after \(trace.count) step\(trace.count == 1 ? "" : "s")\(alerts.isEmpty ? "" : ", \(alerts.count) alert(s)")"
    }
}

/// Why a coordinator refused to start a login.
public struct LoginCoordinatorError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong.
    public let message: String

    /// Another login is running on this coordinator. China Mobile's SDK forbids concurrent calls, so a
    /// second `login` is rejected rather than joined: its caller's device state may differ.
    public static let busy = LoginCoordinatorError(message: "a login is already running on this coordinator; one login at a time (China Mobile's SDK forbids concurrent calls)")

    /// A readable form, for messages and logs.
    public var description: String { message }
}
