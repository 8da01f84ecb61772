import Foundation
import OneTapTesting
import Testing
@testable import OneTap

@Suite struct InMemoryExchangeLedgerTests {
    @Test func conformsToTheLedgerContract() async throws {
        try await StoreConformance.check { InMemoryExchangeLedger() }
    }

    @Test func conformsWithAShortRetentionToo() async throws {
        try await StoreConformance.check(retention: .seconds(90)) { InMemoryExchangeLedger(retention: .seconds(90)) }
    }

    /// Each flaw a ledger can have, and the words the suite must find it with.
    @Test(arguments: [
        (LedgerDouble.Flaw.claimsInTwoSteps, "concurrent claims of one token must let exactly one claim it"),
        (.claimsInTwoSteps, "guards sharing the ledger must send a token to the carrier once"),
        (.pendsUnknownExchanges, "a claim must leave an unknown exchange unknown"),
        (.neverForgets, "a token claimed longer than the retention ago must be forgotten"),
        (.forgetsEarly, "a token must be remembered until its retention has passed"),
        (.listsNewestFirst, "the unknown exchanges must be listed oldest first"),
        (.dropsUnclaimedSettles, "a token settled without a claim must be recorded"),
        (.keepsTheCodeAsANumber, "a claim of a token settled as answered 000 must answer it"),
        (.dropsTheNumber, "a claim of a token settled as answered 103000 must answer it (with its number, account and verdict)"),
        (.dropsTheVerdict, "a claim of a token settled as answered 000 must answer it (with its number, account and verdict)"),
        (.resendsForAnySession, "a resend of an unknown exchange by another session must be refused"),
        (.resendsAgainAndAgain, "an unknown exchange must be resent once only"),
        (.listsNoPending, "pending exchanges claimed before the bound must be listed with the unknown ones"),
        (.forgetsTheSession, "a claim must keep the session that claimed the token"),
        (.ignoresThePage, "a page must list at most its limit"),
        (.pagesByTimeAlone, "pages must list every exchange to reconcile once, in order"),
    ])
    func theSuiteCatchesABrokenLedger(flaw: LedgerDouble.Flaw, problem: String) async {
        await #expect {
            try await StoreConformance.check { LedgerDouble(flaw) }
        } throws: { error in
            guard let failure = error as? ConformanceFailure else { return false }
            return failure.problems.contains { $0.contains(problem) } && failure.description.contains(problem)
        }
    }

    /// Issue 21: a flood of claims of fresh tokens (fake success reports) never copies the whole table per claim;
    /// and (an attacker's read of what strangers can grow) neither a claim's sweep nor the sweeper's reads the whole
    /// ledger any more, only what is due, as every other in-memory store's: the claims of a day past the retention go
    /// at the next sweep, and the queue holds one entry a claim.
    @Test func aFloodOfClaimsIsSweptByWhatIsDue() async throws {
        let ledger = InMemoryExchangeLedger()
        let now = Date(timeIntervalSince1970: 1_796_083_200)
        for index in 0..<50_000 {
            #expect(try await ledger.claim(SHA256.hash(Array("flood-\(index)".utf8)), at: now) == nil)
        }
        #expect(ledger.count == 50_000 && ledger.queued == 50_000)
        // Tokens past the retention go at the next claims' sweep (every 1,024th claim sweeps).
        let later = now.addingTimeInterval(86_401)
        for index in 0..<50_000 { _ = try await ledger.claim(SHA256.hash(Array("later-\(index)".utf8)), at: later) }
        #expect(ledger.count == 50_000 && ledger.queued == 50_000, "\(ledger.count) held, \(ledger.queued) queued")
        // The sweeper takes the rest a batch at a time, oldest first.
        let end = later.addingTimeInterval(86_401)
        #expect(try await ledger.removeExpired(before: end, limit: 1_000) == 1_000)
        #expect(try await ledger.removeExpired(before: end, limit: 100_000) == 49_000)
        #expect(ledger.count == 0 && ledger.queued == 0)
    }

    /// A token claimed again after it was forgotten, or resent, keeps its entry until its new claim's retention: an
    /// older claim's place in the sweep's queue removes nothing.
    @Test func aTokenClaimedAgainIsKeptForItsNewClaim() async throws {
        let ledger = InMemoryExchangeLedger(retention: .seconds(60))
        let me = try LoginSessionID("LedgerTestSession00001")
        let now = Date(timeIntervalSince1970: 1_796_083_200)
        let token = SHA256.hash(Array("again".utf8))
        #expect(try await ledger.claim(token, for: me, at: now) == nil)
        try await ledger.settle(token, .unknown, at: now.addingTimeInterval(5))
        #expect(try await ledger.resend(token, for: me, at: now.addingTimeInterval(30)))
        #expect(try await ledger.removeExpired(before: now.addingTimeInterval(61), limit: 10) == 0)
        #expect(try await ledger.claim(token, for: me, at: now.addingTimeInterval(89))?.sends == 2)
        #expect(try await ledger.removeExpired(before: now.addingTimeInterval(91), limit: 10) == 1)
        #expect(try await ledger.claim(token, for: me, at: now.addingTimeInterval(91)) == nil)
    }

    @Test func theDoubleWithoutAFlawConforms() async throws {
        try await StoreConformance.check { LedgerDouble(.none) }
    }
}

