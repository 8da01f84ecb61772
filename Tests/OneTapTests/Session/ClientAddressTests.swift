import Foundation
import Testing
@testable import OneTap

/// `ClientAddress` against hand-written `X-Forwarded-For` values: the peer unless listed proxies vouch
/// for more, read right to left, never a spoofed leftmost entry.
@Suite struct ClientAddressTests {
    static let proxies = try! ClientAddress(trustedProxies: ["10.0.0.0/8", "192.0.2.10", "2001:db8:1::/48"])

    func resolve(_ peer: String, _ header: [String], with addresses: ClientAddress = Self.proxies) throws -> String {
        addresses.resolve(peer: try IPAddress(peer), forwardedFor: header).description
    }

    @Test func anUntrustedPeerIsTheClientWhateverTheHeaderSays() throws {
        #expect(try resolve("203.0.113.7", ["198.51.100.1"]) == "203.0.113.7")
        #expect(try resolve("203.0.113.7", ["10.0.0.1"]) == "203.0.113.7")
        #expect(try resolve("2409:8900::7", ["198.51.100.1, 10.0.0.2"]) == "2409:8900::7")
    }

    @Test func noProxiesListedTrustsNoHeader() throws {
        let none = try ClientAddress(trustedProxies: [])
        #expect(try resolve("10.0.0.1", ["198.51.100.1"], with: none) == "10.0.0.1")
    }

    @Test func theRightmostUntrustedHopIsTheClient() throws {
        #expect(try resolve("10.0.0.1", ["198.51.100.1"]) == "198.51.100.1")
        #expect(try resolve("10.0.0.1", ["198.51.100.1, 10.9.9.9"]) == "198.51.100.1")
        #expect(try resolve("10.0.0.1", ["198.51.100.1,192.0.2.10,10.1.2.3"]) == "198.51.100.1")
    }

    /// A client writes its own header first; the proxies append. The spoofed leftmost entries are never
    /// taken while an untrusted hop lies to their right.
    @Test func aSpoofedLeftmostEntryIsNeverTaken() throws {
        #expect(try resolve("10.0.0.1", ["1.2.3.4, 198.51.100.1"]) == "198.51.100.1")
        #expect(try resolve("10.0.0.1", ["10.0.0.5, 198.51.100.1"]) == "198.51.100.1")   // a spoofed "trusted" address
        #expect(try resolve("10.0.0.1", ["1.2.3.4", "198.51.100.1, 10.0.0.2"]) == "198.51.100.1")   // two header lines, in order
    }

    /// Every hop listed: the leftmost is the client (a proxy's own request).
    @Test func everyHopTrustedGivesTheLeftmost() throws {
        #expect(try resolve("10.0.0.1", ["10.0.0.3, 192.0.2.10"]) == "10.0.0.3")
    }

    @Test func emptyOrMissingHeaderGivesThePeer() throws {
        #expect(try resolve("10.0.0.1", []) == "10.0.0.1")
        #expect(try resolve("10.0.0.1", [""]) == "10.0.0.1")
        #expect(try resolve("10.0.0.1", ["   "]) == "10.0.0.1")
    }

    /// Garbage ends the walk at the nearest known hop: the listed proxy that wrote it (or the peer).
    @Test(arguments: [
        (["unknown"], "10.0.0.1"),
        (["198.51.100.1, garbage"], "10.0.0.1"),
        (["198.51.100.1, garbage, 10.0.0.9"], "10.0.0.9"),
        (["198.51.100.1,,10.0.0.9"], "10.0.0.9"),
        (["198.51.100.1, _hidden"], "10.0.0.1"),
        (["198.51.100.1, fe80::1%eth0"], "10.0.0.1"),
        (["198.51.100.1, 300.1.2.3"], "10.0.0.1"),
        (["198.51.100.1, 203.0.113.7:99999"], "10.0.0.1"),
        (["198.51.100.1, 203.0.113.7:"], "10.0.0.1"),
        (["198.51.100.1, [2001:db8::1"], "10.0.0.1"),
        (["198.51.100.1, [203.0.113.7]:80"], "10.0.0.1"),   // brackets hold IPv6 only
        (["198.51.100.1, 203.0.113.7 198.51.100.9"], "10.0.0.1"),
        ([String(repeating: "9", count: 5000)], "10.0.0.1"),
    ])
    func garbageStopsAtTheNearestKnownHop(header: [String], expected: String) throws {
        #expect(try resolve("10.0.0.1", header) == expected)
    }

    @Test func portsAreDropped() throws {
        #expect(try resolve("10.0.0.1", ["203.0.113.7:4711"]) == "203.0.113.7")
        #expect(try resolve("10.0.0.1", ["[2409:8900::1]:443"]) == "2409:8900::1")
        #expect(try resolve("10.0.0.1", ["[2409:8900::1]"]) == "2409:8900::1")
        #expect(try resolve("10.0.0.1", ["198.51.100.1, 10.0.0.2:8080"]) == "198.51.100.1")   // a listed proxy with a port
    }

    @Test func ipv6HopsAndProxyBlocks() throws {
        #expect(try resolve("2001:db8:1:ffff::1", ["2409:8900:1:2::3"]) == "2409:8900:1:2::3")
        #expect(try resolve("2001:db8:1::5", ["2409:8900:1:2::3, 2001:db8:1:2::9"]) == "2409:8900:1:2::3")
        #expect(try resolve("2001:db8:2::5", ["2409:8900:1:2::3"]) == "2001:db8:2::5")   // outside the /48: not listed
    }

