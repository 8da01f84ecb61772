import Foundation
import OneTapTesting
import Testing
@testable import OneTap

/// Issue 21: nothing limited how many logins one address or device starts, nor how many paid exchanges
/// it causes. With quotas, a start or a success report over a quota is refused (`over-quota`) and
/// changes nothing; a missing address or device shares one bucket (fail closed).
@Suite struct LoginServerQuotaTests {
    let clock = FakeClock()
    let store = InMemoryLoginSessionStore()
    static let mobileSIM = DeviceSnapshot(sim: .present, plmn: try! PLMN("46000"))
    static let number = try! PhoneNumber("13800138000")
    static let policy = try! LoginQuotaPolicy(csv: """
        rule,key,counts,window_seconds,limit,source
        ip-starts,ip,starts,3600,3,test
        device-starts,device,starts,3600,3,test
        session-starts,session,starts,3600,5,test
        ip-exchanges,ip,exchanges,3600,2,test
        device-exchanges,device,exchanges,3600,2,test
        """, file: "test-quotas.csv")

    func server(
        quotas: any LoginQuotaStore = InMemoryLoginQuotaStore(), exchange: ExchangeGuard? = nil, policy: LoginQuotaPolicy = Self.policy,
        events: any EventSink = DiscardingEventSink()
    ) -> LoginServer {
        LoginServer(store: store, exchange: exchange, quotas: LoginQuotas(policy: policy, store: quotas), clock: clock, events: events)
    }

    static func client(_ index: Int) -> AccessClaims {
        TestAppSession.claims(try! AppSessionID("QuotaTestsSession" + String(10_000 + index)))
    }

    func isOverQuota(_ error: any Error, rule: String) -> Bool {
        guard let rejection = error as? LoginRejection else { return false }
        return rejection.kind == .overQuota && rejection.message.contains(rule)
    }

