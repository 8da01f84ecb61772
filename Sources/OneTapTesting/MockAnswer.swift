#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import OneTap

/// What one call of a mock provider does.
public enum MockAnswer<Value: Sendable>: Sendable {
    /// Answer with a value.
    case value(Value)
    /// Throw an error.
    case error(any Error)
    /// Answer after a delay on the mock's clock.
    case delay(Duration, Value)
    /// Never answer (until the call is cancelled): a carrier SDK that does not call back.
    case hang
}

/// A script of answers shared by the mock providers: each call takes the next answer; when the script
/// runs out, `otherwise` makes the answer for call *n*. Counts calls and can report hangs.
final class MockScript<Value: Sendable>: Sendable {
    private struct State {
        var answers: [MockAnswer<Value>]
        var calls = 0
    }

    private let state: LockedValue<State>
    private let otherwise: @Sendable (Int) -> Value
    private let clock: any WallClock
    private let onHang: (@Sendable () -> Void)?

    init(_ answers: [MockAnswer<Value>], clock: any WallClock, onHang: (@Sendable () -> Void)?, otherwise: @escaping @Sendable (Int) -> Value) {
        state = LockedValue(State(answers: answers))
        self.otherwise = otherwise
        self.clock = clock
        self.onHang = onHang
    }

    var calls: Int { state.withLock { $0.calls } }

    func next() async throws -> Value {
        let (number, answer) = state.withLock { state -> (Int, MockAnswer<Value>?) in
            state.calls += 1
            return (state.calls, state.answers.isEmpty ? nil : state.answers.removeFirst())
        }
        switch answer {
        case .value(let value)?:
            return value
        case .error(let error)?:
            throw error
        case .delay(let duration, let value)?:
            try await clock.sleep(for: duration)
            return value
        case .hang?:
            onHang?()
            try await Hang.forever()
        case nil:
            return otherwise(number)
        }
    }
}

/// A scriptable China Mobile one-tap provider. A success code (103000) answers with a token
/// `mobile-token-N` and uniqueid `uid-N`; other codes answer without. When the script runs out, calls
/// succeed.
public final class MockMobileProvider: MobileOneTapProvider {
    private let script: MockScript<MobileOneTapResult>

    /// Creates a mock from full answers.
    /// - Parameters:
    ///   - answers: One answer per call.
    ///   - clock: The clock delays run on.
    ///   - onHang: Called when a call starts hanging.
    public init(_ answers: [MockAnswer<MobileOneTapResult>], clock: any WallClock = SystemClock(), onHang: (@Sendable () -> Void)? = nil) {
        script = MockScript(answers, clock: clock, onHang: onHang) { Self.answer(BuiltInSuccessCodes.sdk(.mobile), $0) }
    }

    /// Creates a mock from result codes.
    /// - Parameters:
    ///   - codes: One code per call.
    ///   - clock: The clock delays run on.
    ///   - onHang: Called when a call starts hanging.
    public convenience init(codes: [ResultCode], clock: any WallClock = SystemClock(), onHang: (@Sendable () -> Void)? = nil) {
        self.init(codes.enumerated().map { .value(Self.answer($0.element, $0.offset + 1)) }, clock: clock, onHang: onHang)
    }

    /// The answer a code gets: with a token and uniqueid for the success code (103000, from
    /// `Data/result-codes.csv`).
    public static func answer(_ code: ResultCode, _ number: Int) -> MobileOneTapResult {
        code == BuiltInSuccessCodes.sdk(.mobile)
            ? MobileOneTapResult(resultCode: code, token: Secret("mobile-token-\(number)"), uniqueID: "uid-\(number)", maskedNumber: "138****8000")
            : MobileOneTapResult(resultCode: code)
    }

    /// How many calls were made.
    public var calls: Int { script.calls }

    /// Answers with the next step of the script.
    /// - Returns: The scripted result.
    /// - Throws: The scripted error.
    public func login() async throws -> MobileOneTapResult { try await script.next() }
}

/// A scriptable Tianyi one-tap provider. Code 0 answers with an access token `tianyi-token-N` living 30
/// days; other codes answer without. When the script runs out, calls succeed.
public final class MockTianyiProvider: TianyiOneTapProvider {
    private let script: MockScript<TianyiOneTapResult>

