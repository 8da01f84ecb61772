import Foundation
import OneTapPostgresTestSupport
import Testing

/// The private test server's TCP port: chosen where no client connection can take it first.
@Suite struct PostgresTestServerTests {
    /// The kernel gives a client connection a local port from `ip_local_port_range`: a port picked there and
    /// then bound by `pg_ctl` moments later can be taken by any test's outgoing connection meanwhile
    /// ("could not bind IPv4 address: Address already in use", seen in a CI run). The port is picked below
    /// that range, and nothing listens on it when picked.
    @Test func theTLSPortLiesBelowTheEphemeralRangeAndIsFree() throws {
        let text = try String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)
        let bounds = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).compactMap { Int($0) }
        try #require(bounds.count == 2)
        for _ in 0..<20 {
            let port = try PostgresTestServer.freePort()
            #expect(port >= 1024 && port < bounds[0], "port \(port), ephemeral ports \(bounds[0])–\(bounds[1])")
            // Nothing listens on it: a connection to it is refused.
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(descriptor) }
            var target = sockaddr_in()
            target.sin_family = sa_family_t(AF_INET)
            target.sin_port = UInt16(port).bigEndian
            target.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &target) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            #expect(connected == -1 && errno == ECONNREFUSED, "port \(port) answers")
        }
    }
}
