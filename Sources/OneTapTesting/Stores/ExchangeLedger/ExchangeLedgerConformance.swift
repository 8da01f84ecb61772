import OneTap

/// The properties every ``ExchangeLedger`` must have, as ``InMemoryExchangeLedger`` documents them, as
/// a suite an adapter runs against itself:
///
/// ```swift
/// @Test func myLedgerConforms() async throws {
///     try await ExchangeLedgerConformance.check { try await MyRedisLedger(namespace: UUID().uuidString) }
/// }
/// ```
///
/// It checks the ledger directly (a first claim with its session, every state read back with the kept
/// answer, a number verification's verdict too, settling without a claim, a resend only by the claiming session and only once, concurrent
/// resends, the exchanges to reconcile oldest first with the old pending ones, the retention, concurrent
/// claims of one token) and through an ``ExchangeGuard`` (many sessions' guards sharing the ledger send
/// one token to the carrier once). Each property
/// is checked on a fresh, empty ledger; every broken property is listed, not only the first.
package enum ExchangeLedgerConformance {
    /// Runs every check, each on a fresh, empty ledger.
    /// - Parameters:
    ///   - retention: How long the ledgers `makeLedger` makes remember a token after its claim; one day,
    ///     the in-memory ledger's default.
    ///   - concurrency: How many claims race in the concurrency checks.
    ///   - makeLedger: Makes an empty ledger.
    /// - Throws: ``ConformanceFailure`` listing every property the ledger broke, or what `makeLedger` throws.
    package static func check(
        retention: Duration = .seconds(86_400), concurrency: Int = 100, _ makeLedger: () async throws -> any ExchangeLedger
    ) async throws {
        let suite = ConformanceHarness("ExchangeLedgerConformance")
        let now = Date(timeIntervalSince1970: 1_796_083_200.125)
        @Sendable func digest(_ text: String) -> SHA256Digest { SHA256.hash(Array(text.utf8)) }

        let me = try LoginSessionID("conformance-session-01")
        let other = try LoginSessionID("conformance-session-02")
        let number = try PhoneNumber("13800138000")
        func near(_ a: Date?, _ b: Date) -> Bool { a.map { abs($0.timeIntervalSince(b)) < 0.001 } ?? false }

        try await suite.check("first claim", makeLedger) { ledger in
            let first = try await ledger.claim(digest("token-1"), for: me, at: now)
            suite.expect(first == nil, "the first claim of a token must answer nil, answered \(String(describing: first))")
            let second = try await ledger.claim(digest("token-1"), for: other, at: now.addingTimeInterval(1))
            suite.expect(second?.state == .pending, "a second claim of a token under way must answer pending, answered \(String(describing: second))")
            suite.expect(second?.session == me && second?.sends == 1 && second?.token == digest("token-1") && near(second?.claimedAt, now),
                         "a claim must keep the session that claimed the token, when, and one send; read \(String(describing: second))")
            let again = try await ledger.claim(digest("token-1"), for: me, at: now.addingTimeInterval(2))
            suite.expect(again?.state == .pending && again?.session == me, "a claim by the claiming session must answer its pending entry, answered \(String(describing: again))")
            let otherToken = try await ledger.claim(digest("token-2"), for: me, at: now)
            suite.expect(otherToken == nil, "a claim of another token must answer nil, answered \(String(describing: otherToken))")
        }

        try await suite.check("settled states", makeLedger) { ledger in
            let states: [ExchangeLedgerState] = [
                .answered(ExchangeResponse(code: "103000", phoneNumber: number, account: "account-42")), .answered(ExchangeResponse(code: "000")),
                .answered(ExchangeResponse(code: "-8994014")), .unknown, .failed, .pending,
                // A number verification's answers keep their verdict (appended: the indexes above are named below).
                .answered(ExchangeResponse(code: "000", verdict: .pass)), .answered(ExchangeResponse(code: "001", verdict: .reject)),
                .answered(ExchangeResponse(code: "302", verdict: .unknown)),
            ]
            for (index, state) in states.enumerated() {
                let token = digest("settled-\(index)")
                _ = try await ledger.claim(token, for: me, at: now)
                try await ledger.settle(token, state, at: now.addingTimeInterval(2))
                let read = try await ledger.claim(token, for: me, at: now.addingTimeInterval(3))
                suite.expect(read?.state == state, "a claim of a token settled as \(state) must answer it (with its number, account and verdict), answered \(String(describing: read?.state))")
                suite.expect(read?.session == me && near(read?.settledAt, now.addingTimeInterval(2)) && near(read?.claimedAt, now),
                             "a settle must keep the claim's session and time and record its own, read \(String(describing: read))")
            }
            // A claim of an unknown exchange leaves it unknown: only a resend claims it again.
            let unknown = digest("settled-3")
            let again = try await ledger.claim(unknown, for: me, at: now.addingTimeInterval(4))
            suite.expect(again?.state == .unknown, "a claim must leave an unknown exchange unknown, the next claim answered \(String(describing: again?.state))")
            let listed = try await ledger.unknownExchanges(since: .distantPast, pendingClaimedBefore: .distantPast).map(\.token)
            suite.expect(listed == [unknown], "claims must not take a token off the unknown exchanges, listed \(listed.count)")
        }

        try await suite.check("settle without a claim", makeLedger) { ledger in
            try await ledger.settle(digest("never-claimed"), .unknown, at: now)
            let read = try await ledger.claim(digest("never-claimed"), for: me, at: now.addingTimeInterval(1))
            suite.expect(read?.state == .unknown && read?.session == nil,
                         "a token settled without a claim must be recorded, with no session, a claim answered \(String(describing: read))")
            try await ledger.settle(digest("never-claimed"), .answered(ExchangeResponse(code: "103000")), at: now.addingTimeInterval(2))
            let settled = try await ledger.claim(digest("never-claimed"), for: me, at: now.addingTimeInterval(3))
            suite.expect(settled?.state == .answered(ExchangeResponse(code: "103000")), "a later settle must replace the state, a claim answered \(String(describing: settled?.state))")
            let listed = try await ledger.unknownExchanges(since: .distantPast, pendingClaimedBefore: .distantPast)
            suite.expect(listed.isEmpty, "a token settled as answered after unknown must leave the unknown exchanges, \(listed.count) listed")
        }

        try await suite.check("resend", makeLedger) { ledger in
            let token = digest("resent")
            _ = try await ledger.claim(token, for: me, at: now)
            let early = try await ledger.resend(token, for: me, at: now.addingTimeInterval(1))
            suite.expect(!early, "a resend of a token under way (pending) must be refused")
            try await ledger.settle(token, .unknown, at: now.addingTimeInterval(5))
            let stranger = try await ledger.resend(token, for: other, at: now.addingTimeInterval(6))
            suite.expect(!stranger, "a resend of an unknown exchange by another session must be refused")
            let mine = try await ledger.resend(token, for: me, at: now.addingTimeInterval(7))
            suite.expect(mine, "a resend of an unknown exchange by the session that claimed it must claim it again")
            let read = try await ledger.claim(token, for: me, at: now.addingTimeInterval(8))
            suite.expect(read?.state == .pending && read?.sends == 2 && read?.session == me && near(read?.claimedAt, now.addingTimeInterval(7)),
                         "a resend must make the entry pending again, claimed then, sent twice; read \(String(describing: read))")
            try await ledger.settle(token, .unknown, at: now.addingTimeInterval(12))
            let twice = try await ledger.resend(token, for: me, at: now.addingTimeInterval(13))
            suite.expect(!twice, "an unknown exchange must be resent once only")
            for (index, state) in [ExchangeLedgerState.answered(ExchangeResponse(code: "103000")), .failed].enumerated() {
                let settled = digest("resend-settled-\(index)")
                _ = try await ledger.claim(settled, for: me, at: now)
                try await ledger.settle(settled, state, at: now)
                let refused = try await ledger.resend(settled, for: me, at: now.addingTimeInterval(1))
                suite.expect(!refused, "a resend of a token settled as \(state) must be refused")
            }
            let unclaimed = try await ledger.resend(digest("resend-never-claimed"), for: me, at: now)
            suite.expect(!unclaimed, "a resend of a token never claimed must be refused")
            try await ledger.settle(digest("resend-no-session"), .unknown, at: now)
            let orphan = try await ledger.resend(digest("resend-no-session"), for: me, at: now.addingTimeInterval(1))
            suite.expect(!orphan, "a resend of an unknown exchange no session claimed must be refused")
        }

        try await suite.check("concurrent resends", makeLedger) { ledger in
            let token = digest("resent-at-once")
            _ = try await ledger.claim(token, for: me, at: now)
            try await ledger.settle(token, .unknown, at: now.addingTimeInterval(5))
            let answers = try await suite.race(concurrency) { _ in try await ledger.resend(token, for: me, at: now.addingTimeInterval(6)) }
            let resent = answers.filter { $0 }.count
            suite.expect(resent == 1, "\(concurrency) concurrent resends of one unknown exchange must let exactly one claim it again, \(resent) did")
        }

        try await suite.check("unknown exchanges", makeLedger) { ledger in
            let offsets = [3.0, 1.0, 2.5]
            for (index, offset) in offsets.enumerated() {
                _ = try await ledger.claim(digest("unknown-\(index)"), for: me, at: now)
                try await ledger.settle(digest("unknown-\(index)"), .unknown, at: now.addingTimeInterval(offset))
            }
            _ = try await ledger.claim(digest("answered"), for: me, at: now)
            try await ledger.settle(digest("answered"), .answered(ExchangeResponse(code: "103000")), at: now.addingTimeInterval(2))
            _ = try await ledger.claim(digest("failed"), for: me, at: now)
            try await ledger.settle(digest("failed"), .failed, at: now.addingTimeInterval(2))
            _ = try await ledger.claim(digest("pending-old"), for: other, at: now.addingTimeInterval(2))
            _ = try await ledger.claim(digest("pending-new"), for: other, at: now.addingTimeInterval(10))

            let all = try await ledger.unknownExchanges(since: now, pendingClaimedBefore: .distantPast)
            suite.expect(all.map(\.token) == [digest("unknown-1"), digest("unknown-2"), digest("unknown-0")],
                         "the unknown exchanges must be listed oldest first, and only they, listed \(all.count)")
            let times = all.map { $0.settledAt.timeIntervalSince(now) }
            suite.expect(times.count == 3 && zip(times, [1.0, 2.5, 3.0]).allSatisfy { abs($0 - $1) < 0.001 },
                         "each unknown exchange must be listed with when it was settled, to the millisecond, listed \(times)")
            suite.expect(all.allSatisfy { $0.state == .unknown && $0.session == me }, "each unknown exchange must be listed with its state and session")
            let since = try await ledger.unknownExchanges(since: now.addingTimeInterval(2.5), pendingClaimedBefore: .distantPast).map(\.token)
            suite.expect(since == [digest("unknown-2"), digest("unknown-0")], "unknownExchanges(since:) must list those settled at or after the instant, listed \(since.count)")
            let none = try await ledger.unknownExchanges(since: now.addingTimeInterval(3.001), pendingClaimedBefore: .distantPast)
            suite.expect(none.isEmpty, "unknownExchanges(since:) after the last must list none, listed \(none.count)")

            let withPending = try await ledger.unknownExchanges(since: now, pendingClaimedBefore: now.addingTimeInterval(5))
            suite.expect(withPending.map(\.token) == [digest("unknown-1"), digest("pending-old"), digest("unknown-2"), digest("unknown-0")],
                         "pending exchanges claimed before the bound must be listed with the unknown ones, by time, listed \(withPending.map(\.state))")
            let old = withPending.first { $0.token == digest("pending-old") }
            suite.expect(old?.state == .pending && old?.session == other && near(old?.claimedAt, now.addingTimeInterval(2)),
                         "a pending exchange must be listed with its state, session and claim time, listed \(String(describing: old))")
            let atBound = try await ledger.unknownExchanges(since: .distantFuture, pendingClaimedBefore: now.addingTimeInterval(10))
            suite.expect(atBound.map(\.token) == [digest("pending-old")], "a pending exchange claimed at the bound must not be listed, listed \(atBound.count)")
        }

        try await suite.check("unknown exchanges, a page at a time", makeLedger) { ledger in
            // Seven to reconcile, three of them given up on at one instant (a page may end between them), and one
            // answered, which no page lists.
            let offsets = [1.0, 2.0, 2.0, 2.0, 3.0, 4.0]
            for (index, offset) in offsets.enumerated() {
                _ = try await ledger.claim(digest("paged-\(index)"), for: me, at: now)
                try await ledger.settle(digest("paged-\(index)"), .unknown, at: now.addingTimeInterval(offset))
            }
            _ = try await ledger.claim(digest("paged-pending"), for: other, at: now.addingTimeInterval(2))
            _ = try await ledger.claim(digest("paged-answered"), for: me, at: now)
            try await ledger.settle(digest("paged-answered"), .answered(ExchangeResponse(code: "103000")), at: now.addingTimeInterval(2))
            let bound = now.addingTimeInterval(5)
            let whole = try await ledger.unknownExchanges(since: now, pendingClaimedBefore: bound, after: nil, limit: 100)
            suite.expect(whole.count == 7, "a page under its limit must list every exchange to reconcile, listed \(whole.count)")
            let ordered = whole.map { ($0.at.timeIntervalSince1970, $0.token.hex) }
            suite.expect(zip(ordered, ordered.dropFirst()).allSatisfy { $0 < $1 },
                         "a page must list by time, then by the token's bytes, listed \(whole.map { $0.token.hex.prefix(8) })")
            for size in [1, 2, 3] {
                var paged: [ExchangeLedgerEntry] = []
                var pages = 0
                while pages <= whole.count {
                    let page = try await ledger.unknownExchanges(since: now, pendingClaimedBefore: bound, after: paged.last, limit: size)
                    pages += 1
                    suite.expect(page.count <= size, "a page must list at most its limit (\(size)), listed \(page.count)")
                    paged += page.prefix(size)
                    if page.count < size { break }
                }
                suite.expect(paged.map(\.token) == whole.map(\.token),
                             "pages must list every exchange to reconcile once, in order: pages of \(size) listed \(paged.count) of \(whole.count)")
            }
            let none = try await ledger.unknownExchanges(since: now, pendingClaimedBefore: bound, after: nil, limit: 0)
            suite.expect(none.isEmpty, "a page must list at most its limit (0), listed \(none.count)")
        }

        try await suite.check("retention", makeLedger) { ledger in
            let token = digest("remembered")
            _ = try await ledger.claim(token, for: me, at: now)
            let before = try await ledger.claim(token, for: me, at: now.addingTimeInterval(retention.seconds - 0.001))
            suite.expect(before?.state == .pending, "a token must be remembered until its retention has passed, a claim answered \(String(describing: before?.state))")
            let after = try await ledger.claim(token, for: other, at: now.addingTimeInterval(retention.seconds + 0.001))
            suite.expect(after == nil, "a token claimed longer than the retention ago must be forgotten and claimed afresh, a claim answered \(String(describing: after?.state))")
            let again = try await ledger.claim(token, for: me, at: now.addingTimeInterval(retention.seconds + 1))
            suite.expect(again?.state == .pending && again?.session == other, "a token claimed afresh must be pending for its new session, a claim answered \(String(describing: again))")
        }

        try await suite.check("concurrent claims", makeLedger) { ledger in
            let token = digest("raced")
            let answers = try await suite.race(concurrency) { _ in try await ledger.claim(token, for: me, at: now)?.state }
            let claimed = answers.filter { $0 == nil }.count
            suite.expect(claimed == 1, "\(concurrency) concurrent claims of one token must let exactly one claim it, \(claimed) did")
            suite.expect(answers.filter { $0 == .pending }.count == concurrency - claimed, "the concurrent claims that lost must answer pending")
            let distinct = try await suite.race(concurrency) { index in try await ledger.claim(digest("distinct-\(index)"), for: me, at: now) == nil }
                .filter { $0 }.count
            suite.expect(distinct == concurrency, "\(concurrency) concurrent claims of distinct tokens must all claim, \(distinct) did")
        }

        try await suite.check("through guards", makeLedger) { ledger in
            let clock = FakeClock(now: now)
            let provider = MockTokenExchange(number: number, clock: clock)
            let guards = (0..<4).map { _ in ExchangeGuard(provider: provider, ledger: ledger, clock: clock) }
            let credential = CarrierCredential(flow: .tianyi, token: Secret("conformance-shared-token"))
            let sessions = try (0..<concurrency).map { try LoginSessionID("conformance-race-\(String(1000 + $0).suffix(3))00") }
            let answers = try await withThrowingTaskGroup(of: ExchangeAnswer.self) { group in
                for index in 0..<concurrency {
                    let exchange = guards[index % guards.count], session = sessions[index]
                    group.addTask {
                        try await exchange.exchange(credential, for: session, receivedAt: now, rules: .builtIn, events: DiscardingEventSink()).answer
                    }
                }
                var answers: [ExchangeAnswer] = []
                for try await answer in group { answers.append(answer) }
                return answers
            }
            let exchanged = answers.filter { if case .answered = $0 { return true } else { return false } }.count
            suite.expect(exchanged == 1 && provider.tokensSent == ["conformance-shared-token": 1],
                         "guards sharing the ledger must send a token to the carrier once, sent it \(provider.tokensSent.values.reduce(0, +)) times")
            suite.expect(answers.filter { $0 == .replayed }.count == concurrency - 1, "the other sessions' guards must answer replayed")
        }

        try suite.finish()
    }
}
