// OneTapFuzz: libFuzzer targets for every parser, each asserting invariants (not only "did not crash").
//
//   Fuzzing (see .ci/fuzz):  ONETAP_FUZZ=1 swift build --product OneTapFuzz --scratch-path .build/fuzz
//                            ONETAP_FUZZ_TARGET=plmn .build/fuzz/debug/OneTapFuzz -max_total_time=60 CORPUS
//   Replaying files (any build):  swift run OneTapFuzz plmn Tests/FuzzCorpus/plmn
//
// Targets: plmn, phone, code, ip, snapshot, tables, token-record, cli-args, session, session-json, events, sha256,
// app-session.

import Foundation
#if canImport(Glibc)
import Glibc
#endif
import OneTap
import OneTapInsights
import OneTapCLI

/// One fuzz target: takes bytes, checks invariants through ``Invariant/check(_:_:)``.
struct FuzzTarget: Sendable {
    let name: String
    let summary: String
    let run: @Sendable ([UInt8]) -> Void
}

/// Reports a broken invariant: a crash under libFuzzer (so it is caught and minimised), a message and
/// a failing exit status when replaying.
enum Invariant {
    nonisolated(unsafe) static var failures = 0
    nonisolated(unsafe) static var current = ""

    static func check(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
        guard !condition() else { return }
        #if ONETAP_FUZZ
        fatalError("invariant broken: \(message())")
        #else
        failures += 1
        FileHandle.standardError.write(Data("invariant broken (\(current)): \(message())\n".utf8))
        #endif
    }
}

enum Targets {
    static let all: [FuzzTarget] = [plmn, phone, code, ip, snapshot, tables, tokenRecord, cliArguments, session, sessionJSON, events, sha256, appSession]

    static let knownKinds: Set<ParseError.Kind> = [
        .empty, .placeholder, .invalidCharacter, .nonASCIIDigit, .wrongLength, .reserved, .outOfRange, .foreignNumber, .notMobile, .malformed,
    ]

    /// Parses through the byte entry point and the string entry point and checks they agree.
    static func bothWays<T: Equatable>(_ bytes: [UInt8], _ fromBytes: (UnsafeBufferPointer<UInt8>) throws(ParseError) -> T,
                                       _ fromText: (String) throws(ParseError) -> T) -> (String, Result<T, ParseError>) {
        let text = String(decoding: bytes, as: UTF8.self)
        let viaText: Result<T, ParseError> = Result { () throws(ParseError) -> T in try fromText(text) }
        if String(validating: bytes, as: UTF8.self) != nil {
            let viaBytes: Result<T, ParseError> = bytes.withUnsafeBufferPointer { buffer in Result { () throws(ParseError) -> T in try fromBytes(buffer) } }
            Invariant.check((try? viaBytes.get()) == (try? viaText.get()), "the byte and string parsers disagree on \(QuotedText(text))")
        }
        if case .failure(let error) = viaText {
            Invariant.check(error.input == text, "the error does not name the input: \(error)")
            Invariant.check(knownKinds.contains(error.kind), "unknown error kind \(error.kind)")
            Invariant.check(!error.description.isEmpty && !error.reason.isEmpty, "an error without a reason")
        }
        return (text, viaText)
    }

    static let plmn = FuzzTarget(name: "plmn", summary: "PLMN parsing and carrier lookup") { bytes in
        let table = PLMNTable.builtIn
        let (text, result) = bothWays(bytes, { (b) throws(ParseError) in try PLMN(utf8: b) }, { (t) throws(ParseError) in try PLMN(t) })
        switch result {
        case .success(let plmn):
            Invariant.check((try? PLMN(plmn.description)) == plmn, "parse → description → parse changed \(plmn)")
            if plmn.compact != "65535" {  // South Africa's 655-35 written compactly is the iOS placeholder
                Invariant.check((try? PLMN(plmn.compact)) == plmn, "parse → compact → parse changed \(plmn)")
            }
            Invariant.check((try? PLMN(mcc: plmn.mcc, mnc: plmn.mnc)) == plmn, "mcc/mnc round trip changed \(plmn)")
            Invariant.check((try? table.carrier(forReported: text)) == table.carrier(for: plmn), "carrier(forReported:) disagrees for \(plmn)")
            Invariant.check(plmn.isMainland || table.carrier(for: plmn) == .other, "a foreign PLMN that is not `other`")
        case .failure(let error):
            do throws(ParseError) {
                let carrier = try table.carrier(forReported: text)
                Invariant.check(carrier == .unknown && (error.kind == .empty || error.kind == .placeholder), "a refused PLMN resolved to \(carrier)")
            } catch {
                Invariant.check(error.kind != .empty && error.kind != .placeholder, "carrier(forReported:) threw for a placeholder")
            }
        }
        // The MCC/MNC pair form never traps either.
        let half = text.unicodeScalars.count / 2
        _ = try? PLMN(mcc: String(text.unicodeScalars.prefix(half)), mnc: String(text.unicodeScalars.dropFirst(half)))
    }

