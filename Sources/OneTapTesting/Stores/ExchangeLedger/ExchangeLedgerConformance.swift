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
/// It checks the ledger directly (a first claim, every state read back, settling without a claim, the
/// unknown exchanges oldest first, the retention, concurrent claims of one token) and through an
/// ``ExchangeGuard`` (many guards sharing the ledger send one token to the carrier once). Each property
/// is checked on a fresh, empty ledger; every broken property is listed, not only the first.
public enum ExchangeLedgerConformance {
    /// Runs every check, each on a fresh, empty ledger.
    /// - Parameters:
    ///   - retention: How long the ledgers `makeLedger` makes remember a token after its claim; one day,
    ///     the in-memory ledger's default.
    ///   - concurrency: How many claims race in the concurrency checks.
    ///   - makeLedger: Makes an empty ledger.
    /// - Throws: ``ConformanceFailure`` listing every property the ledger broke, or what `makeLedger` throws.
    public static func check(
        retention: Duration = .seconds(86_400), concurrency: Int = 100, _ makeLedger: () async throws -> any ExchangeLedger
    ) async throws {
        let suite = ConformanceHarness("ExchangeLedgerConformance")
        let now = Date(timeIntervalSince1970: 1_796_083_200.125)
        @Sendable func digest(_ text: String) -> SHA256Digest { SHA256.hash(Array(text.utf8)) }

        try await suite.check("first claim", makeLedger) { ledger in
            let first = try await ledger.claim(digest("token-1"), at: now)
            suite.expect(first == nil, "the first claim of a token must answer nil, answered \(String(describing: first))")
            let second = try await ledger.claim(digest("token-1"), at: now.addingTimeInterval(1))
            suite.expect(second == .pending, "a second claim of a token under way must answer pending, answered \(String(describing: second))")
            let other = try await ledger.claim(digest("token-2"), at: now)
            suite.expect(other == nil, "a claim of another token must answer nil, answered \(String(describing: other))")
        }

        try await suite.check("settled states", makeLedger) { ledger in
            let states: [ExchangeLedgerState] = [.answered("103000"), .answered("000"), .answered("-8994014"), .unknown, .failed, .pending]
            for (index, state) in states.enumerated() {
                let token = digest("settled-\(index)")
                _ = try await ledger.claim(token, at: now)
                try await ledger.settle(token, state, at: now.addingTimeInterval(2))
                let read = try await ledger.claim(token, at: now.addingTimeInterval(3))
                suite.expect(read == state, "a claim of a token settled as \(state) must answer it, answered \(String(describing: read))")
            }
            // A claim of an unknown exchange lets it be sent again to learn its result, and leaves it unknown.
            let unknown = digest("settled-3")
            let again = try await ledger.claim(unknown, at: now.addingTimeInterval(4))
            suite.expect(again == .unknown, "a claim must leave an unknown exchange unknown, the next claim answered \(String(describing: again))")
            let listed = try await ledger.unknownExchanges(since: .distantPast).map(\.token)
            suite.expect(listed == [unknown], "claims must not take a token off the unknown exchanges, listed \(listed.count)")
        }

        try await suite.check("settle without a claim", makeLedger) { ledger in
            try await ledger.settle(digest("never-claimed"), .unknown, at: now)
            let read = try await ledger.claim(digest("never-claimed"), at: now.addingTimeInterval(1))
            suite.expect(read == .unknown, "a token settled without a claim must be recorded, a claim answered \(String(describing: read))")
            try await ledger.settle(digest("never-claimed"), .answered("103000"), at: now.addingTimeInterval(2))
            let settled = try await ledger.claim(digest("never-claimed"), at: now.addingTimeInterval(3))
            suite.expect(settled == .answered("103000"), "a later settle must replace the state, a claim answered \(String(describing: settled))")
            let listed = try await ledger.unknownExchanges(since: .distantPast)
            suite.expect(listed.isEmpty, "a token settled as answered after unknown must leave the unknown exchanges, \(listed.count) listed")
        }

        try await suite.check("unknown exchanges", makeLedger) { ledger in
            let offsets = [3.0, 1.0, 2.5]
            for (index, offset) in offsets.enumerated() {
                _ = try await ledger.claim(digest("unknown-\(index)"), at: now)
                try await ledger.settle(digest("unknown-\(index)"), .unknown, at: now.addingTimeInterval(offset))
            }
            _ = try await ledger.claim(digest("answered"), at: now)
            try await ledger.settle(digest("answered"), .answered("103000"), at: now.addingTimeInterval(2))
            _ = try await ledger.claim(digest("failed"), at: now)
            try await ledger.settle(digest("failed"), .failed, at: now.addingTimeInterval(2))
            _ = try await ledger.claim(digest("pending"), at: now)

            let all = try await ledger.unknownExchanges(since: now)
            suite.expect(all.map(\.token) == [digest("unknown-1"), digest("unknown-2"), digest("unknown-0")],
                         "the unknown exchanges must be listed oldest first, and only they, listed \(all.count)")
            let times = all.map { $0.at.timeIntervalSince(now) }
            suite.expect(times.count == 3 && zip(times, [1.0, 2.5, 3.0]).allSatisfy { abs($0 - $1) < 0.001 },
                         "each unknown exchange must be listed with when it was settled, to the millisecond, listed \(times)")
            let since = try await ledger.unknownExchanges(since: now.addingTimeInterval(2.5)).map(\.token)
            suite.expect(since == [digest("unknown-2"), digest("unknown-0")], "unknownExchanges(since:) must list those settled at or after the instant, listed \(since.count)")
            let none = try await ledger.unknownExchanges(since: now.addingTimeInterval(3.001))
            suite.expect(none.isEmpty, "unknownExchanges(since:) after the last must list none, listed \(none.count)")
        }

        try await suite.check("retention", makeLedger) { ledger in
            let token = digest("remembered")
            _ = try await ledger.claim(token, at: now)
            let before = try await ledger.claim(token, at: now.addingTimeInterval(retention.seconds - 0.001))
            suite.expect(before == .pending, "a token must be remembered until its retention has passed, a claim answered \(String(describing: before))")
            let after = try await ledger.claim(token, at: now.addingTimeInterval(retention.seconds + 0.001))
            suite.expect(after == nil, "a token claimed longer than the retention ago must be forgotten and claimed afresh, a claim answered \(String(describing: after))")
            let again = try await ledger.claim(token, at: now.addingTimeInterval(retention.seconds + 1))
            suite.expect(again == .pending, "a token claimed afresh must be pending, a claim answered \(String(describing: again))")
        }

        try await suite.check("concurrent claims", makeLedger) { ledger in
            let token = digest("raced")
            let answers = try await suite.race(concurrency) { _ in try await ledger.claim(token, at: now) }
            let claimed = answers.filter { $0 == nil }.count
            suite.expect(claimed == 1, "\(concurrency) concurrent claims of one token must let exactly one claim it, \(claimed) did")
            suite.expect(answers.filter { $0 == .pending }.count == concurrency - claimed, "the concurrent claims that lost must answer pending")
            let distinct = try await suite.race(concurrency) { index in try await ledger.claim(digest("distinct-\(index)"), at: now) == nil }
                .filter { $0 }.count
            suite.expect(distinct == concurrency, "\(concurrency) concurrent claims of distinct tokens must all claim, \(distinct) did")
        }

        try await suite.check("through guards", makeLedger) { ledger in
            let clock = FakeClock(now: now)
            let provider = MockTokenExchange(number: try PhoneNumber("13800138000"), clock: clock)
            let guards = (0..<4).map { _ in ExchangeGuard(provider: provider, ledger: ledger, clock: clock) }
            let credential = CarrierCredential(flow: .tianyi, token: Secret("conformance-shared-token"))
            let answers = await withTaskGroup(of: ExchangeAnswer.self) { group in
                for index in 0..<concurrency {
                    let exchange = guards[index % guards.count]
                    group.addTask { await exchange.exchange(credential, receivedAt: now, rules: .builtIn).answer }
                }
                var answers: [ExchangeAnswer] = []
                for await answer in group { answers.append(answer) }
                return answers
            }
            let exchanged = answers.filter { if case .answered = $0 { return true } else { return false } }.count
            suite.expect(exchanged == 1 && provider.tokensSent == ["conformance-shared-token": 1],
                         "guards sharing the ledger must send a token to the carrier once, sent it \(provider.tokensSent.values.reduce(0, +)) times")
            suite.expect(answers.filter { $0 == .replayed }.count == concurrency - 1, "the other guards must answer replayed")
        }

        try suite.finish()
    }
}
