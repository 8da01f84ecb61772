import Foundation
import OneTap

/// An independent reading of a device snapshot's JSON, for the `snapshot` target: the rules of the
/// documented form (every member optional, `mobileData` a Boolean or `on`/`off`, `plmn` or `mcc` and
/// `mnc`, a placeholder PLMN as none) applied to what Foundation's `JSONDecoder` reads, not to the
/// library's reader. A snapshot `DeviceSnapshot(json:)` reads must be the one read here.
struct SnapshotOracle: Decodable {
    let snapshot: DeviceSnapshot

    private enum Keys: String, CodingKey {
        case sim, plmn, mcc, mnc, mobileData, cellularAccess, network, ip, phone, platform
    }

    private struct Refused: Error {}

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        func text(_ key: Keys) throws -> String? { try container.decodeIfPresent(String.self, forKey: key) }
        func value<Value: RawRepresentable<String>>(_ key: Keys) throws -> Value? {
            guard let text = try text(key) else { return nil }
            guard let value = Value(rawValue: text) else { throw Refused() }
            return value
        }
        var mobileData: Bool? = nil
        if container.contains(.mobileData), try !container.decodeNil(forKey: .mobileData) {
            if let flag = try? container.decode(Bool.self, forKey: .mobileData) {
                mobileData = flag
            } else {
                switch try container.decode(String.self, forKey: .mobileData) {
                case "on": mobileData = true
                case "off": mobileData = false
                default: throw Refused()
                }
            }
        }
        let mcc = try text(.mcc)
        let mnc = try text(.mnc)
        if container.contains(.plmn), mcc != nil || mnc != nil { throw Refused() }
        var plmn: PLMN? = nil
        do {
            if let given = try text(.plmn) {
                plmn = try PLMN(given)
            } else if let mcc, let mnc {
                plmn = try PLMN(mcc: mcc, mnc: mnc)
            } else if mcc != nil || mnc != nil {
                throw Refused()
            }
        } catch let error as ParseError where error.kind == .empty || error.kind == .placeholder {
            plmn = nil
        }
        snapshot = DeviceSnapshot(
            sim: try value(.sim), plmn: plmn, mobileData: mobileData, cellularAccess: try value(.cellularAccess), network: try value(.network),
            clientIP: try text(.ip).map { try IPAddress($0) }, phoneHint: try text(.phone).map { try PhoneNumber($0) },
            platform: try text(.platform).map { try Platform($0) })
    }

    /// Reads the bytes with Foundation (zeroes written with an exponent, which it refuses, written plain).
    static func read(_ bytes: [UInt8]) -> DeviceSnapshot? {
        (try? JSONDecoder().decode(SnapshotOracle.self, from: Data(Targets.zeroesWithAnExponentWrittenPlain(bytes) ?? bytes)))?.snapshot
    }
}
