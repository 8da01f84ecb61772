import Foundation
import Testing
@testable import OneTap

@Suite struct ClientLedgerTests {
    let start = Date(timeIntervalSince1970: 1_795_000_000)
    static let span = Duration.seconds(120)
    static let slack = Duration.seconds(20)

    static func client(session: String? = nil, guest: String? = nil, address: String? = nil, device: String? = nil) -> ChannelClient {
        ChannelClient(
            appSession: session.map { try! AppSessionID("LedgerTestsSession" + $0) }, identity: guest.map { .guest(try! GuestID("LedgerTestsGuest00" + $0)) },
            address: address.map { try! IPAddress($0) }, device: device.map { try! DeviceID($0) })
    }

    func note(_ ledger: inout ClientLedger, _ client: ChannelClient, failed: Bool, after seconds: Double = 0, capacity: Int = 4_096) {
        ledger.note(client, failed: failed, at: start.addingTimeInterval(seconds), span: Self.span, slack: Self.slack, capacity: capacity)
    }

    @Test func aClientsNewestOutcomeReplacesItsOlder() {
        var ledger = ClientLedger()
        let client = Self.client(session: "0001", address: "203.0.113.7")
        note(&ledger, client, failed: true)
        note(&ledger, client, failed: true)
        #expect((ledger.count, ledger.failing) == (1, 1))
        note(&ledger, client, failed: false, after: 1)
        #expect((ledger.count, ledger.failing) == (1, 0))
    }

    /// A client sharing a key with two entries (one's app session, the other's address) replaces both.
    @Test func aClientReplacesEveryEntryItSharesAKeyWith() {
        var ledger = ClientLedger()
        note(&ledger, Self.client(session: "0001", address: "203.0.113.1"), failed: true)
        note(&ledger, Self.client(session: "0002", address: "203.0.113.2"), failed: false)
        note(&ledger, Self.client(session: "0003", address: "203.0.113.3"), failed: true)
        #expect((ledger.count, ledger.failing) == (3, 2))
        note(&ledger, Self.client(session: "0001", address: "203.0.113.2"), failed: false)
        #expect((ledger.count, ledger.failing) == (2, 1))
        // The same /48 is the same client.
        note(&ledger, Self.client(session: "0004", address: "2001:db8:7:100::1"), failed: true)
        note(&ledger, Self.client(session: "0005", address: "2001:db8:7:ff00::1"), failed: true)
        #expect((ledger.count, ledger.failing) == (3, 2))
    }

    /// A device id is the app's claim: a stranger claiming a user's cannot replace the user's success.
    @Test func aDeviceIDJoinsNothing() {
        var ledger = ClientLedger()
        note(&ledger, Self.client(session: "0001", address: "203.0.113.1", device: "owners-phone"), failed: false)
        note(&ledger, Self.client(session: "0002", address: "198.51.100.1", device: "owners-phone"), failed: true)
        #expect((ledger.count, ledger.failing) == (2, 1))
    }

    /// Clients that give no address share one unknown address: their words are one client's. A success the server saw
    /// for such a client is its own entry, never folded into that shared one.
    @Test func theUnknownAddressJoinsWordsButNotSuccesses() {
        var ledger = ClientLedger()
        note(&ledger, Self.client(session: "0001"), failed: true)
        note(&ledger, Self.client(session: "0002"), failed: true)
        #expect((ledger.count, ledger.failing) == (1, 1))
        note(&ledger, Self.client(session: "0003"), failed: false)
        note(&ledger, Self.client(session: "0004"), failed: false)
        #expect((ledger.count, ledger.failing) == (3, 1))
    }

    @Test func entriesLeaveOnceTheSpanHasPassed() {
        var ledger = ClientLedger()
        note(&ledger, Self.client(session: "0001", address: "203.0.113.1"), failed: true)
        note(&ledger, Self.client(session: "0002", address: "203.0.113.2"), failed: false, after: 60)
        ledger.forget(at: start.addingTimeInterval(119.9), span: Self.span, slack: Self.slack)
        #expect((ledger.count, ledger.failing) == (2, 1))
        ledger.forget(at: start.addingTimeInterval(120), span: Self.span, slack: Self.slack)
        #expect((ledger.count, ledger.failing) == (1, 0))
        ledger.forget(at: start.addingTimeInterval(180), span: Self.span, slack: Self.slack)
        #expect((ledger.count, ledger.failing) == (0, 0))
    }

    /// Entries noted while the clock was a day ahead leave once it is set right (more than the slack behind them).
    @Test func aClockSetBackDropsWhatStandsAheadOfIt() {
        var ledger = ClientLedger()
        note(&ledger, Self.client(session: "0001", address: "203.0.113.1"), failed: true, after: 86_400)
        ledger.forget(at: start.addingTimeInterval(86_400 - 20), span: Self.span, slack: Self.slack)
        #expect(ledger.count == 1, "within the slack")
        ledger.forget(at: start, span: Self.span, slack: Self.slack)
        #expect(ledger.count == 0)
    }

    @Test func pastItsCapacityTheOldestLeave() {
        var ledger = ClientLedger()
        for index in 1...5 { note(&ledger, Self.client(session: "000\(index)", address: "203.0.113.\(index)"), failed: index <= 2, capacity: 3) }
        #expect((ledger.count, ledger.failing) == (3, 0))
        // One client noted many times holds one place, and its replaced places are let go.
        for second in 0..<10_000 { note(&ledger, Self.client(session: "0009", address: "198.51.100.9"), failed: true, after: Double(second) / 100, capacity: 3) }
        #expect((ledger.count, ledger.failing) == (3, 1))
    }

    /// The opening rule, worked by hand: at least `minimum` clients, failures at least `threshold` of them.
    @Test func meetsTheRuleWhenEnoughClientsAndEnoughOfThemFailing() {
        var ledger = ClientLedger()
        for index in 1...4 { note(&ledger, Self.client(session: "000\(index)", address: "203.0.113.\(index)"), failed: index <= 2) }
        #expect(ledger.meets(minimum: 4, threshold: 0.5))     // 2 of 4
        #expect(!ledger.meets(minimum: 5, threshold: 0.5))    // 4 clients < 5
        #expect(!ledger.meets(minimum: 4, threshold: 0.51))
        note(&ledger, Self.client(session: "0005", address: "203.0.113.5"), failed: false)
        #expect(!ledger.meets(minimum: 4, threshold: 0.5))    // 2 of 5
        #expect(ledger.meets(minimum: 4, threshold: 0.4))
    }
}