    /// Creates a mock from full answers.
    /// - Parameters:
    ///   - answers: One answer per call.
    ///   - clock: The clock delays run on.
    ///   - onHang: Called when a call starts hanging.
    public init(_ answers: [MockAnswer<TianyiOneTapResult>], clock: any WallClock = SystemClock(), onHang: (@Sendable () -> Void)? = nil) {
        script = MockScript(answers, clock: clock, onHang: onHang) { Self.answer(BuiltInSuccessCodes.sdk(.tianyi), $0) }
    }

    /// Creates a mock from result codes.
    /// - Parameters:
    ///   - codes: One code per call.
    ///   - clock: The clock delays run on.
    ///   - onHang: Called when a call starts hanging.
    public convenience init(codes: [ResultCode], clock: any WallClock = SystemClock(), onHang: (@Sendable () -> Void)? = nil) {
        self.init(codes.enumerated().map { .value(Self.answer($0.element, $0.offset + 1)) }, clock: clock, onHang: onHang)
    }

    /// The answer a code gets: with an access token for the success code (0, from `Data/result-codes.csv`).
    public static func answer(_ code: ResultCode, _ number: Int) -> TianyiOneTapResult {
        code == BuiltInSuccessCodes.sdk(.tianyi)
            ? TianyiOneTapResult(
                resultCode: code, accessToken: Secret("tianyi-token-\(number)"), refreshToken: Secret("tianyi-refresh-\(number)"),
                expiresIn: try? ExpiresIn(seconds: 2_592_000))
            : TianyiOneTapResult(resultCode: code)
    }

    /// How many calls were made.
    public var calls: Int { script.calls }

    /// Answers with the next step of the script.
    /// - Returns: The scripted result.
    /// - Throws: The scripted error.
    public func login() async throws -> TianyiOneTapResult { try await script.next() }
}

/// A scriptable Unicom one-tap provider. Code 0 answers with an access code `unicom-code-N`.
public final class MockUnicomProvider: UnicomOneTapProvider {
    private let script: MockScript<UnicomOneTapResult>

    /// Creates a mock from full answers.
    /// - Parameters:
    ///   - answers: One answer per call.
    ///   - clock: The clock delays run on.
    ///   - onHang: Called when a call starts hanging.
    public init(_ answers: [MockAnswer<UnicomOneTapResult>], clock: any WallClock = SystemClock(), onHang: (@Sendable () -> Void)? = nil) {
        script = MockScript(answers, clock: clock, onHang: onHang) { Self.answer(BuiltInSuccessCodes.sdk(.unicom), $0) }
    }

    /// Creates a mock from result codes.
    /// - Parameters:
    ///   - codes: One code per call.
    ///   - clock: The clock delays run on.
    ///   - onHang: Called when a call starts hanging.
    public convenience init(codes: [ResultCode], clock: any WallClock = SystemClock(), onHang: (@Sendable () -> Void)? = nil) {
        self.init(codes.enumerated().map { .value(Self.answer($0.element, $0.offset + 1)) }, clock: clock, onHang: onHang)
    }

    /// The answer a code gets: with an access code for the success code (0, from `Data/result-codes.csv`).
    public static func answer(_ code: ResultCode, _ number: Int) -> UnicomOneTapResult {
        code == BuiltInSuccessCodes.sdk(.unicom) ? UnicomOneTapResult(resultCode: code, accessCode: Secret("unicom-code-\(number)")) : UnicomOneTapResult(resultCode: code)
    }

    /// How many calls were made.
    public var calls: Int { script.calls }

    /// Answers with the next step of the script.
    /// - Returns: The scripted result.
    /// - Throws: The scripted error.
    public func login() async throws -> UnicomOneTapResult { try await script.next() }
}

/// A scriptable SMS login: the number the user gives, the send results and the verify results. When a
/// script runs out, sending answers 0 and verifying answers 0 with a session `sms-session-N`.
public final class MockSMSProvider: SMSLoginProvider {
    private let numbers: MockScript<PhoneNumber?>
    private let sends: MockScript<ResultCode>
    private let verifies: MockScript<SMSVerification>
    private let sentTo = LockedValue<[PhoneNumber]>([])

    /// Creates a mock.
    /// - Parameters:
    ///   - number: The number the user gives when asked (nil: they back out).
    ///   - send: One answer per code sent.
    ///   - verify: One answer per verification.
    ///   - clock: The clock delays run on.
    ///   - onHang: Called when a call starts hanging.
    public init(
        number: PhoneNumber? = try? PhoneNumber("13800138000"), send: [MockAnswer<ResultCode>] = [], verify: [MockAnswer<SMSVerification>] = [],
        clock: any WallClock = SystemClock(), onHang: (@Sendable () -> Void)? = nil
    ) {
        numbers = MockScript([], clock: clock, onHang: onHang) { _ in number }
        sends = MockScript(send, clock: clock, onHang: onHang) { _ in 0 }
        verifies = MockScript(verify, clock: clock, onHang: onHang) { SMSVerification(resultCode: 0, session: Secret("sms-session-\($0)")) }
    }

