import Foundation
import Testing
@testable import OneTap

/// The in-memory table of versioned records: a sweep removes what expired and keeps what a replace kept
/// longer, and the index by owner follows every create, replace (a login, a login to another account) and
/// removal, so an account's sessions are found without reading the table.
@Suite struct InMemoryVersionedRecordsTests {
    static let rules = AppSessionRules(policy: .standard, keys: ServerKeyRing(single: try! ServerKey(bytes: Array(repeating: 7, count: 32))))
    static let start = Date(timeIntervalSince1970: 1_796_112_000)
    static let hint = LastLoginHint(flow: .sms, number: nil, at: start)

    static func opened(_ id: String, at instant: Date = start) throws -> AppSessionRecord {
        rules.open(id: try AppSessionID(id), guest: .random(), secret: Array(repeating: 1, count: 32), at: instant).record
    }

    static func ids(_ records: [AppSessionRecord]) -> Set<String> { Set(records.map(\.id.text)) }

    @Test func theOwnerIndexFollowsLoginsAndRemovals() throws {
        let table = InMemoryVersionedRecords<AppSessionRecord>()
        let first = try Self.opened("OwnerIndexSession00001")
        let second = try Self.opened("OwnerIndexSession00002")
        try table.create(first)
        try table.create(second)
        #expect(table.records(of: "42").isEmpty, "guests belong to no account")
        let firstIn = Self.rules.login(first, account: "42", hint: Self.hint, secret: Array(repeating: 2, count: 32), at: Self.start).record
        try table.replace(firstIn, expecting: first.version)
        let secondIn = Self.rules.login(second, account: "42", hint: Self.hint, secret: Array(repeating: 3, count: 32), at: Self.start).record
        try table.replace(secondIn, expecting: second.version)
        #expect(Self.ids(table.records(of: "42")) == ["OwnerIndexSession00001", "OwnerIndexSession00002"])
        // The first session logs in to another account: it leaves 42's sessions.
        let moved = Self.rules.login(firstIn, account: "43", hint: Self.hint, secret: Array(repeating: 4, count: 32), at: Self.start).record
        try table.replace(moved, expecting: firstIn.version)
        #expect(Self.ids(table.records(of: "42")) == ["OwnerIndexSession00002"])
        #expect(Self.ids(table.records(of: "43")) == ["OwnerIndexSession00001"])
        // A refused replace changes no index.
        #expect(throws: StoreError.self) { try table.replace(secondIn, expecting: firstIn.version) }
        #expect(Self.ids(table.records(of: "43")) == ["OwnerIndexSession00001"])
        // Expired and swept, a session leaves its account's.
        #expect(table.removeExpired(before: secondIn.expiresAt.addingTimeInterval(1), limit: 10) == 2)
        #expect(table.records(of: "42").isEmpty && table.records(of: "43").isEmpty && table.count == 0)
    }

    /// A table no sweeper reaches (a store made by a default: `AppSessions(keys:)`) sweeps itself every 1,024 creates,
    /// of what expired before the record being created was made: memory no longer grows with every record ever held
    /// (an attacker's read). What has not expired stays, an account's index included.
    @Test func aTableSweepsWhatExpiredAsItCreates() throws {
        let table = InMemoryVersionedRecords<AppSessionRecord>()
        let first = try Self.opened("SelfSweepSession000000")
        try table.create(first)
        let owned = Self.rules.login(first, account: "9", hint: Self.hint, secret: Array(repeating: 6, count: 32), at: Self.start).record
        try table.replace(owned, expecting: first.version)
        for index in 1..<1023 { try table.create(try Self.opened("SelfSweepSess\(String(100_000_000 + index))")) }
        #expect(table.count == 1023)
        // Made after every one of them expired: the 1,024th create sweeps them first.
        let late = try Self.opened("SelfSweepSession999999", at: owned.expiresAt.addingTimeInterval(1))
        try table.create(late)
        #expect(table.count == 1 && table.load(late.id) == late && table.records(of: "9").isEmpty)
        // Made before they expired, the same count sweeps nothing.
        let kept = InMemoryVersionedRecords<AppSessionRecord>()
        for index in 0..<2048 { try kept.create(try Self.opened("SelfSweepKept\(String(100_000_000 + index))")) }
        #expect(kept.count == 2048)
    }

    /// A login session is kept a minute past its expiry (its exchange's answer is still taken, its success still
    /// told), by the sweep as it creates as by a sweeper (a review: the first sweep as it creates removed it then).
    @Test func aLoginSessionIsKeptItsMinutePastExpiry() throws {
        let table = InMemoryVersionedRecords<LoginSession>()
        let machine = LoginSessionMachine(sessionLifetime: .seconds(600))
        let snapshot = DeviceSnapshot(sim: .absent)
        let start = Self.start
        let inItsMinute = machine.start(snapshot, at: start, id: .random()).session       // expires at start + 600
        let pastIt = machine.start(snapshot, at: start.addingTimeInterval(-31), id: .random()).session
        try table.create(inItsMinute)
        try table.create(pastIt)
        for _ in 2..<1023 { try table.create(machine.start(snapshot, at: start.addingTimeInterval(630), id: .random()).session) }
        // The 1,024th create, 630 s after the first start: 30 s past the first's expiry, 61 s past the second's.
        try table.create(machine.start(snapshot, at: start.addingTimeInterval(630), id: .random()).session)
        #expect(table.load(inItsMinute.id) == inItsMinute)
        #expect(table.load(pastIt.id) == nil)
        #expect(table.count == 1023)
    }

    /// A sweep removes only what expired before the instant, at most the limit, and what a replace kept longer
    /// stays until its new expiry.
    @Test func aSweepRemovesWhatExpiredAndKeepsWhatARefreshKeptLonger() throws {
        let table = InMemoryVersionedRecords<AppSessionRecord>()
        for index in 0..<5 { try table.create(try Self.opened("SweepSession000000000\(index)")) }
        let kept = try #require(table.load(try AppSessionID("SweepSession0000000000")))
        let later = Self.start.addingTimeInterval(86_400)
        let refreshed = Self.rules.login(kept, account: "7", hint: Self.hint, secret: Array(repeating: 5, count: 32), at: later).record
        try table.replace(refreshed, expecting: kept.version)
        let past = kept.expiresAt.addingTimeInterval(1)
        #expect(table.removeExpired(before: past, limit: 3) == 3)
        #expect(table.removeExpired(before: past, limit: 3) == 1)
        #expect(table.removeExpired(before: past, limit: 3) == 0)
        #expect(table.count == 1 && table.load(refreshed.id) == refreshed)
        #expect(table.records(of: "7").map(\.id) == [refreshed.id])
        #expect(table.removeExpired(before: refreshed.expiresAt.addingTimeInterval(1), limit: 3) == 1)
        #expect(table.count == 0 && table.records(of: "7").isEmpty)
    }
}
