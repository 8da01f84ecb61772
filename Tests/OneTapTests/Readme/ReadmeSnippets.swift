import Foundation
import OneTap
import OneTapTesting
import Testing

// The README's Swift blocks, compiled and run here. Each block is the text between a `// README: NAME`
// line and the next `// README: end` line, dedented; `ReadmeTests` checks that every ```swift block of
// README.md is one of them, word for word (an `import OneTap` first line in the README is the file's).

/// Stand-ins for the integrator's adapters the README names.
struct MyTianyiRefresher: TokenRefresher {
    func refresh(_ token: AccessToken) async throws -> RefreshResponse {
        RefreshResponse(accessToken: Secret("refreshed-\(token.account)"), refreshToken: token.refreshToken, expiresIn: try ExpiresIn(seconds: 30 * 86_400))
    }
}

struct MyCarrierExchange: TokenExchangeProvider {
    func exchange(_ credential: CarrierCredential) async throws -> ExchangeResponse {
        // The token "T-dormant" is the SIM of 13900139000, a number `server()` makes dormant; every other 13800138000.
        ExchangeResponse(code: credential.flow == .mobile ? "103000" : "0", phoneNumber: try PhoneNumber(credential.token == Secret("T-dormant") ? "13900139000" : "13800138000"))
    }
}

/// The integrator's own check of an account's password: only "dormant-owner" has one here.
struct MyPasswords {
    func matches(_ account: AccountID, _ typed: Secret) async throws -> Bool {
        account == "dormant-owner" && typed == Secret("the owner's password")
    }
}

struct AliyunSMS: SMSSender {
    let delivered = LockedBox<[SMSMessage]>([])
    func send(_ message: SMSMessage) async throws { delivered.mutate { $0.append(message) } }
}

final class LockedBox<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func mutate<R>(_ body: (inout Value) -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}

@Suite struct ReadmeSnippets {
    @Test func decisions() throws {
        // README: decisions
        let engine = LoginDecisionEngine()                         // the built-in tables from Data/
        let plan = engine.plan(for: DeviceSnapshot(sim: .present, plmn: try PLMN("46000"), network: .both))
        // plan.flows == [.mobile, .sms], plan.carrier == .mobile, plan.evidence == .plmn
        let decision = engine.next(after: .mobile, code: "200020", in: plan)
        // decision.step == .finish(.cancelled): the user closed the page; no SMS page is pushed on them
        // README: end
        #expect(plan.flows == [.mobile, .sms] && plan.carrier == .mobile && plan.evidence == .plmn)
        #expect(decision.step == .finish(.cancelled))
    }

    @Test func clientAddress() async throws {
        let loginSessions = InMemoryLoginSessionStore(), loginQuotas = InMemoryLoginQuotaStore()
        let sessions = AppSessions(keys: try ServerKeyRing([(try KeyID("k1"), try ServerKey(bytes: [UInt8](repeating: 1, count: 32)))]))
        let me = try sessions.authenticate(try await sessions.open().accessToken.reveal())
        let snapshot = DeviceSnapshot(sim: .present, plmn: try PLMN("46000"), network: .both), deviceHeader = "device-7f3a"
        let sms = SMSCodeService(key: .random(), sender: AliyunSMS(), captcha: ScriptedCaptchaVerifier(accepting: ["solved"]), events: DiscardingEventSink())
        // README: client address
        let addresses = try ClientAddress(trustedProxies: ["10.0.0.0/8", "2001:db8:1::/48"])   // your own proxies, nothing else
        let limited = LoginServer(store: loginSessions, sms: sms, quotas: LoginQuotas(store: loginQuotas))  // sms: with its CaptchaVerifier
        // in each handler: the socket's peer, and X-Forwarded-For believed only as far as listed proxies vouch for it
        let client = addresses.resolve(peer: try IPAddress("10.0.0.7"), forwardedFor: ["198.51.100.1, 203.0.113.9, 10.0.0.8"])
        // client == 203.0.113.9: the leftmost entry is the client's own claim, never taken
        let started = try await limited.start(snapshot, for: me, address: client, device: try DeviceID(deviceHeader))
        // the same address and device go to report(…), and into SMSContext; `over-quota` → 429, `captcha-required` → 428
        // README: end
        #expect(client == (try IPAddress("203.0.113.9")))
        #expect(started.session.version == 1)
    }

