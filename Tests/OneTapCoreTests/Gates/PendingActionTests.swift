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
        #expect(error.map { "\($0)".contains("4097 bytes of JSON") } == true)
    }

    @Test(arguments: ["", "Comment", "comment!", String(repeating: "a", count: 65)])
    func aBadActionIsRefused(_ action: String) {
        #expect(throws: ParseError.self) { try PendingAction(action: action, payload: nil, at: Self.now) }
    }

    @Test func itRoundTripsThroughJSONAndHidesThePayload() throws {
        let pending = try PendingAction(action: "comment", payload: .object(["text": .string("好文章 secret-ish")]), at: Self.now)
        let decoded = try JSONDecoder().decode(PendingAction.self, from: try JSONEncoder().encode(pending))
        #expect(decoded == pending)
        #expect(!"\(pending)".contains("好文章"))
        let bad = #"{"key":"k","action":"No Way","createdAt":0,"expiresAt":600}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(PendingAction.self, from: Data(bad.utf8)) }
    }
}
