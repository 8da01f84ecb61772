import Foundation
import OneTap
import OneTapPostgres

/// App sessions on PostgreSQL, in the same run as ``PostgresBenchmarks`` (same server, same schema):
///
/// - a refresh rotation (`AppSessions.refresh` over `PostgresAppSessionStore`: the session's read, the
///   rules, the compare-and-swap write of the rotated record) at 1 and 8 connections, each caller
///   rotating its own family's current refresh token, beside `pgbench` running the two statements the
///   store sends (its `SELECT version, record …` and its `UPDATE … WHERE id = … AND version = …` with a
///   record's JSON as long as ours);
/// - a whole login from first open to account credentials, its PostgreSQL round trips counted (every
///   statement the pool sends, through the pool's statement observer), beside the same login over the
///   in-memory stores.
enum PostgresAppSessionBenchmarks {
    static let refreshNames = ["postgres.refresh (1 conn)", "postgres.refresh (8 conn)"]
    static let wholeLoginName = "postgres.whole-login (round trips)"
    static let names = refreshNames + [wholeLoginName]

    /// The refresh rotation rows.
    static func measureRefresh(
        _ stores: PostgresStores, url: String, pgbench: String, directory: String, seconds: Int, _ options: BenchmarkOptions, _ report: inout Report
    ) async throws {
        guard refreshNames.contains(where: options.wants) else { return }
        let keys = try ServerKeyRing([(try KeyID("bench"), try ServerKey(bytes: [UInt8](repeating: 9, count: 32)))])
        let sessions = AppSessions(keys: keys, store: stores.appSessionStore(), events: DiscardingEventSink())
        let quoted = "\"\(stores.configuration.schema)\""
        // pgbench's rows pgbench-0…7 carry the JSON of a session rotated once, as ours are.
        let sample = try await sessions.open()
        _ = try await sessions.refresh(sample.refreshToken)
        guard let json = try await stores.pool.execute("SELECT record FROM \(quoted).app_sessions WHERE id = $1", [.text(sample.session.text)]).first?.first?.text
        else { throw PostgresBenchmarks.BenchmarkFailure("the sample app session was not stored") }
        let nowMs = "(extract(epoch FROM now()) * 1000)::bigint"
        for index in 0..<8 {
            try await stores.pool.execute(
                "INSERT INTO \(quoted).app_sessions (id, version, account, revoked_at_ms, expires_at_ms, record) VALUES ($1, 1, NULL, NULL, \(nowMs), $2)",
                [.text("pgbench-\(index)"), .text(json)])
        }
        let script = """
            SELECT version AS v, record AS rec FROM \(quoted).app_sessions WHERE id = 'pgbench-' || (:client_id)::bigint \\gset
            UPDATE \(quoted).app_sessions SET version = (:v)::bigint + 1, account = NULL, revoked_at_ms = NULL, expires_at_ms = \(nowMs) + 2592000000, record = \(PgbenchReplay.quoted(json)) WHERE id = 'pgbench-' || (:client_id)::bigint AND version = (:v)::bigint AND (:v)::bigint + 1 > (:v)::bigint RETURNING version

            """
        try script.write(toFile: directory + "/refresh.sql", atomically: true, encoding: .utf8)
        for connections in [1, 8] {
            let name = "postgres.refresh (\(connections) conn)"
            guard options.wants(name) else { continue }
            let reference = await PostgresBenchmarks.runPgbench(pgbench, url: url, script: directory + "/refresh.sql", clients: connections, seconds: seconds)
            // Each lane opens a family of its own (not timed) and rotates its current refresh token.
            let ours = try await PostgresBenchmarks.measureLanes(connections: connections, seconds: seconds) { _, until in
                var samples: [Double] = []
                samples.reserveCapacity(100_000)
                var token = try await sessions.open().refreshToken
                while nanoseconds() < until {
                    let before = nanoseconds()
                    let grant = try await sessions.refresh(token)
                    samples.append(Double(nanoseconds() - before))
                    token = grant.refreshToken
                }
                return samples
            }
            PostgresBenchmarks.add(name, connections: connections, ours: ours, reference: reference, extra: [("roundTripsPerOp", "2")], &report)
        }
    }

