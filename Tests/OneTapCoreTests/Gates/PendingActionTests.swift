import Foundation
import Testing
@testable import OneTapCore

@Suite struct PendingActionTests {
    static let now = Date(timeIntervalSince1970: 1_796_090_400.25)

    @Test func itLivesTenMinutes() throws {
        let pending = try PendingAction(action: "favourite", payload: .object(["item": .string("v42")]), at: Self.now)
        #expect(pending.expiresAt == Self.now.addingTimeInterval(600))
        #expect(pending.isLive(at: Self.now.addingTimeInterval(599.999)))
        #expect(!pending.isLive(at: Self.now.addingTimeInterval(600)))
        #expect(pending.key.utf8.count == 22)
        #expect(try PendingAction(action: "favourite", payload: nil, at: Self.now).key != pending.key, "each pending action has its own key")
    }

    @Test func thePayloadHasAtMost4KiB() throws {
        // {"t":"…"} is 8 bytes around the text.
        let fits = JSONValue.object(["t": .string(String(repeating: "a", count: 4096 - 8))])
        #expect(fits.json.utf8.count == 4096)
        _ = try PendingAction(action: "comment", payload: fits, at: Self.now)
        let over = JSONValue.object(["t": .string(String(repeating: "a", count: 4096 - 7))])
        let error = #expect(throws: ParseError.self) { try PendingAction(action: "comment", payload: over, at: Self.now) }
        #expect(error?.kind == .outOfRange)
        #expect(error.map { "\($0)".contains("more than 4096 bytes of JSON") } == true)
        // Sixteen MiB are refused so too (their length's lower bound passes the limit long before their end).
        let huge = JSONValue.array(Array(repeating: .string(String(repeating: "b", count: 1 << 16)), count: 256))
        #expect(throws: ParseError.self) { try PendingAction(action: "comment", payload: huge, at: Self.now) }
    }

    @Test(arguments: ["", "Comment", "comment!", String(repeating: "a", count: 65)])
    func aBadActionIsRefused(_ action: String) {
        #expect(throws: ParseError.self) { try PendingAction(action: action, payload: nil, at: Self.now) }
    }

    /// An action as its session's JSON holds it (`createdAtMs`, `expiresAtMs`), read back.
    static func roundTrip(_ action: PendingAction) throws -> PendingAction {
        var writer = JSONWriter()
        try action.write(to: &writer)
        return try read(writer.text)
    }

    static func read(_ json: String) throws -> PendingAction {
        try JSONReader.read(json.utf8) { (reader) throws(JSONReadError) in
            var instants = StoredInstants(legacy: .unix)
            return try PendingAction(reading: &reader, &instants)
        }
    }

    @Test func itRoundTripsThroughJSONAndHidesThePayload() throws {
        let pending = try PendingAction(action: "comment", payload: .object(["text": .string("好文章 secret-ish")]), at: Self.now)
        #expect(try Self.roundTrip(pending) == pending)
        #expect(!"\(pending)".contains("好文章"))
        #expect(throws: JSONReadError.self) { try Self.read(#"{"key":"k","action":"No Way","createdAtMs":0,"expiresAtMs":600000}"#) }
        #expect(throws: JSONReadError.self) { try Self.read(#"{"key":"k","action":"No Way","createdAt":0,"expiresAt":600}"#) }
    }

    /// A JSON `null` payload is no payload: JSON reads `"payload":null` as absent, so keeping `.null`
    /// would make an action that does not read back as made.
    @Test func aNullPayloadIsNoPayload() throws {
        let action = try PendingAction(action: "favourite", payload: .null, at: Date(timeIntervalSince1970: 0))
        #expect(action.payload == nil)
        #expect(try Self.roundTrip(action) == action)
    }

    @Test func thePayloadNestsAtMost500Levels() throws {
        let deepest = (0..<500).reduce(JSONValue.null) { inner, _ in .array([inner]) }
        #expect(try PendingAction(action: "favourite", payload: deepest, at: Date(timeIntervalSince1970: 0)).payload == deepest)
        #expect(throws: ParseError.self) { try PendingAction(action: "favourite", payload: .object(["a": deepest]), at: Date(timeIntervalSince1970: 0)) }
    }
}
