// A helper process for OneTap's own tests: things a test can only check across processes.
//
//   OneTapTestHelper refresh STORE-DIR ACCOUNT COUNTER-FILE HOLD-MS
//     Opens a FileTokenStore and runs a TokenVault over it whose refresher appends a line to COUNTER-FILE
//     and then waits HOLD-MS milliseconds; prints "ready", waits for a line on standard input, asks for ACCOUNT's
//     token, waits until the stored token is fresh again (refreshed by this process or the other), and prints the
//     stored token's value. Two of these let go at once on a stale token must refresh it once between them.
//
//   OneTapTestHelper refresh-due STORE-DIR COUNTER-FILE
//     Runs a TokenVault over the store, refreshing due accounts in the background, until no account is
//     due; each refresh appends a line to COUNTER-FILE. Several at once must refresh each account once.
//
//   OneTapTestHelper write-loop STORE-DIR ACCOUNT
//     Rewrites ACCOUNT's token as fast as it can, forever (the test kills it mid-write); prints "writing" once the
//     first rewrite is saved.
//
//   Every postgres-… command takes `-` for URL and reads the database URL from ONETAP_HELPER_DATABASE_URL (a password
//   stays off the command line).
//
//   OneTapTestHelper postgres-refresh-due URL SCHEMA COUNTER-FILE
//     refresh-due over a PostgresTokenStore in SCHEMA of the database at URL.
//
//   OneTapTestHelper postgres-hold-lease URL SCHEMA ACCOUNT LEASE-MS
//     Takes ACCOUNT's refresh lease (lasting LEASE-MS, renewed while it runs), prints "holding" and
//     waits forever (the test kills it, leaving the lease behind).
//
//   OneTapTestHelper postgres-sms-send URL SCHEMA POLICY-FILE IP FIRST-NUMBER COUNT
//     Opens a PostgresSMSStore and an SMSCodeService on the policy in POLICY-FILE (CSV), prints "ready",
//     waits for a line on standard input, then sends COUNT codes at once from IP, to FIRST-NUMBER,
//     FIRST-NUMBER + 1, …, and prints "sent N" (N the sends admitted).
//
//   OneTapTestHelper postgres-sms-guess URL SCHEMA NUMBER IP NOW-MS SESSIONS [POLICY-FILE]
//     An attacker guessing NUMBER's SMS codes from IP on the default policy, or POLICY-FILE's (SMSGuesser.swift): prints
//     "ready", waits for a line on standard input, then sends and guesses in SESSIONS login sessions and
//     prints "wrong W sent S".
//
//   OneTapTestHelper postgres-session-start URL SCHEMA
//     Starts a login (LoginServer.start) for a China Mobile device over a PostgresLoginSessionStore and
//     prints "ID VERSION".
//
//   OneTapTestHelper postgres-session-report URL SCHEMA ID VERSION FLOW CODE
//     Prints "ready", waits for a line on standard input, then reports CODE for FLOW to session ID at
//     VERSION (LoginServer.report) and prints "accepted VERSION STAGE" or "rejected KIND".
//
//   OneTapTestHelper postgres-app-refresh URL SCHEMA NOW-MS
//     An auth-server instance: AppSessions over a PostgresAppSessionStore, with the keys of
//     ONETAP_SERVER_KEYS and a clock fixed at NOW-MS (milliseconds since 1970). Prints "ready", reads a
//     refresh token from standard input (the go), refreshes it, and prints "rotated HASH" or "repeated
//     HASH" (HASH the SHA-256 of the successor refresh token, in hex: never a token) or "refused KIND".

import Foundation
import OneTap
import OneTapPostgres

struct CountingRefresher: TokenRefresher {
    let counter: String
    let hold: Duration

    func refresh(_ token: AccessToken) async throws -> RefreshResponse {
        let fd = open(counter, O_WRONLY | O_APPEND | O_CREAT, 0o600)
        let line = "refresh \(token.account) by \(getpid())\n"
        _ = line.withCString { write(fd, $0, strlen($0)) }
        close(fd)
        try await Task.sleep(for: hold)
        return RefreshResponse(accessToken: Secret("refreshed-by-\(getpid())"), refreshToken: Secret("r-\(getpid())"))
    }
}

