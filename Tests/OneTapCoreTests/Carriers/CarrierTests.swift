import Testing
@testable import OneTapCore

@Suite struct CarrierTests {
    @Test(arguments: [
        (Carrier.mobile, "mobile", "China Mobile", "中国移动"),
        (.unicom, "unicom", "China Unicom", "中国联通"),
        (.telecom, "telecom", "China Telecom", "中国电信"),
        (.tietong, "tietong", "China Tietong", "中国铁通"),
        (.broadnet, "broadnet", "China Broadnet", "中国广电"),
        (.other, "other", "Other", "境外运营商"),
        (.unknown, "unknown", "Unknown", "未知"),
    ])
    func idsAndNames(carrier: Carrier, id: String, english: String, chinese: String) {
        #expect(carrier.rawValue == id)
        #expect(carrier.description == id)
        #expect(carrier.englishName == english)
        #expect(carrier.chineseName == chinese)
        #expect(Carrier(rawValue: id) == carrier)
    }

    @Test func flowIds() {
        #expect(LoginFlow.allCases.map(\.rawValue) == ["mobile", "tianyi", "unicom", "sms"])
        #expect(LoginFlow.allCases.filter(\.isOneTap) == [.mobile, .tianyi, .unicom])
        #expect(Set(LoginFlow.allCases.map(\.index)) == [0, 1, 2, 3])
    }
}