    static let phone = FuzzTarget(name: "phone", summary: "phone-number parsing and segment lookup") { bytes in
        let table = NumberSegmentTable.builtIn
        let (_, result) = bothWays(bytes, { (b) throws(ParseError) in try PhoneNumber(utf8: b) }, { (t) throws(ParseError) in try PhoneNumber(t) })
        guard case .success(let number) = result else { return }
        Invariant.check(number.digits.count == 11 && ("13"..."19").contains(number.digits.prefix(2)), "not 11 digits starting 13 to 19: \(number)")
        Invariant.check((try? PhoneNumber(number.digits)) == number, "digits round trip changed \(number)")
        Invariant.check((try? PhoneNumber("+86 " + number.digits)) == number, "+86 form changed \(number)")
        let expected = table.segments.filter { number.digits.hasPrefix($0.prefix) }.max { $0.prefix.count < $1.prefix.count }
        Invariant.check(table.segment(for: number) == expected, "the trie disagrees with the prefix scan for \(number)")
        Invariant.check(table.match(number).carrier == (expected?.carrier ?? .unknown), "match(_:) disagrees for \(number)")
    }

    static let code = FuzzTarget(name: "code", summary: "result-code normalisation and classification") { bytes in
        let table = OutcomeTable.builtIn
        let text = String(decoding: bytes, as: UTF8.self)
        let parsed = Result { () throws(ParseError) -> ResultCode in try ResultCode(text) }
        for flow in LoginFlow.allCases {
            let action = table.action(for: flow, code: text)
            Invariant.check(OutcomeAction.allCases.contains(action), "no action")
            switch parsed {
            case .success(let code):
                Invariant.check(action == table.action(for: flow, code: code), "text and ResultCode classification disagree for \(code)")
                Invariant.check(table.outcome(for: flow, code: code).action == action, "outcome(for:code:) disagrees for \(code)")
            case .failure:
                Invariant.check(action == table.defaultEntry(for: flow).action, "a non-code did not get the flow's default")
            }
        }
        if case .success(let code) = parsed {
            Invariant.check((try? ResultCode(code.description)) == code, "parse → description → parse changed \(code)")
        }
        if case .failure(let error) = parsed {
            Invariant.check(error.input == text && knownKinds.contains(error.kind), "a bad result-code error: \(error)")
        }
    }

    static let ip = FuzzTarget(name: "ip", summary: "IPv4/IPv6 address parsing and prefix lookup") { bytes in
        let text = String(decoding: bytes, as: UTF8.self)
        switch Result(catching: { () throws(ParseError) -> IPAddress in try IPAddress(text) }) {
        case .success(let address):
            let canonical = address.description
            let again = try? IPAddress(canonical)
            Invariant.check(again == address, "parse → format → parse changed \(QuotedText(text)) (\(canonical))")
            Invariant.check(again?.description == canonical, "the canonical form is not stable: \(canonical)")
            if let prefix = IPv6PrefixTable.builtIn.prefix(for: address) {
                Invariant.check(prefix.contains(address), "a prefix that does not hold the address")
            }
        case .failure(let error):
            Invariant.check(error.input == text && knownKinds.contains(error.kind), "a bad address error: \(error)")
        }
    }

    /// A snapshot `DeviceSnapshot(json:)` reads is the one Foundation reads by the documented rules
    /// (``SnapshotOracle``); it routes to a plan ending with SMS, and survives its JSON round trip.
    static let snapshot = FuzzTarget(name: "snapshot", summary: "DeviceSnapshot JSON decoding and routing") { bytes in
        guard let snapshot = try? DeviceSnapshot(json: bytes) else { return }
        Invariant.check(SnapshotOracle.read(bytes) == snapshot, "DeviceSnapshot(json:) read a snapshot Foundation reads otherwise")
        let engine = LoginDecisionEngine()
        let plan = engine.plan(for: snapshot)
        Invariant.check(plan.flows.last == .sms, "a plan that does not end with SMS: \(plan)")
        Invariant.check(Set(plan.flows).count == plan.flows.count, "a plan with a flow twice: \(plan)")
        let decoded = (try? snapshot.json()).flatMap { try? DeviceSnapshot(json: $0) }
        Invariant.check(decoded == snapshot, "write → read changed the snapshot")
        Invariant.check(decoded.map(engine.plan(for:)) == plan, "the round-tripped snapshot routes differently")
    }

