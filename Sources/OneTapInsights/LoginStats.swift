import OneTapCore
import OneTapSupport

/// Counts logins from a stream of login events (the event schema ``OneTapEvent`` documents, `v` 2), one
/// line at a time, in memory bounded by the number of distinct keys: the logins open at once, and the
/// (carrier, first flow, platform) rows, (carrier, situation, flow) stages and result codes seen.
///
/// ```swift
/// var stats = LoginStats()
/// for line in lines { do { try stats.add(line) } catch { print("line: \(error)") } }
/// stats.finish()
/// let funnel = stats.funnel()                        // by carrier and first flow
/// let replay = RoutingReplay(stats.observations, policy: newPolicy)
/// ```
///
/// A login is counted from its `planned` event; its other events find it by `session`, and its ending
/// event (`succeeded`, `cancelled`, `failed`) closes it. A login silent for longer than the idle limit
/// (by the stream's own `at`, 15 minutes by default: a server session lives 10) is counted unfinished
/// and forgotten, so a stream of any length needs no more memory than its busiest quarter of an hour.
/// Events of other areas (`token`, `sms`) and login events of kinds this version does not know are
/// skipped, and so are events of logins whose `planned` event came before the stream began.
public struct LoginStats: Sendable {
    /// Why a line was refused.
    public struct LineError: Error, Hashable, Sendable, CustomStringConvertible {
        /// What is wrong, naming the key.
        public let message: String

        init(_ message: String) { self.message = message }

        /// The message.
        public var description: String { message }
    }

    /// A session id, inline (at most 32 bytes).
    struct SessionKey: Hashable {
        var a: UInt64 = 0, b: UInt64 = 0, c: UInt64 = 0, d: UInt64 = 0
        var length: UInt8 = 0
    }

    /// A login between its plan and its end.
    struct OpenLogin {
        var row: Int32
        var plan: Int32
        var carrier: UInt8
        var condition: UInt8
        var stage: UInt8 = 0xFF  // the flow's index, or none
        var lastAction: OutcomeAction? = nil
        var alerted = false
        var reachedSMS = false
        var stageStart: Int64 = 0
        var lastElapsed: Int64 = 0
        var lastAt: Int64
    }

    struct RowKey: Hashable {
        var carrier: UInt8
        var flow: UInt8
        var platform: Int32
    }

    struct RowTally {
        let key: RowKey
        var logins = 0, oneTap = 0, sms = 0, cancelled = 0, failed = 0, unfinished = 0
        var results = 0
        var successTimes = LatencyHistogram()
        var codes: [Int32: Int] = [:]
        var alerts = 0, alertLogins = 0, alertSMS = 0
        var alertCodes: [Int32: Int] = [:]

        mutating func merge(_ other: RowTally) {
            logins += other.logins
            oneTap += other.oneTap
            sms += other.sms
            cancelled += other.cancelled
            failed += other.failed
            unfinished += other.unfinished
            results += other.results
            successTimes.merge(other.successTimes)
            codes.merge(other.codes, uniquingKeysWith: +)
            alerts += other.alerts
            alertLogins += other.alertLogins
            alertSMS += other.alertSMS
            alertCodes.merge(other.alertCodes, uniquingKeysWith: +)
        }
    }

    struct PlanKey: Hashable {
        var carrier: UInt8
        var condition: UInt8
        var flows: UInt32
        var count: UInt8
    }

    /// A result code as first seen: its flow, text, action and meaning.
    struct CodeEntry {
        let flow: LoginFlow
        let text: [UInt8]
        var action: OutcomeAction?
        var meaning: String
    }

    private let idleLimit: Int64
    private var open: [SessionKey: OpenLogin] = [:]
    private var rows: [RowTally] = []
    private var rowIndex: [RowKey: Int32] = [:]
    private var plans: [LoginObservations.Plan] = []
    private var planIndex: [PlanKey: Int32] = [:]
    private var stages: [LoginObservations.Stage]
    private var codes: [CodeEntry] = []
    private var codeIndex: [UInt64: [Int32]] = [:]
    private var platforms: [Platform] = []
    private var platformNumbers: [Platform: Int32] = [:]
    private var lastSweep: Int64 = .min
    /// The latest time of the stream's lines.
    private var newest: Int64 = .min
    /// The stream's clock: the second latest time of its lines (see ``advanceClock(to:)``).
    private var latest: Int64 = .min
    /// The most logins kept open at once (see ``openLimit``).
    private let openLimit: Int
    private var summary = LoginFunnel.Summary()

