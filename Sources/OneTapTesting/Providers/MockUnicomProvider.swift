#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import OneTap

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