    /// The first byte picks the table; the rest is its text.
    static let tables = FuzzTarget(name: "tables", summary: "every Data/ table loader and the decision-table parser") { bytes in
        guard let selector = bytes.first else { return }
        let text = String(decoding: bytes.dropFirst(), as: UTF8.self)
        switch selector % 12 {
        case 0:
            guard let table = try? PLMNTable(csv: text, file: "fuzz.csv") else { return }
            for entry in table.entries {
                Invariant.check(entry.plmn.isMainland && entry.carrier != .other && entry.carrier != .unknown, "an accepted row outside the rules")
                Invariant.check(table.carrier(for: entry.plmn) == entry.carrier, "an accepted row does not resolve")
            }
            Invariant.check(Set(table.entries.map(\.plmn)).count == table.entries.count, "duplicate PLMNs accepted")
        case 1:
            guard let table = try? NumberSegmentTable(csv: text, file: "fuzz.csv") else { return }
            Invariant.check(Set(table.segments.map(\.prefix)).count == table.segments.count, "duplicate prefixes accepted")
            for segment in table.segments {
                Invariant.check((3...7).contains(segment.prefix.count) && segment.prefix.hasPrefix("1"), "a bad prefix accepted")
                guard let number = try? PhoneNumber(segment.prefix + String(repeating: "0", count: 11 - segment.prefix.count)) else {
                    Invariant.check(false, "an accepted prefix that makes no number")
                    continue
                }
                let expected = table.segments.filter { number.digits.hasPrefix($0.prefix) }.max { $0.prefix.count < $1.prefix.count }
                Invariant.check(table.segment(for: number) == expected, "longest prefix does not win")
            }
        case 2:
            guard let table = try? IPv6PrefixTable(csv: text, file: "fuzz.csv") else { return }
            for prefix in table.prefixes {
                let match = table.prefix(for: .v6(high: prefix.high, low: prefix.low))
                Invariant.check(match.map { $0.length >= prefix.length } ?? false, "a prefix does not match its own network")
            }
        case 3:
            guard let table = try? OutcomeTable(csv: text, file: "fuzz.csv") else { return }
            for flow in LoginFlow.allCases {
                Invariant.check(table.entries.filter { $0.flow == flow && $0.code == nil }.count == 1, "a flow without exactly one default")
            }
            for entry in table.entries {
                if let code = entry.code { Invariant.check(table.action(for: entry.flow, code: code) == entry.action, "a row does not classify") }
            }
        case 4:
            guard let policy = try? RoutingPolicy(csv: text, file: "fuzz.csv") else { return }
            Invariant.check(policy.rules.map(\.condition) == RoutingPolicy.Condition.all, "a policy without every condition")
            for rule in policy.rules {
                Invariant.check(rule.flows.last == .sms && Set(rule.flows).count == rule.flows.count, "a rule whose flows are not a plan")
            }
        case 5:
            guard let table = try? ExchangeCodeTable(csv: text, file: "fuzz.csv") else { return }
            for entry in table.entries {
                Invariant.check(entry.flow.isOneTap && (entry.action != .misconfigured || entry.alert), "an accepted row outside the rules")
                if let code = entry.code { Invariant.check(table.entry(for: entry.flow, code: code) == entry, "a row does not classify") }
            }
        case 6:
            guard let table = try? TokenLifetimeTable(csv: text, file: "fuzz.csv") else { return }
            for flow in LoginFlow.allCases where flow.isOneTap {
                Invariant.check(table.entry(for: flow).map { $0.lifetime > .zero } ?? false, "a one-tap flow without a lifetime")
            }
        case 9:
            guard let policy = try? SMSPolicy(csv: text, file: "fuzz.csv") else { return }
            Invariant.check(!policy.rules.isEmpty && Set(policy.rules.map(\.id)).count == policy.rules.count, "a policy without rules or with a rule twice")
            for rule in policy.rules {
                Invariant.check((rule.over == .lock) == (rule.lock != nil) && rule.limit > 0 && rule.window > .zero, "an accepted rule outside the rules")
            }
            // Deciding never traps, whatever the events, and a decision names a rule of the policy.
            let request = SMSPolicy.Request(number: "13800138000", ip: "203.0.113.7", device: "d", session: "s")
            let now = Date(timeIntervalSince1970: 1_796_090_400)
            var events: [SMSPolicy.Counter: [Date]] = [:]
            for (index, counter) in (policy.counters(for: request, counting: .sends) + policy.counters(for: request, counting: .failedVerifies)).enumerated() {
                events[counter] = (0..<(index % 4 + 1) * 5).map { now.addingTimeInterval(Double($0 * 37 - 400)) }
            }
            let ids = Set(policy.rules.map(\.id))
            switch policy.decideSend(request, events: events, captchaPassed: false, at: now) {
            case .admit(let after): Invariant.check(after >= now, "a resend time in the past")
            case .captcha(let rule, _), .limited(let rule, _): Invariant.check(ids.contains(rule), "a decision naming no rule")
            }
        case 10:
            guard let gate = try? LoginGate(csv: text, file: "fuzz.csv") else { return }
            Invariant.check(gate.defaultRule.needs == .account && gate.defaultRule.isDefault, "a default that does not fail closed")
            for rule in gate.rules where !rule.isDefault {
                Invariant.check(gate.rule(for: rule.action) == rule, "a row does not answer for its action")
                Invariant.check((rule.needs == .account) == !rule.promptZH.isEmpty, "a prompt that does not match its needs")
            }
        case 11:
            guard let rules = try? MergeRules(csv: text, file: "fuzz.csv") else { return }
            for rule in rules.rules {
                Invariant.check(rules.rule(for: rule.kind) == rule, "a row does not answer for its kind")
                // Planning the rule's kind with empty and small data never traps, and never loses a guest kind.
                let guest: [String: JSONValue] = [rule.kind: .array([.string("a")]), "unruled-kind-x": .null]
                if let plan = try? MergePlan.plan(guest: guest, account: [:], rules: rules) {
                    Invariant.check(plan.kept.contains("unruled-kind-x") || rules.rule(for: "unruled-kind-x") != nil, "a kind without a rule was dropped")
                }
            }
        case 7:
            guard let table = try? DecisionTable(transcript: text, file: "fuzz.transcript") else { return }
            for testCase in table.cases { Invariant.check(!testCase.expectations.isEmpty, "an expectation without fields") }
        default:
            guard let table = try? DecisionTable(text: text, file: "fuzz.table") else { return }
            for testCase in table.cases { Invariant.check(!testCase.expectations.isEmpty, "a case without expectations") }
        }
    }