func fail(_ message: String, _ status: Int32) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(status)
}

/// Says "ready" and waits for the test's go (a line on standard input), so that processes start at once.
func waitForGo() {
    FileHandle.standardOutput.write(Data("ready\n".utf8))
    _ = readLine()
}

/// A clock fixed at one instant: every instance of a race sees the same now.
struct FixedClock: WallClock {
    let instant: Date

    func now() -> Date { instant }

    func sleep(for duration: Duration) async throws { try await Task.sleep(for: duration) }
}

/// Keeps whether the last refresh was a rotation or a repeat within the grace (from its event).
final class RefreshOutcome: EventSink, @unchecked Sendable {
    private let lock = NSLock()
    private var repeated: Bool?

    func receive(_ event: OneTapEvent) {
        guard case .appSession(.refreshed(_, let again)) = event.payload else { return }
        lock.withLock { repeated = again }
    }

    var wasRepeated: Bool? { lock.withLock { repeated } }
}

/// An SMS gateway that sends nothing.
struct SilentSender: SMSSender {
    func send(_ message: SMSMessage) async throws {}
}

/// Runs the vault, does `work`, shuts the vault down gracefully and waits for it.
func whileRunning(_ vault: TokenVault, _ work: @Sendable () async throws -> Void) async throws {
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await vault.run() }
        try await work()
        await vault.shutdown()
        try await group.waitForAll()
    }
}

