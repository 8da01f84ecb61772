/// Where OneTap's events go: one protocol for every event the library emits (login steps, token
/// refreshes, and whatever later parts add), in the shape of swift-log's `LogHandler`.
///
/// Inject a sink through the `events:` parameter of the type that emits (``TokenVault``,
/// ``LoginCoordinator``); there is no global bootstrap. The default, ``StandardErrorEventSink``,
/// writes one NDJSON line per event to standard error; ``EventStream`` hands events to an
/// `AsyncStream` for a server that counts and ships them on its own task; `RecordingEventSink` in
/// `OneTapTesting` keeps them for tests. Events never carry a token, a refresh token or an SMS code.
public protocol EventSink: Sendable {
    /// Receives one event. Called from the emitter's task and executor: return quickly and never block.
    /// - Parameter event: The event.
    func receive(_ event: OneTapEvent)
}

/// One event: when it happened (on the emitter's injected clock) and what happened.
///
/// ## The event schema, version 2
///
/// ``json()`` writes one JSON object, one line of NDJSON (what ``StandardErrorEventSink`` writes and
/// `onetap stats` reads): `v` (the schema's version, ``schemaVersion``), `at` (ISO 8601, UTC, with
/// milliseconds), `area` (`login`, `token`, `sms`), `event` (the name), then the payload's fields.
///
/// A login event (area `login`) carries the login's context on every line, so each line stands alone:
/// `session` (the 22-character session id), `carrier` and `evidence` (the plan's), `platform` (only when
/// the device snapshot named one) and `elapsedMs` (whole milliseconds since the login started). Then,
/// by event:
///
/// | event | fields |
/// | --- | --- |
/// | `planned` | `flows` (the plan's, in order), `reason`, `condition` (the policy row: `carrier:mobile`, `mobile-data-off`, …) |
/// | `flow-started` | `flow`, `attempt` (from 1) |
/// | `progress` | `flow`, `code` |
/// | `result` | `flow`, `attempt` (0 for a skipped flow), `code`, `action`, `meaning`, `next` (`attempt sms`, `retry mobile`, `exchange mobile`, `finish success`) |
/// | `fallback` | `from`, `to`, `action` |
/// | `alert` | `flow`, `code` (an SDK's code: what the app reported, a claim; `exchange-…`: the server's exchange), `meaning` |
/// | `succeeded`, `cancelled`, `failed` | `flow` (absent when the login ended before any flow), `ending` (`success`, `cancelled`, `failed`); `failed` also `meaning` |
///
/// A `result` is written for every step of the trace: `code` is the SDK's code, or `timeout`,
/// `provider-error`, `switch`, `cancelled`, `no-phone-number`, `caller-cancelled`, `circuit-open`,
/// `unavailable`, `exchange-<code>`, `exchange-timeout`, `exchange-failed`, `token-expired`,
/// `token-replayed`; a code that would read as one of these (an SDK code `timeout` or `exchange-1`) is
/// written after the mark `code:` (`code:timeout`, `exchange-code:failed`). No event holds a token, an
/// SMS code or a whole phone number: numbers in any text are masked (`138****8000`). Version 1 wrote login events without the context, with separate `timeout`,
/// `exchange` and `skipped` events and a nested `plan`; readers tell the two apart by `v`.
///
/// An account event (area `account`): `dormant-number`, with `account`, `number` (masked) and
/// `previouslyVerifiedAt` (ISO 8601): a login verified a number unverified for longer than ``AccountLogin``'s limit;
/// `dormant-number-confirmed`, with the same members: such a login was recorded after the account's own second
/// factor passed.
///
/// An exchange event (area `exchange`): `settle-failed`, with `token` (the first 8
/// hexadecimal digits of the token's SHA-256, never the token), `state` (what was to be recorded) and
/// `reason`: the exchange ledger could not record how a paid exchange ended; reconcile it; `quota-missing`: a login
/// server was made without login quotas; `exchange-off`: one was made with a machine that makes no exchange (a
/// one-tap success then ends on the client's word, with no number); `quota-refused`, with
/// `counts` (`starts`, `exchanges`), `rule` and `outcome` (`over-quota`, `captcha-required`, `captcha-rejected`,
/// `captcha-unchecked`, `captcha-waits`): the login quotas refused a start or a paid exchange (never the client's
/// address, device or token).
///
/// A database event (area `database`): `weak-tls`, with `sslmode` and `hosts`: a PostgreSQL
/// connection to a TCP host was configured not to check the server's certificate; `unsealed-tokens`, with
/// `schema`: a PostgreSQL token store was made without a keyring, so carrier tokens are stored unsealed;
/// `refresh-lease-lost`, with `schema` and `account`: another instance took an account's refresh lease while
/// this one refreshed, so two refreshes may have overlapped.
///
/// A verification event (area `verify`): `verified`, with `token` (the first 8 hexadecimal digits of the
/// verification's ledger key, never the token), `flow`, `gateway`, `code` (absent when the gateway gave none),
/// `verdict` (`pass`, `reject`, `unknown`), `billed` (`yes`, `no`, `maybe`) and `reason` (`answered`,
/// `token-expired`, `token-replayed`, `not-sent`, `timeout`, `cancelled`, `fault`); `settle-failed`, with `token`, `state` and
/// `reason`: the ledger could not record how a verification ended; `quota-missing`, with `gateway`: a
/// ``NumberVerificationService`` was made without a quota. Never a number.
///
/// A store event (area `store`): `swept`, with `store` (the swept store's name) and
/// `removed`: a round of ``ExpiredRecordSweeper`` removed expired records; `sweep-failed`, with `store`,
/// `removed` (before the failure) and `reason`: the store failed, the next round tries again.
///
/// ```json
/// {"v":2,"at":"2026-12-01T08:00:01.250Z","area":"login","event":"result","session":"q3Vn0cS2Qb-7rZ1eXo9y4w","carrier":"mobile","evidence":"plmn","platform":"ios","elapsedMs":1250,"flow":"mobile","attempt":1,"code":"103000","action":"success","meaning":"success: token obtained: exchange the token","next":"exchange mobile"}
/// ```
public struct OneTapEvent: Hashable, Sendable, CustomStringConvertible, JSONWritable {
    /// The version of the event schema this type writes: 2.
    public static let schemaVersion = 2