    /// A dual-stack socket reports an IPv4 peer as `::ffff:a.b.c.d`: it is its IPv4 address, for the
    /// proxy list and for the answer.
    @Test func ipv4MappedAddressesAreIPv4() throws {
        #expect(try resolve("::ffff:10.0.0.1", ["::ffff:198.51.100.1"]) == "198.51.100.1")
        #expect(try resolve("::ffff:203.0.113.7", ["198.51.100.1"]) == "203.0.113.7")
    }

    /// A character that joins what follows it (Unicode's "Prepend" ones, U+0600 among them) cannot swallow the comma a
    /// proxy appended after the client's own text: the walk reads the address the proxy wrote (before: the proxy's own).
    @Test func aJoiningCharacterDoesNotHideTheAddressAProxyWrote() throws {
        #expect(try resolve("10.0.0.1", ["\u{0600}, 198.51.100.9"]) == "198.51.100.9")
        #expect(try resolve("10.0.0.1", ["\u{0600}", "198.51.100.9"]) == "198.51.100.9")
        #expect(try resolve("10.0.0.1", ["\u{110BD},198.51.100.9, 10.0.0.2"]) == "198.51.100.9")
        // Garbage a listed proxy passed on still stops the walk at that proxy (the byte split keeps it one hop).
        #expect(try resolve("10.0.0.1", ["198.51.100.7, \u{0600}, 10.0.0.2"]) == "10.0.0.2")
    }

    /// A block written with an address inside it, or one of every address, would trust more than the list says: refused,
    /// naming the entry (and the network for the first).
    @Test func aProxyBlockThatTrustsMoreThanItSaysIsRefused() {
        for (entry, says) in [
            ("192.168.1.10/16", "192.168.0.0/16"), ("203.0.113.7/3", "192.0.0.0/3"), ("2001:db8::7/48", "2001:db8::/48"),
            ("::ffff:10.0.0.7/104", "10.0.0.0/8"), ("::ffff:10.0.0.0/96", "every address"), ("0.0.0.0/0", "every address"),
            ("::/0", "every address"),
        ] {
            #expect {
                _ = try ClientAddress(trustedProxies: [entry])
            } throws: { error in
                guard let error = error as? ParseError else { return false }
                return error.subject == .ipAddress && error.kind == .malformed && error.input == entry && "\(error)".contains(says)
            }
        }
    }

    /// An IPv4-mapped block is its IPv4 block: `::ffff:10.0.0.0/104` is `10.0.0.0/8`; a mapped block shorter than the
    /// mapping's 96 bits names no IPv4 block and is refused (read as the IPv4 prefix it would have trusted every address).
    @Test func anIPv4MappedBlockIsItsIPv4Block() throws {
        let proxies = try ClientAddress(trustedProxies: ["::ffff:10.0.0.0/104", "::ffff:192.0.2.10"])
        #expect(try resolve("10.1.2.3", ["198.51.100.1"], with: proxies) == "198.51.100.1")
        #expect(try resolve("::ffff:10.1.2.3", ["198.51.100.1"], with: proxies) == "198.51.100.1")
        #expect(try resolve("11.1.2.3", ["198.51.100.1"], with: proxies) == "11.1.2.3")
        #expect(try resolve("192.0.2.10", ["198.51.100.1"], with: proxies) == "198.51.100.1")   // /128: the one address
        #expect(try resolve("192.0.2.11", ["198.51.100.1"], with: proxies) == "192.0.2.11")
    }

    @Test(arguments: [
        "10.0.0.0/33", "2001:db8::/129", "10.0.0.0/", "10.0.0.0/x", "proxy.example", "", "10.0.0.0/-1", "10.0.0.0/08", "10.0.0.0/+8",
        "::ffff:10.0.0.0/8", "::ffff:10.0.0.0/95", "::ffff:10.0.0.0/129",
    ])
    func aBadProxyEntryIsRefusedByName(entry: String) {
        #expect {
            _ = try ClientAddress(trustedProxies: ["192.0.2.1", entry])
        } throws: { error in
            guard let error = error as? ParseError else { return false }
            return error.subject == .ipAddress && "\(error)".contains("\"\(entry)\"")
        }
    }

    /// The blocks limits and the breaker count per: an IPv4 address itself, an IPv6 address's /64, /56
    /// and /48 (the values written out by hand).
    @Test func blocks() throws {
        #expect(SMSContext.limitKey(try IPAddress("203.0.113.7"), prefix: 48) == "203.0.113.7")
        #expect(SMSContext.limitKey(try IPAddress("::ffff:203.0.113.7"), prefix: 56) == "203.0.113.7")
        let v6 = try IPAddress("2409:8900:1:2ab:aaaa:bbbb:cccc:dddd")
        #expect(SMSContext.limitKey(v6, prefix: 64) == "2409:8900:1:2ab::/64")
        #expect(SMSContext.limitKey(v6, prefix: 56) == "2409:8900:1:200::/56")
        #expect(SMSContext.limitKey(v6, prefix: 48) == "2409:8900:1::/48")
    }
}
