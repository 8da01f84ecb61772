import Foundation
import OneTap
@testable import OneTapPostgres
import Testing

/// Reading URLs, validating names and limits, and keeping the password out of every text. No server.
@Suite struct PostgresConfigurationTests {
    /// The keyword=value pairs a configuration shows, as a set (libpq decides their order).
    func pairs(_ configuration: PostgresConfiguration) -> Set<String> {
        Set(configuration.redactedConnection.split(separator: " ").map(String.init))
    }

    @Test(arguments: [
        ("postgresql:///onetap?host=/tmp/sock", ["dbname=onetap", "host=/tmp/sock"]),
        ("postgres://api:hunter2@db.example:5432/tokens", ["user=api", "password=<redacted>", "host=db.example", "port=5432", "dbname=tokens", "sslmode=verify-full"]),
        ("postgresql://api@db.example/tokens?sslmode=require&application_name=auth", ["user=api", "host=db.example", "dbname=tokens", "sslmode=require", "application_name=auth"]),
        ("postgresql://api:p%40ss@db.example/tokens", ["user=api", "password=<redacted>", "host=db.example", "dbname=tokens", "sslmode=verify-full"]),
        ("host=/var/run/postgresql dbname=onetap user=api password=hunter2", ["host=/var/run/postgresql", "dbname=onetap", "user=api", "password=<redacted>"]),
        ("host=/tmp dbname='my db'", ["host=/tmp", "dbname='my", "db'"]),
    ])
    func readsURIsAndConnectionStrings(url: String, expected: [String]) throws {
        let configuration = try PostgresConfiguration(url: url)
        #expect(pairs(configuration) == Set(expected))
        #expect(configuration.schema == "onetap")
        #expect(configuration.poolSize == 8)
        #expect(configuration.connectTimeout == .seconds(5))
        #expect(configuration.statementTimeout == .seconds(10))
    }

    @Test func keepsThePasswordForConnectingOnly() throws {
        let configuration = try PostgresConfiguration(url: "postgres://api:p%40ss-hunter2@db.example/tokens")
        #expect(configuration.parameters.first { $0.keyword == "password" }?.value == "p@ss-hunter2")
        var dumped = ""
        dump(configuration, to: &dumped)
        for text in [configuration.description, String(reflecting: configuration), "\(configuration)", dumped, configuration.redactedConnection] {
            #expect(!text.contains("hunter2"), "\(text)")
            #expect(!text.contains("p%40ss"))
        }
        #expect(configuration.description.contains("password=<redacted>"))
        #expect(configuration.redact("FATAL: password p@ss-hunter2 refused") == "FATAL: password <redacted> refused")
    }