/// Runs a vault with background refresh over `store` (counting refreshes in the file `counter`) until no
/// token in it is due any more.
func refreshEveryDueToken(in store: some TokenStore, counter: String) async throws {
    let vault = TokenVault(
        store: store, refresher: CountingRefresher(counter: counter, hold: .milliseconds(1)),
        background: .init(scanInterval: .milliseconds(20), concurrentRefreshes: 16), events: DiscardingEventSink())
    try await whileRunning(vault) {
        // Bounded, so a store that keeps listing an account as due fails the test instead of hanging it.
        let deadline = ContinuousClock.now + .seconds(120)
        while let due = try await store.accounts(dueBefore: Date(), limit: 1).first {
            guard ContinuousClock.now < deadline else { fail("\(due) is still listed as due after 120 s", 1) }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}

/// The database URL of a `postgres-…` command: its URL argument must be `-`, and the URL is read from the environment
/// variable `ONETAP_HELPER_DATABASE_URL`, so that a password in it is never on a command line every user of the machine
/// can read.
func databaseURL(_ argument: String) -> String {
    guard argument == "-" else { fail("URL must be -: the URL is read from ONETAP_HELPER_DATABASE_URL, never from a command line", 64) }
    guard let url = ProcessInfo.processInfo.environment["ONETAP_HELPER_DATABASE_URL"], !url.isEmpty else {
        fail("ONETAP_HELPER_DATABASE_URL is not set", 64)
    }
    return url
}

let arguments = CommandLine.arguments
do {
    switch arguments.dropFirst().first {
    case "refresh" where arguments.count == 6:
        guard let hold = Int(arguments[5]) else { fail("HOLD-MS must be a number", 64) }
        let store = try FileTokenStore(directory: arguments[2])
        let account = try AccountID(arguments[3])
        let vault = TokenVault(
            store: store, refresher: CountingRefresher(counter: arguments[4], hold: .milliseconds(hold)), events: DiscardingEventSink())
        try await whileRunning(vault) {
            waitForGo()
            _ = try await vault.validToken(for: account)
            // A stale token is served at once and refreshed behind it (here or by the other process):
            // wait until the stored token is fresh again, so the vault is not shut down before its refresh starts.
            let deadline = ContinuousClock.now + .seconds(30)
            while try await vault.state(for: account) != .fresh {
                guard ContinuousClock.now < deadline else { fail("the token was not refreshed within 30 s", 1) }
                try await Task.sleep(for: .milliseconds(10))
            }
        }
        guard let stored = try await store.load(account) else { fail("the token is gone", 1) }
        print(stored.token.value.reveal())
    case "refresh-due" where arguments.count == 4:
        let store = try FileTokenStore(directory: arguments[2])
        try await refreshEveryDueToken(in: store, counter: arguments[3])
    case "write-loop" where arguments.count == 4:
        let store = try FileTokenStore(directory: arguments[2])
        let account = try AccountID(arguments[3])
        var number = 0
        while true {
            number += 1
            let current = try await store.load(account)
            let now = Date()
            let token = AccessToken(
                value: Secret("value-\(number)-" + String(repeating: "x", count: 2000)), refreshToken: Secret("refresh-\(number)"),
                flow: .tianyi, account: account, issuedAt: now, expiresAt: now.addingTimeInterval(30 * 86_400))
            _ = try await store.save(token, replacing: current?.version, dueAt: now.addingTimeInterval(86_400))
            if number == 1 { FileHandle.standardOutput.write(Data("writing\n".utf8)) }
        }
    case "postgres-refresh-due" where arguments.count == 5:
        let stores = try await PostgresStores.open(testing(try PostgresConfiguration(url: databaseURL(arguments[2]), schema: arguments[3])))
        let store = stores.tokenStore()
        try await refreshEveryDueToken(in: store, counter: arguments[4])
        await stores.close()
    case "postgres-hold-lease" where arguments.count == 6:
        guard let lease = Int(arguments[5]) else { fail("LEASE-MS must be a number", 64) }
        let stores = try await PostgresStores.open(testing(try PostgresConfiguration(url: databaseURL(arguments[2]), schema: arguments[3], poolSize: 2)))
        let store = stores.tokenStore(leaseDuration: .milliseconds(lease), lockTimeout: .zero)
        try await store.withRefreshLock(for: try AccountID(arguments[4])) {
            FileHandle.standardOutput.write(Data("holding\n".utf8))
            try await Task.sleep(for: .seconds(3600))
        }
    case "postgres-sms-send" where arguments.count == 8:
        guard let first = UInt64(arguments[6]), let count = Int(arguments[7]) else { fail("FIRST-NUMBER and COUNT must be numbers", 64) }
        let policy = try SMSPolicy(csv: try String(contentsOfFile: arguments[4], encoding: .utf8), file: arguments[4])
        let stores = try await PostgresStores.open(testing(try PostgresConfiguration(url: databaseURL(arguments[2]), schema: arguments[3], poolSize: 4)))
        let service = SMSCodeService(
            key: ServerKey.random(), sender: SilentSender(), store: stores.smsStore(), policy: policy, events: DiscardingEventSink())
        let context = SMSContext(ip: try IPAddress(arguments[5]), session: .random())
        waitForGo()
        let sent = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<count {
                group.addTask {
                    if case .sent = try await service.send(to: try PhoneNumber(value: first + UInt64(index)), context: context) { return true }
                    return false
                }
            }
            var sent = 0
            for try await admitted in group where admitted { sent += 1 }
            return sent
        }
        print("sent \(sent)")
        await stores.close()
    case "postgres-sms-guess" where arguments.count == 8 || arguments.count == 9:
        guard let now = Int64(arguments[6]), let sessions = Int(arguments[7]) else { fail("NOW-MS and SESSIONS must be numbers", 64) }
        let policy = arguments.count == 9 ? try SMSPolicy(csv: String(contentsOfFile: arguments[8], encoding: .utf8), file: arguments[8]) : .builtIn
        try await SMSGuesser.run(
            url: databaseURL(arguments[2]), schema: arguments[3], number: try PhoneNumber(arguments[4]), ip: try IPAddress(arguments[5]),
            start: Date(millisecondsSince1970: now), sessions: sessions, policy: policy)
    case "postgres-session-start" where arguments.count == 4:
        let stores = try await PostgresStores.open(testing(try PostgresConfiguration(url: databaseURL(arguments[2]), schema: arguments[3], poolSize: 1)))
        let server = LoginServer(store: stores.loginSessionStore(), events: DiscardingEventSink())
        let started = try await server.start(DeviceSnapshot(sim: .present, plmn: try PLMN("46000")), for: try helperAppSession())
        print("\(started.session.id) \(started.session.version)")
        await stores.close()
    case "postgres-session-report" where arguments.count == 8:
        guard let version = Int(arguments[5]), let flow = LoginFlow(rawValue: arguments[6]) else { fail("VERSION must be a number and FLOW a flow", 64) }
        let stores = try await PostgresStores.open(testing(try PostgresConfiguration(url: databaseURL(arguments[2]), schema: arguments[3], poolSize: 1)))
        let server = LoginServer(store: stores.loginSessionStore(), events: DiscardingEventSink())
        let id = try LoginSessionID(arguments[4])
        let code = try ResultCode(arguments[7])
        waitForGo()
        do {
            let next = try await server.report(.result(flow, code: code), to: id, version: version, from: try helperAppSession())
            print("accepted \(next.session.version) \(next.session.stage)")
        } catch let rejection as LoginRejection {
            print("rejected \(rejection.kind)")
        }
        await stores.close()
    case "postgres-app-refresh" where arguments.count == 5:
        guard let now = Int64(arguments[4]) else { fail("NOW-MS must be a number", 64) }
        let keys = try ServerKeyRing(parsing: Secret(ProcessInfo.processInfo.environment["ONETAP_SERVER_KEYS"] ?? ""))
        let stores = try await PostgresStores.open(testing(try PostgresConfiguration(url: databaseURL(arguments[2]), schema: arguments[3], poolSize: 1)))
        let outcome = RefreshOutcome()
        let sessions = AppSessions(
            keys: keys, store: stores.appSessionStore(), clock: FixedClock(instant: Date(millisecondsSince1970: now)), events: outcome)
        FileHandle.standardOutput.write(Data("ready\n".utf8))
        guard let token = readLine() else { fail("no refresh token on standard input", 64) }
        do {
            let grant = try await sessions.refresh(Secret(token))
            let hash = SHA256.hash(grant.refreshToken.reveal().utf8).hex
            print("\(outcome.wasRepeated == true ? "repeated" : "rotated") \(hash)")
        } catch let error as AppSessionError {
            print("refused \(error.kind)")
        }
        await stores.close()
    default:
        fail(
            "usage: OneTapTestHelper refresh STORE-DIR ACCOUNT COUNTER-FILE HOLD-MS | refresh-due STORE-DIR COUNTER-FILE | write-loop STORE-DIR ACCOUNT"
                + " | postgres-refresh-due URL SCHEMA COUNTER-FILE | postgres-hold-lease URL SCHEMA ACCOUNT LEASE-MS"
                + " | postgres-sms-send URL SCHEMA POLICY-FILE IP FIRST-NUMBER COUNT | postgres-sms-guess URL SCHEMA NUMBER IP NOW-MS SESSIONS [POLICY-FILE]"
                + " | postgres-session-start URL SCHEMA"
                + " | postgres-session-report URL SCHEMA ID VERSION FLOW CODE | postgres-app-refresh URL SCHEMA NOW-MS", 64)
    }
    exit(0)
} catch {
    fail("error: \(error)", 1)
}

/// The app session every helper process acts in (one fixed key and id, so the processes that start and
/// report a login agree on whose it is).
func helperAppSession() throws -> AccessClaims {
    let ring = try ServerKeyRing([(try KeyID("helper"), try ServerKey(bytes: [UInt8](repeating: 9, count: 32)))])
    let now = Date()
    return ring.accessToken(
        session: try AppSessionID("HelperAppSession000000"), identity: .guest(try GuestID("HelperGuest00000000000")), epoch: 0, issuedAt: now,
        expiresAt: now.addingTimeInterval(3600)).claims
}