    static let tokenRecord = FuzzTarget(name: "token-record", summary: "the file store's token record decoder") { bytes in
        let account: AccountID = "fuzz-account"
        guard let (stored, dueAt) = try? FileTokenStore.decodeRecord(bytes, account: account) else { return }
        Invariant.check(stored.token.account == account && !stored.token.value.isEmpty && stored.version.value >= 1, "an invalid record accepted")
        // What the record holds, as Foundation reads the same bytes.
        let object = (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any]
        Invariant.check(object?["accessToken"] as? String == stored.token.value.reveal() && object?["account"] as? String == account.rawValue
            && object?["flow"] as? String == stored.token.flow.rawValue
            && (object?["refreshToken"] as? String).flatMap({ $0.isEmpty ? nil : $0 }) == stored.token.refreshToken?.reveal()
            && (object?["issuedAtMs"] as? NSNumber)?.int64Value == stored.token.issuedAt.millisecondsSince1970
            && (object?["expiresAtMs"] as? NSNumber)?.int64Value == stored.token.expiresAt.millisecondsSince1970
            && (object?["dueAtMs"] as? NSNumber)?.int64Value == dueAt.millisecondsSince1970
            && (object?["version"] as? NSNumber)?.doubleValue == Double(stored.version.value),
            "the record reads otherwise than Foundation reads its JSON")
        for date in [stored.token.issuedAt, stored.token.expiresAt, dueAt] {
            Invariant.check(date.timeIntervalSince1970 >= 0 && date.timeIntervalSince1970 < 253_402_300_800, "a date outside 1970…9999 accepted")
        }
        let again = try? FileTokenStore.decodeRecord(FileTokenStore.encodeRecord(stored, dueAt: dueAt), account: account)
        Invariant.check(again?.stored == stored && again?.dueAt == dueAt, "decode → encode → decode changed the record")
        // The description must not depend on the secrets: swapping them leaves it unchanged.
        let token = stored.token
        let swapped = StoredToken(
            token: AccessToken(
                value: Secret(token.value.reveal() + "x"), refreshToken: token.refreshToken.map { Secret($0.reveal() + "x") }, flow: token.flow,
                account: token.account, issuedAt: token.issuedAt, expiresAt: token.expiresAt),
            version: stored.version)
        Invariant.check(stored.description == swapped.description, "a description depends on the token's secrets")
    }

