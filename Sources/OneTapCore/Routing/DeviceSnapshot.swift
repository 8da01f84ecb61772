/// What a device reports about its SIM and network when the user asks to log in.
///
/// Every field is optional: a platform may not know it, and an unreported field never blocks one-tap
/// (unreported mobile data counts as on, an unreported permission as allowed). JSON uses these keys:
///
/// ```json
/// {"sim":"present","plmn":"46000","mobileData":true,"cellularAccess":"allowed",
///  "network":"both","ip":"2409:8900::1","phone":"13800138000","platform":"ios"}
/// ```
/// `plmn` may instead be given as `"mcc"` and `"mnc"`; `mobileData` also accepts `"on"` / `"off"`. A
/// PLMN that is a platform placeholder (`65535`, `--`, empty) decodes as not reported. `platform` is the
/// app's platform (``Platform``: `ios`, `android`, `harmonyos`, …); it does not change the plan and goes
/// with the login's events. Unknown keys are ignored, so newer clients can send more.
public struct DeviceSnapshot: Hashable, Sendable, Codable {
    /// Whether the device has a usable SIM.
    public enum SIMState: String, Hashable, Sendable, CaseIterable, Codable {
        /// No SIM card.
        case absent
        /// A SIM that is locked (PIN/PUK) or still starting.
        case notReady = "not-ready"
        /// A SIM ready to use.
        case present
    }

    /// The app's own permission to use cellular data (iOS `CTCellularData.restrictedState`).
    public enum CellularAccess: String, Hashable, Sendable, CaseIterable, Codable {
        /// The app may use cellular data.
        case allowed
        /// The user denied the app cellular data: every one-tap flow fails.
        case restricted
        /// The platform does not know yet.
        case unknown
    }

    /// The network the device is using.
    public enum Network: String, Hashable, Sendable, CaseIterable, Codable {
        /// Wi-Fi only (mobile data may still be switched on).
        case wifi
        /// Cellular only.
        case cellular
        /// Wi-Fi and cellular both up (one-tap SDKs force their request over cellular).
        case both
        /// No network.
        case none
    }

    /// The SIM's state.
    public var sim: SIMState?
    /// The PLMN of the SIM that carries mobile data (on a dual-SIM phone that is the one the carrier
    /// gateway sees).
    public var plmn: PLMN?
    /// Whether mobile data is switched on.
    public var mobileData: Bool?
    /// The app's cellular-data permission.
    public var cellularAccess: CellularAccess?
    /// The network in use.
    public var network: Network?
    /// The client's address as the server saw it (weaker carrier evidence, IPv6 over cellular only).
    public var clientIP: IPAddress?
    /// A phone number the user typed or the app remembers (the weakest evidence: numbers are ported).
    public var phoneHint: PhoneNumber?
    /// The app's platform, if the snapshot names it: not a routing input, but carried by the login's
    /// events so logins can be counted by platform.
    public var platform: Platform?

    /// Creates a snapshot.
    /// - Parameters:
    ///   - sim: The SIM's state.
    ///   - plmn: The data SIM's PLMN.
    ///   - mobileData: Whether mobile data is on.
    ///   - cellularAccess: The app's cellular permission.
    ///   - network: The network in use.
    ///   - clientIP: The client's address as the server saw it.
    ///   - phoneHint: A phone number hint.
    ///   - platform: The app's platform.
    public init(
        sim: SIMState? = nil, plmn: PLMN? = nil, mobileData: Bool? = nil, cellularAccess: CellularAccess? = nil,
        network: Network? = nil, clientIP: IPAddress? = nil, phoneHint: PhoneNumber? = nil, platform: Platform? = nil
    ) {
        self.sim = sim
        self.plmn = plmn
        self.mobileData = mobileData
        self.cellularAccess = cellularAccess
        self.network = network
        self.clientIP = clientIP
        self.phoneHint = phoneHint
        self.platform = platform
    }

    private enum CodingKeys: String, CodingKey {
        case sim, plmn, mcc, mnc, mobileData, cellularAccess, network, ip, phone, platform
    }

    /// Decodes the JSON form described above.
    /// - Parameter decoder: The decoder.
    /// - Throws: `DecodingError` naming the key for a wrong type, an unknown enum value, or a malformed
    ///   PLMN, address or number (with the ``ParseError``'s description).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        sim = try container.decodeIfPresent(SIMState.self, forKey: .sim)
        cellularAccess = try container.decodeIfPresent(CellularAccess.self, forKey: .cellularAccess)
        network = try container.decodeIfPresent(Network.self, forKey: .network)
        if container.contains(.mobileData), try !container.decodeNil(forKey: .mobileData) {
            if let flag = try? container.decode(Bool.self, forKey: .mobileData) {
                mobileData = flag
            } else {
                let text = try container.decode(String.self, forKey: .mobileData)
                switch text {
                case "on": mobileData = true
                case "off": mobileData = false
                default:
                    throw DecodingError.dataCorruptedError(
                        forKey: .mobileData, in: container, debugDescription: "expected true, false, \"on\" or \"off\", found \(QuotedInput(text))")
                }
            }
        }
        func parse<Value>(_ key: CodingKeys, _ make: (String) throws(ParseError) -> Value) throws -> Value? {
            guard let text = try container.decodeIfPresent(String.self, forKey: key) else { return nil }
            do {
                return try make(text)
            } catch {
                throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: error.description)
            }
        }
        let mcc = try container.decodeIfPresent(String.self, forKey: .mcc)
        let mnc = try container.decodeIfPresent(String.self, forKey: .mnc)
        if container.contains(.plmn), mcc != nil || mnc != nil {
            throw DecodingError.dataCorruptedError(
                forKey: .plmn, in: container, debugDescription: "give either plmn or mcc and mnc, not both")
        }
        do {
            if let text = try container.decodeIfPresent(String.self, forKey: .plmn) {
                plmn = try PLMN(text)
            } else if let mcc, let mnc {
                plmn = try PLMN(mcc: mcc, mnc: mnc)
            } else if mcc != nil || mnc != nil {
                let key: CodingKeys = mcc == nil ? .mcc : .mnc
                throw DecodingError.keyNotFound(key, .init(codingPath: container.codingPath, debugDescription: "mcc and mnc come together"))
            }
        } catch let error as ParseError where error.kind == .empty || error.kind == .placeholder {
            plmn = nil  // the platform did not say: no evidence
        } catch let error as ParseError {
            let key: CodingKeys = container.contains(.plmn) ? .plmn : (error.subject == .mnc ? .mnc : .mcc)
            throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: error.description)
        }
        clientIP = try parse(.ip, IPAddress.init)
        phoneHint = try parse(.phone, PhoneNumber.init)
        platform = try parse(.platform, Platform.init)
    }

    /// Encodes the JSON form described above (`plmn` hyphenated, `"460-00"`).
    /// - Parameter encoder: The encoder.
    /// - Throws: What the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(sim, forKey: .sim)
        try container.encodeIfPresent(plmn, forKey: .plmn)
        try container.encodeIfPresent(mobileData, forKey: .mobileData)
        try container.encodeIfPresent(cellularAccess, forKey: .cellularAccess)
        try container.encodeIfPresent(network, forKey: .network)
        try container.encodeIfPresent(clientIP, forKey: .ip)
        try container.encodeIfPresent(phoneHint, forKey: .phone)
        try container.encodeIfPresent(platform, forKey: .platform)
    }
}
