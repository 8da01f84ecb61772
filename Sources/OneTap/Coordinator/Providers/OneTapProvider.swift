/// A carrier's one-tap login behind one protocol, whichever SDK it wraps: China Mobile's (号码认证 /
/// 统一认证 SDK `getTokenExp` / `loginExplicitly`), China Telecom's Tianyi (天翼账号, `EAccount` / CtAuth
/// SDK) or China Unicom's (联通认证 SDK). The integrator wraps the real SDK; `OneTapTesting` ships a
/// scriptable mock. ``LoginProviders`` says which flow each provider serves.
public protocol OneTapProvider: Sendable {
    /// Runs the one-tap login: the SDK readies the token, shows its authorization page, and answers once the
    /// user taps (or leaves the page).
    ///
    /// An SDK that tells progress before its result (China Mobile's `200087`, "授权页成功拉起": the page is
    /// shown, from the same callback that later gives the result) tells it through `progress` and goes on
    /// waiting for the result: at the first progress code, the flow's time limit (``FlowTimeouts``, the SDK's
    /// network time) gives way to the page's (5 minutes by default), as the user's time on the page is their own.
    /// A call that answers a progress code as its result has none: the coordinator takes it as the provider's
    /// fault and falls back (calling the SDK again at once would overlap the call it is still making).
    /// - Parameter progress: Where to tell the progress codes the SDK reports while the call runs.
    /// - Returns: What the SDK answered: a token on success, else its error code; never a progress code.
    /// - Throws: Anything; a throw is a provider fault and the coordinator falls back.
    func login(progress: OneTapProgress) async throws -> OneTapResult
}

/// Where a one-tap provider tells the SDK's progress while its ``OneTapProvider/login(progress:)`` call runs: a
/// progress code (China Mobile's `200087`: the authorization page is shown), or, for an SDK that has no code for it
/// (Tianyi's and Unicom's in the built-in table), that the page is shown. Either gives the flow's time limit way to
/// the page's (`FlowTimeouts`), as the user's time on the page is their own. Codes the result-code table
/// (`Data/result-codes.csv`) does not class as `progress` for the provider's flow are ignored. Thread-safe: call it
/// from the SDK's callback, on any thread.
public struct OneTapProgress: Sendable {
    private let tell: @Sendable (ResultCode) -> Void
    private let shown: @Sendable () -> Void

    /// Creates a handle that hands each code to `tell` (a coordinator makes its own; an integrator's test of its
    /// provider makes one that records what it is told).
    /// - Parameters:
    ///   - tell: What a code told does.
    ///   - pageShown: What ``pageShown()`` does; nothing by default.
    public init(_ tell: @escaping @Sendable (ResultCode) -> Void, pageShown: @escaping @Sendable () -> Void = {}) {
        self.tell = tell
        self.shown = pageShown
    }

    /// Tells a progress code the SDK reported.
    /// - Parameter code: The code (`200087` when China Mobile's page is shown).
    public func report(_ code: ResultCode) {
        tell(code)
    }

    /// Tells that the authorization page is shown, for an SDK with no progress code for it (a device attacker's read:
    /// a Tianyi or Unicom user who took more than the flow's 8 s on the page was pushed to SMS, the tap's token thrown
    /// away). The login gets no `progress` event from it, as there is no code to tell.
    public func pageShown() {
        shown()
    }
}

/// A one-tap SDK's answer: its result code (China Mobile's success is 103000, Tianyi's and Unicom's 0) and,
/// on success, the credential the server exchanges for the number, with what the SDK gave beside the
/// token: China Mobile's `uniqueid` and masked number, Tianyi's refresh token and lifetime
/// (`expiresIn` / `atExpiresIn`), Unicom's access code and its lifetime.
public struct OneTapResult: Sendable, CustomStringConvertible {
    /// The result code.
    public let resultCode: ResultCode
    /// The credential (on success), of the flow the provider serves, without a `phoneNumber`: a one-tap
    /// SDK verifies no number on the device, so the coordinator takes one it claims as a provider fault
    /// (the number is the server's exchange's answer).
    public let credential: CarrierCredential?

    /// Creates a result.
    /// - Parameters:
    ///   - resultCode: The result code.
    ///   - credential: The credential, on success: `CarrierCredential(flow: .mobile, token:, uniqueID:,
    ///     maskedNumber:)`, `CarrierCredential(flow: .tianyi, token:, refreshToken:, expiresIn:)`,
    ///     `CarrierCredential(flow: .unicom, token:, expiresIn:)`.
    public init(resultCode: ResultCode, credential: CarrierCredential? = nil) {
        self.resultCode = resultCode
        self.credential = credential
    }

    /// `OneTapResult(103000, CarrierCredential(mobile, token <redacted>, uniqueid present))`.
    public var description: String { "OneTapResult(\(resultCode), \(credential.map(\.description) ?? "no credential"))" }
}
