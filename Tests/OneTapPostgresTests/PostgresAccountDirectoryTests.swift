import Foundation
import OneTap
@testable import OneTapPostgres
import OneTapPostgresTestSupport
import OneTapTesting
import Testing

@Suite(.connectionBudget) struct PostgresAccountDirectoryTests {
    let now = Date(timeIntervalSince1970: 1_796_083_200.125)
    let number = PhoneNumber(unchecked: 13_800_138_000)

    func table(_ stores: PostgresStores) -> String { "\"\(stores.configuration.schema)\".account_numbers" }

    @Test func conformsToTheDirectoryContract() async throws {
        try await checkConformance(try await TestDatabase.url(), { $0.accountDirectory() }) { make in
            try await StoreConformance.check { try await make() }
        }
    }

    /// Two instances (two pools, one database) racing 40 first logins of one number: one account,
    /// created once, and each later login answers the verification before it.
    @Test(.connections(20)) func twoInstancesRacingFirstLoginsCreateOneAccount() async throws {
        try await TestDatabase.withStores(poolSize: 8) { one in
            let other = PostgresStores(configuration: try TestDatabase.configuration(try await TestDatabase.url(), schema: one.configuration.schema, poolSize: 8))
            let directories = [one.accountDirectory(), other.accountDirectory()]
            let now = self.now
            let number = self.number
            let answers = try await withThrowingTaskGroup(of: AccountResolution.self) { group in
                for index in 0..<40 {
                    group.addTask { try await directories[index % 2].findOrCreate(number, newID: try AccountID("acct-\(index)"), at: now) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(Set(answers.map(\.entry.account)).count == 1)
            #expect(answers.filter(\.created).count == 1)
            #expect(answers.filter { !$0.created }.allSatisfy { $0.previouslyVerifiedAt == now })
            let rows = try await one.pool.execute("SELECT count(*)::bigint FROM \(table(one))")
            #expect(rows.first == [.int64(1)])
            await other.close()
        }
    }

    /// AccountLogin over PostgreSQL: created, found, then dormant after 181 days with the verification before.
    @Test func accountLoginOverPostgres() async throws {
        try await TestDatabase.withStores { stores in
            let clock = FakeClock(now: now)
            let events = RecordingEventSink()
            let accounts = AccountLogin(directory: stores.accountDirectory(), newAccountID: { "acct-pg" }, clock: clock, events: events)
            let first = try await accounts.resolve(VerifiedLogin(phoneNumber: number))
            #expect(first.created && first.account == "acct-pg" && !first.dormant)
            clock.advance(by: .seconds(181 * 86_400))
            let later = try await accounts.resolve(VerifiedLogin(phoneNumber: number))
            #expect(!later.created && later.account == "acct-pg" && later.dormant && later.previouslyVerifiedAt == now)
            #expect(events.recorded.map(\.name) == ["dormant-number"])
        }
    }

    /// A login by number is one round trip, first or repeated, and neither the number nor an account id
    /// is ever part of a statement's text (both are bound values, so a hostile id is inert).
    @Test func aLoginIsOneStatementWithBoundValues() async throws {
        let log = StatementLog()
        let hostile = AccountID("'; DROP TABLE account_numbers; --")
        try await TestDatabase.withStores(observer: log.observer) { stores in
            let directory = stores.accountDirectory()
            let before = log.statements.count
            let first = try await directory.findOrCreate(number, newID: hostile, at: now)
            #expect(first.created && first.entry.account == hostile)
            #expect(log.statements.count == before + 1, "a first login is one statement")
            let again = try await directory.findOrCreate(number, newID: "acct-other", at: now.addingTimeInterval(1))
            #expect(!again.created && again.entry.account == hostile && again.previouslyVerifiedAt == now)
            #expect(log.statements.count == before + 2, "a repeated login is one statement")
            _ = try await directory.bind(number, to: hostile, at: now.addingTimeInterval(2))
            #expect(log.statements.count == before + 3, "a bind is one statement")
        }
        #expect(log.statements.allSatisfy { !$0.contains("13800138000") && !$0.contains("DROP TABLE account_numbers") })
    }

    /// The table keeps one row per number: a second row for a number is refused by the database itself,
    /// and a number that is no mobile number cannot be stored.
    @Test func theTableHasOneRowPerNumber() async throws {
        try await TestDatabase.withStores { stores in
            _ = try await stores.accountDirectory().findOrCreate(number, newID: "first", at: now)
            let insert = "INSERT INTO \(table(stores)) (number, account, created_at_ms, last_verified_at_ms) VALUES ($1, $2, 0, 0)"
            await #expect(throws: PostgresError.self) { try await stores.pool.execute(insert, [.text("13800138000"), .text("second")]) }
            await #expect(throws: PostgresError.self) { try await stores.pool.execute(insert, [.text("12345"), .text("third")]) }
            let collation = try await stores.pool.execute(
                "SELECT collation_name::text FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'account_numbers' AND column_name = 'account'",
                [.text(stores.configuration.schema)])
            #expect(collation.first == [.text("C")])
        }
    }

    /// A row OneTap did not write is `corrupt`, left as it is, and the error masks the number.
    @Test func aForeignRowIsCorruptAndLeftAlone() async throws {
        try await TestDatabase.withStores { stores in
            try await stores.pool.execute(
                "INSERT INTO \(table(stores)) (number, account, created_at_ms, last_verified_at_ms) VALUES ('13800138000', '', 0, 0)")
            let error = await #expect(throws: StoreError.self) { _ = try await stores.accountDirectory().account(for: number) }
            #expect(error?.kind == .corrupt)
            #expect(error.map { "\($0)" }?.contains("138****8000") == true && error.map { "\($0)" }?.contains("13800138000") == false)
            let rows = try await stores.pool.execute("SELECT account FROM \(table(stores))")
            #expect(rows.first == [.text("")])
        }
    }

    /// A database that is down: `io`, with the number masked.
    @Test func aDatabaseThatIsDownFailsWithIO() async throws {
        let stores = PostgresStores(configuration: try PostgresConfiguration(url: "postgresql:///onetap?host=/tmp/onetap-nowhere-\(UInt32.random(in: 0...UInt32.max))"))
        let error = await #expect(throws: StoreError.self) {
            _ = try await stores.accountDirectory().findOrCreate(number, newID: "x", at: now)
        }
        #expect(error?.kind == .io)
        #expect(error.map { "\($0)" }?.contains("13800138000") == false)
        await stores.close()
    }
}