    /// Creates an empty count.
    /// - Parameter idleLimit: How long a login may stay silent, by the stream's clock, before it counts
    ///   as unfinished; 15 minutes by default.
    public init(idleLimit: Duration = .seconds(900)) {
        self.init(idleLimit: idleLimit, openLimit: Self.openLimit)
    }

    /// The most logins kept open at once, whatever the stream's times: 1,048,576 (about 100 MiB). Past it, the quarter
    /// silent longest counts unfinished, so that no stream (one whose times never move on, or go back and forth)
    /// makes the count grow without bound.
    static let openLimit = 1 << 20

    /// Creates an empty count with another bound on the logins open at once (tests).
    /// - Parameters:
    ///   - idleLimit: As ``init(idleLimit:)``.
    ///   - openLimit: The most logins open at once, at least 4.
    init(idleLimit: Duration, openLimit: Int) {
        self.openLimit = max(4, openLimit)
        // In milliseconds, at least 1; a limit past what an Int64 of milliseconds holds is the longest (its
        // product trapped).
        let (seconds, attoseconds) = idleLimit.components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        let (milliseconds, carried) = whole.addingReportingOverflow(attoseconds / 1_000_000_000_000_000)
        self.idleLimit = seconds < 0 ? 1 : overflow || carried ? .max : max(1, milliseconds)
        var stages: [LoginObservations.Stage] = []
        stages.reserveCapacity(Self.carriers.count * RoutingPolicy.Condition.all.count * LoginFlow.allCases.count)
        for carrier in Self.carriers {
            for condition in RoutingPolicy.Condition.all {
                for flow in LoginFlow.allCases { stages.append(LoginObservations.Stage(carrier: carrier, condition: condition, flow: flow)) }
            }
        }
        self.stages = stages
    }

    static let carriers = Carrier.allCases
    static let flows = LoginFlow.allCases

    @inline(__always)
    private func stageIndex(carrier: UInt8, condition: UInt8, flow: UInt8) -> Int {
        (Int(carrier) * RoutingPolicy.Condition.all.count + Int(condition)) * LoginFlow.allCases.count + Int(flow)
    }

    // MARK: Reading lines

