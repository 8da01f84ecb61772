/// Something about the connection to a database store, for the event log: never a password, a token or
/// a key.
package enum DatabaseEvent: Hashable, Sendable, CustomStringConvertible {
    /// The connection to a TCP host was configured with a `sslmode` that does not check the server's
    /// certificate against its name (`disable`, `allow`, `prefer`, `require`): anyone on the path can read
    /// or change the traffic, the password included. The mode and the hosts (names or addresses, never a
    /// password).
    case weakTransportSecurity(sslMode: String, hosts: String)

    /// `weak-tls`.
    package var name: String {
        switch self {
        case .weakTransportSecurity: "weak-tls"
        }
    }

    /// `weak-tls sslmode=require for db.internal: the server's certificate is not checked`.
    package var description: String {
        switch self {
        case .weakTransportSecurity(let mode, let hosts):
            "weak-tls sslmode=\(mode) for \(hosts): the server's certificate is not checked; use sslmode=verify-full"
        }
    }

    /// Writes the event's members after the schema's `v`, `at` and `area`: `event`, then `sslmode` and
    /// `hosts`.
    package func writeMembers(to writer: inout JSONWriter) {
        writer.member("event", name)
        switch self {
        case .weakTransportSecurity(let mode, let hosts):
            writer.member("sslmode", mode)
            writer.member("hosts", hosts)
        }
    }
}
