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
