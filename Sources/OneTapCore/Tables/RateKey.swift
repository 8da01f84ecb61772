/// What a rule of a rate table counts per (`key` in `Data/sms-policy.csv` and `Data/login-quotas.csv`):
/// the keys of the request it counts. The login quotas count per the client's keys only (``LoginQuotaPolicy/keys``);
/// the SMS policy per its number too.
package enum RateKey: String, Hashable, Sendable, CaseIterable, Codable, DescribedByID {
    /// The mainland number, across every login session: what only captcha rules and a high hard cap
    /// should count sends per, so that a stranger's sends never spend the owner's (SMS only).
    case number
    /// The number within one login session (`13800138000/<session id>`; a send without a session
    /// counts under its own "not given" session): where a number's ordinary send limits and the
    /// growing delays after wrong codes belong, so each login spends only its own (SMS only).
    case numberSession = "number-session"
    /// The number, its returning owner's sends counted apart from everyone else's: a send from an app session
    /// that logged in with the number in the last 30 days (``SMSContext/returningOwner``, which only the login
    /// server sets, when the caller's app session vouched) counts in the owner's own lane (`13800138000 (returning owner)`), any other in the
    /// number's (`13800138000`), so a hard cap on it that strangers fill holds strangers, never the returning
    /// owner (SMS sends only).
    case numberLane = "number-lane"
    /// The client's address (an IPv4 address as it is; an IPv6 client per /64, one subscriber's block);
    /// `(not given)` when none was given.
    case ip
    /// The client's IPv6 /56 (a home's block, RIPE-690), or an IPv4 address as it is; `(not given)` when
    /// none was given.
    case ip56
    /// The client's IPv6 /48 (a site's block, RIPE-690), or an IPv4 address as it is; `(not given)` when
    /// none was given.
    case ip48
    /// The app's device id; `(not given)` when none was given.
    case device
    /// The session: the login session for SMS codes (`(not given)` when none was given), the app session
    /// for login quotas (always known: the request proved it).
    case session
    /// Every request.
    case global
    /// Every request, a returning owner's sends counted apart from everyone else's, as ``numberLane`` does for one
    /// number: a send from an app session that logged in with its number in the last 30 days counts in the owners' lane
    /// (`all (returning owner)`), any other in everyone's (`all`), so a ceiling on every send that strangers fill (with
    /// captchas solved) holds them, not the returning owners, whose lane fills only with the sends of app sessions that
    /// logged in with their numbers (a stranger needs numbers of its own to reach it) (SMS sends only).
    case globalLane = "global-lane"
}

extension RateKey {
    /// Whether the key is the requester's own place (its address blocks, its device at its address): where
    /// what only the requester caused (a captcha its provider rejected) is counted, never on a key it shares
    /// with the owner (the number, every request).
    package var isTheRequestersOwn: Bool {
        switch self {
        case .ip, .ip56, .ip48, .device: true
        case .number, .numberSession, .numberLane, .session, .global, .globalLane: false
        }
    }

    /// Whether the key counts every request (``global``, or ``globalLane``'s two lanes): the counters every send or
    /// verify of the deployment shares.
    package var countsEveryRequest: Bool { self == .global || self == .globalLane }

    /// The case's position in `allCases`.
    var position: Int {
        switch self {
        case .number: 0
        case .numberSession: 1
        case .numberLane: 2
        case .ip: 3
        case .ip56: 4
        case .ip48: 5
        case .device: 6
        case .session: 7
        case .global: 8
        case .globalLane: 9
        }
    }

    /// Hashes the case's position, not its text: a counter is hashed several times per decision, and
    /// its raw value cost a string hash each time.
    /// - Parameter hasher: The hasher.
    package func hash(into hasher: inout Hasher) { hasher.combine(position) }

    /// Whether two keys are the same case (compared by position, not by text).
    package static func == (lhs: Self, rhs: Self) -> Bool { lhs.position == rhs.position }
}