    /// What happened.
    package enum Payload: Hashable, Sendable {
        /// A step of a login (``LoginCoordinator``, ``LoginServer``), and the login it belongs to.
        case login(LoginEvent, LoginContext)
        /// A token was stored, refreshed, or could not be (``TokenVault``).
        case token(TokenEvent)
        /// An SMS code was sent, verified, or refused (``SMSCodeService``).
        case sms(SMSEvent)
        /// An app session was opened, refreshed, logged in or revoked, or its login's merge left kinds with the guest
        /// (``AppSessions``).
        case appSession(AppSessionEvent)
        /// A login by number verified a dormant number, or one its account's second factor confirmed (``AccountLogin``).
        case account(AccountEvent)
        /// The record of a paid exchange could not be written (``ExchangeGuard``).
        case exchange(ExchangeEvent)
        /// A database store's connection is less protected than it should be (`OneTapPostgres`).
        case database(DatabaseEvent)
        /// A sweep of a store's expired records removed some, or failed (``ExpiredRecordSweeper``).
        case store(StoreEvent)
        /// A number verification ended, or its end could not be recorded (``NumberVerificationService``).
        case verify(VerificationEvent)
    }

    /// When it happened, by the emitter's clock.
    public let at: Date
    /// What happened.
    package let payload: Payload

    /// Creates an event.
    /// - Parameters:
    ///   - at: When it happened.
    ///   - payload: What happened.
    package init(at: Date, _ payload: Payload) {
        self.at = at
        self.payload = payload
    }

    /// The event's name, e.g. `refreshed` or `flow-started`.
    public var name: String {
        switch payload {
        case .login(let event, _): event.name
        case .token(let event): event.name
        case .sms(let event): event.name
        case .appSession(let event): event.name
        case .account(let event): event.name
        case .exchange(let event): event.name
        case .database(let event): event.name
        case .store(let event): event.name
        case .verify(let event): event.name
        }
    }

    /// The area it belongs to: `login`, `token`, `sms`, `app-session`, `account`, `exchange`, `database`, `store` or `verify`.
    public var area: String {
        switch payload {
        case .login: "login"
        case .token: "token"
        case .sms: "sms"
        case .appSession: "app-session"
        case .account: "account"
        case .exchange: "exchange"
        case .database: "database"
        case .store: "store"
        case .verify: "verify"
        }
    }

