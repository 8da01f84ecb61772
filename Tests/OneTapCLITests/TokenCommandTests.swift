import OneTap
@testable import OneTapCLI
import OneTapSupport
import OneTapTesting
import Testing

/// `onetap token` in process: what the binary's tests (`EndToEndTests`) cannot give it, a clock.
@Suite struct TokenCommandTests {
    /// Without `--now`, `token` reads the time from the clock it is given (the system's in the binary), never its own:
    /// 2026-11-01 plus 15 days on a fake clock is a stale token with 15 days left.
    @Test func withoutNowTheTokensStateIsJudgedOnTheGivenClock() async throws {
        let clock = FakeClock(now: try Timestamp.parse("2026-11-16T00:00:00Z"))
        let (code, io) = await runInProcess(["token", "--issued", "2026-11-01T00:00:00Z", "--json"], clock: clock)
        #expect(code == .success, "\(io.errors)")
        #expect(io.outputText.hasPrefix(#"{"state":"stale","#), "\(io.outputText)")
        #expect(io.outputText.contains(#""remainingSeconds":1296000"#), "\(io.outputText)")
    }
}
