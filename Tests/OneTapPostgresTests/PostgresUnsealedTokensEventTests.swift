import Foundation
import OneTap
@testable import OneTapPostgres
import OneTapPostgresTestSupport
import OneTapTesting
import Testing

/// Issue 21 review: a token store made without a keyring keeps carrier tokens readable by anyone who
/// reads the table or a backup, and said nothing (a weak `sslmode` is an event; this is as weak). Now it
/// is a `database` event, `unsealed-tokens`, naming the schema; a store with a keyring emits none.
@Suite struct PostgresUnsealedTokensEventTests {
    func stores(_ events: RecordingEventSink) throws -> PostgresStores {
        let configuration = try PostgresConfiguration(url: "postgresql:///onetap?host=/var/run/postgresql", schema: "tenant_a")
        return PostgresStores(configuration: configuration, clock: FakeClock(now: Tokens.now), events: events)
    }

    @Test func aTokenStoreWithoutAKeyringIsAnEvent() throws {
        let events = RecordingEventSink()
        _ = try stores(events).tokenStore()
        let recorded = events.recorded
        #expect(recorded.map(\.name) == ["unsealed-tokens"])
        let line = try #require(recorded.first).json()
        #expect(line == #"{"v":2,"at":"2026-12-01T00:00:00.000Z","area":"database","event":"unsealed-tokens","schema":"tenant_a"}"#)
    }

    @Test func aTokenStoreWithAKeyringIsNone() throws {
        let events = RecordingEventSink()
        let keyring = try PostgresTokenKeyring(currentKeyID: "k1", keys: ["k1": [UInt8](repeating: 7, count: 32)])
        _ = try stores(events).tokenStore(keyring: keyring)
        #expect(events.recorded.isEmpty)
    }
}