    /// Four starts from one address (each from an app session and device of its own): the fourth is
    /// refused, and nothing of it is stored; another address still starts.
    @Test func startsPerAddressAreLimited() async throws {
        let logins = server()
        let address = try IPAddress("203.0.113.7")
        for index in 0..<3 {
            _ = try await logins.start(Self.mobileSIM, for: Self.client(index), address: address, device: try DeviceID("device-\(index)"))
        }
        let refused = await #expect(throws: LoginRejection.self) {
            try await logins.start(Self.mobileSIM, for: Self.client(3), address: address, device: try DeviceID("device-3"))
        }
        // The hour's window ends at 01:00: the time a Retry-After says, as a value and not only in the message.
        #expect(refused.map { isOverQuota($0, rule: "ip-starts") } == true)
        #expect(refused?.retryAt == Date(timeIntervalSince1970: 1_796_086_800))
        #expect(store.count == 3)
        // One IPv6 /64 is one address.
        let v6 = (1...3).map { try! IPAddress("2409:8900:1:2::\($0)") }
        for (index, address) in v6.enumerated() {
            _ = try await logins.start(Self.mobileSIM, for: Self.client(10 + index), address: address, device: try DeviceID("v6-device-\(index)"))
        }
        await #expect {
            try await logins.start(Self.mobileSIM, for: Self.client(20), address: try IPAddress("2409:8900:1:2:ffff::1"), device: try DeviceID("v6-device-9"))
        } throws: { isOverQuota($0, rule: "ip-starts") }
        // The hour passes: the address starts again.
        clock.advance(by: .seconds(3600))
        _ = try await logins.start(Self.mobileSIM, for: Self.client(3), address: address, device: try DeviceID("device-3"))
    }

    @Test func startsPerDeviceAreLimitedFromOneAddress() async throws {
        let logins = server(policy: try LoginQuotaPolicy(csv: "rule,key,counts,window_seconds,limit,source\nip-starts,ip,starts,3600,10,test\ndevice-starts,device,starts,3600,3,test\n", file: "q.csv"))
        let device = try DeviceID("one-phone")
        let address = try IPAddress("2409:8900:1:2::1")
        for index in 0..<3 {
            _ = try await logins.start(Self.mobileSIM, for: Self.client(index), address: try IPAddress("2409:8900:1:2::\(index + 1)"), device: device)
        }
        await #expect {
            try await logins.start(Self.mobileSIM, for: Self.client(3), address: address, device: device)
        } throws: { isOverQuota($0, rule: "device-starts") }
    }

    /// The attacker's read of 2026-12-04: a device id is the app's claim. A stranger who knows one (it is no
    /// secret) started the device's quota of logins from elsewhere, and the device's owner could start
    /// none for an hour. A device is now counted per address (an IPv6 /64): the stranger fills only the
    /// device's count at the stranger's own address.
    @Test func aStrangerWhoKnowsADeviceIDCannotUseUpItsStartsFromElsewhere() async throws {
        let logins = server()
        let device = try DeviceID("victims-phone")
        let stranger = try IPAddress("198.51.100.1")
        for index in 0..<3 {
            _ = try await logins.start(Self.mobileSIM, for: Self.client(index), address: stranger, device: device)
        }
        await #expect {
            try await logins.start(Self.mobileSIM, for: Self.client(3), address: stranger, device: device)
        } throws: { isOverQuota($0, rule: "ip-starts") || isOverQuota($0, rule: "device-starts") }
        // The owner, from the owner's own address, still starts.
        _ = try await logins.start(Self.mobileSIM, for: Self.client(4), address: try IPAddress("203.0.113.50"), device: device)
    }

    /// The same for paid exchanges: a stranger's success reports under the device id from elsewhere leave
    /// the owner's exchanges alone.
    @Test func aStrangerWhoKnowsADeviceIDCannotUseUpItsExchangesFromElsewhere() async throws {
        let logins = server(exchange: ExchangeGuard(provider: MockTokenExchange(number: Self.number, clock: clock), clock: clock))
        let device = try DeviceID("victims-phone")
        for index in 0..<2 {
            let address = try IPAddress("198.51.100.\(index + 1)")
            let started = try await logins.start(Self.mobileSIM, for: Self.client(index), address: address, device: device)
            _ = try await logins.report(success("T-\(index)"), to: started.session.id, version: 1, from: Self.client(index), address: address, device: device)
        }
        let owner = try IPAddress("203.0.113.50")
        let started = try await logins.start(Self.mobileSIM, for: Self.client(9), address: owner, device: device)
        _ = try await logins.report(success("T-9"), to: started.session.id, version: 1, from: Self.client(9), address: owner, device: device)
    }

    /// Without an address, every caller shares the rule's one `(not given)` bucket; without a device, every
    /// caller at one address shares that address's: a missing key never removes the limit (a missing device's
    /// bucket is its address's since a quota attacker's read: one across every address let anyone fill it for all).
    @Test func aMissingAddressOrDeviceSharesOneBucket() async throws {
        let logins = server()
        for index in 0..<3 {
            _ = try await logins.start(Self.mobileSIM, for: Self.client(index), device: try DeviceID("device-\(index)"))
        }
        await #expect {
            try await logins.start(Self.mobileSIM, for: Self.client(3), device: try DeviceID("device-3"))
        } throws: { isOverQuota($0, rule: "ip-starts") }
        // The device rule alone (the `ip` rule would fill with it: a /64 is one place).
        let devices = server(policy: try LoginQuotaPolicy(csv: "rule,key,counts,window_seconds,limit,source\ndevice-starts,device,starts,3600,3,test\n", file: "q.csv"))
        for index in 0..<3 {
            _ = try await devices.start(Self.mobileSIM, for: Self.client(10 + index), address: try IPAddress("2409:8900:1:2::\(index + 1)"))
        }
        await #expect {
            try await devices.start(Self.mobileSIM, for: Self.client(13), address: try IPAddress("2409:8900:1:2::9"))
        } throws: { isOverQuota($0, rule: "device-starts") }
        // Another address's clients without a device still start.
        _ = try await devices.start(Self.mobileSIM, for: Self.client(14), address: try IPAddress("198.51.100.9"))
    }

    /// Paid exchanges per address: the third success report is refused before its token reaches the
    /// carrier, and the session is unchanged (the app may switch to SMS).
    @Test func paidExchangesPerAddressAreLimited() async throws {
        let carrier = MockTokenExchange(number: Self.number, clock: clock)
        let events = RecordingEventSink()
        let logins = server(exchange: ExchangeGuard(provider: carrier, clock: clock), events: events)
        let address = try IPAddress("203.0.113.7")
        var sessions: [LoginSessionID] = []
        for index in 0..<3 {
            // Starts from other addresses (the start quota is not what this test is about).
            sessions.append(try await logins.start(Self.mobileSIM, for: Self.client(index), address: try IPAddress("198.51.100.\(index + 1)"),
                                                   device: try DeviceID("device-\(index)")).session.id)
        }
        for index in 0..<2 {
            let done = try await logins.report(success("T-\(index)"), to: sessions[index], version: 1, from: Self.client(index), address: address,
                                               device: try DeviceID("device-\(index)"))
            #expect(done.session.ending == .success)
        }
        await #expect {
            try await logins.report(success("T-2"), to: sessions[2], version: 1, from: Self.client(2), address: address, device: try DeviceID("device-2"))
        } throws: { isOverQuota($0, rule: "ip-exchanges") }
        #expect(carrier.tokensSent.count == 2, "the refused token never reached the carrier")
        // One event for the refusal, naming the rule and nothing of the client.
        #expect(events.recorded.filter { $0.name == "quota-refused" }.map { $0.json() } == [
            #"{"v":2,"at":"2026-12-01T00:00:00.000Z","area":"exchange","event":"quota-refused","counts":"exchanges","rule":"ip-exchanges","outcome":"over-quota"}"#,
        ])
        let stored = try #require(try await store.load(sessions[2]))
        #expect(stored.version == 1 && stored.stage == .flow(.mobile, attempt: 1))
        // The app switches to SMS: that is no exchange, and goes through.
        let sms = try await logins.report(.switchToSMS(.mobile), to: sessions[2], version: 1, from: Self.client(2), address: address)
        #expect(sms.session.next == "sms")
    }

    /// A failing quota store fails the start with its error, and nothing is stored; a start whose
    /// count was lost at commit is not admitted either.
    @Test func aFailingQuotaStoreStartsNothing() async throws {
        let quotas = FaultyLoginQuotaStore(InMemoryLoginQuotaStore())
        let logins = server(quotas: quotas)
        quotas.faults.inject(.refuse(.io, "the quota store is down"), into: [.update], times: 1)
        await #expect {
            try await logins.start(Self.mobileSIM, for: Self.client(1), address: try IPAddress("203.0.113.7"))
        } throws: { ($0 as? StoreError)?.kind == .io }
        quotas.faults.inject(.lose(.io, "the connection dropped at commit"), into: [.update], times: 1)
        await #expect {
            try await logins.start(Self.mobileSIM, for: Self.client(1), address: try IPAddress("203.0.113.7"))
        } throws: { ($0 as? StoreError)?.kind == .io }
        #expect(store.count == 0)
        _ = try await logins.start(Self.mobileSIM, for: Self.client(1), address: try IPAddress("203.0.113.7"))
        #expect(store.count == 1)
    }

    /// A start whose session the store failed to write started no login: its count is taken back, so a store that is
    /// down never uses up a client's quota (before, three failed writes left the address's three starts spent).
    @Test func aStartTheSessionStoreFailedToWriteCountsNothing() async throws {
        let sessions = FaultyLoginSessionStore(store)
        let logins = LoginServer(store: sessions, quotas: LoginQuotas(policy: Self.policy), clock: clock, events: DiscardingEventSink())
        let address = try IPAddress("203.0.113.7")
        sessions.faults.inject(.refuse(.io, "the session store is down (scripted)"), into: [.create], times: 3)
        for index in 0..<3 {
            await #expect {
                try await logins.start(Self.mobileSIM, for: Self.client(index), address: address, device: try DeviceID("device-\(index)"))
            } throws: { ($0 as? StoreError)?.kind == .io }
        }
        // The address's three starts (ip-starts) are all still there.
        for index in 3..<6 {
            _ = try await logins.start(Self.mobileSIM, for: Self.client(index), address: address, device: try DeviceID("device-\(index)"))
        }
        #expect(store.count == 3)
    }

    /// A server with the quotas over a session store that fails on demand: the plain one over `store`, or a joint one.
    func serverOverAFaultyStore(joint: Bool) -> (LoginServer, MockTokenExchange, FaultyLoginSessionStore, JointStore) {
        let carrier = MockTokenExchange(number: Self.number, clock: clock)
        let plain = FaultyLoginSessionStore(store), jointStore = JointStore()
        let logins = LoginServer(
            store: joint ? jointStore : plain, exchange: ExchangeGuard(provider: carrier, clock: clock), quotas: LoginQuotas(policy: Self.policy),
            clock: clock, events: DiscardingEventSink())
        return (logins, carrier, plain, jointStore)
    }

    /// A success report whose move to the exchange the store failed to write sent no token and billed nothing: its
    /// exchange's count is taken back, as a start's is (an attacker's read: each retry of the app after a 503 used up
    /// one more, and the session's exchanges ran out for an hour). Through the store's plain compare-and-swap, and
    /// through its joint write with the ledger's claim.
    @Test(arguments: [false, true])
    func aSuccessTheSessionStoreFailedToWriteCountsNoExchange(joint: Bool) async throws {
        let (logins, carrier, plain, jointStore) = serverOverAFaultyStore(joint: joint)
        let address = try IPAddress("203.0.113.7"), device = try DeviceID("device-0")
        let id = try await logins.start(Self.mobileSIM, for: Self.client(0), address: address, device: device).session.id
        if joint { jointStore.failing.withLock { $0 = ["replace claiming"] } } else { plain.faults.inject(.refuse(.io, "the session store is down (scripted)"), into: [.replace], times: 3) }
        for _ in 0..<3 {
            await #expect {
                try await logins.report(success("T-0"), to: id, version: 1, from: Self.client(0), address: address, device: device)
            } throws: { ($0 as? StoreError)?.kind == .io }
        }
        jointStore.failing.withLock { $0 = [] }
        #expect(carrier.tokensSent.isEmpty, "no token reached the carrier")
        // The address's two exchanges (ip-exchanges) are both still there.
        let done = try await logins.report(success("T-0"), to: id, version: 1, from: Self.client(0), address: address, device: device)
        #expect(done.session.ending == .success)
        let other = try await logins.start(Self.mobileSIM, for: Self.client(1), address: try IPAddress("198.51.100.1"), device: try DeviceID("device-1"))
        let second = try await logins.report(success("T-1"), to: other.session.id, version: 1, from: Self.client(1), address: address, device: try DeviceID("device-1"))
        #expect(second.session.ending == .success)
    }

    /// A success whose move the store wrote, though its answer was lost, keeps its count: its exchange goes on (a retry
    /// recovers it without counting again), so taking the count back would let a billed exchange go uncounted. Through
    /// the joint write (read back, the exchange goes on at once) and the plain compare-and-swap (the request fails with
    /// the move stored: the read finds it moved, and nothing is taken back).
    @Test(arguments: [true, false])
    func aSuccessWhoseMoveLandedUnseenKeepsItsCount(joint: Bool) async throws {
        let (logins, _, plain, jointStore) = serverOverAFaultyStore(joint: joint)
        let address = try IPAddress("203.0.113.7")
        var sessions: [LoginSessionID] = []
        for index in 0..<3 {
            sessions.append(try await logins.start(Self.mobileSIM, for: Self.client(index), address: try IPAddress("198.51.100.\(index + 1)"),
                                                   device: try DeviceID("device-\(index)")).session.id)
        }
        if joint {
            jointStore.answerLost.withLock { $0 = ["replace claiming"] }
            let first = try await logins.report(success("T-0"), to: sessions[0], version: 1, from: Self.client(0), address: address, device: try DeviceID("device-0"))
            #expect(first.session.ending == .success, "the move read back as stored: the exchange went on")
            jointStore.answerLost.withLock { $0 = [] }
        } else {
            plain.faults.inject(.land(.io, "the connection dropped after the commit (scripted)"), into: [.replace], times: 1)
            await #expect {
                try await logins.report(success("T-0"), to: sessions[0], version: 1, from: Self.client(0), address: address, device: try DeviceID("device-0"))
            } throws: { ($0 as? StoreError)?.kind == .io }
            #expect(try await store.load(sessions[0])?.version == 2, "the move to the exchange was stored")
        }
        _ = try await logins.report(success("T-1"), to: sessions[1], version: 1, from: Self.client(1), address: address, device: try DeviceID("device-1"))
        await #expect {
            try await logins.report(success("T-2"), to: sessions[2], version: 1, from: Self.client(2), address: address, device: try DeviceID("device-2"))
        } throws: { isOverQuota($0, rule: "ip-exchanges") }
    }

    /// Many starts at once from one address admit exactly the quota.
    @Test func concurrentStartsNeverPassTheQuota() async throws {
        let logins = server()
        let address = try IPAddress("203.0.113.7")
        let started = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<50 {
                group.addTask {
                    do {
                        _ = try await logins.start(Self.mobileSIM, for: Self.client(index), address: address, device: try DeviceID("device-\(index)"))
                        return true
                    } catch {
                        return false
                    }
                }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(started == 3)
        #expect(store.count == 3)
    }

    func success(_ token: String) -> LoginReport {
        .result(.mobile, code: "103000", credential: CarrierCredential(flow: .mobile, token: Secret(token), uniqueID: "uid-1"))
    }
}
