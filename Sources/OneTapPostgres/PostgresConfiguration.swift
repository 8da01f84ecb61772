import CLibPQ
import OneTap

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the database is and how OneTap uses it: the server (a libpq URL or connection string), the
/// schema OneTap's tables live in, the pool's size and the time limits.
///
/// ```swift
/// let configuration = try PostgresConfiguration(url: "postgresql:///onetap?host=/var/run/postgresql")
/// let configuration = try PostgresConfiguration(url: "postgres://onetap:secret@db.internal:5432/onetap", poolSize: 16)
/// ```
///
/// A TCP host is reached over TLS with the server's certificate checked (`sslmode=verify-full`: give the
/// CA with `sslrootcert=/path/ca.crt`, or put it in `~/.postgresql/root.crt`) unless the URL or `PGSSLMODE`
/// names a mode; a weaker mode (`disable`, `allow`, `prefer`, `require`, `verify-ca`) makes ``PostgresStores`` emit a
/// `weak-tls` event. A Unix socket keeps libpq's default.
///
/// The password (and `sslpassword`) is kept for connecting only: ``description``, `dump`, every
/// error and every event show `<redacted>` instead. A password can also come from libpq's own
/// sources (`PGPASSWORD`, `~/.pgpass`), which OneTap never reads or prints.
public struct PostgresConfiguration: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
    /// One libpq connection keyword and its value (`host`, `/tmp/sock`).
    struct Parameter: Sendable, Hashable {
        let keyword: String
        let value: String
        /// Whether libpq marks the keyword as a password (shown as `*` in a connect dialog).
        let secret: Bool
    }

    /// The schema holding OneTap's tables: a lowercase identifier, `onetap` by default.
    package let schema: String
    /// How many connections the pool keeps open at most, per ``PostgresStores``.
    package let poolSize: Int
    /// The longest a call waits to get a connection: to open a new one, or for one to come free when the
    /// pool is at its size.
    package let connectTimeout: Duration
    /// The longest one statement may run: the server's `statement_timeout`, and the client's deadline for
    /// the server's answer (so a server that stops answering cannot hold a call for ever); also, 10 s at least, the
    /// longest a transaction may sit idle between two statements (``idleInTransactionTimeout``).
    package let statementTimeout: Duration
    /// How long a transaction may sit idle between two statements before the server ends it
    /// (`idle_in_transaction_session_timeout`): the statement timeout, 10 s at least, as a busy machine may well pause a
    /// client that long. The package's tests raise it (a process under ThreadSanitizer on two loaded cores was seen
    /// paused past 10 s: the server ended its transaction and the statement after the pause met a closed connection).
    /// A connection sends it to the server within 1 ms to 24 days (below 1 ms, 0 would turn the limit off).
    package var idleInTransactionTimeout: Duration
    /// Whether a connection prepares the statements it runs again (``PostgresStatementCache``).
    package let preparesStatements: Bool

    /// The connection keywords the URL set, passwords included, and the `sslmode` OneTap adds; never printed.
    let parameters: [Parameter]
    /// Whether OneTap added `sslmode=verify-full` (a TCP host, no mode named) and whether the mode named is weak.
    package let transportSecurity: PostgresTransportSecurity

    /// Reads a configuration.
    /// - Parameters:
    ///   - url: A libpq connection URI (`postgresql://[user[:password]@][host][:port][/dbname][?param=value&…]`,
    ///     also `postgres://`) or a `keyword=value` connection string (`host=/tmp dbname=onetap`). Unix
    ///     sockets: `postgresql:///onetap?host=/var/run/postgresql`. What it leaves out comes from libpq's
    ///     defaults and environment (`PGHOST`, `PGUSER`, …). Without `sslmode`, a TCP host gets
    ///     `sslmode=verify-full`; a connection service (`service=`, `PGSERVICE`) needs `sslmode` or the host
    ///     in the URL.
    ///   - schema: The schema for OneTap's tables: 1 to 63 characters of `a`–`z`, `0`–`9` and `_`, not
    ///     starting with a digit or `pg_`; `onetap`.
    ///   - poolSize: The most connections open at once, 1 to 1,000; 8.
    ///   - connectTimeout: How long to wait for a connection (to open one or for one to come free),
    ///     1 ms to 1 hour; 5 seconds. A host name's lookup is libpq's, with the system's blocking resolver, and
    ///     not bounded by it: give `hostaddr` (the address) beside `host` (the name TLS checks) to skip it.
    ///   - statementTimeout: How long one statement may run (and a transaction sit idle between two, 10 s at least),
    ///     1 ms to 24 days; 10 seconds.
    ///   - prepareStatements: Whether each connection prepares a statement it runs a second time (a named
    ///     prepared statement: parsed and planned once per connection, then run by name); true. Turn it
    ///     off behind a connection pooler in transaction mode that does not keep prepared statements
    ///     (PgBouncer before 1.21, or with `max_prepared_statements = 0`).
    /// - Throws: ``StoreError`` of kind `invalid-configuration` naming the part that is wrong (the
    ///   URL is quoted with its password redacted).
    public init(
        url: String, schema: String = "onetap", poolSize: Int = 8, connectTimeout: Duration = .seconds(5),
        statementTimeout: Duration = .seconds(10), prepareStatements: Bool = true
    ) throws(StoreError) {
        var parameters = try Self.parse(url)
        // A password libpq does not read whole as one: `user:pass/word@host` ends its user information at the `/`
        // and `user:pass@word@host` at the first `@`, so pieces become a host, a port or a database name that
        // descriptions and libpq's errors show.
        if ConnectionPasswords.holdsAPasswordLibpqMisreads(url) {
            throw StoreError(
                .invalidConfiguration,
                message: "the PostgreSQL URL \(QuotedInput(Self.redactRaw(url))) holds a password libpq does not read as one: percent-encode "
                    + "each `/`, `@`, `:` and `?` in it (`%2F`, `%40`, `%3A`, `%3F`), or give it as a password parameter")
        }
        transportSecurity = PostgresTransportSecurity(parameters, environment: PostgresTransportSecurity.processEnvironment)
        if let service = transportSecurity.unresolvedService {
            throw StoreError(
                .invalidConfiguration,
                message: "the PostgreSQL URL \(QuotedInput(Self.redactRaw(url))) uses the connection service \(QuotedInput(service)), whose host and "
                    + "sslmode come from pg_service.conf, which OneTap does not read: name sslmode in the URL (verify-full for a TCP host), "
                    + "or the host")
        }
        // PostgreSQL reads an encoding's name without case or punctuation (`UTF-8`, `utf_8`, `Unicode`).
        if let encoding = parameters.last(where: { $0.keyword == "client_encoding" })?.value,
           !["utf8", "unicode"].contains(String(encoding.lowercased().filter { $0.isASCII && ($0.isLetter || $0.isNumber) })) {
            throw StoreError(
                .invalidConfiguration,
                message: "the PostgreSQL URL sets client_encoding \(QuotedInput(encoding)): OneTap reads and writes UTF-8 text; leave it out or set UTF8")
        }
        if let problem = Self.refusedAtConnect(parameters) {
            throw StoreError(.invalidConfiguration, message: "the PostgreSQL URL \(problem)")
        }
        if let mode = transportSecurity.addedMode {
            parameters.append(Parameter(keyword: "sslmode", value: mode, secret: false))
        }
        self.parameters = parameters
        guard PostgresIdentifier.problem(schema) == nil else {
            throw StoreError(.invalidConfiguration, message: "schema name \(QuotedInput(schema)): \(PostgresIdentifier.problem(schema)!)")
        }
        guard (1...1000).contains(poolSize) else {
            throw StoreError(.invalidConfiguration, message: "pool size \(poolSize): a pool has 1 to 1000 connections")
        }
        guard connectTimeout >= .milliseconds(1), connectTimeout <= .seconds(3600) else {
            throw StoreError(.invalidConfiguration, message: "connect timeout \(connectTimeout.seconds) s: it must be 1 ms to 1 hour")
        }
        guard statementTimeout >= .milliseconds(1), statementTimeout <= .milliseconds(Int64(Int32.max)) else {
            throw StoreError(.invalidConfiguration, message: "statement timeout \(statementTimeout.seconds) s: it must be 1 ms to 24 days")
        }
        self.schema = schema
        self.poolSize = poolSize
        self.connectTimeout = connectTimeout
        self.statementTimeout = statementTimeout
        idleInTransactionTimeout = max(statementTimeout, .seconds(10))
        preparesStatements = prepareStatements
    }

    /// The connection as libpq keywords, passwords shown as `<redacted>`: `host=/tmp dbname=onetap password=<redacted>`.
    package var redactedConnection: String {
        parameters.map { "\($0.keyword)=\($0.secret ? "<redacted>" : Self.quoted($0.value))" }.joined(separator: " ")
    }

    /// `PostgresConfiguration(host=/tmp dbname=onetap password=<redacted>; schema onetap, pool 8, …)`.
    public var description: String {
        "PostgresConfiguration(\(redactedConnection); schema \(schema), pool \(poolSize), connect timeout \(connectTimeout.seconds) s, statement timeout \(statementTimeout.seconds) s\(preparesStatements ? "" : ", statements unprepared"))"
    }

    /// A mirror without the password, so `dump` shows the redacted connection only.
    public var customMirror: Mirror {
        Mirror(self, children: [
            "connection": redactedConnection, "schema": schema, "poolSize": poolSize, "connectTimeout": connectTimeout,
            "statementTimeout": statementTimeout, "preparesStatements": preparesStatements,
        ], displayStyle: .struct)
    }

    /// The passwords, to redact from whatever libpq or the server says.
    var secrets: [Secret?] { parameters.filter(\.secret).map { Secret($0.value) } }

    /// Text with every password replaced by `<redacted>`.
    func redact(_ text: String) -> String { Secret.scrub(text, of: secrets) }

    // MARK: Parsing

    /// Parses a URI or connection string with libpq's own parser (`PQconninfoParse`), so OneTap reads it
    /// exactly as libpq will.
    static func parse(_ url: String) throws(StoreError) -> [Parameter] {
        guard !url.allSatisfy(\.isWhitespace) else {
            throw StoreError(.invalidConfiguration, message: "the PostgreSQL URL is empty; give one such as postgresql://host/dbname")
        }
        guard !url.utf8.contains(0) else {
            throw StoreError(.invalidConfiguration, message: "the PostgreSQL URL \(QuotedInput(redactRaw(url))) holds a NUL character")
        }
        var error: UnsafeMutablePointer<CChar>? = nil
        guard let options = PQconninfoParse(url, &error) else {
            var detail = "libpq could not read it"
            if let error {
                detail = String(cString: error).trimmingTrailingNewlines()
                PQfreemem(error)
            }
            let scrubbed = Secret.scrub(detail, of: ConnectionPasswords.found(in: url).map { Secret($0) })
            throw StoreError(
                .invalidConfiguration,
                message: "the PostgreSQL URL \(QuotedInput(redactRaw(url))) is not a libpq URI or connection string: \(scrubbed)")
        }
        defer { PQconninfoFree(options) }
        var parameters: [Parameter] = []
        var option = options
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val {
                let display = option.pointee.dispchar.map { String(cString: $0) } ?? ""
                parameters.append(Parameter(keyword: String(cString: keyword), value: String(cString: value), secret: display.contains("*")))
            }
            option += 1
        }
        return parameters
    }

    /// The values of libpq's own that `PQconninfoParse` reads but libpq refuses only when it connects (a port that is no
    /// number, an `sslmode` it does not know, more ports than hosts): said now, as a configuration to fix, not later as a
    /// server that cannot be reached (which callers retry). The rules are libpq 15's (`fe-connect.c`): an empty value is
    /// no value (libpq takes the environment's or its default); a port is read as `strtol` reads an `int` (blanks around
    /// it, a sign, leading zeros), and an entry that is no integer fails the connection, while one outside 1 to 65535
    /// only skips its host, so those are refused only when every entry is; a list of ports holds one or one per host,
    /// and a list of `hostaddr`s one per host.
    /// - Parameter parameters: The parsed parameters.
    /// - Returns: What is wrong (`sets port "abc": …`), or nil.
    static func refusedAtConnect(_ parameters: [Parameter]) -> String? {
        let choices: [String: [String]] = [
            "sslmode": ["disable", "allow", "prefer", "require", "verify-ca", "verify-full"],
            "gssencmode": ["disable", "prefer", "require"],
            "channel_binding": ["disable", "prefer", "require"],
            "target_session_attrs": ["any", "read-write", "read-only", "primary", "standby", "prefer-standby"],
        ]
        /// A port as libpq's `parse_int_param` reads it (`strtol`, then trailing blanks): nil when it is no `int`.
        func integer(_ text: Substring) -> Int? {
            func blank(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }
            var bytes = Array(text.utf8)[...]
            while let first = bytes.first, blank(first) { bytes = bytes.dropFirst() }
            while let last = bytes.last, blank(last) { bytes = bytes.dropLast() }
            let negative = bytes.first == UInt8(ascii: "-")
            if bytes.first == UInt8(ascii: "-") || bytes.first == UInt8(ascii: "+") { bytes = bytes.dropFirst() }
            guard !bytes.isEmpty, bytes.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
            let significant = bytes.drop { $0 == 0x30 }
            guard significant.count <= 10 else { return nil }
            let magnitude = significant.reduce(0) { $0 * 10 + Int($1 - 0x30) }
            guard magnitude <= Int(Int32.max) + (negative ? 1 : 0) else { return nil }
            return negative ? -magnitude : magnitude
        }
        /// A keyword's value and its comma-separated entries, or nil when it is not given (or empty).
        func entries(_ keyword: String) -> (value: String, entries: [Substring])? {
            guard let value = parameters.last(where: { $0.keyword == keyword })?.value, !value.isEmpty else { return nil }
            return (value, value.split(separator: ",", omittingEmptySubsequences: false))
        }
        for parameter in parameters where !parameter.value.isEmpty {
            if let allowed = choices[parameter.keyword], !allowed.contains(parameter.value) {
                return "sets \(parameter.keyword) \(QuotedInput(parameter.value)): one of \(allowed.joined(separator: ", "))"
            }
        }
        let addresses = entries("hostaddr")?.entries, names = entries("host")?.entries
        let hosts = addresses?.count ?? names?.count
        if let addresses, let names, names.count != addresses.count {
            return "names \(names.count) host\(names.count == 1 ? "" : "s") and \(addresses.count) hostaddr value\(addresses.count == 1 ? "" : "s"): give one hostaddr per host"
        }
        if let (value, ports) = entries("port") {
            let said = "sets port \(QuotedInput(value))"
            let numbers = ports.map { $0.isEmpty ? 5432 : integer($0) }
            if numbers.contains(nil) || !numbers.contains(where: { (1...65_535).contains($0 ?? 0) }) {
                return "\(said): not a port number (1 to 65535)"
            }
            if ports.count > 1, let hosts, hosts != ports.count {
                return "\(said): \(ports.count) ports for \(hosts) host\(hosts == 1 ? "" : "s"): give one port, or one per host"
            }
        }
        return nil
    }

    /// A connection-string value, quoted when it must be.
    private static func quoted(_ value: String) -> String {
        guard value.isEmpty || value.contains(where: { $0 == " " || $0 == "'" || $0 == "\\" }) else { return value }
        return "'" + value.replacing("\\", with: "\\\\").replacing("'", with: "\\'") + "'"
    }

    /// The input with what looks like a password replaced, for messages about an input libpq could not
    /// read (so its own parse cannot say where the password is).
    static func redactRaw(_ text: String) -> String {
        Secret.scrub(text, of: ConnectionPasswords.found(in: text).map { Secret($0) })
    }

    /// Text with whatever looks like a password in any of `inputs` (a URI's user information, a
    /// `password=` parameter, as written and percent-decoded) replaced by `<redacted>`: for messages that
    /// may quote a command line holding a URL (`onetap db migrate`), before any URL on it was read.
    /// - Parameters:
    ///   - text: The message.
    ///   - inputs: The inputs it may quote.
    /// - Returns: The message, redacted.
    package static func redactingPasswords(in text: String, foundIn inputs: [String]) -> String {
        ConnectionPasswords.redacting(in: text, foundIn: inputs)
    }

}

extension String {
    /// The text without trailing newlines (libpq ends its messages with one).
    func trimmingTrailingNewlines() -> String {
        var text = Substring(self)
        while let last = text.last, last.isNewline { text = text.dropLast() }
        return String(text)
    }
}
