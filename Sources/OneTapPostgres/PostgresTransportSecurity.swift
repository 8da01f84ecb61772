import OneTap

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How a configuration protects its connections: OneTap asks libpq for `sslmode=verify-full` (TLS, the
/// server's certificate checked against a trusted CA and against the host's name) for every TCP host
/// unless the URL (or libpq's `PGSSLMODE`) names a mode, and says when a named mode is weaker.
///
/// - A host is a TCP host unless it is a Unix socket's directory (`/var/run/postgresql`, `@abstract`); an address
///   (`hostaddr`) is TCP whatever the host names. Each keyword the URL leaves out or gives empty comes from its own
///   variable (`PGHOST`, `PGHOSTADDR`, `PGSSLMODE`), as libpq takes them (`PQconnectStartParams` skips an empty
///   value); with neither host nor address, libpq's default socket.
/// - A Unix socket keeps libpq's default: TLS does not apply to it.
/// - `disable`, `allow`, `prefer`, `require` and `verify-ca` are weak (no certificate check, or none against the
///   name: under `verify-ca` any server holding a certificate from the CA passes): with a TCP host they make
///   ``PostgresStores`` emit a `weak-tls` event (area `database`).
/// - A connection service (`service=`, or `PGSERVICE`) takes its host and `sslmode` from `pg_service.conf`,
///   which OneTap does not read, and its values outrank libpq's environment: when the URL names neither a
///   host nor `sslmode`, nothing here can tell what protects the connection, so ``unresolvedService`` names
///   the service and the configuration is refused.
package struct PostgresTransportSecurity: Sendable, Hashable {
    /// The `sslmode` OneTap adds, or nil when it adds none (the URL names one, or every host is a socket).
    package let addedMode: String?
    /// The weak mode named for a TCP host, or nil.
    package let weakMode: String?
    /// The hosts, as the URL or the environment name them (for the event): `db.internal`, `10.0.0.5`.
    package let hosts: String
    /// The connection service whose host and TLS mode OneTap cannot see (the URL names neither), or nil.
    package let unresolvedService: String?

    /// The modes that do not check the server's certificate against its name.
    package static let weakModes: Set<String> = ["disable", "allow", "prefer", "require", "verify-ca"]

    /// Decides for a parsed connection.
    /// - Parameters:
    ///   - parameters: The connection's keywords and values.
    ///   - environment: Where libpq's `PGHOST`, `PGHOSTADDR`, `PGSSLMODE` and `PGSERVICE` are read from.
    init(_ parameters: [PostgresConfiguration.Parameter], environment: [String: String]) {
        func value(_ keyword: String) -> String? {
            parameters.last(where: { $0.keyword == keyword }).map(\.value).flatMap { $0.isEmpty ? nil : $0 }
        }
        func nonEmpty(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        // As libpq resolves it: each keyword the URL leaves out, or gives empty (the keywords go to
        // `PQconnectStartParams`, which skips an empty value), comes from its own variable, and an address, from
        // wherever, connects over TCP whatever the host names.
        func resolved(_ keyword: String, _ variable: String) -> String? { value(keyword) ?? nonEmpty(variable) }
        let host = resolved("host", "PGHOST")
        let address = resolved("hostaddr", "PGHOSTADDR")
        let tcp: Bool
        if address != nil {
            tcp = true
        } else if let host {
            tcp = host.split(separator: ",", omittingEmptySubsequences: false).contains { entry in
                let name = entry.drop(while: \.isWhitespace)
                return !name.isEmpty && !name.hasPrefix("/") && !name.hasPrefix("@")
            }
        } else {
            tcp = false
        }
        hosts = address ?? host ?? "the default socket"
        let service = value("service") ?? nonEmpty("PGSERVICE")
        unresolvedService = service != nil && value("host") == nil && value("hostaddr") == nil && value("sslmode") == nil ? service : nil
        let named = resolved("sslmode", "PGSSLMODE")
        if let named {
            addedMode = nil
            weakMode = tcp && Self.weakModes.contains(named) ? named : nil
        } else {
            addedMode = tcp ? "verify-full" : nil
            weakMode = nil
        }
    }

    /// libpq's environment variables the decision reads (`PGHOST`, `PGHOSTADDR`, `PGSSLMODE`, `PGSERVICE`),
    /// from this process's environment.
    package static var processEnvironment: [String: String] {
        var found: [String: String] = [:]
        for name in ["PGHOST", "PGHOSTADDR", "PGSSLMODE", "PGSERVICE"] {
            if let value = getenv(name) { found[name] = String(cString: value) }
        }
        return found
    }

    /// The event to emit, or nil when the connection is protected as it should be.
    package var event: DatabaseEvent? {
        weakMode.map { DatabaseEvent.weakTransportSecurity(sslMode: $0, hosts: hosts) }
    }
}
