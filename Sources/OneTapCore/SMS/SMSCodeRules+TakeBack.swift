import Foundation

// What a send whose message did not go out gives back: its code withdrawn, the code it replaced restored, and its
// counts, as far as why it did not go out, and whether a verify tried its code, allow.

extension SMSCodeRules {
    /// Why a send counted at ``admit(_:_:captchaPassed:record:at:)`` gives counts back (``uncountSend(_:_:at:_:)``): a
    /// message the gateway may have taken gives back none.
    package enum Unsent: Sendable {
        /// The message never left (the gateway not reached): its counts on the number, the login session and all
        /// requests go back, so an outage refuses no owner and fills no global cap. Its counts on the requester's
        /// address, blocks and device stay: they slow only the one retrying, and during an outage a client still
        /// meets its captchas.
        case neverLeft
        /// A send that the gateway's own flow control refused (`throttled`: nothing went to the number), sent by a
        /// returning owner or with a solved captcha: its counts on the number and its lane go back, the number's daily
        /// room (`number-day-total`, `number-day-cap`), which a gateway hour a stranger filled must not spend, whoever
        /// tries in it (an owner with a lane of its own, or one without, whose own tries in that hour filled the
        /// number's lane for the day). Its counts on its login session, on all requests and on the requester's own keys
        /// stay, so its tries at a throttling gateway stay bounded by those rules (one a minute per login session, a
        /// captcha per send from one address, the global caps).
        case throttled

        /// Whether a counter on `key` gives the send back.
        func givesBack(_ key: RateKey) -> Bool {
            switch self {
            case .neverLeft: !key.isTheRequestersOwn
            case .throttled: key == .number || key == .numberLane
            }
        }
    }

    /// Takes back a send counted at `now` (``admit(_:_:captchaPassed:record:at:)``), on the counters `why` says.
    /// - Parameters:
    ///   - state: The store's state (the send's counters); changed in place.
    ///   - request: The send's keys.
    ///   - now: The instant it was counted at.
    ///   - why: Why it gives counts back.
    package func uncountSend(_ state: inout SMSState, _ request: SMSPolicy.Request, at now: Date, _ why: Unsent) {
        SMSPolicy.uncount(now, in: &state.events, of: policy.counters(for: request, counting: .sends).filter { why.givesBack($0.counter.key) })
    }

    /// Takes back a code whose SMS did not go out, if it is still the code of its number and session, and puts back
    /// the code it replaced while that one lives: the user may hold it from an earlier send, with the wrong codes it took.
    /// - Parameters:
    ///   - state: The store's state; changed in place.
    ///   - id: The code's id.
    ///   - replaced: The record the send's admission replaced (read in the same update as the admission), if any.
    ///   - now: The time: a replaced code expired by then stays gone.
    package func withdraw(_ state: inout SMSState, id: String, restoring replaced: SMSCodeRecord?, at now: Date) {
        guard state.code?.id == id else { return }
        state.code = replaced.flatMap { $0.expiresAt > now ? $0 : nil }
    }

    /// Takes back a send whose message did not go out: its code withdrawn (``withdraw(_:id:restoring:at:)``) and, when
    /// `why` says so, its counts (``uncountSend(_:_:at:_:)``), but only while the code was still its number's and
    /// session's and no verify had tried it. A code a verify compared a guess against (a stranger guessing while the
    /// gateway call was in flight), or that a verify used or another send replaced, stays counted: given back, codes
    /// that no daily rule on the number counted could be guessed at without end.
    /// - Parameters:
    ///   - state: The store's state (the send's counters and its number's and session's record); changed in place.
    ///   - id: The code's id.
    ///   - replaced: The record the send's admission replaced, if any.
    ///   - request: The send's keys.
    ///   - countedAt: The instant the send was counted at.
    ///   - why: Why it gives counts back; nil for none.
    ///   - now: The time: a replaced code expired by then stays gone.
    package func takeBack(
        _ state: inout SMSState, id: String, restoring replaced: SMSCodeRecord?, _ request: SMSPolicy.Request, countedAt: Date, _ why: Unsent?, at now: Date
    ) {
        let untried = state.code?.id == id && state.code?.wrongAttempts == 0
        withdraw(&state, id: id, restoring: replaced, at: now)
        if let why, untried { uncountSend(&state, request, at: countedAt, why) }
    }
}
