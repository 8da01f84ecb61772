#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import OneTap

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
