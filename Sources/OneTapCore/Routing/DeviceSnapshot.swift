/// What a device reports about its SIM and network when the user asks to log in.
///
/// Every field is optional: a platform may not know it, and an unreported field never blocks one-tap
/// (unreported mobile data counts as on, an unreported permission as allowed). Read the app's request
/// body's bytes with ``init(json:)``; the JSON uses these keys:
///
/// ```json
/// {"sim":"present","plmn":"46000","mobileData":true,"cellularAccess":"allowed",
///  "network":"both","ip":"2409:8900::1","phone":"13800138000","platform":"ios"}
/// ```
/// `plmn` may instead be given as `"mcc"` and `"mnc"`; `mobileData` also accepts `"on"` / `"off"`. A
/// PLMN that is a platform placeholder (`65535`, `--`, empty) decodes as not reported. `platform` is the
/// app's platform (``Platform``: `ios`, `android`, `harmonyos`, …); it does not change the plan and goes
/// with the login's events. Unknown keys are ignored, so newer clients can send more.
public struct DeviceSnapshot: Hashable, Sendable {
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
}
