import Foundation
import Testing
@testable import OneTapCore

/// The sliding windows of both tables of rate rules: an event at `t` counts while `now < t + window`.
@Suite struct SlidingWindowTests {
    static let t = Date(timeIntervalSince1970: 1_796_083_200)

    static func at(_ seconds: Double) -> Date { t.addingTimeInterval(seconds) }

    @Test func sortsOnlyWhatIsNotSorted() {
        #expect(SlidingWindow.sorted([Self.at(2), Self.at(1), Self.at(3)]) == [Self.at(1), Self.at(2), Self.at(3)])
        #expect(SlidingWindow.sorted([Self.at(1), Self.at(1), Self.at(4)]) == [Self.at(1), Self.at(1), Self.at(4)])
        #expect(SlidingWindow.sorted([]) == [])
    }

    @Test func windowHoldsTheEventsNewerThanNowLessTheWindow() {
        let (sorted, from) = SlidingWindow.events([Self.at(10), Self.t, Self.at(5)], 10, now: Self.at(12))
        #expect(sorted == [Self.t, Self.at(5), Self.at(10)])
        #expect(from == 1)  // t + 10 > t + 12 - 10 only for t + 5 and t + 10
    }

    @Test func anEventLeavesTheWindowExactlyAtItsEnd() {
        #expect(SlidingWindow.events([Self.t], 10, now: Self.at(9.999)).from == 0)
        #expect(SlidingWindow.events([Self.t], 10, now: Self.at(10)).from == 1)
        #expect(SlidingWindow.events([], 10, now: Self.t).from == 0)
    }

    @Test func anEventAfterNowStillCounts() {
        // A clock went back: the event stamped later than now stays in the window.
        #expect(SlidingWindow.events([Self.at(100)], 10, now: Self.t).from == 0)
    }

    @Test func aFullWindowFreesAPlaceWhenTheOldestOfTheNewestLimitLeaves() {
        let sorted = [Self.t, Self.at(5), Self.at(10)]
        #expect(SlidingWindow.freesAPlace(sorted, limit: 2, 60, now: Self.at(12)) == Self.at(65))
        #expect(SlidingWindow.freesAPlace(sorted, limit: 3, 60, now: Self.at(12)) == Self.at(60))
        #expect(SlidingWindow.freesAPlace(sorted, limit: 1, 60, now: Self.at(12)) == Self.at(70))
        // Never before now.
        #expect(SlidingWindow.freesAPlace(sorted, limit: 3, 1, now: Self.at(12)) == Self.at(12))
    }

    @Test func keepsWhatTheHorizonHoldsOldestFirst() {
        let events = [Self.at(10), Self.t, Self.at(5)]
        #expect(SlidingWindow.kept(events, horizon: 10, now: Self.at(12)) == [Self.at(5), Self.at(10)])
        #expect(SlidingWindow.kept(events, horizon: 100, now: Self.at(12)) == [Self.t, Self.at(5), Self.at(10)])
        #expect(SlidingWindow.kept(events, horizon: 0, now: Self.at(12)) == [])
    }
}