/// An exchange ledger with one flaw of the kind real adapters have, or none.
final class LedgerDouble: ExchangeLedger {
    enum Flaw: Sendable {
        case none
        /// `claim` reads, then writes later (a `SELECT` then an `INSERT` without a constraint).
        case claimsInTwoSteps
        /// `claim` of an unknown exchange sets it pending.
        case pendsUnknownExchanges
        /// `claim` ignores the retention.
        case neverForgets
        /// `claim` forgets a token a second before its retention has passed.
        case forgetsEarly
        /// `unknownExchanges` lists the newest first.
        case listsNewestFirst
        /// `unknownExchanges` lists every entry whatever the page asks (no `LIMIT`, no cursor).
        case ignoresThePage
        /// `unknownExchanges` starts a page past the last one's time alone, so entries of one instant split over two
        /// pages are skipped.
        case pagesByTimeAlone
        /// `settle` of a token never claimed does nothing (an `UPDATE` without an insert).
        case dropsUnclaimedSettles
        /// An answered code is kept as a number, so `000` reads back as `0`.
        case keepsTheCodeAsANumber
        /// An answer's number and account are not kept.
        case dropsTheNumber
        /// A number verification's verdict is not kept (an adapter that stores no `verdict` column).
        case dropsTheVerdict
        /// `resend` does not check the session.
        case resendsForAnySession
        /// `resend` does not count the sends.
        case resendsAgainAndAgain
        /// `unknownExchanges` lists no pending exchange.
        case listsNoPending
        /// The claiming session is not kept.
        case forgetsTheSession
    }

    private let flaw: Flaw
    private let retention = 86_400.0
    private let entries = LockedValue<[SHA256Digest: ExchangeLedgerEntry]>([:])
    /// How many claims of each token read it unclaimed (the two-step flaw's race).
    private let readers = LockedValue<[SHA256Digest: Int]>([:])

    init(_ flaw: Flaw) { self.flaw = flaw }

    private func fresh(_ token: SHA256Digest, _ session: LoginSessionID, _ now: Date) -> ExchangeLedgerEntry {
        ExchangeLedgerEntry(token: token, state: .pending, session: flaw == .forgetsTheSession ? nil : session, claimedAt: now, settledAt: now, sends: 1)
    }

