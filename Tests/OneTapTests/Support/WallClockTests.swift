import Foundation
import Testing
@testable import OneTap

@Suite struct WallClockTests {
    @Test func systemClockSleepsAndReadsTime() async throws {
        let clock = SystemClock()
        let before = clock.now()
        try await clock.sleep(for: .milliseconds(5))
        #expect(clock.now() >= before)
        try await clock.sleep(for: .zero)  // returns at once
    }

    @Test func systemClockSleepIsCancellable() async {
        let task = Task { try await SystemClock().sleep(for: .seconds(60)) }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
    }

    @Test(arguments: [(Duration.seconds(2), 2.0), (.milliseconds(1500), 1.5), (.zero, 0.0)])
    func durationSeconds(duration: Duration, seconds: Double) {
        #expect(duration.seconds == seconds)
    }
}