    /// The whole-login row: first open → login start → the one-tap success report (exchanged) → the
    /// account found or created → the session moved to it, with new credentials.
    static func measureWholeLogin(_ stores: PostgresStores, quick: Bool, _ options: BenchmarkOptions, _ report: inout Report) async throws {
        guard options.wants(wholeLoginName) else { return }
        let statements = LockedValue([String: Int]())
        // A second set of stores on the same schema whose pool counts every statement it sends.
        let counted = PostgresStores(configuration: stores.configuration) { sql in
            let verb = String(sql.prefix { !$0.isWhitespace }).uppercased()
            statements.withLock { $0[verb, default: 0] += 1 }
        }
        do {
            let onPostgres = Login(
                appSessions: counted.appSessionStore(), loginSessions: counted.loginSessionStore(), ledger: counted.exchangeLedger(),
                directory: counted.accountDirectory())
            let inMemory = Login(
                appSessions: InMemoryAppSessionStore(), loginSessions: InMemoryLoginSessionStore(), ledger: InMemoryExchangeLedger(),
                directory: InMemoryAccountDirectory())
            // The pool's connection opened and checked before counting (its set-up statement is not the login's).
            try await onPostgres.run(number: 13_900_000_000)
            statements.withLock { $0 = [:] }
            let logins = quick ? 20 : 100
            let repetitions = quick ? 3 : 9
            var next: UInt64 = 13_900_000_001
            let start = next
            var failures = 0
            let ours = await measureAsync(batch: logins, repetitions: repetitions) {
                for _ in 0..<logins {
                    do { try await onPostgres.run(number: next) } catch { failures += 1; if failures == 1 { print("postgres.whole-login: failed: \(error)") } }
                    next += 1
                }
            }
            let counts = statements.withLock { $0 }
            let total = counts.values.reduce(0, +)
            let measured = Double(next - start)
            let failedOnPostgres = failures
            let reference = await measureAsync(batch: logins, repetitions: repetitions) {
                for _ in 0..<logins {
                    do { try await inMemory.run(number: next) } catch { failures += 1; if failures == 1 { print("postgres.whole-login (in memory): failed: \(error)") } }
                    next += 1
                }
            }
            var row = Suites.row(wholeLoginName, logins, ours, "the same login on the in-memory stores", reference, target: nil, met: nil)
            row.allocationsPerOp = nil
            row.referenceAllocations = nil
            let breakdown = counts.sorted { $0.key < $1.key }.map { "\($0.key)×\(format(Double($0.value) / measured))" }.joined(separator: " ")
            row.extra = [
                ("roundTripsPerLogin", format(Double(total) / measured)), ("statements", "\"\(breakdown)\""),
                ("failedLogins", String(failedOnPostgres)), ("failedReferenceLogins", String(failures - failedOnPostgres)),
            ]
            report.add(row)
        } catch {
            await counted.close()
            throw error
        }
        await counted.close()
    }

    /// One whole login, the way the README's server handlers run it.
    struct Login {
        let sessions: AppSessions
        let logins: LoginServer
        let accounts: AccountLogin

        /// The services over the stores; `exchange` is the carrier behind the ``ExchangeGuard`` (by default
        /// ``NumberedExchange`` alone, no carrier called).
        init(
            appSessions: any AppSessionStore, loginSessions: any LoginSessionStore, ledger: any ExchangeLedger, directory: any AccountDirectory,
            exchange: any TokenExchangeProvider = NumberedExchange()
        ) {
            let keys: ServerKeyRing
            do {
                keys = try ServerKeyRing([(try KeyID("bench"), try ServerKey(bytes: [UInt8](repeating: 9, count: 32)))])
            } catch {
                fatalError("the benchmark's key ring: \(error)")  // constant input: not reached
            }
            sessions = AppSessions(keys: keys, store: appSessions, events: DiscardingEventSink())
            logins = LoginServer(
                store: loginSessions, exchange: ExchangeGuard(provider: exchange, ledger: ledger), events: DiscardingEventSink())
            accounts = AccountLogin(directory: directory, events: DiscardingEventSink())
        }

        /// First open to account credentials for a number not seen before (its account is created).
        func run(number: UInt64) async throws {
            blackHole(try await credentials(number: number))
        }

        /// First open to account credentials for a number not seen before: what the login left (the login
        /// session at its end, the app session's new credentials, the account it created).
        func credentials(number: UInt64) async throws -> (login: LoginSession, grant: AppSessionGrant, account: AccountID) {
            let guest = try await sessions.open()                                        // POST /session
            let bearer = guest.accessToken.reveal()
            let me = try sessions.authenticate(bearer)                                  // POST /login
            let snapshot = DeviceSnapshot(sim: .present, plmn: try PLMN("46000"), network: .both)
            let started = try await logins.start(snapshot, for: me)
            let claims = try await sessions.live(bearer).claims                         // POST /login/{id}
            let credential = CarrierCredential(flow: .mobile, token: Secret(String(number)), uniqueID: "bench")
            let next = try await logins.report(.result(.mobile, code: "103000", credential: credential), to: started.session.id, version: 1, from: claims)
            let expected = try PhoneNumber(String(number))
            guard case .done(.success, let flow?, let verified?) = next.instruction, verified.phoneNumber == expected else {
                throw PostgresBenchmarks.BenchmarkFailure("the login did not succeed with its number: \(next.instruction)")
            }
            let account = try await accounts.resolve(verified)
            guard account.created else { throw PostgresBenchmarks.BenchmarkFailure("a new number found an account") }
            let grant = try await sessions.loggedIn(claims, as: account, flow: flow)
            return (next.session, grant, account.account)
        }
    }

    /// The carrier's exchange, answering success with the number the token names (so every login is a
    /// new number, and creates its account). Given a carrier (the loopback fake, whose number is always
    /// the same), the carrier is called first with the same token and its refusal passed on; its success
    /// is answered with the token's number instead of its own.
    struct NumberedExchange: TokenExchangeProvider {
        var carrier: (any TokenExchangeProvider)? = nil

        func exchange(_ credential: CarrierCredential) async throws -> ExchangeResponse {
            guard let carrier else { return ExchangeResponse(code: "103000", phoneNumber: try PhoneNumber(credential.token.reveal())) }
            let answer = try await carrier.exchange(credential)
            guard answer.phoneNumber != nil else { return answer }
            return ExchangeResponse(code: answer.code, phoneNumber: try PhoneNumber(credential.token.reveal()), account: answer.account, verdict: answer.verdict)
        }
    }
}
