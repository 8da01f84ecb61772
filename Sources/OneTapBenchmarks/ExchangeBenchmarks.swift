import Foundation
import OneTap
import OneTapTesting

/// The exchange guard over the in-memory ledger (issue 21): a login's retry answered from the answer the
/// ledger kept, beside today's answer to a repeated token (`replayed`, which sent the login to SMS); and a
/// fresh token's whole exchange (claim, carrier, settle with the answer; China Unicom's tokens, which live
/// 30 minutes, so the run stays within their lifetime) beside the ledger's claim and settle alone.
enum ExchangeBenchmarks {
    /// A carrier that answers at once.
    struct InstantCarrier: TokenExchangeProvider {
        let response: ExchangeResponse
        func exchange(_ credential: CarrierCredential) async throws -> ExchangeResponse { response }
    }

    static func run(_ options: BenchmarkOptions, _ report: inout Report, repetitions: Int) async {
        guard options.wants("exchange") else { return }
        let clock = SystemClock()   // the guard's time limit runs as in production
        let received = clock.now()
        let carrier = InstantCarrier(response: ExchangeResponse(code: "0", phoneNumber: try! PhoneNumber("13800138000"), account: "account-42"))
        let me = try! LoginSessionID("benchmark-session-0001")
        let stranger = try! LoginSessionID("benchmark-session-0002")
        let events = DiscardingEventSink()
        let batch = 500
        let calls = max(2, repetitions / 5) + repetitions + 1   // what measureAsync runs

        // The retry of one login: the ledger holds the token's answer for this session.
        let kept = ExchangeGuard(provider: carrier, ledger: InMemoryExchangeLedger(), clock: clock)
        let token = CarrierCredential(flow: .unicom, token: Secret("benchmark-token-kept"))
        _ = await kept.benchmarked(token, for: me, receivedAt: received, events: events)
        let answered = await measureAsync(batch: batch, repetitions: repetitions) {
            for _ in 0..<batch { blackHole(await kept.benchmarked(token, for: me, receivedAt: received, events: events)) }
        }
        // Today's answer to any repeat of a token (and still another login's): `replayed`, from the same claim.
        let replayed = await measureAsync(batch: batch, repetitions: repetitions) {
            for _ in 0..<batch { blackHole(await kept.benchmarked(token, for: stranger, receivedAt: received, events: events)) }
        }
        report.add(Suites.row("exchange answered from the kept answer (a login's retry)", batch, answered, "replayed (today's answer to a repeat)", replayed,
                              target: "within 1.5× replayed", met: answered.median <= 1.5 * replayed.median))

        // A fresh token each time: claim, the carrier (answering at once, under the guard's time limit), settle with the answer.
        let fresh = ExchangeGuard(provider: carrier, ledger: InMemoryExchangeLedger(), clock: clock)
        let credentials = (0..<(batch * calls)).map { CarrierCredential(flow: .unicom, token: Secret("benchmark-token-\($0)")) }
        let next = Cursor()
        let whole = await measureAsync(batch: batch, repetitions: repetitions) {
            for _ in 0..<batch { blackHole(await fresh.benchmarked(credentials[next.take()], for: me, receivedAt: received, events: events)) }
        }
        // The ledger's share of it: the claim and the settle with the answer, of fresh tokens, alone.
        let ledger = InMemoryExchangeLedger()
        let digests = credentials.map(\.tokenDigest)
        let ledgerNext = Cursor()
        let ledgerOnly = await measureAsync(batch: batch, repetitions: repetitions) {
            for _ in 0..<batch {
                let digest = digests[ledgerNext.take()]
                blackHole(try? await ledger.claim(digest, for: me, at: received))
                try? await ledger.settle(digest, .answered(carrier.response), at: received)
            }
        }
        report.add(Suites.row("exchange of a fresh token (claim, carrier, settle with the answer)", batch, whole, "the ledger's claim and settle alone", ledgerOnly,
                              target: nil, met: nil))
    }
}

extension ExchangeGuard {
    /// An exchange by the built-in rules for the benchmarks, its answer alone: the in-memory ledger never
    /// throws, and a throw would still be measured, as a fault answer, never trap.
    /// - Parameters:
    ///   - credential: The token.
    ///   - session: The login.
    ///   - receivedAt: When the report came.
    ///   - events: Where settle failures go.
    /// - Returns: The answer, or a fault naming what the guard threw.
    fileprivate func benchmarked(_ credential: CarrierCredential, for session: LoginSessionID, receivedAt: Date, events: any EventSink) async -> ExchangeAnswer {
        do {
            return try await exchange(credential, for: session, receivedAt: receivedAt, rules: .builtIn, events: events).answer
        } catch {
            return .fault("\(error)")
        }
    }
}
