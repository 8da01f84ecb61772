import OneTap

/// A scriptable one-tap provider for any one-tap flow. The flow's success code (`Data/result-codes.csv`:
/// 103000 for China Mobile, 0 for Tianyi and Unicom) answers with what that SDK gives on success: China
/// Mobile a token `mobile-token-N`, uniqueid `uid-N` and the masked number `138****8000`; Tianyi an access
/// token `tianyi-token-N`, a refresh token `tianyi-refresh-N` and a 30-day lifetime; Unicom an access
/// code `unicom-code-N`. Other codes answer without. When the script runs out, calls succeed.
public final class MockOneTapProvider: OneTapProvider {
    private let script: MockScript<OneTapResult>

    /// Creates a mock from full answers.
    /// - Parameters:
    ///   - flow: The one-tap flow the mock stands for, which decides its default answers.
    ///   - answers: One answer per call.
    ///   - clock: The clock delays run on.
    ///   - onHang: Called when a call starts hanging.
    public init(_ flow: LoginFlow, _ answers: [MockAnswer<OneTapResult>], clock: any WallClock = SystemClock(), onHang: (@Sendable () -> Void)? = nil) {
        script = MockScript(answers, clock: clock, onHang: onHang) { Self.answer(BuiltInSuccessCodes.sdk(flow), $0, flow: flow) }
    }

    /// Creates a mock from result codes.
    /// - Parameters:
    ///   - flow: The one-tap flow the mock stands for.
    ///   - codes: One code per call.
    ///   - clock: The clock delays run on.
    ///   - onHang: Called when a call starts hanging.
    public convenience init(_ flow: LoginFlow, codes: [ResultCode], clock: any WallClock = SystemClock(), onHang: (@Sendable () -> Void)? = nil) {
        self.init(flow, codes.enumerated().map { .value(Self.answer($0.element, $0.offset + 1, flow: flow)) }, clock: clock, onHang: onHang)
    }

    /// The answer a code gets in a flow: with the flow's success fields for its success code, else the
    /// code alone.
    /// - Parameters:
    ///   - code: The result code.
    ///   - number: The call's number, 1 for the first, which the success's token names.
    ///   - flow: The one-tap flow.
    /// - Returns: The answer.
    package static func answer(_ code: ResultCode, _ number: Int, flow: LoginFlow) -> OneTapResult {
        guard code == BuiltInSuccessCodes.sdk(flow) else { return OneTapResult(resultCode: code) }
        switch flow {
        case .mobile:
            let credential = CarrierCredential(flow: flow, token: Secret("mobile-token-\(number)"), uniqueID: "uid-\(number)", maskedNumber: "138****8000")
            return OneTapResult(resultCode: code, credential: credential)
        case .tianyi:
            let credential = CarrierCredential(
                flow: flow, token: Secret("tianyi-token-\(number)"), refreshToken: Secret("tianyi-refresh-\(number)"), expiresIn: thirtyDays)
            return OneTapResult(resultCode: code, credential: credential)
        case .unicom:
            return OneTapResult(resultCode: code, credential: CarrierCredential(flow: flow, token: Secret("unicom-code-\(number)")))
        case .sms:
            return OneTapResult(resultCode: code)  // SMS is no one-tap flow: it has no token to give
        }
    }

    /// Tianyi's usual lifetime, 30 days.
    private static let thirtyDays: ExpiresIn = {
        do { return try ExpiresIn(seconds: 30 * 86_400) } catch { preconditionFailure("30 days is a lifetime ExpiresIn takes: \(error)") }
    }()

    /// How many calls were made.
    public var calls: Int { script.calls }

    /// Answers with the next step of the script (it tells no progress).
    /// - Parameter progress: Not told.
    /// - Returns: The scripted result.
    /// - Throws: The scripted error.
    public func login(progress: OneTapProgress) async throws -> OneTapResult { try await script.next() }
}