    @Test(arguments: [
        ("", "is empty"),
        ("   ", "is empty"),
        ("postgresql://api:hunter2@[::1/tokens", "IPv6"),
        ("mysql://api:hunter2@db.example/tokens", "missing \"=\""),
        ("host=/tmp bogus=1 password=hunter2", "invalid connection option \"bogus\""),
        ("postgresql://db.example/tokens?nosuch=1&password=hunter2", "invalid URI query parameter"),
        ("dbname='unterminated password=hunter2", "unterminated quoted string"),
        ("host=/tmp\u{0}password=hunter2", "NUL"),
        ("host=/tmp client_encoding=GBK password=hunter2", "client_encoding"),
        ("postgresql://api:hunter2@db/tokens?client_encoding=auto", "client_encoding"),
        // Values libpq refuses only when it connects (an attacker's read of the CLI: `onetap db` then said it could not reach
        // the server, exit 69, which a script retries for ever, not 64).
        ("host=/tmp port=abc password=hunter2", #"sets port "abc": not a port number (1 to 65535)"#),
        ("postgresql://api:hunter2@db:99999/tokens", #"sets port "99999": not a port number (1 to 65535)"#),
        ("host=a,b port=0,70000 password=hunter2", #"sets port "0,70000": not a port number (1 to 65535)"#),
        ("host=a,b port=5432,x password=hunter2", #"sets port "5432,x": not a port number (1 to 65535)"#),
        ("host=db port=99999999999 password=hunter2", #"sets port "99999999999": not a port number (1 to 65535)"#),
        // The review of the check: libpq matches ports and hostaddrs to hosts, and fails the whole connection otherwise.
        ("host=db port=5432,5433 password=hunter2", #"sets port "5432,5433": 2 ports for 1 host: give one port, or one per host"#),
        ("host=a,b hostaddr=127.0.0.1 password=hunter2", "names 2 hosts and 1 hostaddr value: give one hostaddr per host"),
        ("host=db sslmode=bogus password=hunter2", #"sets sslmode "bogus": one of disable, allow, prefer, require, verify-ca, verify-full"#),
        ("postgresql://api:hunter2@db/tokens?target_session_attrs=nope", #"sets target_session_attrs "nope": one of any, read-write"#),
        ("host=db gssencmode=always password=hunter2", #"sets gssencmode "always": one of disable, prefer, require"#),
    ])
    func refusesWhatLibpqCannotReadWithoutQuotingThePassword(url: String, reason: String) {
        #expect {
            try PostgresConfiguration(url: url)
        } throws: { error in
            let error = error as! StoreError
            return error.kind == .invalidConfiguration && error.message.contains(reason) && !error.description.contains("hunter2")
        }
    }

    /// A password holding an unencoded `/` is no password to libpq: it reads `api:hunter2/pw-xy@db/onetap` as host
    /// `api`, port `hunter2` and database `pw-xy@db/onetap`, shows them in the description, and its connect error
    /// quotes the port. Refused, with neither piece in the message.
    /// An unencoded `@` the same way: libpq ends the user information at the first, reads `hunter2` as the password
    /// and `pw-xy@db` as the host, which the description and a "could not translate host name" error show.
    @Test(arguments: [
        "postgresql://api:hunter2/pw-xy@db/onetap", "postgres://api:hunter2/pw-xy/more@db:5432/onetap?sslmode=require",
        "postgresql://api:hunter2@pw-xy@db/onetap",
    ])
    func aPasswordHoldingAnUnencodedSlashIsRefusedNotReadAsAPort(url: String) {
        #expect {
            try PostgresConfiguration(url: url)
        } throws: { error in
            let error = error as! StoreError
            return error.kind == .invalidConfiguration && error.message.contains("%2F")
                && !error.description.contains("hunter2") && !error.description.contains("pw-xy")
        }
    }

    /// A connection string libpq refuses (here a misspelt keyword) is quoted back in the error with its password
    /// hidden as written: escaped (`\'`) or running past an escaped space (an attacker's read: both showed whole).
    @Test(arguments: [
        #"password='hunter2 pw\'s' host=db dbname=onetap sslmod=require"#, #"host=db password=pw\ hunter2 sslmod=require"#,
    ])
    func aRefusedStringHidesAnEscapedPassword(url: String) {
        #expect {
            try PostgresConfiguration(url: url)
        } throws: { error in
            let error = error as! StoreError
            return error.kind == .invalidConfiguration && error.message.contains("sslmod") && !error.description.contains("hunter2")
        }
    }

    /// What libpq accepts when it connects is no refusal (a review of the check above): an empty value (libpq takes the
    /// environment's), a port as `strtol` reads it (a sign, leading zeros, blanks), a host list with one usable port, a
    /// `connect_timeout` libpq does not read on OneTap's way of connecting.
    @Test(arguments: [
        "host=db sslmode='' password=p", "postgresql://db/x?sslmode=&target_session_attrs=", "host=db port=+5432", "host=db port=005432",
        "host=db port=' 5432 '", "host=a,b port=5432,0", "host=a,b port=,5433", "postgresql://db/x?port=%205432%0D%0A",
        "host=a,b,c port=5432", "host=a,b hostaddr=127.0.0.1,127.0.0.2 port=1,2", "host=db connect_timeout=soon", "host=db gssencmode=prefer",
        "host=db channel_binding=require target_session_attrs=prefer-standby",
    ])
    func whatLibpqAcceptsIsNotRefused(url: String) throws {
        _ = try PostgresConfiguration(url: url)
    }

    /// What libpq reads as the password whole is no refusal: percent-encoded, in a parameter, quoted, or holding `&`.
    @Test(arguments: [
        "postgresql://api:p%40ss%2Fw@db/onetap", "postgresql://api@db/onetap?password=p%40ss", "host=/tmp password='a b@c/d' dbname=x",
        "host=/tmp password=abc&xyz dbname=x", "host=/tmp password=p client_encoding=utf_8", "host=/tmp password=p client_encoding=UTF-8",
        // The review: a password parameter followed by another, a backslash in a keyword value (libpq unescapes it).
        "postgresql://h/db?password=abc&sslmode=verify-full", "postgresql://h/db?sslpassword=abc&password=x%26y", #"host=db password=ab\\cd"#,
        #"host=db password=a\ b"#,
    ])
    func aPasswordLibpqReadsWholeIsTaken(url: String) throws {
        #expect(try PostgresConfiguration(url: url).parameters.contains { $0.keyword == "password" })
    }


    @Test(arguments: ["onetap", "a", "_x", "tenant_42", String(repeating: "s", count: 63)])
    func acceptsLowercaseSchemaNames(schema: String) throws {
        #expect(try PostgresConfiguration(url: "host=/tmp", schema: schema).schema == schema)
        #expect(PostgresIdentifier.quoted(schema) == "\"\(schema)\"")
    }

    @Test(arguments: [
        ("", "empty"),
        ("1abc", "starts with a digit"),
        ("OneTap", "character 1"),
        ("one-tap", "character 4"),
        ("one tap", "character 4"),
        ("x\"; DROP SCHEMA public; --", "character 2"),
        ("café", "character 4"),
        ("pg_tokens", "reserved"),
        (String(repeating: "s", count: 64), "at most 63"),
    ])
    func refusesOtherSchemaNames(schema: String, reason: String) {
        #expect {
            try PostgresConfiguration(url: "host=/tmp", schema: schema)
        } throws: { error in
            let error = error as! StoreError
            return error.kind == .invalidConfiguration && error.message.contains("schema name") && error.message.contains(reason)
        }
    }

    @Test(arguments: [
        (0, Duration.seconds(5), Duration.seconds(10), "pool size 0"),
        (1001, .seconds(5), .seconds(10), "pool size 1001"),
        (8, .zero, .seconds(10), "connect timeout"),
        (8, .seconds(3601), .seconds(10), "connect timeout"),
        (8, .seconds(5), .zero, "statement timeout"),
        (8, .seconds(5), .seconds(25 * 86_400), "statement timeout"),
    ])
    func refusesLimitsOutOfRange(poolSize: Int, connectTimeout: Duration, statementTimeout: Duration, reason: String) {
        #expect {
            try PostgresConfiguration(url: "host=/tmp", poolSize: poolSize, connectTimeout: connectTimeout, statementTimeout: statementTimeout)
        } throws: { error in
            let error = error as! StoreError
            return error.kind == .invalidConfiguration && error.message.contains(reason)
        }
    }

    @Test func preparedStatementsAreOnUnlessTurnedOffAndTheDescriptionSaysWhenOff() throws {
        let usual = try PostgresConfiguration(url: "host=/tmp dbname=onetap")
        #expect(usual.preparesStatements)
        #expect(usual.description == "PostgresConfiguration(dbname=onetap host=/tmp; schema onetap, pool 8, connect timeout 5.0 s, statement timeout 10.0 s)")
        let off = try PostgresConfiguration(url: "host=/tmp dbname=onetap", prepareStatements: false)
        #expect(!off.preparesStatements)
        #expect(off.description.hasSuffix("statement timeout 10.0 s, statements unprepared)"))
        #expect(off != usual)
    }

    @Test func errorsDescribeTheirKindAndSQLState() {
        let error = PostgresError(.timeout, sqlState: "57014", message: "the statement ran too long")
        #expect(error.description == "timeout: the statement ran too long (SQLSTATE 57014)")
        #expect(PostgresError(.closed, message: "closed").description == "closed: closed")
    }
}
