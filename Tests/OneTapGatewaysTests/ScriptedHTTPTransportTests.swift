import Foundation
import OneTap
import OneTapTesting
import Testing

/// The scripted transport keeps the transport's contract: time-outs on its clock, the body bound, cancellation.
@Suite(.timeLimit(.minutes(3))) struct ScriptedHTTPTransportTests {
    static func request(timeout: Duration = .seconds(5), limit: Int = 100) throws -> HTTPRequest {
        HTTPRequest(gateway: "fake", method: "POST", url: try #require(URL(string: "https://example.invalid/x")), body: [1, 2, 3], timeout: timeout, maximumResponseBytes: limit)
    }

    @Test func itAnswersInTurnAndRecordsEveryRequest() async throws {
        let transport = ScriptedHTTPTransport([.answer(HTTPResponse(status: 200)), .fail(GatewayError(gateway: "fake", .unreachable("refused")))])
        #expect(try await transport.send(try Self.request()).status == 200)
        await #expect(throws: GatewayError(gateway: "fake", .unreachable("refused"))) { try await transport.send(try Self.request()) }
        #expect(try await transport.send(try Self.request()).status == 599)
        #expect(transport.requests.count == 3)
        #expect(transport.requests.first?.body == [1, 2, 3])
    }

    @Test func aDelayPastTheTimeOutTimesOutAndABodyOverTheBoundIsRefused() async throws {
        let clock = FakeClock()
        let transport = ScriptedHTTPTransport([.delay(.seconds(10), HTTPResponse(status: 200)), .answer(HTTPResponse(status: 200, body: Array(repeating: 0, count: 101)))], clock: clock)
        let call = Task { try await transport.send(try Self.request(timeout: .seconds(2))) }
        await clock.waitForSleepers()
        clock.advance(by: .seconds(2))
        await #expect(throws: GatewayError(gateway: "fake", .timedOut)) { try await call.value }
        await #expect(throws: GatewayError(gateway: "fake", .bodyTooLarge(limit: 100))) { try await transport.send(try Self.request()) }
    }

    @Test func aHangEndsWhenTheCallerIsCancelled() async throws {
        let transport = ScriptedHTTPTransport([.hang])
        let call = Task { try await transport.send(try Self.request()) }
        try await Task.sleep(for: .milliseconds(50))
        call.cancel()
        await #expect(throws: CancellationError.self) { try await call.value }
    }
}
