/// The refreshes under way, one per account at most: however many callers ask, an account has one
/// ``RefreshFlight``. A value the ``TokenVault`` actor owns, so every check-then-begin is one step on
/// the actor.
///
/// States per account and their transitions:
/// - **none** → **flying** with ``begin(_:from:background:)``: a caller on a stale token (not backing
///   off), a caller on an expired one (nothing under way, not backing off, a refresh token to use), or
///   the background scan (a slot free).
/// - **flying, unresolved**: callers on an expired token join it (``flight(for:)``); callers on a stale
///   one start nothing; the scan skips the account; ``markLoggedOut(_:)`` makes it bring nothing back, and
///   ``markSuperseded(by:)`` (a login's new token) makes its failure the old token's and its callers' answer the login's token.
/// - **flying, resolved by the time limit** (a late answer pending): the flight keeps its place until
///   its call ends, so one account never has two refresh calls at once; callers on an expired token hear
///   `refresh-failed` meanwhile.
/// - flying → **none** with ``end(_:)`` when its call ends (answered, cancelled, or abandoned after the
///   late-answer limit); a flight that was replaced is not removed by its own end.
/// - every flight → resolved and **none** with ``resolveAll(_:)`` when the vault stops.
///
/// Background flights are counted from ``begin(_:from:background:)`` until they answer or time out
/// (``releaseBackgroundSlot(of:)``), so the scan starts at most its limit at once.
package struct SingleFlight: Sendable {
    private var flights: [AccountID: RefreshFlight] = [:]

    /// How many flights the background scan started that have not answered or timed out yet.
    package private(set) var backgroundUnderWay = 0

    /// No flight under way.
    package init() {}

    /// The account's flight, resolved or not, while its refresh call runs.
    /// - Parameter account: The account.
    /// - Returns: The flight, or nil when no refresh runs for the account.
    package func flight(for account: AccountID) -> RefreshFlight? {
        flights[account]
    }

    /// How many flights' callers still wait for their answer.
    /// - Complexity: O(flights).
    package var unresolvedCount: Int {
        flights.values.reduce(0) { $0 + ($1.isResolved ? 0 : 1) }
    }

    /// Whether no refresh runs.
    package var isEmpty: Bool { flights.isEmpty }

    /// Begins the account's flight (replacing nothing: check ``flight(for:)`` first).
    /// - Parameters:
    ///   - account: The account.
    ///   - stored: The stored token to refresh.
    ///   - background: Whether the background scan starts it (it then holds a slot).
    /// - Returns: The new flight.
    package mutating func begin(_ account: AccountID, from stored: StoredToken, background: Bool) -> RefreshFlight {
        let flight = RefreshFlight(account, from: stored, background: background)
        flights[account] = flight
        if background { backgroundUnderWay += 1 }
        return flight
    }

    /// A background flight answered or timed out: it no longer counts toward the scan's limit (once).
    /// - Parameter flight: The flight.
    package mutating func releaseBackgroundSlot(of flight: RefreshFlight) {
        if flight.giveUpBackgroundSlot() { backgroundUnderWay -= 1 }
    }

    /// The flight's refresh call ended: the account may refresh again (unless the flight was replaced).
    /// - Parameter flight: The flight.
    package mutating func end(_ flight: RefreshFlight) {
        if flights[flight.account] === flight { flights[flight.account] = nil }
    }

    /// The account logged out: its flight, if any, brings nothing back.
    /// - Parameter account: The account.
    package func markLoggedOut(_ account: AccountID) {
        flights[account]?.markLoggedOut()
    }

    /// A login stored a new token: its account's flight, if any, fails for the old token alone (no back-off for the
    /// account), and its callers get the login's token.
    /// - Parameter token: The login's token; its ``AccessToken/account`` names the flight.
    package func markSuperseded(by token: AccessToken) {
        flights[token.account]?.markSuperseded(by: token)
    }

    /// Answers every flight's callers that still wait with `error` and forgets every flight: the vault
    /// stopped.
    /// - Parameter error: The answer.
    package mutating func resolveAll(_ error: TokenError) {
        for flight in flights.values { flight.resolve(.failure(error)) }
        flights = [:]
        backgroundUnderWay = 0
    }
}
