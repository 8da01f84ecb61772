/// How a call that sent a carrier's token (an exchange, a number verification) and threw ended: the one reading
/// of a throw for ``ExchangeGuard``, `LoginServer.exchanged(_:token:session:version:from:address:device:)` and
/// ``NumberVerificationService``, so that a throw cannot mean "unknown, may be billed" on one path and "failed" on
/// another.
package enum ExchangeCallFailure {
    /// The call ran past its time limit (the caller's, or the gateway's own: ``GatewayError`` of kind `timedOut`): the
    /// gateway may have answered, and billed.
    case timedOut
    /// The caller went away (its task cancelled) while the gateway had the token: it may have answered, and billed;
    /// the caller's doing, not the gateway's.
    case cancelled
    /// The adapter says the request never left: nothing billed, the token not spent.
    case notSent(ExchangeNotSentError)
    /// Any other throw (a malformed body, a reset after sending): it may follow a billed answer.
    case fault(any Error)

    /// Reads a throw.
    /// - Parameters:
    ///   - error: What the call threw.
    ///   - callerCancelled: Whether the task that made the call is cancelled (any throw in it is its cancellation): the
    ///     reader's `Task.isCancelled` where it made the call itself, false where it reads another's result.
    package init(_ error: any Error, callerCancelled: Bool) {
        if error is TimeoutError || (error as? GatewayError)?.kind == .timedOut {
            self = .timedOut
        } else if CallerCancellation.reads(error, taskCancelled: callerCancelled) {
            self = .cancelled
        } else if let error = error as? ExchangeNotSentError {
            self = .notSent(error)
        } else {
            self = .fault(error)
        }
    }

    /// Whether the gateway may have had the token and billed it: everything but a request that never left.
    package var mayHaveReachedTheGateway: Bool {
        if case .notSent = self { false } else { true }
    }

    /// What a login takes of a failed exchange: no answer (`timeout`) for a time-out or a caller gone, its result
    /// unknown; else a fault, its text with the credential's tokens scrubbed and numbers masked, counted for the
    /// circuit breaker as the carrier unreached only when the adapter says the request never left and not because of
    /// the client's credential.
    /// - Parameter secrets: The tokens the call carried, to scrub from the text.
    /// - Returns: The answer, whether the carrier was left unreached, and whether it is the caller's doing.
    package func exchangeAnswer(scrubbing secrets: [Secret?]) -> (answer: ExchangeAnswer, carrierUnreached: Bool, saysNothingOfTheChannel: Bool) {
        switch self {
        case .timedOut: (.timeout, false, false)
        case .cancelled: (.timeout, false, true)
        case .notSent(let error): (.fault(Self.text(of: error, scrubbing: secrets)), !error.refusedCredential, false)
        case .fault(let error): (.fault(Self.text(of: error, scrubbing: secrets)), false, false)
        }
    }

    private static func text(of error: any Error, scrubbing secrets: [Secret?]) -> String {
        PhoneNumber.maskingNumbers(in: Secret.scrub("\(error)", of: secrets), limit: 200)
    }
}