    /// `2026-12-01T00:00:00.000Z token refreshed account 42 (tianyi) until …`: like the event's line, it holds
    /// no whole phone number (a provider's or a refresher's message quoting one is masked).
    public var description: String { PhoneNumber.maskingNumbers(in: unmaskedDescription) }

    private var unmaskedDescription: String {
        switch payload {
        case .login(let event, let context): "\(at.iso8601) login \(context.session) \(event)"
        case .token(let event): "\(at.iso8601) token \(event)"
        case .sms(let event): "\(at.iso8601) sms \(event)"
        case .appSession(let event): "\(at.iso8601) app-session \(event)"
        case .account(let event): "\(at.iso8601) account \(event)"
        case .exchange(let event): "\(at.iso8601) exchange \(event)"
        case .database(let event): "\(at.iso8601) database \(event)"
        case .store(let event): "\(at.iso8601) store \(event)"
        case .verify(let event): "\(at.iso8601) verify \(event)"
        }
    }

    /// The event's line of the schema: `{"v":2,"at":"…","area":"token","event":"refreshed",…}`, the
    /// version, the time, the area, then the payload's own members (a login event's context first; see
    /// above), without a line break.
    /// - Returns: The JSON text.
    /// - Complexity: O(*n*) in the length of the line.
    public func json() -> String {
        var writer = JSONWriter(capacity: 256)
        do {
            try write(to: &writer)
        } catch {
            // Events hold strings, integers and finite numbers only; say so if one ever cannot be written.
            return Self.unencodable(name)
        }
        return writer.text
    }

    /// Writes the event's line (``json()``).
    /// - Parameter writer: The writer.
    /// - Throws: ``JSONWriteError`` for a number JSON cannot hold (no event holds one).
    package func write(to writer: inout JSONWriter) throws(JSONWriteError) {
        try writer.object { (writer) throws(JSONWriteError) in
            writer.member("v", Self.schemaVersion)
            writer.member("at", at.iso8601)
            writer.member("area", area)
            switch payload {
            case .login(let event, let context): event.writeMembers(to: &writer, context: context, at: at)
            case .token(let event): try event.writeMembers(to: &writer)
            case .sms(let event): event.writeMembers(to: &writer)
            case .appSession(let event): event.writeMembers(to: &writer)
            case .account(let event): event.writeMembers(to: &writer)
            case .exchange(let event): event.writeMembers(to: &writer)
            case .database(let event): event.writeMembers(to: &writer)
            case .store(let event): event.writeMembers(to: &writer)
            case .verify(let event): event.writeMembers(to: &writer)
            }
        }
    }

    /// The line that stands for an event that could not be written: `{"v":2,"area":"events","event":"unencodable","name":…}`.
    /// - Parameter name: The event's name.
    /// - Returns: The line, without a line break.
    package static func unencodable(_ name: String) -> String {
        var writer = JSONWriter(capacity: 96)
        writer.object { writer in
            writer.member("v", schemaVersion)
            writer.member("area", "events")
            writer.member("event", "unencodable")
            writer.member("name", name)
        }
        return writer.text
    }
}

/// Drops every event.
public struct DiscardingEventSink: EventSink {
    /// Creates a sink that drops every event.
    public init() {}

    /// Drops the event.
    /// - Parameter event: The event.
    public func receive(_ event: OneTapEvent) {}
}

/// Events as an `AsyncStream`, for a server that logs and counts them on its own task.
public struct EventStream: EventSink {
    private let continuation: AsyncStream<OneTapEvent>.Continuation

    /// Makes a stream and the sink that feeds it.
    /// - Parameter limit: How many unread events to keep; beyond it the oldest are dropped.
    /// - Returns: The stream to read and the sink to inject.
    public static func make(bufferingNewest limit: Int = 1000) -> (stream: AsyncStream<OneTapEvent>, sink: EventStream) {
        let (stream, continuation) = AsyncStream<OneTapEvent>.makeStream(bufferingPolicy: .bufferingNewest(max(1, limit)))
        return (stream, EventStream(continuation: continuation))
    }

    /// Hands the event to the stream.
    /// - Parameter event: The event.
    public func receive(_ event: OneTapEvent) {
        continuation.yield(event)
    }

    /// Ends the stream.
    public func finish() {
        continuation.finish()
    }
}
