import Foundation
import OneTap
@testable import OneTapPostgres
import OneTapPostgresTestSupport
import OneTapTesting
import Testing

/// Issue 21, scenario 6 (in transit): a TCP host gets `sslmode=verify-full` unless the URL names a mode, and a
/// weaker mode named for a TCP host is an event.
@Suite struct PostgresTransportSecurityTests {
    /// The `sslmode` the configuration passes to libpq, read from its redacted connection string.
    func mode(_ configuration: PostgresConfiguration) -> String? {
        configuration.redactedConnection.split(separator: " ").first { $0.hasPrefix("sslmode=") }.map { String($0.dropFirst(8)) }
    }

    @Test(arguments: [
        ("postgresql://onetap:secret@db.internal:5432/onetap", "verify-full"),
        ("postgres://db.internal/onetap", "verify-full"),
        ("host=10.0.0.5 dbname=onetap", "verify-full"),
        ("hostaddr=10.0.0.5 dbname=onetap", "verify-full"),
        ("host=/var/run/postgresql,db.internal dbname=onetap", "verify-full"),
        ("postgresql://db.internal/onetap?sslmode=verify-ca", "verify-ca"),
        ("postgresql://db.internal/onetap?sslmode=require", "require"),
        ("postgresql:///onetap?host=/var/run/postgresql", nil),
        ("host=@abstract dbname=onetap", nil),
    ] as [(String, String?)])
    func aTCPHostGetsVerifyFullUnlessTheURLNamesAMode(url: String, expected: String?) throws {
        #expect(mode(try PostgresConfiguration(url: url)) == expected)
    }

    /// libpq fills each keyword the URL leaves out from its own variable (`PGHOSTADDR` for `hostaddr`, `PGHOST` for
    /// `host`), and connects over TCP to any address given: a URL naming a socket directory as its host, with
    /// `PGHOSTADDR` set, was taken for a socket (no verify-full, no weak-tls event) and went over TCP at libpq's
    /// `prefer` (a review of the PostgreSQL stores). A keyword the URL gives empty is no keyword: `PQconnectStartParams`
    /// skips an empty value, and libpq takes the variable (an attacker's read of the first form of the fix).
    @Test func anAddressFromTheEnvironmentIsTCPWhateverTheURLsHost() throws {
        let socket = try PostgresConfiguration.parse("postgresql:///onetap?host=/var/run/postgresql")
        #expect(PostgresTransportSecurity(socket, environment: ["PGHOSTADDR": "10.0.0.5"]).addedMode == "verify-full")
        #expect(PostgresTransportSecurity(socket, environment: [:]).addedMode == nil)
        let address = try PostgresConfiguration.parse("hostaddr=10.0.0.5 dbname=onetap")
        #expect(PostgresTransportSecurity(address, environment: ["PGHOST": "/var/run/postgresql"]).addedMode == "verify-full")
        let emptyAddress = try PostgresConfiguration.parse("host=/var/run/postgresql hostaddr='' dbname=onetap")
        #expect(PostgresTransportSecurity(emptyAddress, environment: ["PGHOSTADDR": "10.0.0.5"]).addedMode == "verify-full")
        let emptyHost = try PostgresConfiguration.parse("host='' dbname=onetap")
        #expect(PostgresTransportSecurity(emptyHost, environment: ["PGHOST": "db.internal"]).addedMode == "verify-full")
        #expect(PostgresTransportSecurity(emptyHost, environment: ["PGHOST": "db.internal", "PGSSLMODE": "disable"]).weakMode == "disable")
        let weak = PostgresTransportSecurity(socket, environment: ["PGHOSTADDR": "10.0.0.5", "PGSSLMODE": "prefer"])
        #expect(weak.addedMode == nil && weak.weakMode == "prefer")
    }