    /// NUL bytes separate the arguments.
    static let cliArguments = FuzzTarget(name: "cli-args", summary: "the onetap argument parser") { bytes in
        let arguments = bytes.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        let first = Result { () throws(UsageError) -> Invocation in try OneTapCommandLine.parse(arguments) }
        let second = Result { () throws(UsageError) -> Invocation in try OneTapCommandLine.parse(arguments) }
        Invariant.check(first == second, "parsing the same arguments twice differs")
        if case .failure(let error) = first {
            Invariant.check(!error.message.isEmpty && error.description.contains("--help"), "a usage error that does not point at help")
        }
    }
}

extension Targets {
    /// The tokens a transcript line gives that carry the seeds' marker `FUZZ-SECRET` (its `token` and
    /// `refreshToken` values, when the line is a JSON object; other text, such as `token`, may stand in a
    /// record for other reasons), except those that also stand elsewhere in the line: text the line holds
    /// in another field (a snapshot's `sim`, say) may be quoted back in an error, and is no secret there.
    static func secrets(in line: Substring) -> [String] {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] else { return [] }
        return ["token", "refreshToken"].compactMap { object[$0] as? String }.filter { token in
            token.contains("FUZZ-SECRET") && line.components(separatedBy: token).count == 2 && !object.contains { key, value in
                !["token", "refreshToken"].contains(key) && "\(value)".contains(token)
            }
        }
    }

    /// Lines of NDJSON replayed as a login transcript through the server's session machine: whatever the
    /// reports, versions only grow (by one per accepted report), a rejected report changes nothing, no
    /// token is exchanged twice, no record shows a token, and the session survives a JSON round trip.
    static let session = FuzzTarget(name: "session", summary: "login transcripts through the session machine") { bytes in
        var transcript = Transcript(engine: LoginDecisionEngine())
        var previous: LoginSession? = nil
        let text = String(decoding: bytes, as: UTF8.self)
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let record = transcript.replay(String(line))
            if let object = Transcript.json(record, line: index + 1) {
                Invariant.check(!object.json.contains("\"token\""), "a record has a token field: \(object.json)")
                for secret in Self.secrets(in: line) { Invariant.check(!object.json.contains(secret), "a record shows a token: \(object.json)") }
            }
            guard let session = transcript.session else { continue }
            switch record {
            case .transition:
                if let previous {
                    let grew = session.version == previous.version + 1
                    let progress = session.version == previous.version && session == previous
                    Invariant.check(grew || progress, "the version went from \(previous.version) to \(session.version)")
                    Invariant.check(session.trace.count >= previous.trace.count, "the trace shrank")
                }
                Invariant.check(Set(session.exchangedTokens).count == session.exchangedTokens.count, "a token was exchanged twice")
            case .rejected, .malformed, .skipped:
                Invariant.check(previous == nil || session == previous, "a refused line changed the session")
            }
            Self.checkRoundTrips(session)
            previous = session
        }
    }
}

extension Targets {
    /// Bytes read as a session's JSON by `LoginSession(json:)`: it never traps, and it is never looser
    /// than Foundation (a session it reads, Foundation's `JSONDecoder` reads the same members from the
    /// same bytes, ``SessionOracle``, zeroes with an exponent written plainly); a session read survives
    /// its round trip.
    static let sessionJSON = FuzzTarget(name: "session-json", summary: "a session's JSON through LoginSession(json:), beside Foundation's reading") { bytes in
        guard let session = try? LoginSession(json: bytes) else { return }
        // JSONDecoder refuses some spellings of zero with an exponent (`0e5`), valid JSON that
        // LoginSession(json:) reads as RFC 8259 says: the oracle is handed the bytes with those written `0`.
        let oracle = SessionOracle.read(bytes)
        Invariant.check(oracle != nil, "LoginSession(json:) read a session Foundation does not read")
        if let difference = oracle?.difference(from: session) {
            Invariant.check(false, "LoginSession(json:) read a session Foundation reads otherwise: its \(difference)")
        }
        checkRoundTrips(session)
    }

