/// Something about the connection to a database store, for the event log: never a password, a token or
/// a key.
package enum DatabaseEvent: Hashable, Sendable, CustomStringConvertible {
    /// The connection to a TCP host was configured with a `sslmode` that does not check the server's
    /// certificate against its name (`disable`, `allow`, `prefer`, `require`, `verify-ca`): anyone on the path
    /// (under `verify-ca`, anyone holding a certificate from the CA) can read or change the traffic, the password
    /// included. The mode and the hosts (names or addresses, never a password).
    case weakTransportSecurity(sslMode: String, hosts: String)

    /// A token store was made without a keyring: carrier access and refresh tokens are stored unsealed in
    /// the schema's `tokens` table, readable by anyone who reads the table or a backup. The schema.
    case unsealedTokens(schema: String)

    /// A refresh found, renewing its refresh lease, that the lease was no longer its own (its renewals
    /// failed for longer than the lease, or its process stood still, and another instance took it, or it
    /// expired and was swept): two refreshes of the account may have overlapped, and a carrier that refuses
    /// a refresh token used twice may end the account's login. The refresh goes on (its token is written by
    /// compare-and-swap, never over a newer one), taking the lease again when it is free. The schema and the
    /// account.
    case refreshLeaseLost(schema: String, account: String)

    /// `weak-tls`, `unsealed-tokens` or `refresh-lease-lost`.
    package var name: String {
        switch self {
        case .weakTransportSecurity: "weak-tls"
        case .unsealedTokens: "unsealed-tokens"
        case .refreshLeaseLost: "refresh-lease-lost"
        }
    }

    /// `weak-tls sslmode=require for db.internal: the server's certificate is not checked`.
    package var description: String {
        switch self {
        case .weakTransportSecurity(let mode, let hosts):
            "weak-tls sslmode=\(mode) for \(hosts): the server's certificate is not checked\(mode == "verify-ca" ? " against the host's name" : ""); use sslmode=verify-full"
        case .unsealedTokens(let schema):
            "unsealed-tokens in schema \(schema): carrier tokens are stored unsealed; give the token store a PostgresTokenKeyring"
        case .refreshLeaseLost(let schema, let account):
            "refresh-lease-lost in schema \(schema) for account \(account): the refresh lease lapsed while this instance refreshed, and another "
                + "instance's refresh may have overlapped it (check the database's load and the instances' pauses)"
        }
    }

    /// Writes the event's members after the schema's `v`, `at` and `area`: `event`, then `sslmode` and
    /// `hosts`, or `schema` (and `account`).
    package func writeMembers(to writer: inout JSONWriter) {
        writer.member("event", name)
        switch self {
        case .weakTransportSecurity(let mode, let hosts):
            writer.member("sslmode", mode)
            writer.member("hosts", hosts)
        case .unsealedTokens(let schema):
            writer.member("schema", schema)
        case .refreshLeaseLost(let schema, let account):
            writer.member("schema", schema)
            writer.member("account", PhoneNumber.maskingNumbers(in: account))
        }
    }
}