    /// Counts one line of the event stream.
    /// - Parameter line: The line's text, without its line break.
    /// - Throws: ``LineError`` when the line is not an event of the schema (not JSON, a field missing or of
    ///   the wrong kind, an unknown carrier, flow, action or condition, another schema version); nothing
    ///   was counted then, and the next line may be added.
    public mutating func add(_ line: String) throws(LineError) {
        var line = line
        let outcome: Result<Void, LineError> = line.withUTF8 { bytes in
            do throws(LineError) {
                try add(line: bytes)
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try outcome.get()
    }

    /// Counts one line of the event stream, as bytes (what a stream reader hands over).
    /// - Parameter line: The line's UTF-8 bytes, without its line break; a blank line is skipped.
    /// - Throws: ``LineError`` as ``add(_:)`` does.
    /// - Complexity: O(*n*) in the line's length, and amortised O(1) in the logins open; no allocation
    ///   unless the line starts a login or names a code, a platform or a row not seen before.
    public mutating func add(line: UnsafeBufferPointer<UInt8>) throws(LineError) {
        var blank = true
        for byte in line where byte != 0x20 && byte != 0x09 && byte != 0x0D {
            blank = false
            break
        }
        if blank { return }
        summary.lines += 1
        do {
            try count(line)
        } catch {
            summary.malformed += 1
            throw error
        }
    }

    private mutating func count(_ bytes: UnsafeBufferPointer<UInt8>) throws(LineError) {
        let fields: EventLineScanner.Fields
        do {
            fields = try EventLineScanner.scan(bytes)
        } catch {
            throw LineError(error.message)
        }
        guard let version = fields.version else { throw LineError("no 'v': not a line of the OneTap event schema") }
        guard fields[.area].isPresent else { throw LineError("no 'area': an event names its area (login, token, sms)") }
        let isLogin = fields[.area].count == 5 && !fields[.area].escaped && Self.equal(bytes, fields[.area], "login")
        guard isLogin else {
            summary.ignored += 1
            return
        }
        guard version == 2 else {
            if version == 1 { throw LineError("a login event of schema version 1, which has no session, carrier or elapsedMs; this onetap reads version 2") }
            throw LineError(version > 2 ? "schema version \(version) is newer than this onetap reads (2)" : "'v' is \(version); the schema's versions start at 1")
        }
        guard fields[.event].isPresent else { throw LineError("no 'event': a login event names its kind") }
        guard let event = EventValues.match(bytes, fields[.event], in: EventValues.events) else {
            summary.ignored += 1
            return
        }
        let key = try Self.session(bytes, fields[.session])
        guard fields[.at].isPresent else { throw LineError("no 'at': every event has its time") }
        let at = try Self.instant(bytes, fields[.at])
        try apply(event, key, fields, bytes, at: at)
        // Counted once the line was taken (a refused line counts as malformed only).
        summary.loginEvents += 1
        if summary.first.map({ at < $0 }) ?? true { summary.first = at }
        if summary.last.map({ at > $0 }) ?? true { summary.last = at }
        advanceClock(to: at)
        sweep()
        if open.count > openLimit { abandonTheLongestSilent(open.count / 4) }
    }

    /// Moves the stream's clock on with a line's time. The clock is the second latest time of the lines: one line
    /// alone, dated far ahead (a damaged one, year 9999, first or later), never moves it, where as the latest it would
    /// have counted every open login unfinished and, no later line coming, stopped every sweep after; a gap in the
    /// stream moves it at its second line; lines dated before it leave it, so none holds it back. It never goes back.
    private mutating func advanceClock(to at: Int64) {
        if at > newest {
            latest = newest
            newest = at
        } else if at > latest {
            latest = at
        }
    }

    /// Counts the `count` open logins silent longest as unfinished, the longest first: a quarter of them when the
    /// stream holds more than ``openLimit`` open at once (amortized O(log *n*) a line), all of them at its end.
    private mutating func abandonTheLongestSilent(_ count: Int) {
        let oldest = open.sorted { $0.value.lastAt < $1.value.lastAt }.prefix(count)
        for (key, login) in oldest {
            open[key] = nil
            abandon(login)
        }
    }

    private mutating func apply(
        _ event: EventValues.Event, _ key: SessionKey, _ fields: EventLineScanner.Fields, _ bytes: UnsafeBufferPointer<UInt8>, at: Int64
    ) throws(LineError) {
        if event == .planned {
            try plan(key, fields, bytes, at: at)
        } else if var login = open[key] {
            login.lastAt = at
            if let elapsed = fields.elapsed, elapsed >= 0 { login.lastElapsed = elapsed }
            switch event {
            case .flowStarted:
                let flow = try Self.flow(bytes, fields[.flow], required: true)!
                guard let attempt = fields.attempt else { throw LineError("no 'attempt': a flow-started event has its attempt") }
                guard attempt >= 1 else { throw LineError("key 'attempt': attempts start at 1, not \(attempt)") }
                let elapsed = try Self.elapsed(fields)
                if attempt == 1 || login.stage != UInt8(flow.index) {
                    close(&login, as: login.lastAction == .switch ? .switched : .next, at: elapsed)
                    login.stage = UInt8(flow.index)
                    login.stageStart = elapsed
                    login.lastAction = nil
                    if flow == .sms { login.reachedSMS = true }
                }
            case .result:
                let flow = try Self.flow(bytes, fields[.flow], required: true)!
                guard fields[.code].isPresent, fields[.code].count > 0 else { throw LineError("no 'code': a result has its code") }
                guard fields[.action].isPresent else { throw LineError("no 'action': a result has the action it led to") }
                guard let action = EventValues.match(bytes, fields[.action], in: EventValues.actions) else {
                    throw LineError("key 'action': unknown action \(EventValues.quoted(bytes, fields[.action])); the actions are \(OutcomeAction.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                let code = intern(flow, bytes, fields[.code], action: action, meaning: fields[.meaning])
                rows[Int(login.row)].results += 1
                rows[Int(login.row)].codes[code, default: 0] += 1
                if login.stage == UInt8(flow.index) { login.lastAction = action }
            case .alert:
                let flow = try Self.flow(bytes, fields[.flow], required: true)!
                guard fields[.code].isPresent, fields[.code].count > 0 else { throw LineError("no 'code': an alert has its code") }
                let code = intern(flow, bytes, fields[.code], action: nil, meaning: fields[.meaning])
                rows[Int(login.row)].alerts += 1
                rows[Int(login.row)].alertCodes[code, default: 0] += 1
                login.alerted = true
            case .succeeded, .cancelled, .failed:
                let flow = try Self.flow(bytes, fields[.flow], required: event == .succeeded)
                let elapsed = try Self.elapsed(fields)
                open[key] = nil
                end(login, event == .succeeded ? .success : event == .cancelled ? .cancelled : .failed, flow: flow, at: elapsed)
                return
            case .planned, .progress, .fallback:
                break
            }
            open[key] = login
        } else {
            summary.orphans += 1
        }
    }

    private mutating func plan(_ key: SessionKey, _ fields: EventLineScanner.Fields, _ bytes: UnsafeBufferPointer<UInt8>, at: Int64) throws(LineError) {
        guard fields[.carrier].isPresent else { throw LineError("no 'carrier': a planned event names the plan's carrier") }
        guard let carrier = EventValues.match(bytes, fields[.carrier], in: EventValues.carriers) else {
            throw LineError("key 'carrier': unknown carrier \(EventValues.quoted(bytes, fields[.carrier])); the carriers are \(Carrier.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        if fields[.evidence].isPresent, EventValues.match(bytes, fields[.evidence], in: EventValues.evidence) == nil {
            throw LineError("key 'evidence': unknown evidence \(EventValues.quoted(bytes, fields[.evidence])); the evidence is \(EvidenceSource.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard fields[.condition].isPresent else { throw LineError("no 'condition': a planned event names the policy's condition") }
        guard let condition = EventValues.match(bytes, fields[.condition], in: EventValues.conditions) else {
            throw LineError("key 'condition': unknown condition \(EventValues.quoted(bytes, fields[.condition])); the conditions are \(RoutingPolicy.Condition.all.map(\.description).joined(separator: ", "))")
        }
        guard fields.flowCount >= 0 else { throw LineError("no 'flows': a planned event lists the plan's flows") }
        // Checked on the packed bytes (no array per login): FlowSequence's rules, its message when broken.
        var seen: UInt8 = 0
        var repeated = false
        for position in 0..<fields.flowCount {
            let bit = UInt8(1) << UInt8((fields.flows >> (8 * UInt32(position))) & 0xFF)
            repeated = repeated || seen & bit != 0
            seen |= bit
        }
        let last = fields.flowCount > 0 ? (fields.flows >> (8 * UInt32(fields.flowCount - 1))) & 0xFF : 0xFF
        if fields.flowCount == 0 || repeated || last != UInt32(LoginFlow.sms.index) {
            throw LineError("key 'flows': \(FlowSequence.validate(Self.unpack(fields.flows, fields.flowCount)) ?? "not a plan's flows")")
        }
        let platform = try platformIndex(bytes, fields[.platform])
        let carrierIndex = UInt8(Self.carriers.firstIndex(of: carrier)!)
        let conditionIndex = UInt8(RoutingPolicy.Condition.all.firstIndex(of: condition)!)

        let rowKey = RowKey(carrier: carrierIndex, flow: UInt8(fields.flows & 0xFF), platform: platform)
        let row: Int32
        if let existing = rowIndex[rowKey] {
            row = existing
        } else {
            row = Int32(rows.count)
            rows.append(RowTally(key: rowKey))
            rowIndex[rowKey] = row
        }
        let planKey = PlanKey(carrier: carrierIndex, condition: conditionIndex, flows: fields.flows, count: UInt8(fields.flowCount))
        let planNumber: Int32
        if let existing = planIndex[planKey] {
            planNumber = existing
        } else {
            planNumber = Int32(plans.count)
            plans.append(LoginObservations.Plan(carrier: carrier, condition: condition, flows: FlowSequence(unchecked: Self.unpack(fields.flows, fields.flowCount))))
            planIndex[planKey] = planNumber
        }
        if let previous = open[key] {
            // The same session planned twice: the first login went no further.
            open[key] = nil
            abandon(previous)
        }
        rows[Int(row)].logins += 1
        plans[Int(planNumber)].logins += 1
        summary.logins += 1
        open[key] = OpenLogin(
            row: row, plan: planNumber, carrier: carrierIndex, condition: conditionIndex, lastElapsed: max(0, fields.elapsed ?? 0), lastAt: at)
        summary.peakOpenLogins = max(summary.peakOpenLogins, open.count)
    }

    /// Ends the login's stage (if it is at one) the way it left it.
    private mutating func close(_ login: inout OpenLogin, as outcome: LoginObservations.Outcome, at elapsed: Int64) {
        guard login.stage != 0xFF else { return }
        let index = stageIndex(carrier: login.carrier, condition: login.condition, flow: login.stage)
        stages[index].counts[outcome.rawValue] += 1
        stages[index].times[outcome.rawValue].add(Double(max(0, elapsed - login.stageStart)))
        login.stage = 0xFF
    }

    private mutating func end(_ login: OpenLogin, _ ending: Decision.Ending, flow: LoginFlow?, at elapsed: Int64) {
        var login = login
        let outcome: LoginObservations.Outcome = switch ending {
        case .success: .success
        case .cancelled: .cancelled
        case .failed: .failed
        }
        close(&login, as: outcome, at: elapsed)
        let row = Int(login.row), plan = Int(login.plan)
        switch ending {
        case .success where flow == .sms:
            rows[row].sms += 1
            plans[plan].sms += 1
        case .success:
            rows[row].oneTap += 1
            plans[plan].oneTap += 1
        case .cancelled:
            rows[row].cancelled += 1
            plans[plan].cancelled += 1
        case .failed:
            rows[row].failed += 1
            plans[plan].failed += 1
        }
        if ending == .success {
            rows[row].successTimes.add(elapsed)
            plans[plan].successTimes.add(Double(max(0, elapsed)))
        }
        settle(login)
    }

    /// Counts a login that did not end.
    private mutating func abandon(_ login: OpenLogin) {
        var login = login
        close(&login, as: .unfinished, at: login.lastElapsed)
        rows[Int(login.row)].unfinished += 1
        plans[Int(login.plan)].unfinished += 1
        settle(login)
    }

    /// What every login adds once it is over.
    private mutating func settle(_ login: OpenLogin) {
        if login.reachedSMS { plans[Int(login.plan)].reachedSMS += 1 }
        if login.alerted {
            rows[Int(login.row)].alertLogins += 1
            if login.reachedSMS { rows[Int(login.row)].alertSMS += 1 }
        }
    }

    /// Forgets the logins silent for longer than the idle limit (looked at once per quarter of it, by the stream's
    /// clock, which never goes back).
    private mutating func sweep() {
        let now = latest
        guard now != .min, now > lastSweep &+ idleLimit / 4 || lastSweep == .min else { return }
        lastSweep = now
        // Instants are 1970 or later (the scanner refuses earlier ones); still, with the longest limit the
        // difference could fall below what an Int64 holds: then nothing is that old.
        let (difference, overflow) = now.subtractingReportingOverflow(idleLimit)
        let cutoff = overflow ? .min : difference
        guard open.values.contains(where: { $0.lastAt < cutoff }) else { return }
        let silent = open.filter { $0.value.lastAt < cutoff }
        for (key, login) in silent {
            open[key] = nil
            abandon(login)
        }
    }

    /// Counts a line the reader could not hand over (one too long to be an event) as malformed.
    public mutating func skipLine() {
        summary.lines += 1
        summary.malformed += 1
    }

    /// Counts every login still open as unfinished: call once the stream has ended.
    public mutating func finish() {
        abandonTheLongestSilent(open.count)
    }

    /// How many logins are open now.
    public var openLogins: Int { open.count }

    // MARK: Fields

    @inline(__always)
    private static func equal(_ bytes: UnsafeBufferPointer<UInt8>, _ span: EventLineScanner.Span, _ text: StaticString) -> Bool {
        guard span.count == text.utf8CodeUnitCount else { return false }
        for offset in 0..<span.count where bytes[span.start + offset] != text.utf8Start[offset] { return false }
        return true
    }

    private static func session(_ bytes: UnsafeBufferPointer<UInt8>, _ span: EventLineScanner.Span) throws(LineError) -> SessionKey {
        guard span.isPresent else { throw LineError("no 'session': a login event names its login session") }
        guard span.count >= 1, span.count <= 32, !span.escaped else {
            throw LineError("key 'session': \(EventValues.quoted(bytes, span)) is no session id (1 to 32 printable ASCII characters)")
        }
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        for offset in 0..<span.count {
            let byte = bytes[span.start + offset]
            guard byte > 0x20, byte < 0x7F else {
                throw LineError("key 'session': \(EventValues.quoted(bytes, span)) is no session id (1 to 32 printable ASCII characters)")
            }
            let shift = UInt64(offset % 8) * 8
            switch offset / 8 {
            case 0: words.0 |= UInt64(byte) << shift
            case 1: words.1 |= UInt64(byte) << shift
            case 2: words.2 |= UInt64(byte) << shift
            default: words.3 |= UInt64(byte) << shift
            }
        }
        return SessionKey(a: words.0, b: words.1, c: words.2, d: words.3, length: UInt8(span.count))
    }

    private static func instant(_ bytes: UnsafeBufferPointer<UInt8>, _ span: EventLineScanner.Span) throws(LineError) -> Int64 {
        guard !span.escaped, let value = Timestamp.milliseconds(UnsafeBufferPointer(rebasing: bytes[span.start..<(span.start + span.count)])) else {
            throw LineError("key 'at': \(EventValues.quoted(bytes, span)) is no ISO 8601 instant (2026-12-01T08:00:01.250Z)")
        }
        return value
    }

    private static func elapsed(_ fields: EventLineScanner.Fields) throws(LineError) -> Int64 {
        guard let elapsed = fields.elapsed else { throw LineError("no 'elapsedMs': the event has the milliseconds since its login started") }
        guard elapsed >= 0 else { throw LineError("key 'elapsedMs': \(elapsed) is negative") }
        return elapsed
    }

    private static func flow(_ bytes: UnsafeBufferPointer<UInt8>, _ span: EventLineScanner.Span, required: Bool) throws(LineError) -> LoginFlow? {
        guard span.isPresent else {
            if required { throw LineError("no 'flow': the event names its flow") }
            return nil
        }
        guard let flow = EventValues.flow(bytes, span) else {
            throw LineError("key 'flow': unknown flow \(EventValues.quoted(bytes, span)); the flows are mobile, tianyi, unicom, sms")
        }
        return flow
    }

    static func unpack(_ packed: UInt32, _ count: Int) -> [LoginFlow] {
        (0..<max(0, count)).map { position in flows[Int((packed >> (8 * UInt32(position))) & 0xFF)] }
    }

    private mutating func platformIndex(_ bytes: UnsafeBufferPointer<UInt8>, _ span: EventLineScanner.Span) throws(LineError) -> Int32 {
        guard span.isPresent else { return -1 }
        let text = EventValues.text(bytes, span)
        let platform: Platform
        do {
            platform = try Platform(text)
        } catch {
            throw LineError("key 'platform': \(error)")
        }
        var counted = platform
        if platformNumbers[platform] == nil, platforms.count >= Self.platformLimit - 1, let other = Self.otherPlatform {
            counted = other
            summary.otherPlatformLogins += 1
        }
        if let number = platformNumbers[counted] { return number }
        let number = Int32(platforms.count)
        platforms.append(counted)
        platformNumbers[counted] = number
        return number
    }

    /// How many platforms the rows tell apart: the first 255 distinct ids a stream names, and `other` for
    /// every later one. A platform id is the device's own claim (any short id), so a stream, or a client,
    /// naming a new one per login must not make a row per login.
    public static let platformLimit = 256
    /// The platform the logins of platforms past ``platformLimit`` are counted under (a device naming
    /// `other` itself is counted there too).
    static let otherPlatform = Platform(rawValue: "other")

    /// How many distinct result codes the table of codes seen keeps, with their actions and meanings: 4,096 in all,
    /// a few of them each flow's `(other)`, which counts every later code and every code longer than
    /// ``codeBytesLimit``. A code is the device's report (any text), so a stream naming a new one per line must not
    /// grow the table (and the memory a count takes) without bound.
    static let codeLimit = 4_096
    /// The longest code counted on its own, in bytes; a longer one counts under `(other)`.
    static let codeBytesLimit = 64
    /// The most Unicode scalars of a code's meaning the table keeps (at most 1 KiB of UTF-8: a character may hold any
    /// number of combining marks), each unsafe one replaced.
    static let meaningLimit = 256
    /// The code every code past ``codeLimit`` (or longer than ``codeBytesLimit``) is counted under, per flow.
    static let otherCode = "(other)"

    /// The code's number in the table of codes seen, made on first sight (with its action and meaning).
    private mutating func intern(
        _ flow: LoginFlow, _ bytes: UnsafeBufferPointer<UInt8>, _ span: EventLineScanner.Span, action: OutcomeAction?, meaning: EventLineScanner.Span
    ) -> Int32 {
        let decoded: [UInt8]? = span.escaped ? Array(EventValues.text(bytes, span).utf8) : nil
        let raw = UnsafeBufferPointer(rebasing: bytes[span.start..<(span.start + span.count)])
        func lookup(_ text: UnsafeBufferPointer<UInt8>, other overflowing: Bool = false) -> Int32 {
            // A code written `(other)` in the stream is counted in the bucket as the codes past the limit are (a review:
            // it gave the bucket its action).
            let other = overflowing || text.elementsEqual(Self.otherCode.utf8)
            var hash: UInt64 = 0xCBF2_9CE4_8422_2325 ^ UInt64(flow.index)
            for byte in text { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
            if let candidates = codeIndex[hash] {
                for candidate in candidates {
                    let entry = codes[Int(candidate)]
                    guard entry.flow == flow, entry.text.count == text.count else { continue }
                    let same = entry.text.withUnsafeBufferPointer { stored in stored.elementsEqual(text) }
                    if same {
                        // `(other)` holds codes of any action, so it takes none of theirs (a CLI attacker's read).
                        if entry.action == nil, let action, !other { codes[Int(candidate)].action = action }
                        return candidate
                    }
                }
            }
            if !other, codes.count >= Self.codeLimit - LoginFlow.allCases.count || text.count > Self.codeBytesLimit {
                return Array(Self.otherCode.utf8).withUnsafeBufferPointer { lookup($0, other: true) }
            }
            let number = Int32(codes.count)
            let said = other
                ? "codes past the first \(Self.codeLimit - LoginFlow.allCases.count) distinct ones, or longer than \(Self.codeBytesLimit) bytes"
                : meaning.isPresent ? DisplayText.label(EventValues.text(bytes, meaning), limit: Self.meaningLimit) : ""
            codes.append(CodeEntry(flow: flow, text: Array(text), action: other ? nil : action, meaning: said))
            codeIndex[hash, default: []].append(number)
            return number
        }
        if let decoded { return decoded.withUnsafeBufferPointer { lookup($0) } }
        return lookup(raw)
    }

    // MARK: Reports

    /// The funnel: the logins counted so far, in rows.
    /// - Parameters:
    ///   - dimensions: What to split the rows by; carrier and first flow by default.
    ///   - topCodes: How many codes to list per row (and alert codes); 5 by default.
    ///   - smsPrice: The price of one SMS, to put a cost on the logins a misconfiguration sent to SMS.
    /// - Returns: The funnel; logins still open are not in it (call ``finish()`` first to count them as
    ///   unfinished).
    /// - Complexity: O(rows × codes).
    public func funnel(by dimensions: LoginFunnel.Dimensions = [.carrier, .firstFlow], topCodes: Int = 5, smsPrice: Double? = nil) -> LoginFunnel {
        var merged: [RowKey: RowTally] = [:]
        var order: [RowKey] = []
        for tally in rows {
            let key = RowKey(
                carrier: dimensions.contains(.carrier) ? tally.key.carrier : 0xFF, flow: dimensions.contains(.firstFlow) ? tally.key.flow : 0xFF,
                platform: dimensions.contains(.platform) ? tally.key.platform : -2)
            if merged[key] == nil {
                merged[key] = RowTally(key: key)
                order.append(key)
            }
            merged[key]!.merge(tally)
        }
        let limit = max(0, topCodes)
        func ranked(_ counts: [Int32: Int], total: Int, where keep: (CodeEntry) -> Bool) -> [LoginFunnel.CodeCount] {
            counts.filter { keep(codes[Int($0.key)]) }
                .sorted { left, right in
                    // By count, then text, then flow: one order every run (a tie of one text in two flows fell to the
                    // dictionary's order, seeded per process).
                    guard left.value == right.value else { return left.value > right.value }
                    let (a, b) = (codes[Int(left.key)], codes[Int(right.key)])
                    return a.text != b.text ? a.text.lexicographicallyPrecedes(b.text) : a.flow.index < b.flow.index
                }
                .prefix(limit)
                .map { number, count in
                    let entry = codes[Int(number)]
                    return LoginFunnel.CodeCount(
                        flow: entry.flow, code: String(decoding: entry.text, as: UTF8.self), count: count, share: total > 0 ? Double(count) / Double(total) : 0,
                        action: entry.action, meaning: entry.meaning)
                }
        }
        let built = order.map { key -> LoginFunnel.Row in
            let tally = merged[key]!
            return LoginFunnel.Row(
                carrier: key.carrier == 0xFF ? nil : Self.carriers[Int(key.carrier)], firstFlow: key.flow == 0xFF ? nil : Self.flows[Int(key.flow)],
                platform: key.platform >= 0 ? platforms[Int(key.platform)] : nil, logins: tally.logins, oneTap: tally.oneTap, sms: tally.sms,
                cancelled: tally.cancelled, failed: tally.failed, unfinished: tally.unfinished, oneTapShare: .wilson(tally.oneTap, of: tally.logins),
                successShare: .wilson(tally.oneTap + tally.sms, of: tally.logins), successP50: tally.successTimes.quantile(0.5),
                successP95: tally.successTimes.quantile(0.95), results: tally.results,
                topCodes: ranked(tally.codes, total: tally.results) { _ in true },
                topFailures: ranked(tally.codes, total: tally.results) { $0.action != .success && $0.action != .progress },
                alerts: LoginFunnel.Alerts(
                    count: tally.alerts, logins: tally.alertLogins, toSMS: tally.alertSMS, cost: smsPrice.map { Double(tally.alertSMS) * $0 },
                    codes: ranked(tally.alertCodes, total: tally.alerts) { _ in true }))
        }
        let sorted = built.enumerated().sorted { left, right in
            left.element.logins != right.element.logins ? left.element.logins > right.element.logins : left.offset < right.offset
        }.map(\.element)
        return LoginFunnel(dimensions: dimensions, rows: sorted, summary: summary, smsPrice: smsPrice)
    }

    /// What was read so far.
    public var readSummary: LoginFunnel.Summary { summary }

    /// The stages and plans observed so far: what ``RoutingReplay`` estimates from.
    public var observations: LoginObservations {
        LoginObservations(stages: stages.filter { $0.total > 0 }, plans: plans)
    }
}
