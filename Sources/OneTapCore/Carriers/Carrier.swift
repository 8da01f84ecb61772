/// The carrier a SIM belongs to.
///
/// The ids (`rawValue`) are stable, lowercase and used in `Data/` tables, JSON and the CLI.
public enum Carrier: String, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    /// China Mobile (中国移动).
    case mobile
    /// China Unicom (中国联通).
    case unicom
    /// China Telecom (中国电信).
    case telecom
    /// China Tietong (中国铁通), China Mobile's railway network (460-20 is GSM-R).
    case tietong
    /// China Broadnet (中国广电).
    case broadnet
    /// A valid PLMN outside mainland China: Hong Kong (454), Macau (455), Taiwan (466) and every other
    /// country, even when the operator is branded China Mobile, Unicom or Telecom (e.g. 454-12 CMHK).
    case other
    /// Nothing tells the carrier: a mainland MNC that is not assigned, or a value from which no carrier
    /// can be known (the iOS 16+ placeholder `65535`, `--`, an empty string).
    case unknown

    /// The English name, e.g. `"China Mobile"`.
    package var englishName: String {
        switch self {
        case .mobile: "China Mobile"
        case .unicom: "China Unicom"
        case .telecom: "China Telecom"
        case .tietong: "China Tietong"
        case .broadnet: "China Broadnet"
        case .other: "Other"
        case .unknown: "Unknown"
        }
    }

    /// The Chinese name, e.g. `"中国移动"`.
    package var chineseName: String {
        switch self {
        case .mobile: "中国移动"
        case .unicom: "中国联通"
        case .telecom: "中国电信"
        case .tietong: "中国铁通"
        case .broadnet: "中国广电"
        case .other: "境外运营商"
        case .unknown: "未知"
        }
    }

    /// The id, e.g. `"mobile"`.
    public var description: String { rawValue }

    /// The mainland carriers a table row may name (every case but `other` and `unknown`).
    static let mainland: [Carrier] = [.mobile, .unicom, .telecom, .tietong, .broadnet]

    /// Reads a mainland carrier id in a table field.
    static func mainland(_ field: String, row: CSVTable.Row, file: String, column: String) throws(TableError) -> Carrier {
        try row.choice(field, "carrier", from: mainland, file: file, column: column)
    }
}
