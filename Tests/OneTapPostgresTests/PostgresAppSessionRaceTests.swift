import Foundation
import OneTap
@testable import OneTapPostgres
import OneTapPostgresTestSupport
import OneTapTesting
import Testing

/// Issue 20, "Stores": four processes (auth-server instances, `OneTapTestHelper postgres-app-refresh`)
/// refreshing one refresh token at once make one rotation and all four answer the same successor; a reuse
/// after the grace revokes the family for every instance.
///
/// The successor is checked against its definition, computed here with HMAC-SHA-256 from the key and the
/// family seed the session stored: `otr2.<session>.2.` + base64url(HMAC(key, "onetap-refresh-2" ‖ 0 ‖
/// session ‖ 0 ‖ "2" ‖ 0 ‖ seed)). The helpers print its SHA-256 only.
@Suite(.connectionBudget) struct PostgresAppSessionRaceTests {
    /// The instant the session is opened; every process of the race runs a minute later.
    static let opened = Date(timeIntervalSince1970: 1_796_112_000.125)
    static let raceMs = 1_796_112_060_125 as Int64

    /// The key ring every instance shares: one key, random for the run.
    let keyBytes = systemRandomBytes(32)
    var keysText: String { "race:" + Data(keyBytes).base64EncodedString() }

    /// `otr2.<session>.<generation>.` + base64url(HMAC-SHA-256(key, "onetap-refresh-2" ‖ 0 ‖ session ‖ 0 ‖
    /// generation ‖ 0 ‖ seed)).
    func token(session: AppSessionID, generation: Int, seed: [UInt8]) -> String {
        let message = Array("onetap-refresh-2".utf8) + [0] + Array(session.text.utf8) + [0] + Array(String(generation).utf8) + [0] + seed
        let mac = HMACSHA256.authenticationCode(for: message, key: keyBytes).bytes
        let base64url = Data(mac).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        return "otr2.\(session.text).\(generation).\(base64url)"
    }

    /// Starts `count` instances at `nowMs`, hands each its token at once, and returns their answers.
    func race(_ url: String, _ schema: String, at nowMs: Int64, tokens: [String]) async throws -> [String] {
        let helpers = try tokens.map { _ in
            try HelperProcess("postgres-app-refresh", url: url, [schema, String(nowMs)], environment: ["ONETAP_SERVER_KEYS": keysText])
        }
        for helper in helpers { #expect(await helper.line() == "ready") }
        for (helper, token) in zip(helpers, tokens) { helper.send(token) }
        var answers: [String] = []
        for helper in helpers { answers.append(await helper.line() ?? "nothing") }
        for helper in helpers { #expect(await helper.finish() == 0) }
        return answers
    }

    @Test(.connections(16)) func fourProcessesRotateOnceAndAReuseAfterTheGraceRevokesTheFamilyEverywhere() async throws {
        let url = try await TestDatabase.url()
        try await TestDatabase.withStores { stores in
            let schema = stores.configuration.schema
            let store = stores.appSessionStore()
            let keys = try ServerKeyRing(parsing: Secret(keysText))
            let sessions = AppSessions(keys: keys, store: store, clock: FakeClock(now: Self.opened), events: DiscardingEventSink())
            let grant = try await sessions.open()
            let first = grant.refreshToken.reveal()

            // Four instances refresh the same token at once.
            let answers = try await race(url, schema, at: Self.raceMs, tokens: Array(repeating: first, count: 4))
            let record = try #require(try await store.load(grant.session))
            #expect(record.version == 2, "one rotation")
            let previous = try #require(record.previous)
            #expect(previous.rotatedAt == Date(timeIntervalSince1970: Double(Self.raceMs) / 1000))
            let family = try #require(record.family)
            #expect(family.generation == 2)
            #expect(first == token(session: grant.session, generation: 1, seed: family.seed), "the first token is generation 1 of the family")
            let next = token(session: grant.session, generation: 2, seed: family.seed)
            let hash = SHA256.hash(next.utf8).hex
            #expect(answers.filter { $0 == "rotated \(hash)" }.count == 1, "\(answers)")
            #expect(answers.filter { $0 == "repeated \(hash)" }.count == 3, "\(answers)")
            #expect(!answers.contains { $0.contains(next) || $0.contains(first) }, "no token is printed")
            // The stored digest is the successor's: HMAC-SHA-256(key, "onetap-refresh-1" ‖ 0 ‖ successor).
            let digest = HMACSHA256.authenticationCode(for: Array("onetap-refresh-1".utf8) + [0] + Array(next.utf8), key: keyBytes)
            #expect(record.current.digest == digest)

            // Within the grace another instance still answers the same successor, and changes nothing.
            #expect(try await race(url, schema, at: Self.raceMs + 29_999, tokens: [first]) == ["repeated \(hash)"])
            #expect(try await store.load(grant.session)?.version == 2)

            // After the grace, one instance is handed the rotated token: reuse, the family is revoked.
            #expect(try await race(url, schema, at: Self.raceMs + 30_000, tokens: [first]) == ["refused reused"])
            let revoked = try #require(try await store.load(grant.session))
            #expect(revoked.revoked?.reason == .reuse && revoked.version == 3)

            // Every instance then refuses the family: the successor (the one the thief or the app holds)
            // and the rotated token alike; and the session's access token no longer stands.
            let after = try await race(url, schema, at: Self.raceMs + 31_000, tokens: [next, next, first, next])
            #expect(after == Array(repeating: "refused revoked", count: 4), "\(after)")
            let other = PostgresStores(configuration: stores.configuration)
            let elsewhere = AppSessions(
                keys: keys, store: other.appSessionStore(), clock: FakeClock(now: Self.opened.addingTimeInterval(90)), events: DiscardingEventSink())
            await #expect {
                _ = try await elsewhere.live(grant.accessToken.reveal())
            } throws: { error in
                (error as? AppSessionError)?.kind == .revoked
            }
            await other.close()
        }
    }
}
