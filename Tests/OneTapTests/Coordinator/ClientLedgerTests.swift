import Foundation
import Testing
@testable import OneTap

@Suite struct ClientLedgerTests {
    let start = Date(timeIntervalSince1970: 1_795_000_000)
    static let span = Duration.seconds(120)

    static func client(session: String? = nil, guest: String? = nil, address: String? = nil, device: String? = nil) -> ChannelClient {
        ChannelClient(
            appSession: session.map { try! AppSessionID("LedgerTestsSession" + $0) }, identity: guest.map { .guest(try! GuestID("LedgerTestsGuest00" + $0)) },
            address: address.map { try! IPAddress($0) }, device: device.map { try! DeviceID($0) })
    }

    /// Notes a client's failure (its word) or a success the server saw for it.
    func note(_ ledger: inout ClientLedger, _ client: ChannelClient, failed: Bool, after seconds: Double = 0, capacity: Int = 4_096) {
        ledger.note(client, failed: failed, seen: !failed, at: start.addingTimeInterval(seconds), span: Self.span, capacity: capacity)
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

    /// A client's word sharing a key with two places (one's app session, the other's address) replaces both.
    @Test func aWordReplacesEveryPlaceItSharesAKeyWith() {
        var ledger = ClientLedger()
        note(&ledger, Self.client(session: "0001", address: "203.0.113.1"), failed: true)
        note(&ledger, Self.client(session: "0002", address: "203.0.113.2"), failed: true)
        note(&ledger, Self.client(session: "0003", address: "203.0.113.3"), failed: true)
        #expect((ledger.count, ledger.failing) == (3, 3))
        note(&ledger, Self.client(session: "0001", address: "203.0.113.2"), failed: true)
        #expect((ledger.count, ledger.failing) == (2, 2))
        // The same /48 is the same client.
        note(&ledger, Self.client(session: "0004", address: "2001:db8:7:100::1"), failed: true)
        note(&ledger, Self.client(session: "0005", address: "2001:db8:7:ff00::1"), failed: true)
        #expect((ledger.count, ledger.failing) == (3, 3))
    }

    /// A success is placed by the user's credentials: users behind one address are each a place, a stranger's word from
    /// that address replaces none of them, and the user's own newer word replaces its success.
    @Test func aSuccessIsPlacedByItsCredentialsAlone() {
        var ledger = ClientLedger()
        for index in 1...3 { note(&ledger, Self.client(session: "000\(index)", guest: "000\(index)", address: "100.64.0.1"), failed: false) }
        #expect((ledger.count, ledger.failing) == (3, 0))
        note(&ledger, Self.client(session: "0009", guest: "0009", address: "100.64.0.1"), failed: true)
        #expect((ledger.count, ledger.failing) == (4, 1))
        note(&ledger, Self.client(session: "0001", guest: "0001", address: "100.64.0.1"), failed: true)
        #expect((ledger.count, ledger.failing) == (3, 1), "user 1's word replaced its success, and joined the stranger's on the address")
        note(&ledger, Self.client(session: "0010", guest: "0002", address: "198.51.100.1"), failed: false)
        #expect((ledger.count, ledger.failing) == (3, 1), "the same guest in another app session is the same user")
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

    /// A success a client told (no exchange of the server's decided it) is its word: placed by its address too, so one
    /// address with many free guest sessions is one success, never many.
    @Test func aSuccessTheClientToldIsPlacedAsItsWord() {
        var ledger = ClientLedger()
        for index in 1...5 {
            ledger.note(Self.client(session: "000\(index)", guest: "000\(index)", address: "203.0.113.7"), failed: false, seen: false, at: start, span: Self.span, capacity: 64)
        }
        #expect((ledger.count, ledger.failing) == (1, 0))
        // A client that proved no credential (a device's own) is placed by what it has.
        ledger.note(Self.client(address: "198.51.100.1"), failed: false, seen: true, at: start, span: Self.span, capacity: 64)
        ledger.note(Self.client(address: "198.51.100.1"), failed: false, seen: true, at: start, span: Self.span, capacity: 64)
        #expect((ledger.count, ledger.failing) == (2, 0))
    }

    @Test func entriesLeaveOnceTheSpanHasPassed() {
        var ledger = ClientLedger()
        note(&ledger, Self.client(session: "0001", address: "203.0.113.1"), failed: true)
        note(&ledger, Self.client(session: "0002", address: "203.0.113.2"), failed: false, after: 60)
        ledger.forget(at: start.addingTimeInterval(119.9), span: Self.span)
        #expect((ledger.count, ledger.failing) == (2, 1))
        ledger.forget(at: start.addingTimeInterval(120), span: Self.span)
        #expect((ledger.count, ledger.failing) == (1, 0))
        ledger.forget(at: start.addingTimeInterval(180), span: Self.span)
        #expect((ledger.count, ledger.failing) == (0, 0))
    }

    /// An instant behind the latest one (a slow request's) neither drops nor lengthens anything: time runs on from the
    /// latest. A clock set back by more than ten spans restarts every place's span from the new time.
    @Test func timeNeverRunsBack() {
        var ledger = ClientLedger()
        note(&ledger, Self.client(session: "0001", address: "203.0.113.1"), failed: true, after: 100)
        note(&ledger, Self.client(session: "0002", address: "203.0.113.2"), failed: true, after: 0)   // a slow request: counts as at 100
        ledger.forget(at: start.addingTimeInterval(219.9), span: Self.span)
        #expect(ledger.count == 2)
        ledger.forget(at: start.addingTimeInterval(220), span: Self.span)
        #expect(ledger.count == 0)
        note(&ledger, Self.client(session: "0003", address: "203.0.113.3"), failed: true, after: 86_400)
        ledger.forget(at: start.addingTimeInterval(86_400 - 1_200), span: Self.span)
        #expect(ledger.count == 1, "ten spans back: a slow request, not a clock set back")
        ledger.forget(at: start, span: Self.span)   // a day back
        #expect(ledger.count == 1)
        ledger.forget(at: start.addingTimeInterval(119.9), span: Self.span)
        #expect(ledger.count == 1)
        ledger.forget(at: start.addingTimeInterval(120), span: Self.span)
        #expect(ledger.count == 0)
    }

    /// Past the capacity the oldest failure leaves first, and a failure is not kept in a ledger full of successes: a
    /// burst of words never pushes out the successes seen.
    @Test func pastItsCapacityTheOldestFailureLeavesFirst() {
        var ledger = ClientLedger()
        for index in 1...5 { note(&ledger, Self.client(session: "000\(index)", address: "203.0.113.\(index)"), failed: index <= 2, capacity: 3) }
        #expect((ledger.count, ledger.failing) == (3, 0))
        for index in 6...9 { note(&ledger, Self.client(session: "000\(index)", address: "203.0.113.\(index)"), failed: true, capacity: 3) }
        #expect((ledger.count, ledger.failing) == (3, 0))
        var mixed = ClientLedger()
        for index in 1...2 { note(&mixed, Self.client(session: "000\(index)", address: "203.0.113.\(index)"), failed: false, capacity: 4) }
        for index in 3...7 { note(&mixed, Self.client(session: "000\(index)", address: "203.0.113.\(index)"), failed: true, capacity: 4) }
        #expect((mixed.count, mixed.failing) == (4, 2))
        // One client noted many times holds one place, and its replaced places are let go.
        for second in 0..<10_000 { note(&mixed, Self.client(session: "0009", address: "198.51.100.9"), failed: true, after: Double(second) / 100, capacity: 4) }
        #expect((mixed.count, mixed.failing) == (4, 2))
    }

    /// The opening rule, worked by hand: at least `minimum` failing clients, failures at least `threshold` of them.
    @Test func meetsTheRuleWhenEnoughClientsFailAndEnoughOfThem() {
        var ledger = ClientLedger()
        for index in 1...4 { note(&ledger, Self.client(session: "000\(index)", address: "203.0.113.\(index)"), failed: index <= 2) }
        #expect(ledger.meets(minimum: 2, threshold: 0.5))     // 2 failing of 4
        #expect(!ledger.meets(minimum: 3, threshold: 0.5))    // 2 failing < 3
        #expect(!ledger.meets(minimum: 2, threshold: 0.51))
        note(&ledger, Self.client(session: "0005", address: "203.0.113.5"), failed: false)
        #expect(!ledger.meets(minimum: 2, threshold: 0.5))    // 2 of 5
        #expect(ledger.meets(minimum: 2, threshold: 0.4))
        #expect(!ClientLedger().meets(minimum: 0, threshold: 0), "an empty ledger meets nothing")
    }
}