    /// A session comes back equal through its JSON (`json()`, then `init(json:)`), and what `json()`
    /// writes is, to Foundation, the session's members (``SessionOracle``).
    static func checkRoundTrips(_ session: LoginSession) {
        guard let text = try? session.json() else {
            Invariant.check(false, "a session that json() cannot write")
            return
        }
        Invariant.check((try? LoginSession(json: text)) == session, "the session's json() round trip changed it")
        let oracle = SessionOracle.read(Array(text.utf8))
        Invariant.check(oracle != nil && oracle?.difference(from: session) == nil,
                        "Foundation reads json()'s text otherwise: \(oracle.map { $0.difference(from: session) ?? "" } ?? "not at all")")
    }

    /// For each byte of JSON text, whether it lies inside a string (its quotes included): what the
    /// scans below skip.
    static func insideStrings(_ bytes: some Collection<UInt8>) -> [Bool] {
        var inside: [Bool] = []
        inside.reserveCapacity(bytes.count)
        var inString = false
        var escaped = false
        for byte in bytes {
            if inString {
                inside.append(true)
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
            } else {
                inString = byte == UInt8(ascii: "\"")
                inside.append(inString)
            }
        }
        return inside
    }

    /// JSON text with each zero written with an exponent (`0e5`, `0.00e1`, `-0.0e-7`) written `0` or
    /// `-0`, or nil when it has none: JSONDecoder (Swift 6.3) refuses some of these spellings, valid
    /// JSON that `LoginSession(json:)` reads as zero. Strings are left as they are.
    static func zeroesWithAnExponentWrittenPlain(_ bytes: [UInt8]) -> [UInt8]? {
        func isNumberByte(_ byte: UInt8) -> Bool {
            isDigit(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+") || byte | 0x20 == UInt8(ascii: "e")
        }
        let inside = insideStrings(bytes)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        var changed = false
        while index < bytes.count {
            // Outside strings, only a number starts with `-` or a digit (`e` is also in `true`).
            guard !inside[index], bytes[index] == UInt8(ascii: "-") || isDigit(bytes[index]) else {
                out.append(bytes[index])
                index += 1
                continue
            }
            var end = index
            while end < bytes.count, isNumberByte(bytes[end]) { end += 1 }
            let token = bytes[index..<end]
            if isZeroWithAnExponent(token) {
                out += token.first == UInt8(ascii: "-") ? Array("-0".utf8) : Array("0".utf8)
                changed = true
            } else {
                out += token
            }
            index = end
        }
        return changed ? out : nil
    }

    /// Whether a number token is exactly `-?0(\.0+)?[eE][+-]?[0-9]+`: a valid JSON zero with an exponent
    /// (nothing that is not JSON, so the rewrite above cannot make invalid text valid).
    static func isZeroWithAnExponent(_ token: ArraySlice<UInt8>) -> Bool {
        var rest = token[...]
        func take(_ accept: (UInt8) -> Bool) -> Int {
            var taken = 0
            while let byte = rest.first, accept(byte) {
                rest = rest.dropFirst()
                taken += 1
            }
            return taken
        }
        if rest.first == UInt8(ascii: "-") { rest = rest.dropFirst() }
        guard rest.first == UInt8(ascii: "0") else { return false }
        rest = rest.dropFirst()
        if rest.first == UInt8(ascii: ".") {
            rest = rest.dropFirst()
            guard take({ $0 == UInt8(ascii: "0") }) > 0 else { return false }
        }
        guard let e = rest.first, e | 0x20 == UInt8(ascii: "e") else { return false }
        rest = rest.dropFirst()
        if rest.first == UInt8(ascii: "+") || rest.first == UInt8(ascii: "-") { rest = rest.dropFirst() }
        return take(isDigit) > 0 && rest.isEmpty
    }

    /// Whether a byte is an ASCII digit.
    static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    /// Whether JSON text has a comma right before a `}` or `]` (spaces between allowed), outside strings.
    static func hasTrailingComma(_ bytes: ArraySlice<UInt8>) -> Bool {
        var comma = false
        for (byte, inString) in zip(bytes, insideStrings(bytes)) {
            if inString {
                comma = false
                continue
            }
            switch byte {
            case UInt8(ascii: ","): comma = true
            case UInt8(ascii: "}"), UInt8(ascii: "]"): if comma { return true }
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"): break
            default: comma = false
            }
        }
        return false
    }

    /// Lines of the event stream counted by `LoginStats` (what `onetap stats` and `onetap replay` run):
    /// a line Foundation reads as a JSON object is never refused as "not JSON"; a refused line changes no
    /// count; every row's endings add up to its logins once the stream is finished; the replay's shares
    /// stay within 0 … 1 around their intervals; both charts are well-formed XML.
    static let events = FuzzTarget(name: "events", summary: "login event lines through LoginStats, the replay and the charts") { bytes in
        var stats = LoginStats(idleLimit: .seconds(60))
        for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            let before = stats.readSummary
            let open = stats.openLogins
            let outcome = line.withUnsafeBufferPointer { buffer in Result { () throws(LoginStats.LineError) in try stats.add(line: buffer) } }
            guard case .failure(let error) = outcome else { continue }
            Invariant.check(!error.message.isEmpty, "a refusal without a reason")
            // Foundation also reads a trailing comma (`{"v":2,}`), which RFC 8259 does not allow and the scanner refuses.
            if !Self.hasTrailingComma(line), (try? JSONSerialization.jsonObject(with: Data(line))) is [String: Any] {
                Invariant.check(!error.message.hasPrefix("not JSON") && !error.message.hasPrefix("not a JSON object"),
                                "Foundation reads \(QuotedText(String(decoding: line, as: UTF8.self))) as an object; refused as \(error.message)")
            }
            let after = stats.readSummary
            Invariant.check(after.logins == before.logins && after.loginEvents == before.loginEvents && stats.openLogins == open,
                            "a refused line changed the counts: \(error.message)")
            Invariant.check(after.malformed == before.malformed + 1, "a refused line not counted as malformed")
        }
        stats.finish()
        let funnel = stats.funnel(by: [.carrier, .firstFlow, .platform])
        for row in funnel.rows {
            Invariant.check(row.oneTap + row.sms + row.cancelled + row.failed + row.unfinished == row.logins, "a row's endings do not add up to its logins")
            Invariant.check(row.oneTapShare.low <= row.oneTapShare.value && row.oneTapShare.value <= row.oneTapShare.high, "a share outside its interval")
        }
        let replay = RoutingReplay(stats.observations, policy: .builtIn, smsPrice: 0.05)
        for carrier in replay.carriers + [replay.total] {
            for scenario in [carrier.current] + (carrier.proposed.map { [$0] } ?? []) {
                for share in [scenario.oneTapShare, scenario.smsShare, scenario.smsReach] {
                    Invariant.check(share.low >= 0 && share.high <= 1 && share.low <= share.value && share.value <= share.high && share.value.isFinite,
                                    "a replayed share \(share) out of bounds")
                }
            }
        }
        for svg in [LoginFunnelChart(stats.funnel(by: [.carrier]), source: "fuzz").svg, RoutingReplayChart(replay, policy: "fuzz", source: "fuzz").svg] {
            let problem = WellFormedXML.problem(in: svg)
            Invariant.check(problem == nil, "a chart that is no XML: \(problem ?? "")")
        }
    }
}

