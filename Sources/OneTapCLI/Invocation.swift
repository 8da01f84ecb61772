import OneTap

/// Where the tables come from: the built-in ones, or replacement files.
package struct TableOptions: Hashable, Sendable {
    /// A directory holding replacement tables under their `Data/` names (`plmn.csv`, …); a table missing
    /// from it stays built in.
    package var dataDirectory: String?
    /// A replacement routing-policy file (overrides one in ``dataDirectory``).
    package var policyFile: String?

    static let specs: [OptionSpec] = [.value("data"), .value("policy")]

    init(_ parsed: ParsedArguments) {
        dataDirectory = parsed.value("data")
        policyFile = parsed.value("policy")
    }

    /// Creates table options.
    /// - Parameters:
    ///   - dataDirectory: A directory of replacement tables.
    ///   - policyFile: A replacement routing policy.
    package init(dataDirectory: String? = nil, policyFile: String? = nil) {
        self.dataDirectory = dataDirectory
        self.policyFile = policyFile
    }
}

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

/// `onetap carrier` and `onetap number`: look values up, from operands or standard input.
package struct LookupOptions: Hashable, Sendable {
    /// The values given as operands (empty when reading standard input).
    package var inputs: [String]
    /// Whether `-` asked to read one value per line from standard input.
    package var readsStandardInput: Bool
    /// Whether to print NDJSON.
    package var json: Bool
    /// Replacement tables.
    package var tables: TableOptions
}

/// `onetap route`: plan a login for a snapshot given as options, or for NDJSON snapshots on standard input.
package struct RouteOptions: Hashable, Sendable {
    /// The snapshot options.
    package var snapshot: SnapshotArguments
    /// Whether `-` asked to read NDJSON snapshots from standard input.
    package var readsStandardInput: Bool
    /// Whether to print JSON.
    package var json: Bool
    /// Replacement tables.
    package var tables: TableOptions
}

/// `onetap outcome <flow> <code>`.
package struct OutcomeOptions: Hashable, Sendable {
    /// The flow.
    package var flow: LoginFlow
    /// The code as given.
    package var code: String
    /// Whether to print JSON.
    package var json: Bool
    /// Replacement tables.
    package var tables: TableOptions
}

/// `onetap check FILE...`.
package struct CheckOptions: Hashable, Sendable {
    /// The decision-table files.
    package var files: [String]
    /// Whether to print one JSON record per case (NDJSON) and a summary object.
    package var json: Bool
    /// Replacement tables to check against.
    package var tables: TableOptions
}

/// What the command line asks for.
package enum Invocation: Hashable, Sendable {
    /// Print help: for a command, or the overview.
    case help(command: String?)
    /// Print the version.
    case version
    /// `onetap carrier`.
    case carrier(LookupOptions)
    /// `onetap number`.
    case number(LookupOptions)
    /// `onetap route`.
    case route(RouteOptions)
    /// `onetap outcome`.
    case outcome(OutcomeOptions)
    /// `onetap check`.
    case check(CheckOptions)
    /// `onetap token`.
    case token(TokenOptions)
    /// `onetap simulate`.
    case simulate(SimulateOptions)
    /// `onetap session`.
    case session(SessionOptions)
    /// `onetap sms`.
    case sms(SMSOptions)
    /// `onetap gate`.
    case gate(GateOptions)
    /// `onetap merge`.
    case merge(MergeOptions)
    /// `onetap db`.
    case db(DBOptions)
    /// `onetap stats`.
    case stats(StatsOptions)
    /// `onetap replay`.
    case replay(ReplayOptions)
}
