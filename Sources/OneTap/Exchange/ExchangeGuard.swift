/// Wraps the paid exchange of a one-tap token for the number, so that the carrier is never paid for
/// a token it will refuse and never asked twice about one token.
///
/// - A token older than its lifetime (`Data/token-lifetimes.csv`, from the server's receipt of the
///   success report) is not sent: the answer is ``ExchangeAnswer/tokenExpired`` (the login runs the flow
///   once more).
/// - Each token is exchanged at most once, keyed by its SHA-256 in an ``ExchangeLedger`` (never the
///   token itself): a token claimed before is ``ExchangeAnswer/replayed``.
/// - An exchange that does not answer within ``timeout`` has an **unknown** result: it may have been
///   billed and the token spent. The answer is ``ExchangeAnswer/timeout`` (the login goes to SMS), and
///   the ledger keeps the token as `unknown` for reconciliation (``ExchangeLedger/unknownExchanges(since:)``).
///   Should that token be sent again, a "token already used" answer is reported as unknown too, not as
///   the user's fault.
/// - Error text from the integrator's provider is scrubbed of the token before it goes anywhere.
///
/// The guard holds no tables: the lifetimes and the codes are the ``ExchangeRules`` of the session
/// machine the exchange is for, handed to ``exchange(_:receivedAt:rules:)`` with each token
/// (``LoginServer`` and ``LoginCoordinator`` pass their machine's ``LoginSessionMachine/exchanges``),
/// so the guard cannot refuse or read answers by other tables than the machine classifies them with.
public struct ExchangeGuard: Sendable {
    /// The carrier call.
    package let provider: any TokenExchangeProvider
    /// Which tokens were sent.
    package let ledger: any ExchangeLedger
    /// The limit on one exchange call: 5 s.
    package let timeout: Duration
    private let clock: any WallClock

    /// Creates a guard.
    /// - Parameters:
    ///   - provider: The integrator's exchange adapter.
    ///   - ledger: Which tokens were sent; in memory by default (share one across instances).
    ///   - timeout: The limit on one call; 5 s.
    ///   - clock: The time source.
    public init(
        provider: any TokenExchangeProvider, ledger: any ExchangeLedger = InMemoryExchangeLedger(), timeout: Duration = .seconds(5),
        clock: any WallClock = SystemClock()
    ) {
        self.provider = provider
        self.ledger = ledger
        self.timeout = timeout
        self.clock = clock
    }

    /// Exchanges a token, unless it is too old or was exchanged before.
    /// - Parameters:
    ///   - credential: The success report's credential.
    ///   - receivedAt: When the server received the success report (the session's exchange stage says).
    ///   - rules: The exchange rules of the machine the login runs on (``LoginSessionMachine/exchanges``):
    ///     the token's lifetime, and which answers mean "already used".
    /// - Returns: What came of it, bound to the token, to report to the login session.
    package func exchange(_ credential: CarrierCredential, receivedAt: Date, rules: ExchangeRules) async -> ExchangeOutcome {
        await exchange(credential, receivedAt: receivedAt, rules: rules, limit: timeout)
    }

    /// Exchanges a token under a limit of the caller's (the coordinator's per-flow limit).
    /// - Parameters:
    ///   - credential: The success report's credential.
    ///   - receivedAt: When the success report was received.
    ///   - rules: The exchange rules of the machine the login runs on.
    ///   - limit: The limit on the call; nil for none.
    /// - Returns: What came of it, bound to the token.
    package func exchange(_ credential: CarrierCredential, receivedAt: Date, rules: ExchangeRules, limit: Duration?) async -> ExchangeOutcome {
        let digest = credential.tokenDigest
        return ExchangeOutcome(await answer(credential, digest: digest, receivedAt: receivedAt, rules: rules, limit: limit), token: digest)
    }

    private func answer(_ credential: CarrierCredential, digest: SHA256Digest, receivedAt: Date, rules: ExchangeRules, limit: Duration?) async -> ExchangeAnswer {
        let now = clock.now()
        if rules.hasExpired(credential.flow, receivedAt: receivedAt, at: now) {
            return .tokenExpired
        }
        let previous: ExchangeLedgerState?
        do {
            previous = try await ledger.claim(digest, at: now)
        } catch {
            return .fault(scrub("the exchange ledger failed: \(error)", credential))
        }
        switch previous {
        case nil, .unknown?:
            break  // never sent, or sent with no answer: the one case a resend is allowed to learn the result
        case .pending?, .answered?, .failed?:
            return .replayed
        }
        let provider = self.provider
        let answer: ExchangeAnswer
        let settled: ExchangeLedgerState
        do {
            let response = try await Deadline.run(limit: limit, clock: clock) { try await provider.exchange(credential) }
            if previous == .unknown, rules.saysAlreadyUsed(response.code, for: credential.flow) {
                // "Already used" for a token whose first exchange went unanswered: still unknown.
                (answer, settled) = (.timeout, .unknown)
            } else {
                (answer, settled) = (.answered(response.code, phoneNumber: response.phoneNumber, account: response.account), .answered(response.code))
            }
        } catch is TimeoutError {
            (answer, settled) = (.timeout, .unknown)
        } catch {
            (answer, settled) = (.fault(scrub("\(error)", credential)), previous == .unknown ? .unknown : .failed)
        }
        do {
            try await ledger.settle(digest, settled, at: clock.now())
        } catch {
            // The answer stands; the ledger keeps `pending`, which refuses a resend: the safe side.
        }
        return answer
    }

    private func scrub(_ text: String, _ credential: CarrierCredential) -> String {
        String(Secret.scrub(text, of: [credential.token, credential.refreshToken]).prefix(200))
    }
}
