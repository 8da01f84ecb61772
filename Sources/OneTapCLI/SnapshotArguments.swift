import OneTap

/// The device-snapshot options shared by `route`, `simulate` and decision tables, as given (their values
/// are checked when the command runs, so a malformed PLMN is bad data, exit 65, not a usage error).
package struct SnapshotArguments: Hashable, Sendable {
    /// `--plmn`.
    package var plmn: String?
    /// `--mcc`.
    package var mcc: String?
    /// `--mnc`.
    package var mnc: String?
    /// `--sim`, or `absent` for `--no-sim`.
    package var sim: DeviceSnapshot.SIMState?
    /// `--mobile-data on|off`.
    package var mobileData: Bool?
    /// `--cellular-access`.
    package var cellularAccess: DeviceSnapshot.CellularAccess?
    /// `--network`.
    package var network: DeviceSnapshot.Network?
    /// `--ip`.
    package var ip: String?
    /// `--phone`.
    package var phone: String?

    static let specs: [OptionSpec] = [
        .value("plmn"), .value("mcc"), .value("mnc"), .flag("no-sim"), .value("sim"), .value("mobile-data"),
        .value("cellular-access"), .value("network"), .value("ip"), .value("phone"),
    ]

    /// Whether any snapshot option was given.
    var isEmpty: Bool { self == SnapshotArguments() }

    /// Creates empty snapshot arguments.
    package init() {}

    init(_ parsed: ParsedArguments, command: String) throws(UsageError) {
        plmn = parsed.value("plmn")
        mcc = parsed.value("mcc")
        mnc = parsed.value("mnc")
        if plmn != nil, mcc != nil || mnc != nil {
            throw UsageError("give --plmn or --mcc with --mnc, not both", command: command)
        }
        if (mcc == nil) != (mnc == nil) {
            throw UsageError("--mcc and --mnc come together", command: command)
        }
        sim = try choice(parsed, "sim", command: command)
        if parsed.has("no-sim") {
            if let sim, sim != .absent { throw UsageError("--no-sim contradicts --sim \(sim.rawValue)", command: command) }
            sim = .absent
        }
        if sim == .absent, plmn != nil || mcc != nil {
            let given = parsed.has("no-sim") ? "--no-sim" : "--sim absent"
            throw UsageError("\(given) contradicts a PLMN: a device without a SIM reports none", command: command)
        }
        switch parsed.value("mobile-data") {
        case nil: mobileData = nil
        case "on": mobileData = true
        case "off": mobileData = false
        case let other?: throw UsageError("option --mobile-data must be on or off, not \(quoted(other))", command: command)
        }
        cellularAccess = try choice(parsed, "cellular-access", command: command)
        network = try choice(parsed, "network", command: command)
        ip = parsed.value("ip")
        phone = parsed.value("phone")
    }

    /// Builds the snapshot, checking the values.
    /// - Returns: The snapshot; a placeholder PLMN (`65535`, `--`) counts as not reported.
    /// - Throws: ``ParseError`` for a malformed PLMN, address or number.
    package func snapshot() throws(ParseError) -> DeviceSnapshot {
        var snapshot = DeviceSnapshot(sim: sim, mobileData: mobileData, cellularAccess: cellularAccess, network: network)
        do {
            if let plmn { snapshot.plmn = try PLMN(plmn) } else if let mcc, let mnc { snapshot.plmn = try PLMN(mcc: mcc, mnc: mnc) }
        } catch where error.kind == .empty || error.kind == .placeholder {
            snapshot.plmn = nil
        }
        if let ip { snapshot.clientIP = try IPAddress(ip) }
        if let phone { snapshot.phoneHint = try PhoneNumber(phone) }
        return snapshot
    }
}