    func claim(_ token: SHA256Digest, for session: LoginSessionID, at now: Date) async throws -> ExchangeLedgerEntry? {
        let horizon = now.addingTimeInterval(-retention + (flaw == .forgetsEarly ? 1 : 0))
        let flaw = flaw
        func existing(_ entries: inout [SHA256Digest: ExchangeLedgerEntry]) -> ExchangeLedgerEntry?? {
            guard let read = entries[token], read.claimedAt >= horizon || flaw == .neverForgets else { return .none }
            if read.state == .unknown, flaw == .pendsUnknownExchanges {
                entries[token] = ExchangeLedgerEntry(token: token, state: .pending, session: read.session, claimedAt: read.claimedAt, settledAt: now, sends: read.sends)
            }
            return .some(read)
        }
        if flaw == .claimsInTwoSteps {
            // The flaw: read, and write later. The write waits until a second claim of the token has read
            // the same nothing (or 500 ms pass: long enough for a loaded machine to schedule the racing
            // task), so concurrent claims always show it, however the tasks are scheduled.
            if let entry = entries.withLock({ existing(&$0) }) { return entry }
            readers.withLock { $0[token, default: 0] += 1 }
            let deadline = ContinuousClock.now.advanced(by: .milliseconds(500))
            while readers.withLock({ $0[token, default: 0] }) < 2, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
            let entry = fresh(token, session, now)
            entries.withLock { $0[token] = entry }
            return nil
        }
        // Read and write under one lock: a claim is one step, as a store's unique constraint makes it.
        let entry = fresh(token, session, now)
        return entries.withLock { entries in
            if let read = existing(&entries) { return read }
            entries[token] = entry
            return nil
        }
    }

    func resend(_ token: SHA256Digest, for session: LoginSessionID, at now: Date) async throws -> Bool {
        let flaw = flaw
        return entries.withLock { entries in
            guard let entry = entries[token], entry.state == .unknown, entry.session == session || flaw == .resendsForAnySession,
                entry.sends < 2 || flaw == .resendsAgainAndAgain
            else { return false }
            entries[token] = ExchangeLedgerEntry(token: token, state: .pending, session: entry.session, claimedAt: now, settledAt: now, sends: entry.sends + 1)
            return true
        }
    }

    func settle(_ token: SHA256Digest, _ state: ExchangeLedgerState, at now: Date) async throws {
        var state = state
        if case .answered(let response) = state {
            if flaw == .keepsTheCodeAsANumber, let number = Int64(response.code.text) {
                state = .answered(ExchangeResponse(code: ResultCode(integerLiteral: number), phoneNumber: response.phoneNumber, account: response.account))
            }
            if flaw == .dropsTheNumber { state = .answered(ExchangeResponse(code: response.code)) }
            if flaw == .dropsTheVerdict { state = .answered(ExchangeResponse(code: response.code, phoneNumber: response.phoneNumber, account: response.account)) }
        }
        let flaw = flaw
        entries.withLock { entries in
            guard entries[token] != nil || flaw != .dropsUnclaimedSettles else { return }
            let entry = entries[token]
            entries[token] = ExchangeLedgerEntry(
                token: token, state: state, session: entry?.session, claimedAt: entry?.claimedAt ?? now, settledAt: now, sends: entry?.sends ?? 1)
        }
    }

    func unknownExchanges(since: Date, pendingClaimedBefore: Date, after: ExchangeLedgerEntry?, limit: Int) async throws -> [ExchangeLedgerEntry] {
        let flaw = flaw
        let listed = entries.withLock { entries in
            entries.values.filter {
                ($0.state == .unknown && $0.settledAt >= since) || ($0.state == .pending && $0.claimedAt < pendingClaimedBefore && flaw != .listsNoPending)
            }
            .sorted { ($0.at, $0.token.hex) < ($1.at, $1.token.hex) }
        }
        let ordered = flaw == .listsNewestFirst ? listed.reversed() : listed
        if flaw == .ignoresThePage { return ordered }
        let page = ordered.filter { entry in
            guard let after else { return true }
            return flaw == .pagesByTimeAlone ? entry.at > after.at : (entry.at, entry.token.hex) > (after.at, after.token.hex)
        }
        return Array(page.prefix(max(0, limit)))
    }
}
