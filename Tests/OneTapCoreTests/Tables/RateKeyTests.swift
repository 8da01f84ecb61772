import Foundation
import Testing
@testable import OneTapCore

/// What rules of both rate tables count per: one set of keys, as the files spell them, hashed by case;
/// the login quotas allow the client's keys only.
@Suite struct RateKeyTests {
    @Test func keysAreSpelledAsTheFilesSpellThem() {
        #expect(RateKey.allCases.map(\.rawValue) == ["number", "number-session", "number-lane", "ip", "ip56", "ip48", "device", "session", "global", "global-lane"])
        #expect(RateKey.allCases.map(\.description) == ["number", "number-session", "number-lane", "ip", "ip56", "ip48", "device", "session", "global", "global-lane"])
        #expect(RateKey(rawValue: "numberSession") == nil)
    }

    @Test func keysHashAndCompareByCase() {
        #expect(RateKey.allCases.map(\.position) == [0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
        #expect(Set(RateKey.allCases).count == 10)
        #expect(RateKey.ip56 == RateKey(rawValue: "ip56"))
        #expect(RateKey.ip56 != .ip48)
        var a = Hasher(), b = Hasher()
        a.combine(RateKey.device)
        b.combine(6)
        #expect(a.finalize() == b.finalize())
    }

    @Test func theLoginQuotasCountPerTheClientsKeysOnly() throws {
        #expect(LoginQuotaPolicy.keys.map(\.rawValue) == ["ip", "ip56", "ip48", "device", "session", "global"])
        for key in ["number", "number-session", "number-lane"] {
            #expect {
                _ = try LoginQuotaPolicy(csv: "rule,key,counts,window_seconds,limit,source\na,\(key),starts,60,1,t\n", file: "q.csv")
            } throws: { error in
                "\(error)".contains("unknown key \"\(key)\"; expected one of ip, ip56, ip48, device, session, global")
            }
        }
        let sms = try SMSPolicy(csv: "rule,key,counts,window_seconds,limit,over,lock_seconds,source\na,number,sends,60,1,limit,,t\n", file: "s.csv")
        #expect(sms.rules.map(\.key) == [.number])
    }
}