/// A well-formedness check of the XML the charts write (elements, quoted attributes, text, entity
/// references, one declaration), without libxml2, whose documents LeakSanitizer reports under libFuzzer.
enum WellFormedXML {
    static func problem(in text: String) -> String? {
        let bytes = Array(text.utf8)
        var index = 0
        var open: [ArraySlice<UInt8>] = []
        func entity() -> Bool {
            guard let end = bytes[index...].prefix(12).firstIndex(of: UInt8(ascii: ";")) else { return false }
            let name = String(decoding: bytes[(index + 1)..<end], as: UTF8.self)
            guard ["amp", "lt", "gt", "quot", "apos"].contains(name) || name.hasPrefix("#") else { return false }
            index = end + 1
            return true
        }
        if text.hasPrefix("<?xml") {
            guard let end = text.range(of: "?>") else { return "an unclosed declaration" }
            index = text.utf8.distance(from: text.startIndex, to: end.upperBound)
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "&") {
                if !entity() { return "a bare & at byte \(index)" }
                continue
            }
            if byte == UInt8(ascii: ">") { return "a bare > at byte \(index)" }
            if byte < 0x20, byte != 0x0A, byte != 0x09, byte != 0x0D { return "a control character at byte \(index)" }
            guard byte == UInt8(ascii: "<") else {
                index += 1
                continue
            }
            index += 1
            let closing = index < bytes.count && bytes[index] == UInt8(ascii: "/")
            if closing { index += 1 }
            let start = index
            while index < bytes.count, bytes[index] != UInt8(ascii: " "), bytes[index] != UInt8(ascii: ">"), bytes[index] != UInt8(ascii: "/"), bytes[index] != 0x0A { index += 1 }
            let name = bytes[start..<index]
            if name.isEmpty { return "a tag without a name at byte \(start)" }
            // Attributes: name="value", the value without < and with & only in references.
            while index < bytes.count, bytes[index] != UInt8(ascii: ">"), bytes[index] != UInt8(ascii: "/") {
                if bytes[index] == UInt8(ascii: " ") || bytes[index] == 0x0A {
                    index += 1
                    continue
                }
                guard let equals = bytes[index...].firstIndex(of: UInt8(ascii: "=")), equals + 1 < bytes.count, bytes[equals + 1] == UInt8(ascii: "\"") else {
                    return "an attribute without a quoted value at byte \(index)"
                }
                index = equals + 2
                while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                    if bytes[index] == UInt8(ascii: "<") { return "a < inside an attribute at byte \(index)" }
                    if bytes[index] == UInt8(ascii: "&") {
                        if !entity() { return "a bare & inside an attribute at byte \(index)" }
                        continue
                    }
                    index += 1
                }
                index += 1
            }
            guard index < bytes.count else { return "an unclosed tag" }
            let empty = bytes[index] == UInt8(ascii: "/")
            if empty { index += 1 }
            guard index < bytes.count, bytes[index] == UInt8(ascii: ">") else { return "a tag not closed by > at byte \(index)" }
            index += 1
            if closing {
                guard open.last == name else { return "</\(String(decoding: name, as: UTF8.self))> closes nothing open" }
                open.removeLast()
            } else if !empty {
                open.append(name)
            }
        }
        return open.isEmpty ? nil : "\(open.count) elements left open"
    }
}

