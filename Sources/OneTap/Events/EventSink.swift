#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
public struct OneTapEvent: Hashable, Sendable, Encodable, CustomStringConvertible {
    /// What happened.
    public enum Payload: Hashable, Sendable {
        /// A step of a login (``LoginCoordinator``).
        case login(LoginEvent)
        /// A token was stored, refreshed, or could not be (``TokenVault``).
        case token(TokenEvent)
        /// An SMS code was sent, verified, or refused (``SMSCodeService``).
        case sms(SMSEvent)
    }

    /// When it happened, by the emitter's clock.
    public let at: Date
    /// What happened.
    public let payload: Payload

    /// Creates an event.
    /// - Parameters:
    ///   - at: When it happened.
    ///   - payload: What happened.
    public init(at: Date, _ payload: Payload) {
        self.at = at
        self.payload = payload
    }

    /// The event's name, e.g. `refreshed` or `flow-started`.
    public var name: String {
        switch payload {
        case .login(let event): event.name
        case .token(let event): event.name
        case .sms(let event): event.name
        }
    }

    /// The area it belongs to: `login`, `token` or `sms`.
    public var area: String {
        switch payload {
        case .login: "login"
        case .token: "token"
        case .sms: "sms"
        }
    }

    /// `2026-12-01T00:00:00.000Z token refreshed account 42 (tianyi) until …`.
    public var description: String {
        switch payload {
        case .login(let event): "\(at.iso8601) login \(event)"
        case .token(let event): "\(at.iso8601) token \(event)"
        case .sms(let event): "\(at.iso8601) sms \(event)"
        }
    }

    private enum CodingKeys: String, CodingKey { case v, at, area }

    /// Encodes `{"v":1,"at":"…","area":"token","event":"refreshed",…}`: the version of this schema, the
    /// time, the area, then the payload's own fields.
    /// - Parameter encoder: The encoder.
    /// - Throws: What the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(1, forKey: .v)
        try container.encode(at.iso8601, forKey: .at)
        try container.encode(area, forKey: .area)
        switch payload {
        case .login(let event): try event.encode(to: encoder)
        case .token(let event): try event.encode(to: encoder)
        case .sms(let event): try event.encode(to: encoder)
        }
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
