import OneTap

/// A bounded flood of fake logins against a ``LoginServer``, while one honest user logs in (issue 21:
/// abuse run as load): many fake clients at once, each starting logins and reporting fake successes
/// (made-up tokens the carrier refuses), SDK time-outs and garbage (a version the session never had, a session that does
/// not exist); then every record checked, so nothing was lost. The tests and the benchmarks run it over
/// the in-memory and the PostgreSQL stores; bounded by count, never by time.
///
/// The fake clients come from a few IPv6 /64 blocks (a fifth of them give no address), each with its own
/// app session, guest and device: what one attacker holds.
package struct LoginFlood: Sendable {
    /// How big the flood is.
    package struct Size: Sendable {
        /// The fake clients, at once.
        package var clients: Int
        /// The logins each fake client tries to start, one after the other.
        package var loginsPerClient: Int
        /// The IPv6 /64 blocks the fake clients come from.
        package var addressBlocks: Int

        /// A size.
        /// - Parameters:
        ///   - clients: The fake clients.
        ///   - loginsPerClient: The logins each tries to start.
        ///   - addressBlocks: The /64 blocks they come from.
        package init(clients: Int, loginsPerClient: Int, addressBlocks: Int = 4) {
            self.clients = max(1, clients)
            self.loginsPerClient = max(1, loginsPerClient)
            self.addressBlocks = max(1, addressBlocks)
        }
    }

    /// What a flood did, and what the checks after it found.
    package struct Outcome: Sendable {
        /// Starts that stored a session.
        package var admittedStarts = 0
        /// Starts refused `over-quota` (nothing stored).
        package var refusedStarts = 0
        /// Reports the server took (a stored transition).
        package var acceptedReports = 0
        /// Fake successes whose token went to the (mock) carrier.
        package var exchanges = 0
        /// Fake successes refused `over-quota` before the exchange.
        package var refusedExchanges = 0
        /// Garbage reports refused (`unknown-version`, `unknown-session`), changing nothing.
        package var rejectedReports = 0
        /// The fake clients (by index) whose SDK time-out reports the server took.
        package var clientsReportingTimeouts: Set<Int> = []
        /// Whatever should not have happened: a store error, an unexpected answer, a lost record.
        package var problems: [String] = []
        /// Each fake request's time, in nanoseconds, sorted after the flood.
        package var latencies: [Int64] = []
        /// The whole flood's time, in nanoseconds.
        package var elapsed: Int64 = 0
        /// The honest user's login, as the server answered its success report.
        package var honest: LoginTransition?
        /// The honest user's login as stored after the flood.
        package var honestStored: LoginSession?
        /// The honest login's time (its start and its success report), in nanoseconds.
        package var honestLatency: Int64 = 0
        /// Admitted fake sessions found stored after the flood.
        package var storedSessions = 0

        /// Every fake request: starts and reports.
        package var requests: Int { admittedStarts + refusedStarts + acceptedReports + refusedExchanges + rejectedReports }

        /// A latency percentile, in nanoseconds (0 when nothing was measured).
        /// - Parameter fraction: 0.5 for the median, 0.99 …
        /// - Returns: The latency.
        package func latency(_ fraction: Double) -> Int64 {
            latencies.percentile(fraction) ?? 0
        }

        mutating func merge(_ other: Outcome) {
            admittedStarts += other.admittedStarts
            refusedStarts += other.refusedStarts
            acceptedReports += other.acceptedReports
            exchanges += other.exchanges
            refusedExchanges += other.refusedExchanges
            rejectedReports += other.rejectedReports
            problems += other.problems
            latencies += other.latencies
            storedSessions += other.storedSessions
            clientsReportingTimeouts.formUnion(other.clientsReportingTimeouts)
            honestLatency += other.honestLatency
        }
    }

    /// The honest user's number, as the mock carrier answers its token.
    package static let honestNumber = try! PhoneNumber("13800138000")
    /// A China Mobile device with its SIM ready.
    package static let mobileSIM = DeviceSnapshot(sim: .present, plmn: try! PLMN("46000"))
    /// The honest user's token.
    package static let honestToken = Secret("honest-users-one-tap-token")

    private let keys: ServerKeyRing
    private let issuedAt: Date

    /// A flood whose app sessions are signed now.
    /// - Parameter now: When the app sessions were issued (they last a year).
    /// - Throws: Never with the fixed key; ``ParseError`` if it ever could not be made.
    package init(now: Date) throws {
        keys = try ServerKeyRing([(try KeyID("flood"), try ServerKey(bytes: [UInt8](repeating: 7, count: 32)))])
        issuedAt = now.addingTimeInterval(-60)
    }

    /// Runs the flood and the honest login at once (the honest user starts once half the fake logins
    /// were tried), then checks every admitted session against the store.
    /// - Parameters:
    ///   - server: The server, with quotas, a breaker and an ``ExchangeGuard`` over ``FloodCarrier``.
    ///   - store: The server's session store, read back after the flood.
    ///   - size: How big.
    /// - Returns: What happened.
    package func run(_ server: LoginServer, store: any LoginSessionStore, size: Size) async -> Outcome {
        // The honest user starts once this many fake logins were tried: half of them, one at least (a flood of one).
        let half = max(1, size.clients * size.loginsPerClient / 2)
        let (halfway, signal) = AsyncStream<Void>.makeStream()
        let tried = LockedValue(0)
        let started = ContinuousClock.now
        var outcome = Outcome()
        var honest: (LoginTransition?, String?) = (nil, nil)
        await withTaskGroup(of: (Outcome, (LoginTransition?, String?)?).self) { group in
            for client in 0..<size.clients {
                group.addTask {
                    var checked = Outcome()
                    for login in 0..<size.loginsPerClient {
                        let (result, made) = await self.fakeLogin(client, login, size, server)
                        checked.merge(result)
                        if let made { checked.merge(await Self.check(made, store)) }
                        if tried.withLock({ $0 += 1; return $0 }) == half { signal.yield() }
                    }
                    return (checked, nil)
                }
            }
            group.addTask {
                for await _ in halfway { break }
                let started = ContinuousClock.now
                let login = await self.honestLogin(server)
                var timed = Outcome()
                timed.honestLatency = Self.nanoseconds(ContinuousClock.now - started)
                return (timed, login)
            }
            for await (part, login) in group {
                outcome.merge(part)
                if let login { honest = login }
            }
        }
        signal.finish()
        outcome.elapsed = Self.nanoseconds(ContinuousClock.now - started)
        outcome.latencies.sort()
        outcome.honest = honest.0
        if let problem = honest.1 { outcome.problems.append("honest login: \(problem)") }
        if let id = honest.0?.session.id {
            do { outcome.honestStored = try await store.load(id) } catch { outcome.problems.append("honest login: load: \(error)") }
        }
        return outcome
    }

    /// What one admitted fake login should have left in the store.
    struct Made: Sendable {
        let id: LoginSessionID
        /// The session as the accepted report left it; nil when the report was refused (the start's stays).
        let expected: LoginSession?
    }

    /// One fake login: a start, then (if admitted) one report by the login's kind.
    private func fakeLogin(_ client: Int, _ login: Int, _ size: Size, _ server: LoginServer) async -> (Outcome, Made?) {
        var outcome = Outcome()
        let claims: AccessClaims
        do {
            claims = try fakeClaims(client)
        } catch {
            outcome.problems.append("fake client \(client): \(error)")
            return (outcome, nil)
        }
        // A fifth of the clients send no address (a proxy's misconfiguration): they share the "(not given)" bucket.
        let address: IPAddress?
        let device: DeviceID
        do {
            address = client % 5 == 4
                ? nil : try IPAddress("2001:db8:bad:\(String(client % size.addressBlocks, radix: 16))::\(String(client + 1, radix: 16))")
            device = try DeviceID("flood-device-\(client)")
        } catch {
            outcome.problems.append("fake client \(client): \(error)")
            return (outcome, nil)
        }
        var clock = ContinuousClock.now
        func lap() {
            let now = ContinuousClock.now
            outcome.latencies.append(Self.nanoseconds(now - clock))
            clock = now
        }
        let start: LoginTransition
        do {
            start = try await server.start(Self.mobileSIM, for: claims, address: address, device: device)
            lap()
            outcome.admittedStarts += 1
        } catch let rejection as LoginRejection where rejection.kind == .overQuota {
            lap()
            outcome.refusedStarts += 1
            return (outcome, nil)
        } catch {
            outcome.problems.append("start: \(error)")
            return (outcome, nil)
        }
        let id = start.session.id
        let kind = (client + login) % 4
        do {
            switch kind {
            case 0:  // a made-up success: its token goes to the carrier, which refuses it
                let credential = CarrierCredential(flow: .mobile, token: Secret("fake-\(client)-\(login)"), uniqueID: "fake")
                let next = try await server.report(.result(.mobile, code: "103000", credential: credential), to: id, version: 1, from: claims, address: address, device: device)
                lap()
                outcome.acceptedReports += 1
                outcome.exchanges += 1
                return (outcome, Made(id: id, expected: next.session))
            case 1:  // the SDK "timed out"
                let next = try await server.report(.timeout(.mobile), to: id, version: 1, from: claims, address: address, device: device)
                lap()
                outcome.acceptedReports += 1
                outcome.clientsReportingTimeouts.insert(client)
                return (outcome, Made(id: id, expected: next.session))
            case 2:  // garbage: a version the session never had
                _ = try await server.report(.timeout(.mobile), to: id, version: 7, from: claims, address: address, device: device)
            default:  // garbage: a session that does not exist
                _ = try await server.report(.timeout(.mobile), to: LoginSessionID.random(), version: 1, from: claims, address: address, device: device)
            }
            outcome.problems.append("garbage report of kind \(kind) was taken")
        } catch let rejection as LoginRejection where rejection.kind == .overQuota && kind == 0 {
            lap()
            outcome.refusedExchanges += 1
        } catch let rejection as LoginRejection where (rejection.kind == .unknownVersion && kind == 2) || (rejection.kind == .unknownSession && kind == 3) {
            lap()
            outcome.rejectedReports += 1
        } catch {
            outcome.problems.append("report of kind \(kind): \(error)")
        }
        return (outcome, Made(id: id, expected: nil))
    }

    /// An honest user's login, alone or during a flood: its own app session, address and device, and a
    /// real success (``FloodCarrier`` answers its token with ``honestNumber``).
    /// - Parameters:
    ///   - server: The server.
    ///   - user: Which honest user (0 is the one ``run(_:store:size:)`` logs in; each has its own token).
    /// - Returns: The success report's answer, or what went wrong.
    package func honestLogin(_ server: LoginServer, user: Int = 0) async -> (LoginTransition?, String?) {
        do {
            let address = try IPAddress("203.0.113.\(user % 200 + 1)")
            let device = try DeviceID("honest-device-\(user)")
            let claims = try self.claims(user == 0 ? "HonestUsersAppSession0" : "HonestUserSession" + Self.digits(user, 5), guest: "HonestUsersGuest" + Self.digits(user, 6))
            let start = try await server.start(Self.mobileSIM, for: claims, address: address, device: device)
            guard case .run(.mobile, _) = start.instruction else { return (nil, "started with \(start.instruction), not China Mobile's one-tap") }
            let credential = CarrierCredential(flow: .mobile, token: Self.honestToken(user), uniqueID: "honest")
            let done = try await server.report(
                .result(.mobile, code: "103000", credential: credential), to: start.session.id, version: start.session.version, from: claims,
                address: address, device: device)
            return (done, nil)
        } catch {
            return (nil, "\(error)")
        }
    }

    /// An honest user's token (user 0's is ``honestToken``).
    /// - Parameter user: The user.
    /// - Returns: The token.
    package static func honestToken(_ user: Int) -> Secret {
        user == 0 ? honestToken : Secret("honest-users-one-tap-token-\(user)")
    }

    private func claims(_ session: String, guest: String) throws -> AccessClaims {
        keys.accessToken(
            session: try AppSessionID(session), identity: .guest(try GuestID(guest)), epoch: 0, issuedAt: issuedAt, expiresAt: issuedAt.addingTimeInterval(86_400 * 365)
        ).claims
    }

    private static func digits(_ number: Int, _ count: Int) -> String {
        var digits = String(number)
        while digits.count < count { digits = "0" + digits }
        return String(digits.suffix(count))
    }

    /// The fake client's app session: its own session and guest.
    private func fakeClaims(_ client: Int) throws -> AccessClaims {
        try claims("FloodClientSession" + Self.digits(client, 4), guest: "FloodClientGuest00" + Self.digits(client, 4))
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
    }

    /// Whether an admitted fake login is stored as its last answer left it.
    private static func check(_ made: Made, _ store: any LoginSessionStore) async -> Outcome {
        var outcome = Outcome()
        do {
            guard let stored = try await store.load(made.id) else {
                outcome.problems.append("admitted session \(made.id) is not stored")
                return outcome
            }
            outcome.storedSessions = 1
            if let expected = made.expected, stored != expected {
                outcome.problems.append("session \(made.id) is stored at version \(stored.version), its accepted report made \(expected.version)")
            } else if made.expected == nil, stored.version != 1 {
                outcome.problems.append("session \(made.id) changed to version \(stored.version) by a refused report")
            }
        } catch {
            outcome.problems.append("load \(made.id): \(error)")
        }
        return outcome
    }
}