    /// A mock whose verification succeeds (`true`) or fails with code 1 (`false`).
    /// - Parameters:
    ///   - succeeds: Whether the code verifies.
    ///   - clock: The clock delays run on.
    ///   - onHang: Called when a call starts hanging.
    public convenience init(succeeds: Bool, clock: any WallClock = SystemClock(), onHang: (@Sendable () -> Void)? = nil) {
        self.init(verify: succeeds ? [] : [.value(SMSVerification(resultCode: 1))], clock: clock, onHang: onHang)
    }

    /// How many codes were sent.
    public var codesSent: Int { sends.calls }
    /// How many verifications were made.
    public var verifications: Int { verifies.calls }
    /// The numbers codes were sent to.
    public var numbersSentTo: [PhoneNumber] { sentTo.withLock { $0 } }

    /// Answers with the number the mock was given.
    /// - Returns: The number, or nil when the user backs out.
    /// - Throws: Nothing unless scripted.
    public func requestPhoneNumber() async throws -> PhoneNumber? { try await numbers.next() }

    /// Records the number and answers with the next send result.
    /// - Parameter number: The number.
    /// - Returns: The scripted code (0 by default).
    /// - Throws: The scripted error.
    public func sendCode(to number: PhoneNumber) async throws -> ResultCode {
        sentTo.withLock { $0.append(number) }
        return try await sends.next()
    }

    /// Answers with the next verification result.
    /// - Parameter number: The number.
    /// - Returns: The scripted result (verified by default).
    /// - Throws: The scripted error.
    public func verifyCode(for number: PhoneNumber) async throws -> SMSVerification { try await verifies.next() }
}

/// A scriptable token exchange: each call takes the next scripted answer; when the script runs out, it
/// answers the flow's success code (`Data/exchange-codes.csv`: `103000` for China Mobile, `0` for
/// Tianyi and Unicom) with the given number.
public final class MockTokenExchange: TokenExchangeProvider {
    private let script: MockScript<ExchangeResponse?>
    private let seen = LockedValue<[(flow: LoginFlow, token: String)]>([])
    private let number: PhoneNumber
    private let account: AccountID?

    /// Creates a mock.
    /// - Parameters:
    ///   - answers: One answer per exchange (`.value(nil)` answers the flow's success).
    ///   - number: The number a success answers with.
    ///   - account: The account a success answers with.
    ///   - clock: The clock delays run on.
    public init(_ answers: [MockAnswer<ExchangeResponse?>] = [], number: PhoneNumber, account: AccountID? = nil, clock: any WallClock = SystemClock()) {
        script = MockScript(answers, clock: clock, onHang: nil) { _ in nil }
        self.number = number
        self.account = account
    }

    /// A mock that answers these codes in turn (the success code answers with the number).
    /// - Parameters:
    ///   - codes: One code per exchange.
    ///   - number: The number a success answers with.
    ///   - clock: The clock delays run on.
    public convenience init(codes: [ResultCode], number: PhoneNumber, clock: any WallClock = SystemClock()) {
        self.init(codes.map { .value(ExchangeResponse(code: $0, phoneNumber: BuiltInSuccessCodes.isExchangeSuccess($0) ? number : nil)) }, number: number, clock: clock)
    }

    /// The flows of the credentials exchanged, in order.
    public var flowsExchanged: [LoginFlow] { seen.withLock { $0.map(\.flow) } }

    /// How many times each token was sent (a token must be sent once at most).
    public var tokensSent: [String: Int] { seen.withLock { Dictionary($0.map { ($0.token, 1) }, uniquingKeysWith: +) } }

    /// Records the call and answers with the next scripted answer.
    /// - Parameter credential: The credential.
    /// - Returns: The scripted answer, or the flow's success.
    /// - Throws: The scripted error.
    public func exchange(_ credential: CarrierCredential) async throws -> ExchangeResponse {
        seen.withLock { $0.append((credential.flow, credential.token.reveal())) }
        if let scripted = try await script.next() { return scripted }
        return ExchangeResponse(code: BuiltInSuccessCodes.exchange(credential.flow), phoneNumber: number, account: account)
    }
}
