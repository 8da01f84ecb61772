import Foundation
import OneTapTesting
@testable import OneTap

/// An event sink that moves a fake clock on when a success asks for its token's exchange (the first
/// `times` such steps): time passing between the receipt of the success report and the exchange, as
/// when a device is suspended or a server's store is slow. Records every event's name.
final class ClockJumpingSink: EventSink {
    private let clock: FakeClock
    private let jump: Duration
    private let state: LockedValue<(left: Int, names: [String])>

    init(clock: FakeClock, jump: Duration, times: Int = 1) {
        self.clock = clock
        self.jump = jump
        state = LockedValue((times, []))
    }

    var names: [String] { state.withLock { $0.names } }

    func receive(_ event: OneTapEvent) {
        let jumps = state.withLock { state -> Bool in
            state.names.append(event.name)
            guard case .login(.result(let step), _) = event.payload, case .exchange = step.next, state.left > 0 else { return false }
            state.left -= 1
            return true
        }
        if jumps { clock.setWallTime(clock.now().addingTimeInterval(jump.seconds)) }
    }
}

/// A carrier exchange that never answers (until cancelled), and says when it was called.
final class HangingExchange: TokenExchangeProvider {
    let calls: AsyncStream<LoginFlow>
    private let continuation: AsyncStream<LoginFlow>.Continuation

    init() {
        (calls, continuation) = AsyncStream.makeStream()
    }

    func exchange(_ credential: CarrierCredential) async throws -> ExchangeResponse {
        continuation.yield(credential.flow)
        try await Hang.forever()
    }
}
