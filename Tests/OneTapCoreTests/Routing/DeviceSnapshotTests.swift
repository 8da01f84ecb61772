import Foundation
import Testing
@testable import OneTapCore

@Suite struct DeviceSnapshotTests {
    /// Reads a snapshot as text and as bytes, which must agree.
    func decode(_ json: String) throws -> DeviceSnapshot {
        let snapshot = try DeviceSnapshot(json: json)
        #expect(try DeviceSnapshot(json: Data(json.utf8)) == snapshot)
        return snapshot
    }

    @Test func decodesEveryField() throws {
        let snapshot = try decode(#"{"sim":"present","plmn":"46000","mobileData":true,"cellularAccess":"allowed","network":"both","ip":"2409:8900::1","phone":"13800138000"}"#)
        #expect(snapshot == DeviceSnapshot(
            sim: .present, plmn: try PLMN("46000"), mobileData: true, cellularAccess: .allowed, network: .both,
            clientIP: try IPAddress("2409:8900::1"), phoneHint: try PhoneNumber("13800138000")))
    }

    @Test(arguments: [
        (#"{}"#, DeviceSnapshot()),
        (#"{"mcc":"460","mnc":"01"}"#, DeviceSnapshot(plmn: try! PLMN("46001"))),
        (#"{"mobileData":"off"}"#, DeviceSnapshot(mobileData: false)),
        (#"{"mobileData":"on"}"#, DeviceSnapshot(mobileData: true)),
        (#"{"mobileData":null}"#, DeviceSnapshot()),
        (#"{"plmn":"65535"}"#, DeviceSnapshot()),
        (#"{"mcc":"65535","mnc":"65535"}"#, DeviceSnapshot()),
        (#"{"plmn":"--"}"#, DeviceSnapshot()),
        (#"{"plmn":""}"#, DeviceSnapshot()),
        (#"{"plmn":null}"#, DeviceSnapshot()),
        (#"{"future":"field","sim":"absent"}"#, DeviceSnapshot(sim: .absent)),
        (#"{"sim":"not-ready"}"#, DeviceSnapshot(sim: .notReady)),
        (#"{"platform":"ios"}"#, DeviceSnapshot(platform: .ios)),
        (#"{"platform":"HarmonyOS","plmn":"46000"}"#, DeviceSnapshot(plmn: try! PLMN("46000"), platform: .harmonyOS)),
        (#"{"platform":"miniprogram"}"#, DeviceSnapshot(platform: Platform(rawValue: "miniprogram"))),
        (#"{"platform":null}"#, DeviceSnapshot()),
    ])
    func decodesOptionalForms(json: String, expected: DeviceSnapshot) throws {
        #expect(try decode(json) == expected)
    }

    @Test(arguments: [
        (#"{"sim":"maybe"}"#, "sim"),
        (#"{"sim":1}"#, "sim"),
        (#"{"network":"5g"}"#, "network"),
        (#"{"mobileData":"yes"}"#, "mobileData"),
        (#"{"mobileData":1}"#, "mobileData"),
        (#"{"plmn":"4600a"}"#, "plmn"),
        (#"{"plmn":46000}"#, "plmn"),
        (#"{"plmn":"46000","mcc":"460","mnc":"00"}"#, "plmn"),
        (#"{"mcc":"460"}"#, "mnc"),
        (#"{"mcc":"4x0","mnc":"00"}"#, "mcc"),
        (#"{"ip":"300.1.1.1"}"#, "ip"),
        (#"{"phone":"12345"}"#, "phone"),
        (#"{"cellularAccess":true}"#, "cellularAccess"),
        (#"{"platform":""}"#, "platform"),
        (#"{"platform":"i os"}"#, "platform"),
        (#"{"platform":"android-automotive-x"}"#, "platform"),
        (#"{"platform":7}"#, "platform"),
    ])
    func malformedFieldsNameTheKey(json: String, key: String) {
        #expect {
            try decode(json)
        } throws: { error in
            guard let error = error as? DecodingError else { return false }
            switch error {
            case .dataCorrupted(let context), .typeMismatch(_, let context), .valueNotFound(_, let context):
                return context.codingPath.last?.stringValue == key
            case .keyNotFound(let codingKey, _):
                return codingKey.stringValue == key
            @unknown default:
                return false
            }
        }
    }

    @Test(arguments: ["[]", "\"x\"", "1", "null", "{", ""])
    func nonObjectsAreRefused(json: String) {
        #expect(throws: (any Error).self) { try decode(json) }
    }

    @Test func encodeDecodeRoundTrip() throws {
        let snapshot = DeviceSnapshot(
            sim: .present, plmn: try PLMN("460-11"), mobileData: false, cellularAccess: .restricted, network: .wifi,
            clientIP: try IPAddress("10.1.2.3"), phoneHint: try PhoneNumber("18900000000"), platform: .android)
        let json = try snapshot.json()
        #expect(json == #"{"sim":"present","plmn":"460-11","mobileData":false,"cellularAccess":"restricted","network":"wifi","ip":"10.1.2.3","phone":"18900000000","platform":"android"}"#)
        #expect(try decode(json) == snapshot)
        #expect(try DeviceSnapshot().json() == "{}")
    }

    /// The messages a client sees (`onetap route` prints them after the key).
    @Test(arguments: [
        (#"{"plmn":"4600a"}"#, ["plmn"], #"invalid PLMN "4600a": 'a' at position 5 is not allowed"#),
        (#"{"mobileData":"yes"}"#, ["mobileData"], #"expected true, false, "on" or "off", found "yes""#),
        (#"{"sim":"maybe"}"#, ["sim"], #""maybe" is none of absent, not-ready, present"#),
        (#"{"plmn":"46000","mcc":"460","mnc":"00"}"#, ["plmn"], "give either plmn or mcc and mnc, not both"),
    ])
    func refusalsSayWhy(json: String, path: [String], message: String) {
        #expect {
            try decode(json)
        } throws: { error in
            guard case DecodingError.dataCorrupted(let context) = error else { return false }
            return context.codingPath.map(\.stringValue) == path && context.debugDescription == message
        }
    }

    /// A key a request makes long reaches the error's coding path only 64 characters long (an attacker's read: a
    /// 100,000-character key came back whole in the `DecodingError` a server may log).
    @Test func aLongKeyIsCutInTheCodingPath() {
        let key = String(repeating: "k", count: 100_000)
        #expect {
            try decode(#"{"\#(key)":tru}"#)
        } throws: { error in
            guard case DecodingError.dataCorrupted(let context) = error else { return false }
            return context.codingPath.map(\.stringValue) == [String(repeating: "k", count: 64) + "…"]
        }
        // One character of 100,001 scalars (a review: cut by characters, it came back whole).
        let combining = "a" + String(repeating: "\u{301}", count: 100_000)
        #expect {
            try decode(#"{"\#(combining)":tru}"#)
        } throws: { error in
            guard case DecodingError.dataCorrupted(let context) = error else { return false }
            return context.codingPath.map(\.stringValue) == ["a" + String(repeating: "\u{301}", count: 63) + "…"]
        }
    }

    @Test func aKeyTwiceIsRefused() {
        #expect(throws: DecodingError.self) { try decode(#"{"sim":"present","sim":"absent"}"#) }
    }
}
