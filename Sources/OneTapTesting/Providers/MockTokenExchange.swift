import OneTap

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
    package var flowsExchanged: [LoginFlow] { seen.withLock { $0.map(\.flow) } }

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