    @Test func server() async throws {
        let loginSessions = InMemoryLoginSessionStore(), ledger = InMemoryExchangeLedger(), accountDirectory = FaultyAccountDirectory(InMemoryAccountDirectory())
        let loginQuotas = InMemoryLoginQuotaStore(), passwords = MyPasswords()
        let sessions = AppSessions(keys: try ServerKeyRing([(try KeyID("k1"), try ServerKey(bytes: [UInt8](repeating: 1, count: 32)))]))
        let sms = SMSCodeService(key: .random(), sender: AliyunSMS(), captcha: ScriptedCaptchaVerifier(accepting: ["solved"]), events: DiscardingEventSink())
        // README: server
        let logins = LoginServer(
            store: loginSessions, exchange: ExchangeGuard(provider: MyCarrierExchange(), ledger: ledger),
            sms: sms,                                                  // the SMS step; its CaptchaVerifier passes the quotas' captcha rules
            quotas: LoginQuotas(store: loginQuotas),                   // Data/login-quotas.csv: without them nothing bounds starts or paid exchanges
            appSessions: sessions)                                     // an app that logged in with a number keeps SMS room for it
        let accounts = AccountLogin(directory: accountDirectory)       // seed 002: a new number gets an account

        // POST /login            Authorization: Bearer <access token>; body: the app's DeviceSnapshot
        // client: the address ClientAddress resolved (below); device: the app's device id header, if it sent one;
        // captcha: the token of the captcha the user solved after a 428, if any
        func start(_ bearer: String, _ body: Data, _ client: IPAddress, _ device: DeviceID?, _ captcha: String?) async -> (status: Int, body: String) {
            await answer {
                let me = try await sessions.live(bearer).claims          // the app session, not logged out; AppSessionError → 401
                let started = try await logins.start(
                    try DeviceSnapshot(json: body), for: me, address: client, device: device, captcha: captcha.map { Secret($0) })
                return (201, #"{"session":"\#(started.session.id)","version":1,"next":"\#(started.instruction)"}"#)
            }
        }

        // POST /login/{id}       Authorization: Bearer …; body: what the carrier SDK answered, and the version the app acted on;
        // captcha: the token of the captcha the user solved after a 428 to this report (an exchange quota filled meanwhile)
        func report(
            _ bearer: String, _ id: String, _ report: LoginReport, version: Int, _ client: IPAddress, _ device: DeviceID?, _ captcha: String? = nil
        ) async -> (status: Int, body: String) {
            await answer {
                let me = try await sessions.live(bearer).claims          // checked against the store: not logged out
                let next = try await logins.report(
                    report, to: try LoginSessionID(id), version: version, from: me, address: client, device: device, captcha: captcha.map { Secret($0) })
                guard case .done(.success, let flow?, let verified?) = next.instruction else {
                    return (200, #"{"version":\#(next.session.version),"next":"\#(next.instruction)"}"#)
                }
                return try await finish(me, flow, verified, continued: next.continued)   // the interrupted action (again on a retry)
            }
        }

        // POST /login/{id}/account   Authorization: Bearer …: the account step again, after a 503 above (a store
        // was down), or after a 403 second-factor with what the user typed for it: the account's password here (or an
        // email code: never an SMS code or a one-tap of this number, which the number's new holder receives too)
        func account(_ bearer: String, _ id: String, password: Secret?) async -> (status: Int, body: String) {
            await answer {
                let me = try await sessions.live(bearer).claims
                let success = try await logins.success(of: try LoginSessionID(id), from: me)   // this app session's login only
                guard case .done(.success, let flow?, let verified?) = success.instruction else { return (409, "not a success") }
                return try await finish(me, flow, verified, continued: success.continued, password: password)
            }
        }

        // After a success: the number's account, found or created (seed 002); the app session moves to it, with new credentials
        func finish(
            _ me: AccessClaims, _ flow: LoginFlow, _ verified: VerifiedLogin, continued: PendingAction? = nil, password: Secret? = nil
        ) async throws -> (status: Int, body: String) {
            let account = try await accounts.resolve(verified) { owner in   // asked only for a dormant number (二次号), with its own account
                guard let password else { return false }
                return try await passwords.matches(owner, password)        // that account's password, limited per account as your
                                                                           // password login is (OneTap does not count failures)
            }
            guard !account.dormant else {                                // the account is not named: the new holder may be reading
                return (403, #"{"next":"second-factor"}"#)                // show the password page, then POST /login/{id}/account
            }
            let grant = try await sessions.loggedIn(me, as: account, flow: flow)
            let resume = continued.map { #","continue":{"action":"\#($0.action)","key":"\#($0.key)"}"# } ?? ""   // seed 000: carry on with it
            return (200, #"{"next":"done","created":\#(account.created),"accessToken":"\#(grant.accessToken.reveal())","refreshToken":"\#(grant.refreshToken.reveal())"\#(resume)}"#)
        }

        // Errors to HTTP statuses, for every handler above
        func answer(_ handle: () async throws -> (status: Int, body: String)) async -> (status: Int, body: String) {
            do {
                return try await handle()
            } catch let error as AppSessionError {
                guard error.kind != .dormantNumber else { return (403, #"{"next":"second-factor"}"#) }
                return (401, "\(error)")                                  // open a new session or log in again
            } catch let rejection as LoginRejection {
                switch rejection.kind {
                case .staleVersion, .unknownVersion, .alreadyExchanged, .wrongFlow, .unexpected, .ended:
                    return (409, "\(rejection)")                         // out of step (a replay, a double submit): read the status again
                case .expired: return (410, "\(rejection)")              // start a new login
                case .unknownSession: return (404, "\(rejection)")       // no such login, or another app session's
                case .unverifiedSMS: return (403, "\(rejection)")        // an SMS success comes from verifySMS only
                case .overQuota: return (429, "\(rejection)")            // LoginQuotas: too many; send Retry-After: rejection.retryAt
                case .captchaRequired: return (428, "\(rejection)")      // past an address's quota: show a captcha, start (or report) again with it
                default: return (422, "\(rejection)")                    // a report the session cannot take
                }
            } catch is ParseError {
                return (400, "malformed login id")                      // the client's own input: never a 5xx
            } catch is DecodingError {
                return (400, "malformed body")
            } catch let error as StoreError where error.kind == .conflict || error.kind == .duplicate {
                return (409, "\(error.kind)")                            // the number is bound elsewhere, or a write raced: read again
            } catch {
                return (503, "a store is unavailable; try again")       // nothing was changed, or POST …/account again
            }
        }
        // README: end
        let client = try IPAddress("203.0.113.9")
        let guest = try await sessions.open()
        let bearer = guest.accessToken.reveal()
        let started = await start(bearer, Data(#"{"sim":"present","plmn":"46000"}"#.utf8), client, nil, nil)
        #expect(started.status == 201 && started.body.contains(#""next":"run mobile (attempt 1)""#))
        let id = String(started.body.split(separator: "\"")[3])
        let credential = CarrierCredential(flow: .mobile, token: Secret("T1"), uniqueID: "u1")
        // Another app session cannot report to this login, even knowing its id.
        let stranger = try await sessions.open().accessToken.reveal()
        #expect(await report(stranger, id, .result(.mobile, code: "103000", credential: credential), version: 1, client, nil).status == 404)
        // The directory is down when the success comes: 503, and the login is finished by a later request.
        accountDirectory.faults.inject(.refuse(.io, "the directory is down"), into: [.account])
        let failed = await report(bearer, id, .result(.mobile, code: "103000", credential: credential), version: 1, client, nil)
        #expect(failed.status == 503, "\(failed)")
        #expect(await account(stranger, id, password: nil).status == 404)
        // A second passes before the account step, as the user's tap and the carrier's page take: access tokens
        // carry whole seconds, and the login's own account credentials must read as issued after it started
        // (within one second they count as older, so a replay below would be told the success again).
        try await Task.sleep(for: .seconds(1))
        let done = await account(bearer, id, password: nil)
        #expect(done.status == 200 && done.body.contains(#""created":true"#) && done.body.contains("accessToken"), "\(done)")
        // The guest's token no longer counts after the login (no fixation); the account's new one does.
        #expect(await report(bearer, id, .result(.mobile, code: "103000", credential: credential), version: 1, client, nil).status == 401)
        let fields = done.body.split(separator: "\"")
        let at = try #require(fields.firstIndex(of: "accessToken"))
        let accountBearer = String(fields[at + 2])
        let replay = await report(accountBearer, id, .result(.mobile, code: "103000", credential: credential), version: 1, client, nil)
        #expect(replay.status == 409, "the login ended: out of step, as LoginRejection's documentation maps it: \(replay)")
        #expect(await report(accountBearer, LoginSessionID.random().text, .timeout(.mobile), version: 1, client, nil).status == 404)
        // The client's own malformed input is a 400, never a 5xx (an attacker's read: any guest could make 503s at will).
        #expect(await report(accountBearer, "not a login id!", .timeout(.mobile), version: 1, client, nil).status == 400)
        #expect(await start(accountBearer, Data("not json".utf8), client, nil, nil).status == 400)
        #expect(await report("forged", id, .timeout(.mobile), version: 2, client, nil).status == 401)

        // A number last verified 200 days ago (二次号?): 403 until the integrator's own second factor passes for the
        // number's own account, then the account step with it logs in (the review of 2026-12-04: the handler asked again).
        _ = try await accountDirectory.findOrCreate(try PhoneNumber("13900139000"), newID: "dormant-owner", at: Date().addingTimeInterval(-200 * 86_400))
        let later = try await sessions.open().accessToken.reveal()
        let second = await start(later, Data(#"{"sim":"present","plmn":"46000"}"#.utf8), client, nil, nil)
        let secondID = String(second.body.split(separator: "\"")[3])
        let dormant = await report(later, secondID, .result(.mobile, code: "103000", credential: CarrierCredential(flow: .mobile, token: Secret("T-dormant"), uniqueID: "u2")), version: 1, client, nil)
        #expect(dormant.status == 403 && dormant.body.contains("second-factor") && !dormant.body.contains("dormant-owner"), "\(dormant)")
        // A wrong password (the new holder's own, or none) confirms nothing: 403 again, the owner's account not named.
        for typed in [Secret("the new holder's own password"), nil] {
            let refused = await account(later, secondID, password: typed)
            #expect(refused.status == 403 && refused.body.contains("second-factor") && !refused.body.contains("dormant-owner"), "\(refused)")
        }
        // No second to wait here: the credentials of the account step are the ones the login started with.
        let confirmed = await account(later, secondID, password: Secret("the owner's password"))
        #expect(confirmed.status == 200 && confirmed.body.contains(#""created":false"#), "\(confirmed)")

        // Behind a carrier NAT address that 60 strangers' starts filled this minute: 428, then 201 with a solved captcha.
        let nat = try IPAddress("198.51.100.77")
        for index in 0..<60 {
            let flood = await start(try await sessions.open().accessToken.reveal(), Data(#"{"sim":"present"}"#.utf8), nat, try DeviceID("flood-\(index)"), nil)
            #expect(flood.status == 201, "\(flood)")
        }
        let neighbour = try await sessions.open().accessToken.reveal()
        let asked = await start(neighbour, Data(#"{"sim":"present","plmn":"46000"}"#.utf8), nat, nil, nil)
        #expect(asked.status == 428 && asked.body.contains("ip-starts-minute"), "\(asked)")
        #expect(await start(neighbour, Data(#"{"sim":"present","plmn":"46000"}"#.utf8), nat, nil, "solved").status == 201)
    }

    @Test func tokens() async throws {
        let tokenStore = InMemoryTokenStore()
        let token = AccessToken(value: Secret("t"), refreshToken: Secret("r"), flow: .tianyi, account: "user-42", receivedAt: Date(), expiresIn: nil)
        let events = DiscardingEventSink()
        // README: tokens
        let vault = TokenVault(store: tokenStore, refresher: MyTianyiRefresher(), events: events)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await vault.run() }                  // refreshes due tokens until shutdown
            try await vault.store(token)                              // after a Tianyi login
            let current = try await vault.validToken(for: "user-42")  // never expired; a stale one refreshes behind the caller
            print(current)                                            // AccessToken(tianyi, account user-42, …, <redacted>)
            await vault.shutdown()                                    // graceful: refreshes under way finish first
            try await group.waitForAll()
        }
        // README: end
        #expect(try await tokenStore.load("user-42") != nil)
    }

    @Test func events() async throws {
        // README: events
        let (stream, sink) = EventStream.make(bufferingNewest: 10_000)
        let vault = TokenVault(refresher: MyTianyiRefresher(), events: sink)   // or LoginServer, SMSCodeService …
        // on a task of the server's own:  for await event in stream { metrics.count(event.area, event.name) }
        // README: end
        _ = vault
        sink.finish()
        for await _ in stream {}
    }

    @Test func sms() async throws {
        let shared = InMemorySMSStore()
        let clientIP = try IPAddress("203.0.113.7"), device = try DeviceID("9774d56d682e549c")
        let gateway = AliyunSMS()
        let keysText = "2026-12:q83vEjRWeJq83vEjRWeJq83vEjRWeJq83vEjRWeJq80="
        // README: sms
        let sms = SMSCodeService(keys: try ServerKeyRing(parsing: Secret(keysText)), sender: gateway, store: shared)   // ONETAP_SERVER_KEYS
        let session = LoginSessionID.random()   // a login's own (LoginServer's), or one handed to the client with the send
        let context = SMSContext(ip: clientIP, device: device, session: session)
        switch try await sms.send(to: "+86 138 0013 8000", context: context) {
        case .sent(let expiresAt, let resendAfter): print("sent; valid until \(expiresAt), resend from \(resendAfter)")
        case .captchaRequired(let rule, _): print("428: show a captcha (\(rule)), then send again with its token")
        case .limited(_, let retryAfter), .senderFailed(let retryAfter): print("429, Retry-After \(retryAfter)")
        case .refused(let refusal): print("422: \(refusal.message)")
        }
        // later, POST /sms/verify {"code": "…"}
        let result = try await sms.verify(Secret("123456"), for: try PhoneNumber("13800138000"), context: context)
        // .verified(verdict), .wrong(attemptsLeft:), .expired, .tooManyAttempts, .noCode, .throttled(rule:retryAfter:), .captchaRequired(rule:rejected:),
        // .locked(rule:until:) (only with a `lock` rule: the built-in policy has none)
        // README: end
        #expect(gateway.delivered.mutate { $0.count } == 1)
        if case .verified = result { Issue.record("a guessed code must not verify") }
    }

    @Test func appSessions() async throws {
        let keysText = "2026-12:\(Base64.urlEncoded(Array(repeating: UInt8(7), count: 32)))"
        let appSessionStore = InMemoryAppSessionStore()
        let dataStore = InMemoryGuestDataStore()
        let outcome = TestAppSession.outcome("42")   // what AccountLogin.resolve answers a verified login
        // README: app-sessions
        let keys = try ServerKeyRing(parsing: Secret(keysText))         // ONETAP_SERVER_KEYS or a key file: id:base64 lines
        let sessions = AppSessions(keys: keys, store: appSessionStore)     // share the store across instances
        // POST /session          first open: a guest session
        let guest = try await sessions.open()                              // accessToken (2 h), refreshToken (returned once)
        // any request            Authorization: Bearer <access token>: checked without a store read
        let me = try sessions.authenticate(guest.accessToken.reveal())     // me.identity acts; me.session is the app session
        // a login in this app session verified a number; `outcome = try await accounts.resolve(verified)` is account "42":
        let account = try await sessions.loggedIn(me, as: outcome, flow: .mobile)   // new credentials
        if let former = account.formerGuest {
            _ = try await GuestMerger(store: dataStore).merge(former, into: "42")   // this session's guest, never one a request names
        }
        // POST /session/refresh  on every app open: a new refresh token each time, the same one for a retry within 30 s
        let next = try await sessions.refresh(account.refreshToken)
        // POST /logout           the session is revoked; the app goes on as a fresh guest
        let fresh = try await sessions.logout(try sessions.authenticate(next.accessToken.reveal()))
        // README: end
        #expect(fresh.session != guest.session && next.identity == .account("42"))
    }

    @Test func guests() async throws {
        let dataStore = InMemoryGuestDataStore()
        let sessions = AppSessions(keys: try ServerKeyRing([(try KeyID("k1"), try ServerKey(bytes: [UInt8](repeating: 1, count: 32)))]))
        let bearer = try await sessions.open().accessToken.reveal()
        let outcome = TestAppSession.outcome("42")
        // README: guests
        let me = try sessions.authenticate(bearer)                           // who acts: the app session's guest or account
        switch LoginGate.builtIn.decide("favourite", for: me.identity) {
        case .allow: print("favourite it")
        case .requireLogin(let rule):                                        // 登录后可进行收藏操作
            let pending = try PendingAction(action: "favourite", payload: .object(["item": "v42"]), at: Date())
            print(rule.promptZH, pending.key)                                 // LoginServer.start(snapshot, for: me, pending: pending)
        }                                                                    // carries it; the success hands it back (`continued`)
        // after the login succeeded in this app session, and AccountLogin.resolve answered account "42" (outcome):
        let grant = try await sessions.loggedIn(me, as: outcome, flow: .mobile)
        if let former = grant.formerGuest {
            let journal = try await GuestMerger(store: dataStore).merge(former, into: "42")
            print(journal.plan)                                              // what moved, merged and stayed with the guest
        }
        print(grant.lastLogin as Any)                                        // one-tap (mobile) 138****8000: this session's hint,
                                                                             // kept by its logout's fresh guest session, for the login page
        // README: end
        #expect(grant.identity == .account("42") && grant.formerGuest != nil)
        #expect(grant.lastLogin?.maskedNumber == "138****8000")
    }

    /// The faulty-stores block over the public set of in-memory stores (the in-memory store types are the package's).
    @Test func faultyStoresOverTheInMemoryStores() async throws {
        let machine = LoginSessionMachine()
        let start = Date(timeIntervalSince1970: 1_796_083_200)
        let v1 = machine.start(DeviceSnapshot(sim: .present, plmn: try PLMN("46000")), at: start, id: .random()).session
        let v2 = try machine.advance(v1, .result(.mobile, code: "200023"), version: 1, at: start.addingTimeInterval(1)).session
        // README: faulty-stores over InMemoryStores
        let sessions = FaultyLoginSessionStore(InMemoryStores().loginSessionStore())
        sessions.faults.inject(.refuse(.io, "the database is down"), into: [.replace], after: 1, times: nil)
        // the first replace goes through, every later one throws StoreError `io`, until sessions.faults.heal()
        // README: end
        try await sessions.create(v1)
        try await sessions.replace(v2, expecting: 1)
        await #expect { try await sessions.replace(v2, expecting: 2) } throws: { ($0 as? StoreError)?.kind == .io }
        sessions.faults.heal()
        #expect(try await sessions.load(v1.id) == v2)
    }

    @Test func verificationQuota() async throws {
        let gateway = ScriptedNumberVerifier()
        let ledger = InMemoryStores().exchangeLedger()
        let loginQuotas = InMemoryStores().loginQuotaStore()
        let credential = CarrierCredential(flow: .mobile, token: Secret("readme-verify-token"))
        let typed = try PhoneNumber("13800138000")
        let provenAccount = "42"
        // README: verification quota
        let verification = NumberVerificationService(
            provider: gateway, ledger: ledger,
            quota: try NumberVerificationQuota(limit: 20, per: .seconds(3600), store: loginQuotas))
        let answer = try await verification.verify(credential, number: typed, caller: provenAccount)  // what your auth proved, as text
        // README: end
        #expect(answer.verdict == .pass)
    }
}
