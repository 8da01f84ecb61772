import Foundation
import OneTap
import OneTapTesting

/// An SMS code service on a clock each call sets first: the instants a test names, on the service's
/// injected clock (`SMSCodeService` reads the time from its clock, not from its caller).
struct SMSServiceAt: Sendable {
    let service: SMSCodeService
    let clock: FakeClock

    init(key: ServerKey, sender: any SMSSender, store: any SMSStore) {
        clock = FakeClock()
        service = SMSCodeService(key: key, sender: sender, store: store, events: DiscardingEventSink(), clock: clock)
    }

    /// A send with the clock at `now`.
    func send(to number: PhoneNumber, context: SMSContext, at now: Date) async throws -> SMSSendResult {
        clock.setWallTime(now)
        return try await service.send(to: number, context: context)
    }

    /// A verify with the clock at `now`.
    func verify(_ code: Secret, for number: PhoneNumber, context: SMSContext, at now: Date) async throws -> SMSVerifyResult {
        clock.setWallTime(now)
        return try await service.verify(code, for: number, context: context)
    }
}