/// The carrier's exchange for a flood: an honest user's token gets the number; any other token is
/// refused as the carrier refuses a made-up one (China Mobile's `103902`, credential check failed). Counts
/// the calls per token (by digest).
package final class FloodCarrier: TokenExchangeProvider {
    private let calls = LockedValue<[SHA256Digest: Int]>([:])
    private let honest: Set<SHA256Digest>

    /// A carrier.
    /// - Parameter honestUsers: How many honest users' tokens it answers with the number (``LoginFlood/honestToken(_:)``).
    package init(honestUsers: Int = 64) {
        honest = Set((0..<max(1, honestUsers)).map { CarrierCredential.digest(of: LoginFlood.honestToken($0)) })
    }

    /// Answers.
    /// - Parameter credential: The token.
    /// - Returns: Success with the number for the honest token, else `103902`.
    package func exchange(_ credential: CarrierCredential) async throws -> ExchangeResponse {
        let digest = credential.tokenDigest
        calls.withLock { $0[digest, default: 0] += 1 }
        if honest.contains(digest) {
            return ExchangeResponse(code: "103000", phoneNumber: LoginFlood.honestNumber, account: "honest-account")
        }
        return ExchangeResponse(code: "103902")
    }

    /// How many times a token was sent.
    /// - Parameter token: The token.
    /// - Returns: The calls.
    package func calls(for token: Secret) -> Int {
        calls.withLock { $0[CarrierCredential.digest(of: token)] ?? 0 }
    }

    /// How many calls were made in all.
    package var totalCalls: Int { calls.withLock { $0.values.reduce(0, +) } }
}
