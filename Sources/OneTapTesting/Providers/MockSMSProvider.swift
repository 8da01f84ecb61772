import OneTap

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
    package convenience init(succeeds: Bool, clock: any WallClock = SystemClock(), onHang: (@Sendable () -> Void)? = nil) {
        self.init(verify: succeeds ? [] : [.value(SMSVerification(resultCode: 1))], clock: clock, onHang: onHang)
    }

    /// How many codes were sent.
    package var codesSent: Int { sends.calls }
    /// How many verifications were made.
    package var verifications: Int { verifies.calls }
    /// The numbers codes were sent to.
    package var numbersSentTo: [PhoneNumber] { sentTo.withLock { $0 } }

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
