import Foundation
import Testing
@testable import OneTapCore

@Suite struct DeviceSnapshotTests {
    func decode(_ json: String) throws -> DeviceSnapshot {
        try JSONDecoder().decode(DeviceSnapshot.self, from: Data(json.utf8))
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
        #expect(try JSONDecoder().decode(DeviceSnapshot.self, from: JSONEncoder().encode(snapshot)) == snapshot)
    }
}
