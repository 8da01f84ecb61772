import Foundation
import OneTapTesting
import Testing
@testable import OneTap

/// Issue 21, after review: the login quotas keyed an IPv6 client on its /64 only, so one /48 (65,536
/// /64s, what one customer is routed) caused 65,536 times a /64's paid exchanges; and a missing device
/// counted as the device id `unknown`, which any client can send as its own.
@Suite struct LoginServerQuotaBlockTests {
    let clock = FakeClock()
    static let mobileSIM = DeviceSnapshot(sim: .present, plmn: try! PLMN("46000"))
    static let policy = try! LoginQuotaPolicy(csv: """
        rule,key,counts,window_seconds,limit,source
        ip-starts,ip,starts,3600,1,test
        ip56-starts,ip56,starts,3600,3,test
        ip48-starts,ip48,starts,3600,5,test
        device-starts,device,starts,3600,2,test
        """, file: "test-quotas.csv")

    func server() -> LoginServer {
        LoginServer(quotas: LoginQuotas(policy: Self.policy), clock: clock, events: DiscardingEventSink())
    }

    static func client(_ index: Int) -> AccessClaims {
        TestAppSession.claims(try! AppSessionID("QuotaBlockSession" + String(10_000 + index)))
    }

    static func isOverQuota(_ error: any Error, rule: String) -> Bool {
        guard let rejection = error as? LoginRejection else { return false }
        return rejection.kind == .overQuota && rejection.message.contains("quota \(rule)")
    }

    /// A client moving to a fresh /64 for each login is held by its /56, then by its /48.
    @Test func aClientRotatingItsSlash64sIsHeldByItsSlash56AndSlash48() async throws {
        let logins = server()
        // Three /64s of one /56 (2409:8900:1:200::/56): the fourth is over the /56's quota.
        for subnet in 0..<3 {
            _ = try await logins.start(Self.mobileSIM, for: Self.client(subnet), address: try IPAddress("2409:8900:1:2\(subnet)0::1"), device: try DeviceID("d\(subnet)"))
        }
        await #expect {
            try await logins.start(Self.mobileSIM, for: Self.client(3), address: try IPAddress("2409:8900:1:2ff::1"), device: try DeviceID("d3"))
        } throws: { Self.isOverQuota($0, rule: "ip56-starts") }
        // Two more /56s of the same /48 (2409:8900:1::/48): five starts in the /48, then refused.
        _ = try await logins.start(Self.mobileSIM, for: Self.client(4), address: try IPAddress("2409:8900:1:300::1"), device: try DeviceID("d4"))
        _ = try await logins.start(Self.mobileSIM, for: Self.client(5), address: try IPAddress("2409:8900:1:400::1"), device: try DeviceID("d5"))
        await #expect {
            try await logins.start(Self.mobileSIM, for: Self.client(6), address: try IPAddress("2409:8900:1:500::1"), device: try DeviceID("d6"))
        } throws: { Self.isOverQuota($0, rule: "ip48-starts") }
        // Another /48 is another place.
        _ = try await logins.start(Self.mobileSIM, for: Self.client(7), address: try IPAddress("2409:8900:2::1"), device: try DeviceID("d7"))
    }

    /// A client that names its device `unknown` neither shares nor fills the bucket of requests that
    /// gave no device (a device is counted per address since 2026-12-04; a missing device too since 2026-12-05:
    /// its one bucket across every address let anyone fill it for every client that sends none).
    @Test func aDeviceCalledUnknownIsNotTheMissingDevicesBucket() async throws {
        let devices = try LoginQuotaPolicy(csv: "rule,key,counts,window_seconds,limit,source\ndevice-starts,device,starts,3600,2,test\n", file: "q.csv")
        let logins = LoginServer(quotas: LoginQuotas(policy: devices), clock: clock, events: DiscardingEventSink())
        _ = try await logins.start(Self.mobileSIM, for: Self.client(0), address: try IPAddress("198.51.100.1"))
        _ = try await logins.start(Self.mobileSIM, for: Self.client(1), address: try IPAddress("198.51.100.1"))
        // The missing devices' bucket at that address is spent; a device named "unknown" there still starts.
        _ = try await logins.start(Self.mobileSIM, for: Self.client(2), address: try IPAddress("198.51.100.1"), device: try DeviceID("unknown"))
        await #expect {
            try await logins.start(Self.mobileSIM, for: Self.client(3), address: try IPAddress("198.51.100.1"))
        } throws: { Self.isOverQuota($0, rule: "device-starts") }
        // Elsewhere, a client without a device starts.
        _ = try await logins.start(Self.mobileSIM, for: Self.client(4), address: try IPAddress("198.51.100.4"))
    }
}
