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
        calls.release(ticket, at: start, hold: .seconds(10))
        #expect(!calls.start(ticket))
        #expect(!calls.isBusy(.mobile, at: start))
    }

    /// A running call its login gave up on holds its flow, not another, until the SDK answers or its hold has passed
    /// since the login gave up on it (a review: counted from the call's start, a page shown for long left no hold).
    @Test func aRunningCallHoldsItsFlowFromWhenItsLoginGaveUp() {
        let calls = SDKCalls()
        let ticket = calls.begin(.mobile, at: start)
        #expect(calls.start(ticket))
        #expect(calls.isBusy(.mobile, at: start), "its login waits for it")
        calls.release(ticket, at: start.addingTimeInterval(290), hold: .seconds(10))
        #expect(calls.isBusy(.mobile, at: start.addingTimeInterval(299)))
        #expect(!calls.isBusy(.tianyi, at: start.addingTimeInterval(299)))
        #expect(!calls.isBusy(.mobile, at: start.addingTimeInterval(300)), "an SDK that never answers is called again")
        calls.end(ticket)
        #expect(!calls.isBusy(.mobile, at: start))
    }

    /// A clock set back holds a flow no longer than the hold from the first time read after it (a review: the size of
    /// the jump and the hold), and a call whose hold has passed is dropped when the next is registered.
    @Test func aClockSetBackHoldsNoLongerThanTheHold() {
        let calls = SDKCalls()
        let ticket = calls.begin(.mobile, at: start)
        #expect(calls.start(ticket))
        calls.release(ticket, at: start.addingTimeInterval(86_400), hold: .seconds(10))   // a clock a day ahead, then set right
        #expect(calls.isBusy(.mobile, at: start.addingTimeInterval(10)))
        #expect(!calls.isBusy(.mobile, at: start.addingTimeInterval(20)), "a hold from then, not a day")
        let next = calls.begin(.mobile, at: start.addingTimeInterval(20))
        #expect(calls.start(next))
        calls.end(ticket)   // the stuck call's entry was dropped already: ending it leaves the new call alone
        #expect(calls.isBusy(.mobile, at: start.addingTimeInterval(20)), "the new call, its login waiting for it")
    }
}
