import OneTapSupport
import Testing

/// The passwords found in a PostgreSQL connection string, in every form libpq reads one (its documentation,
/// "Connection Strings": a URI's user information, a `password` parameter whose keyword may be percent-encoded,
/// `keyword = value` pairs separated by any white space, single-quoted values with `\'` and `\\`).
@Suite struct ConnectionPasswordsTests {
    @Test(arguments: [
        ("postgresql://api:hunter2-pw@db/onetap", "hunter2-pw"),
        ("postgresql://api:hunter2%2Dpw@db/onetap", "hunter2-pw"),
        ("postgresql://api@db/onetap?password=hunter2-pw", "hunter2-pw"),
        ("postgresql://api@db/onetap?sslmode=require&PASSWORD=hunter2-pw", "hunter2-pw"),
        ("postgresql://api@db/onetap?pass%77ord=hunter2-pw", "hunter2-pw"),
        ("postgresql://api@db/onetap?%70%61%73%73%77%6F%72%64=hunter2-pw&x=1", "hunter2-pw"),
        ("host=db password=hunter2-pw dbname=onetap", "hunter2-pw"),
        ("host=db password = hunter2-pw", "hunter2-pw"),
        ("host=db\tpassword\t=\thunter2-pw\tdbname=onetap", "hunter2-pw"),
        ("host=db\npassword=\nhunter2-pw", "hunter2-pw"),
        ("host=db password='hunter2 pw\\'s' dbname=onetap", "hunter2 pw's"),
        ("host=db sslpassword=hunter2-pw", "hunter2-pw"),
        // libpq ends a URI's user information at its first `@` or `/`, never at `?`.
        ("postgresql://api:hunter2?pw@db/onetap", "hunter2?pw"),
        // A password holding an unencoded `/` (Base64 passwords do): libpq reads no user information then,
        // but the user meant one.
        ("postgresql://api:hunter2/pw@db/onetap", "hunter2/pw"),
        // `&` separates a URI's parameters, never `keyword=value` pairs.
        ("host=db password=hunter2&pw dbname=onetap", "hunter2&pw"),
    ])
    func aPasswordIsFoundInEveryFormLibpqReads(_ text: String, _ password: String) {
        #expect(ConnectionPasswords.found(in: text).contains(password), "\(ConnectionPasswords.found(in: text))")
        #expect(!ConnectionPasswords.redacting(in: "could not connect: \(text)", foundIn: [text]).contains(password))
    }

    /// An attacker's read of the parsers: a password starting with a combining mark (U+0301) is one character with
    /// the `=` or `:` before it, so the search by characters found no `:` in the URI, and the replacing by characters
    /// matched nothing in the message: the password showed. Both go by Unicode scalars and bytes now.
    @Test(arguments: ["host=db password=\u{301}s3cret-pw dbname=onetap", "postgresql://api:\u{301}s3cret-pw@db/onetap"])
    func aPasswordStartingWithACombiningMarkIsHidden(_ text: String) {
        let redacted = ConnectionPasswords.redacting(in: "could not connect: \(text)", foundIn: [text])
        #expect(!redacted.unicodeScalars.map(String.init).joined().contains("s3cret"), "\(redacted.unicodeScalars.map { $0.escaped(asASCII: true) }.joined())")
        #expect(redacted.contains("<redacted>"))
    }

    /// libpq reads backslash escapes in a keyword string's values, quoted (`'pw\'s'`, `'a\\b'`) or not (`ab\ cd`:
    /// the space is the password's). A message quoting the string as written shows the password as written, escapes
    /// and all: that form is hidden too, and an unquoted value runs past an escaped space (an attacker's read: the
    /// value as libpq reads it was hidden, which the text never holds, and the rest of the string showed it).
    @Test(arguments: [
        (#"password='hunter2 pw\'s-xy' host=db dbname=onetap sslmod=require"#, ["hunter2", "s-xy"]),
        (#"host=db password='back\\slash-hunter2' dbname=x"#, ["back", "slash-hunter2"]),
        (#"host=db password=ab\ cdef-hunter2 dbname=x"#, ["cdef-hunter2"]),
        (#"host=db password=ab\'cd\\ef-hunter2"#, ["cd", "ef-hunter2"]),
    ])
    func aPasswordWithEscapesIsHiddenAsWritten(_ text: String, _ pieces: [String]) {
        let redacted = ConnectionPasswords.redacting(in: "could not read \(text)", foundIn: [text])
        for piece in pieces { #expect(!redacted.contains(piece), "\(redacted)") }
    }

    /// libpq reads `postgresql://api:Ab/cD@db/onetap` as host `api`, port `Ab` and database `cD@db/onetap`,
    /// and its message quotes the port (`invalid integer value "Ab" for connection option "port"`): each
    /// piece of such a password is hidden too.
    @Test func aPieceOfAPasswordHoldingASlashIsHiddenToo() {
        let url = "postgresql://api:hunter2/pw-x@db/onetap"
        let message = #"invalid integer value "hunter2" for connection option "port"; database "pw-x@db/onetap""#
        let redacted = ConnectionPasswords.redacting(in: message, foundIn: [url])
        #expect(!redacted.contains("hunter2") && !redacted.contains("pw-x"), "\(redacted)")
    }

    @Test(arguments: [
        "postgresql://api@db/onetap?sslmode=require", "host=db dbname=onetap user=api", "host=db passwords_file=x",
        // An `@` in a database name after a host and port is no password (nor are the port and the name).
        "postgresql://db.internal:5432/onetap@eu", "postgresql://api@db:5432/a@b", "postgresql://[::1]:5432/x@y",
    ])
    func aStringWithoutAPasswordHasNone(_ text: String) {
        #expect(ConnectionPasswords.found(in: text) == [])
    }

    /// Text that is no connection string at all never traps: a parameter that is only `=`, a bare `?`.
    @Test(arguments: ["postgresql://h/d?=", "a://b?=&=x&password", "?=", "postgresql://@", "password=", "x://:@?password"])
    func oddTextIsReadWithoutTrapping(_ text: String) {
        _ = ConnectionPasswords.redacting(in: "usage: \(text)", foundIn: [text])
    }

    /// A secret that holds another (an access token inside its refresh token) is hidden whole: the longer goes first.
    @Test func aSecretInsideAnotherIsHiddenWhole() {
        #expect(Secret.scrub("refresh AT-1-R-9", of: [Secret("AT-1"), Secret("AT-1-R-9")]) == "refresh <redacted>")
    }

    /// URLs with no password, or one libpq reads whole, hold no password libpq misreads: a host list
    /// with an `@` in the database name, a password-like `options` value, an `@` in the database name.
    @Test(arguments: [
        "postgresql://h1:5432,h2:5433/d@b", "postgresql://h/db?options=-cmy.password%3Dfoo", "postgresql://u:pw@h/db?password=other",
        "postgresql://api@db.internal:5432/onetap@eu", "postgresql://[::1]:5432/x@y",
    ])
    func noMisreadPasswordIsSeenWhereThereIsNone(url: String) {
        #expect(!ConnectionPasswords.holdsAPasswordLibpqMisreads(url))
    }

    /// A password holding an unencoded `/` or `@` is one libpq misreads.
    @Test(arguments: ["postgresql://api:hunter2/pw-xy@db/onetap", "postgresql://api:hunter2@pw-xy@db/onetap", "postgres://u:a/b/c@h:5432/d?sslmode=require"])
    func aPasswordHoldingAnUnencodedSlashOrAtIsMisread(url: String) {
        #expect(ConnectionPasswords.holdsAPasswordLibpqMisreads(url))
    }
}