    /// A connection service takes its host and sslmode from pg_service.conf, which OneTap does not read, and they
    /// outrank libpq's environment: a URL naming neither the host nor sslmode is refused (an attacker's read: such a
    /// URL got no verify-full and no weak-tls event, whatever the service's host was). Naming either decides it.
    @Test func aServiceWithoutHostOrSSLModeInTheURLIsRefused() throws {
        #expect {
            try PostgresConfiguration(url: "service=prod dbname=onetap password=hunter2-pw")
        } throws: { error in
            let error = error as! StoreError
            return error.kind == .invalidConfiguration && error.message.contains("connection service \"prod\"")
                && error.message.contains("name sslmode in the URL") && !error.message.contains("hunter2-pw")
        }
        #expect(throws: StoreError.self) { try PostgresConfiguration(url: "postgresql:///onetap?service=prod") }
        #expect(mode(try PostgresConfiguration(url: "service=prod sslmode=verify-full")) == "verify-full")
        #expect(mode(try PostgresConfiguration(url: "service=prod host=db.internal")) == "verify-full")
        let fromEnvironment = PostgresTransportSecurity(try PostgresConfiguration.parse("dbname=onetap"), environment: ["PGSERVICE": "prod", "PGSSLMODE": "require"])
        #expect(fromEnvironment.unresolvedService == "prod")
    }

    /// `verify-ca` too (an attacker's read): it checks the chain but not the host's name, so any server holding a
    /// certificate from that CA (a public one, or a CA shared by many servers) passes.
    @Test(arguments: ["disable", "allow", "prefer", "require", "verify-ca"])
    func aWeakModeForATCPHostIsAnEventWithoutThePassword(weak: String) throws {
        let events = RecordingEventSink()
        let configuration = try PostgresConfiguration(url: "postgresql://onetap:hunter2-secret@db.internal:5432/onetap?sslmode=\(weak)")
        _ = PostgresStores(configuration: configuration, clock: FakeClock(now: Tokens.now), events: events)
        let recorded = events.recorded
        #expect(recorded.map(\.name) == ["weak-tls"])
        #expect(recorded.first?.area == "database")
        #expect(recorded.first?.payload == .database(.weakTransportSecurity(sslMode: weak, hosts: "db.internal")))
        let line = try #require(recorded.first).json()
        #expect(line == #"{"v":2,"at":"2026-12-01T00:00:00.000Z","area":"database","event":"weak-tls","sslmode":"\#(weak)","hosts":"db.internal"}"#)
        #expect(!line.contains("hunter2") && !"\(recorded)".contains("hunter2"))
    }

    @Test(arguments: [
        "postgresql://onetap:pw@db.internal/onetap", "postgresql://db.internal/onetap?sslmode=verify-full",
        "postgresql:///onetap?host=/var/run/postgresql&sslmode=disable", "postgresql:///onetap?host=/var/run/postgresql&sslmode=verify-ca",
    ])
    func aVerifyingModeOrASocketIsNoEvent(url: String) throws {
        let events = RecordingEventSink()
        _ = PostgresStores(configuration: try PostgresConfiguration(url: url), clock: FakeClock(now: Tokens.now), events: events)
        #expect(events.recorded.isEmpty)
    }

    /// Against a server with TLS on and a certificate from a CA made for the test: a TCP URL without
    /// `sslmode` is refused without that CA (none given, or another CA), and connects over TLS with it.
    @Test func aTCPURLWithoutSSLModeChecksTheServersCertificate() async throws {
        let server: PostgresTestServer
        do {
            server = try await PostgresTestServer.start(.init(maxConnections: 20, tls: true))
        } catch {
            if PostgresSharedServer.isRequired { throw TestDatabase.Required(reason: error.reason) }
            try Test.cancel("skipped: no TLS test server (\(error.reason))")
        }
        defer { server.remove() }
        let certificates = try #require(server.certificates)
        // Neither ~/.postgresql/root.crt nor a CA given: libpq cannot check the certificate, so it refuses.
        let home = FileManager.default.homeDirectoryForCurrentUser.path
        #expect(!FileManager.default.fileExists(atPath: home + "/.postgresql/root.crt"))
        for refused in [server.tcpURL(), server.tcpURL() + "?sslrootcert=\(certificates.otherAuthority)"] {
            let configuration = try PostgresConfiguration(url: refused, connectTimeout: .seconds(20))
            let error = await #expect(throws: PostgresError.self) { try await PostgresConnection.open(configuration) }
            #expect(error?.kind == .connectionFailed, "\(refused): \(String(describing: error))")
        }
        let configuration = try PostgresConfiguration(url: server.tcpURL() + "?sslrootcert=\(certificates.authority)", connectTimeout: .seconds(20))
        let connection = try await PostgresConnection.open(configuration)
        let rows = try await connection.execute("SELECT ssl FROM pg_catalog.pg_stat_ssl WHERE pid = pg_catalog.pg_backend_pid()")
        await connection.close()
        #expect(rows.first == [.bool(true)])
    }
}
