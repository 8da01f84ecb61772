import OneTap

/// The obvious ways of doing what OneTap does, to measure against.
enum References {
    /// Seed 002's algorithm, written plainly: compare the MCC string with "460", then the MNC string
    /// against each carrier's list in turn (the lists come from the PLMN table, so the answers match).
    struct SeedChain {
        let lists: [(Carrier, [String])]

        init(_ table: PLMNTable) {
            var lists: [(Carrier, [String])] = []
            for carrier in Carrier.allCases {
                let mncs = table.entries.filter { $0.carrier == carrier }.map(\.plmn.mnc)
                if !mncs.isEmpty { lists.append((carrier, mncs)) }
            }
            self.lists = lists
        }

        func carrier(mcc: String, mnc: String) -> Carrier {
            if mcc != "460" { return .other }
            for (carrier, mncs) in lists {
                for code in mncs where mnc == code { return carrier }
            }
            return .unknown
        }
    }

    /// A `[String: Carrier]` keyed by the five- or six-character PLMN.
    static func plmnDictionary(_ table: PLMNTable) -> [String: Carrier] {
        Dictionary(uniqueKeysWithValues: table.entries.map { ($0.plmn.compact, $0.carrier) })
    }

    /// Longest-prefix match by trying every table prefix with `hasPrefix`.
    struct PrefixScan {
        let prefixes: [(String, Carrier)]

        init(_ table: NumberSegmentTable) {
            prefixes = table.segments.map { ($0.prefix, $0.carrier) }
        }

        func carrier(_ digits: String) -> Carrier {
            var best: (Int, Carrier) = (0, .unknown)
            for (prefix, carrier) in prefixes where digits.hasPrefix(prefix) && prefix.count > best.0 {
                best = (prefix.count, carrier)
            }
            return best.1
        }
    }

    /// Code lookups the obvious way: a `[String: OutcomeAction]` per flow.
    struct CodeDictionaries {
        let byText: [LoginFlow: [String: OutcomeAction]]
        let defaults: [LoginFlow: OutcomeAction]

        init(_ table: OutcomeTable) {
            var byText: [LoginFlow: [String: OutcomeAction]] = [:]
            var defaults: [LoginFlow: OutcomeAction] = [:]
            for entry in table.entries {
                if let code = entry.code {
                    byText[entry.flow, default: [:]][code.text] = entry.action
                } else {
                    defaults[entry.flow] = entry.action
                }
            }
            self.byText = byText
            self.defaults = defaults
        }

        func action(_ flow: LoginFlow, _ code: String) -> OutcomeAction {
            byText[flow]?[code] ?? defaults[flow] ?? .fallback
        }
    }

    /// A snapshot as an app's JSON hands it over: strings.
    struct RawSnapshot {
        var sim: String?
        var plmn: String?
        var mobileData: String?
        var access: String?
        var network: String?
    }

    /// Routing the obvious way: string fields, a PLMN dictionary, flows as arrays.
    struct NaivePlanner {
        let plmn: [String: Carrier]
        let flows: [String: [LoginFlow]]

        init(_ policy: RoutingPolicy, _ table: PLMNTable) {
            plmn = plmnDictionary(table)
            flows = Dictionary(uniqueKeysWithValues: policy.rules.map { ($0.condition.description, Array($0.flows)) })
        }

        func plan(_ snapshot: RawSnapshot) -> (Carrier, [LoginFlow]) {
            let carrier = snapshot.plmn.flatMap { plmn[$0] ?? ($0.hasPrefix("460") ? .unknown : .other) } ?? .unknown
            let condition: String
            if snapshot.sim == "absent" { condition = "sim-absent" }
            else if snapshot.sim == "not-ready" { condition = "sim-not-ready" }
            else if snapshot.network == "none" { condition = "no-network" }
            else if snapshot.mobileData == "off" { condition = "mobile-data-off" }
            else if snapshot.access == "restricted" { condition = "cellular-restricted" }
            else { condition = "carrier:" + carrier.rawValue }
            return (carrier, flows[condition] ?? [.sms])
        }
    }

    /// The obvious token manager: one actor holding each account's token in a dictionary, reading the time
    /// from the same clock as ours, with no single flight (every caller whose token is not fresh refreshes).
    actor NaiveTokenManager {
        struct NotLoggedIn: Error {}

        var tokens: [AccountID: AccessToken]
        let policy = TokenPolicy()
        let refresher: any TokenRefresher
        let clock: any WallClock

        init(token: AccessToken, refresher: any TokenRefresher, clock: any WallClock) {
            tokens = [token.account: token]
            self.refresher = refresher
            self.clock = clock
        }

        func validToken(for account: AccountID) async throws -> AccessToken {
            guard let token = tokens[account] else { throw NotLoggedIn() }
            let now = clock.now()
            if policy.state(of: token, at: now) == .fresh { return token }
            let response = try await refresher.refresh(token)
            let refreshed = AccessToken(
                value: response.accessToken, refreshToken: response.refreshToken, flow: token.flow, account: account, issuedAt: now,
                expiresAt: now.addingTimeInterval(2_592_000))
            tokens[account] = refreshed
            return refreshed
        }
    }
}

