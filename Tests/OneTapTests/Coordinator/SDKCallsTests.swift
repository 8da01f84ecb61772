import Foundation
import Testing
@testable import OneTap

/// `SDKCalls`: the one-tap SDK calls a coordinator has under way.
@Suite struct SDKCallsTests {
    let start = Date(timeIntervalSince1970: 1_796_112_000)

    /// A review of the first fix: the call was counted only once its work ran, so a login cancelled before then left
    /// nothing counted, and the work still called the SDK later, over a newer login's call. A call is registered
    /// before its work starts, and one its login is done with before it starts never calls the SDK.
    @Test func aCallReleasedBeforeItsWorkStartsNeverCallsTheSDK() {
        let calls = SDKCalls()
        let ticket = calls.begin(.mobile, at: start)
        #expect(calls.isBusy(.mobile, at: start, hold: .seconds(10)), "registered before its work starts")
        calls.release(ticket)
        #expect(!calls.start(ticket))
        #expect(!calls.isBusy(.mobile, at: start, hold: .seconds(10)))
    }

    /// A running call holds its flow, not another, until the SDK answers or its hold has passed since its start.
    @Test func aRunningCallHoldsItsFlowUntilItEndsOrItsHoldPasses() {
        let calls = SDKCalls()
        let ticket = calls.begin(.mobile, at: start)
        #expect(calls.start(ticket))
        calls.release(ticket)   // its login gave up on it: it still runs in the SDK
        #expect(calls.isBusy(.mobile, at: start.addingTimeInterval(9), hold: .seconds(10)))
        #expect(!calls.isBusy(.tianyi, at: start, hold: .seconds(10)))
        #expect(!calls.isBusy(.mobile, at: start.addingTimeInterval(10), hold: .seconds(10)), "an SDK that never answers is called again")
        calls.end(ticket)
        #expect(!calls.isBusy(.mobile, at: start, hold: .seconds(10)))
    }
}