/// Text quoted for messages, shortened.
struct QuotedText: CustomStringConvertible {
    let text: String
    init(_ text: String) { self.text = text }
    var description: String { "\"" + String(text.unicodeScalars.prefix(60).map { $0.isASCII && $0.value >= 0x20 ? String($0) : "\\u{\(String($0.value, radix: 16))}" }.joined()) + "\"" }
}

nonisolated(unsafe) var selectedTarget: FuzzTarget? = nil

@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<Int32>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Int32

/// libFuzzer's entry point: runs the target chosen by ONETAP_FUZZ_TARGET.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    selectedTarget?.run(bytes)
    return 0
}

@main
struct FuzzMain {
    static func main() {
        let usage = "usage: OneTapFuzz TARGET FILE-OR-DIRECTORY...  (targets: \(Targets.all.map(\.name).joined(separator: ", ")))"
        #if ONETAP_FUZZ
        guard let name = getenv("ONETAP_FUZZ_TARGET").map({ String(cString: $0) }), let target = Targets.all.first(where: { $0.name == name }) else {
            FileHandle.standardError.write(Data("set ONETAP_FUZZ_TARGET to one of \(Targets.all.map(\.name).joined(separator: ", "))\n".utf8))
            exit(64)
        }
        selectedTarget = target
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv, fuzzOne))
        #else
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard let name = arguments.first, let target = Targets.all.first(where: { $0.name == name }), arguments.count > 1 else {
            print(usage)
            for target in Targets.all { print("  \(target.name): \(target.summary)") }
            exit(arguments.isEmpty ? 0 : 64)
        }
        var count = 0
        for path in arguments.dropFirst() {
            var files = [path]
            if let names = try? FileManager.default.contentsOfDirectory(atPath: path) { files = names.sorted().map { path + "/" + $0 } }
            for file in files {
                guard let data = FileManager.default.contents(atPath: file) else {
                    FileHandle.standardError.write(Data("cannot read \(file)\n".utf8))
                    exit(66)
                }
                Invariant.current = file
                target.run(Array(data))
                count += 1
            }
        }
        print("\(target.name): \(count) inputs, \(Invariant.failures) broken invariants")
        exit(Invariant.failures == 0 ? 0 : 1)
        #endif
    }
}
