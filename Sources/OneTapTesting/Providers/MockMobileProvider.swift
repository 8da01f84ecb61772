#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import OneTap

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
