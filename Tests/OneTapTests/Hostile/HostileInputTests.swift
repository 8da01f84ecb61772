import Foundation
import Testing
@testable import OneTap

/// Hostile inputs across every entry point of the library: each asserts the exact error kind, or the
/// exact value accepted. Nothing may trap, hang or be half-accepted.
@Suite struct HostileInputTests {
    enum Entry: String, Sendable {
        case plmn, mccmnc, phone, ip, code, expiresIn, snapshot, plmnCSV, segmentCSV, ipv6CSV, codesCSV, policyCSV, tokenRecord, refresh
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let entry: Entry
        let input: String
        let expected: String   // "ok:<canonical>" or "err:<kind>" (plus ":<line>" for tables)
        var testDescription: String {
            let shown = input.count > 40 ? String(input.prefix(40)) + "…(\(input.utf8.count) bytes)" : input
            return "\(entry) \(shown.debugDescription) → \(expected)"
        }
    }

    static let megabyte = String(repeating: "4", count: 1 << 20)
    static let megabyteSpaces = String(repeating: " ", count: 1 << 20)

    /// Runs one input through its entry point and describes the outcome.
    static func outcome(_ entry: Entry, _ input: String) -> String {
        func parse<T>(_ body: () throws(ParseError) -> T, _ show: (T) -> String) -> String {
            do { return "ok:" + show(try body()) } catch { return "err:\(error.kind)" }
        }
        func table<T>(_ body: () throws(TableError) -> T, _ show: (T) -> String) -> String {
            do { return "ok:" + show(try body()) } catch { return "err:\(error.kind):\(error.line)" }
        }
        switch entry {
        case .plmn: return parse({ () throws(ParseError) in try PLMN(input) }, \.description)
        case .mccmnc:
            let parts = input.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            return parse({ () throws(ParseError) in try PLMN(mcc: parts[0], mnc: parts.count > 1 ? parts[1] : "") }, \.description)
        case .phone: return parse({ () throws(ParseError) in try PhoneNumber(input) }, \.digits)
        case .ip: return parse({ () throws(ParseError) in try IPAddress(input) }, \.description)
        case .code: return parse({ () throws(ParseError) in try ResultCode(input) }, \.description)
        case .expiresIn: return parse({ () throws(ParseError) in try ExpiresIn(input) }, { String($0.seconds) })
        case .snapshot:
            do {
                let snapshot = try DeviceSnapshot(json: input)
                return "ok:" + Array(LoginDecisionEngine().plan(for: snapshot).flows).map(\.rawValue).joined(separator: ",")
            } catch {
                switch error {
                case .dataCorrupted(let context) where context.codingPath.isEmpty: return "err:json"
                case .typeMismatch(_, let context) where context.codingPath.isEmpty: return "err:not-object"
                case .valueNotFound(_, let context) where context.codingPath.isEmpty: return "err:not-object"
                case .dataCorrupted(let context), .typeMismatch(_, let context), .valueNotFound(_, let context):
                    return "err:key:" + (context.codingPath.last?.stringValue ?? "")
                case .keyNotFound(let key, _): return "err:key:" + key.stringValue
                @unknown default: return "err:decoding"
                }
            }
        case .plmnCSV: return table({ () throws(TableError) in try PLMNTable(csv: input, file: "h.csv") }, { "\($0.entries.count)" })
        case .segmentCSV: return table({ () throws(TableError) in try NumberSegmentTable(csv: input, file: "h.csv") }, { "\($0.segments.count)" })
        case .ipv6CSV: return table({ () throws(TableError) in try IPv6PrefixTable(csv: input, file: "h.csv") }, { "\($0.prefixes.count)" })
        case .codesCSV: return table({ () throws(TableError) in try OutcomeTable(csv: input, file: "h.csv") }, { "\($0.entries.count)" })
        case .policyCSV: return table({ () throws(TableError) in try RoutingPolicy(csv: input, file: "h.csv") }, { "\($0.rules.count)" })
        case .tokenRecord:
            do {
                let (stored, _) = try FileTokenStore.decodeRecord(Array(input.utf8), account: "u1")
                return "ok:v\(stored.version.value)"
            } catch {
                return "err:\(error.kind)"
            }
        case .refresh:
            do {
                let response = try TianyiRefreshResponse.decode(Array(input.utf8))
                return "ok:" + (response.expiresIn.map { String($0.seconds) } ?? "default")
            } catch {
                return "err:\(error.kind)"
            }
        }
    }

    static let plmnHeader = "mcc,mnc,carrier,note,source\n"
    static let segmentHeader = "prefix,carrier,kind,note,source\n"
    static let ipv6Header = "prefix,carrier,pool,note,source\n"
    static let codesHeader = "flow,code,action,meaning_zh,meaning_en,source\n"
    static let codesDefaults = "mobile,*,fallback,a,b,s\ntianyi,*,failed,a,b,s\nunicom,*,fallback,a,b,s\nsms,*,failed,a,b,s\n"
    static let policy: String = {
        RoutingPolicy.builtIn.rules.map { "\($0.condition),\($0.flows.map(\.rawValue).joined(separator: " ")),\($0.reason),s" }.joined(separator: "\n")
    }()
    static let record = #"{"accessToken":"A","account":"u1","dueAtMs":0,"expiresAtMs":2000,"flow":"tianyi","format":"onetap-token/1","issuedAtMs":1000,"version":2}"#

    static let cases: [Case] = {
        var cases: [Case] = []
        func add(_ entry: Entry, _ pairs: [(String, String)]) {
            for (input, expected) in pairs { cases.append(Case(entry: entry, input: input, expected: expected)) }
        }
        add(.plmn, [
            ("", "err:empty"), ("   ", "err:empty"), ("\t\r\n", "err:empty"), (megabyteSpaces, "err:empty"),
            ("46000", "ok:460-00"), (" 46000 ", "ok:460-00"), ("46000\r", "ok:460-00"), ("46000\r\n", "ok:460-00"), ("\n460-11\n", "ok:460-11"),
            ("460001", "ok:460-001"), ("460 001", "ok:460-001"),
            ("４６０００", "err:non-ascii-digit"), ("٤٦٠٠٠", "err:non-ascii-digit"), ("۴۶۰۰۰", "err:non-ascii-digit"), ("४६०००", "err:non-ascii-digit"),
            ("46０00", "err:non-ascii-digit"), ("+46000", "err:invalid-character"), ("-46000", "err:invalid-character"), ("460.00", "err:invalid-character"),
            ("4.6e4", "err:invalid-character"), ("46000.0", "err:invalid-character"), ("0x46000", "err:invalid-character"), (megabyte, "err:wrong-length"),
            ("46\u{0}000", "err:invalid-character"), ("\u{0}", "err:invalid-character"), ("\u{FEFF}46000", "err:invalid-character"), ("46000🙂", "err:invalid-character"),
            ("中国移动", "err:invalid-character"), ("CMCC", "err:invalid-character"), ("null", "err:invalid-character"), ("NaN", "err:invalid-character"),
            ("65535", "err:placeholder"), ("--", "err:placeholder"), ("6553565535", "err:placeholder"), ("65536", "ok:655-36"),
            ("4600", "err:wrong-length"), ("46", "err:wrong-length"), ("46000000", "err:wrong-length"), ("460-0", "err:wrong-length"), ("460-0000", "err:wrong-length"),
            ("460--00", "err:malformed"), ("4-6000", "err:malformed"), ("460 00 0", "err:malformed"), ("00101", "err:reserved"), ("12345", "err:reserved"),
            ("46000 46001", "err:malformed"), ("460\t00", "err:invalid-character"),
        ])
        add(.mccmnc, [
            ("460/00", "ok:460-00"), (" 460 / 01 ", "ok:460-01"), ("460/001", "ok:460-001"), ("65535/65535", "err:placeholder"), ("--/--", "err:placeholder"),
            ("/00", "err:empty"), ("460/", "err:empty"), ("４６０/00", "err:non-ascii-digit"), ("460/０1", "err:non-ascii-digit"), ("46/00", "err:wrong-length"),
            ("460/0", "err:wrong-length"), ("460/1234", "err:wrong-length"), ("-46/00", "err:invalid-character"), ("460/0\u{0}", "err:invalid-character"),
            ("010/01", "err:reserved"), (megabyte + "/00", "err:wrong-length"),
        ])
        add(.phone, [
            ("", "err:empty"), ("  ", "err:empty"), ("13800138000", "ok:13800138000"), ("+86 138 0013 8000", "ok:13800138000"),
            ("0086-138-0013-8000", "ok:13800138000"), ("86 13800138000", "ok:13800138000"), (" 13800138000\r\n", "ok:13800138000"),
            ("１３８００１３８０００", "err:non-ascii-digit"), ("١٣٨٠٠١٣٨٠٠٠", "err:non-ascii-digit"), ("1380013800\u{0}0", "err:invalid-character"),
            ("+86+13800138000", "err:invalid-character"), ("138.0013.8000", "err:invalid-character"), ("1.3800138E10", "err:invalid-character"),
            (megabyte, "err:wrong-length"), ("138001380", "err:wrong-length"), ("138001380000", "err:wrong-length"), ("+852 9123 4567", "err:foreign-number"),
            ("+1 650 253 0000", "err:foreign-number"), ("001 650 253 0000", "err:foreign-number"), ("01012345678", "err:not-mobile"),
            ("-13800138000", "err:malformed"), ("138  0013 8000", "err:malformed"), ("\u{FEFF}13800138000", "err:invalid-character"),
            ("☎13800138000", "err:invalid-character"), ("13800138000 ext 1", "err:invalid-character"),
        ])
        add(.ip, [
            ("", "err:empty"), ("2409:8900::1", "ok:2409:8900::1"), ("2409:8900:0:0:0:0:0:1", "ok:2409:8900::1"), (" 10.0.0.1\n", "ok:10.0.0.1"),
            ("::FFFF:10.0.0.1", "ok:::ffff:10.0.0.1"), ("１.2.3.4", "err:non-ascii-digit"), ("256.0.0.1", "err:out-of-range"), ("010.0.0.1", "err:malformed"),
            ("1.2.3", "err:malformed"), ("1:2:3:4:5:6:7:8:9", "err:malformed"), ("::1::", "err:malformed"), ("fe80::1%eth0", "err:invalid-character"),
            ("[::1]", "err:invalid-character"), ("2409::1/64", "err:invalid-character"), ("1.2.3.4\u{0}", "err:invalid-character"), (megabyte, "err:malformed"),
            ("-1.2.3.4", "err:invalid-character"), ("+1.2.3.4", "err:invalid-character"), ("1.2.3.4 ", "ok:1.2.3.4"), ("12345::", "err:malformed"),
        ])
        add(.code, [
            ("", "err:empty"), (" ", "err:empty"), ("103000", "ok:103000"), (" 103000\r\n", "ok:103000"), ("-8994014", "ok:-8994014"), ("000", "ok:000"),
            ("-0", "ok:-0"), ("+103000", "ok:+103000"), ("1.5", "ok:1.5"), ("1e3", "ok:1e3"), ("１０３０００", "ok:１０３０００"), ("٠", "ok:٠"),
            ("9223372036854775808", "ok:9223372036854775808"), ("-", "ok:-"), ("--1", "ok:--1"), ("0x10", "ok:0x10"), ("\u{FEFF}0", "ok:\u{FEFF}0"),
            (megabyte, "err:wrong-length"), (String(repeating: "1", count: 64), "ok:" + String(repeating: "1", count: 64)),
            (String(repeating: "1", count: 65), "err:wrong-length"), ("10\u{0}3000", "err:invalid-character"), ("\u{1B}[31m", "err:invalid-character"),
            ("1\u{85}", "err:invalid-character"), ("\u{7F}", "err:invalid-character"), ("1\n2", "err:invalid-character"),
        ])
        add(.expiresIn, [
            ("2592000", "ok:2592000"), (" 7200 ", "ok:7200"), ("1", "ok:1"), ("0", "err:out-of-range"), ("-5", "err:out-of-range"),
            ("316224000", "ok:316224000"), ("316224001", "err:out-of-range"), ("99999999999999999999", "err:out-of-range"), ("", "err:empty"),
            ("1.5", "err:invalid-character"), ("30d", "err:invalid-character"), ("２５９２０００", "err:non-ascii-digit"), (megabyte, "err:out-of-range"),
        ])
        add(.snapshot, [
            ("{}", "ok:mobile,sms"), (#"{"plmn":"46011"}"#, "ok:tianyi,sms"), (#"{"plmn":"65535"}"#, "ok:mobile,sms"), (#"{"plmn":""}"#, "ok:mobile,sms"),
            (#"{"sim":"absent","plmn":"46000"}"#, "ok:sms"), (#"{"mobileData":"off"}"#, "ok:sms"), (#"{"mobileData":false}"#, "ok:sms"),
            (#"{"plmn":46000}"#, "err:key:plmn"), (#"{"plmn":"4600a"}"#, "err:key:plmn"), (#"{"plmn":"４６０００"}"#, "err:key:plmn"), (#"{"sim":true}"#, "err:key:sim"),
            (#"{"sim":"maybe"}"#, "err:key:sim"), (#"{"network":5}"#, "err:key:network"), (#"{"mobileData":"yes"}"#, "err:key:mobileData"),
            (#"{"mobileData":1}"#, "err:key:mobileData"), (#"{"ip":"300.1.1.1"}"#, "err:key:ip"), (#"{"ip":["::1"]}"#, "err:key:ip"),
            (#"{"phone":12345}"#, "err:key:phone"), (#"{"phone":"+852 91234567"}"#, "err:key:phone"), (#"{"mcc":"460"}"#, "err:key:mnc"),
            (#"{"mcc":"460","mnc":"00","plmn":"46000"}"#, "err:key:plmn"), ("[]", "err:not-object"), ("\"x\"", "err:not-object"), ("null", "err:not-object"), ("", "err:json"),
            ("{", "err:json"), ("\u{FEFF}{}", "ok:mobile,sms"), (#"{"cellularAccess":"restricted","plmn":"46000"}"#, "ok:sms"),
            (#"{"network":"none"}"#, "ok:sms"), (#"{"extra":{"nested":[1,2,3]},"plmn":"46001"}"#, "ok:tianyi,sms"),
        ])
        add(.plmnCSV, [
            (plmnHeader + "460,00,mobile,n,s\n", "ok:1"), ("\u{FEFF}" + plmnHeader + "460,00,mobile,n,s\r\n", "ok:1"), ("", "err:missing-header:0"),
            ("mcc,mnc,carrier,note\n460,00,mobile,n\n", "err:missing-column:1"), (plmnHeader + "460,00,mobile,n\n", "err:field-count:2"),
            (plmnHeader + "460,00,mobile,n,s\n460,00,unicom,n,s\n", "err:duplicate-key:3"), (plmnHeader + "460,00,mobil,n,s\n", "err:invalid-value:2"),
            (plmnHeader + "460,０0,mobile,n,s\n", "err:invalid-value:2"), (plmnHeader + "454,00,mobile,n,s\n", "err:invalid-value:2"),
            (plmnHeader + "460,00,\"mobile,n,s\n", "err:quoting:2"), (plmnHeader + "460,00,mobile,n,s\u{0}\n", "err:invalid-value:2"),
            (plmnHeader + "# comment\n\n460,01,unicom,\"a, b\",s\n", "ok:1"), ("mcc,mnc,carrier,note,source,extra\n", "err:unknown-column:1"),
        ])
        add(.segmentCSV, [
            (segmentHeader + "138,mobile,standard,n,s\n", "ok:1"), (segmentHeader + "138,mobile,standard,n,s\n1380,unicom,virtual,n,s\n", "ok:2"),
            (segmentHeader + "238,mobile,standard,n,s\n", "err:invalid-value:2"), (segmentHeader + "13,mobile,standard,n,s\n", "err:invalid-value:2"),
            (segmentHeader + "13800001,mobile,standard,n,s\n", "err:invalid-value:2"), (segmentHeader + "１38,mobile,standard,n,s\n", "err:invalid-value:2"),
            (segmentHeader + "138,mobile,mvno,n,s\n", "err:invalid-value:2"), (segmentHeader + "138,mobile,standard,n,s\n138,mobile,standard,n,s\n", "err:duplicate-key:3"),
            (segmentHeader + "138,other,standard,n,s\n", "err:invalid-value:2"),
        ])
        add(.ipv6CSV, [
            (ipv6Header + "2409:8900::/24,mobile,cellular,n,s\n", "ok:1"), (ipv6Header + "2409:8900::1/24,mobile,cellular,n,s\n", "err:invalid-value:2"),
            (ipv6Header + "10.0.0.0/8,mobile,cellular,n,s\n", "err:invalid-value:2"), (ipv6Header + "2409:8900::/129,mobile,cellular,n,s\n", "err:invalid-value:2"),
            (ipv6Header + "2409:8900::/-1,mobile,cellular,n,s\n", "err:invalid-value:2"), (ipv6Header + "2409:8900::/２4,mobile,cellular,n,s\n", "err:invalid-value:2"),
            (ipv6Header + "2409:8900::/24,mobile,wifi,n,s\n", "err:invalid-value:2"),
        ])
        add(.codesCSV, [
            (codesHeader + codesDefaults, "ok:4"), (codesHeader + "mobile,*,fallback,a,b,s\n", "err:incomplete:0"),
            (codesHeader + codesDefaults + "mobile,103000,success,a,b,s\nmobile,103000,failed,a,b,s\n", "err:duplicate-key:7"),
            (codesHeader + codesDefaults + "mobile,\"\",success,a,b,s\n", "err:invalid-value:6"), (codesHeader + codesDefaults + "mobile,+1,success,a,b,s\n", "ok:5"),
            (codesHeader + codesDefaults + "mobile,\(String(repeating: "9", count: 65)),success,a,b,s\n", "err:invalid-value:6"),
            (codesHeader + codesDefaults + "mobile,000,success,a,b,s\nmobile,0,failed,a,b,s\n", "ok:6"),
            (codesHeader + codesDefaults + "carrier,1,success,a,b,s\n", "err:invalid-value:6"), (codesHeader + codesDefaults + "mobile,1,maybe,a,b,s\n", "err:invalid-value:6"),
        ])
        add(.policyCSV, [
            ("condition,flows,reason,source\n" + policy, "ok:13"), ("condition,flows,reason,source\n" + policy.replacingOccurrences(of: "carrier:mobile,mobile sms", with: "carrier:mobile,mobile"), "err:invalid-value:8"),
            ("condition,flows,reason,source\n" + policy + "\nsim-absent,sms,no-sim,s", "err:duplicate-key:15"),
            ("condition,flows,reason,source\nsim-absent,sms,no-sim,s\n", "err:incomplete:0"),
        ])
        add(.tokenRecord, [
            (record, "ok:v2"), ("", "err:corrupt"), ("{}", "err:corrupt"), ("null", "err:corrupt"), ("\u{FEFF}" + record, "ok:v2"),
            (record.replacingOccurrences(of: #""version":2"#, with: #""version":-1"#), "err:corrupt"),
            (record.replacingOccurrences(of: #""issuedAtMs":1000"#, with: #""issuedAtMs":-1"#), "err:corrupt"),
            (record.replacingOccurrences(of: #""expiresAtMs":2000"#, with: #""expiresAtMs":253402300800000"#), "err:corrupt"),
            (record.replacingOccurrences(of: #""account":"u1""#, with: #""account":"u2""#), "err:corrupt"),
            (record.replacingOccurrences(of: #""version":2"#, with: #""version":"2""#), "err:corrupt"),
            (record.replacingOccurrences(of: #""flow":"tianyi""#, with: #""flow":"telecom""#), "err:corrupt"),
        ])
        add(.refresh, [
            (#"{"result":0,"accessToken":"A","expiresIn":"2592000"}"#, "ok:2592000"), (#"{"result":"0","accessToken":"A"}"#, "ok:default"),
            (#"{"result":0,"accessToken":"A","expiresIn":"-1"}"#, "err:refresh-failed"), (#"{"result":0,"accessToken":"A","expiresIn":"1e9"}"#, "err:refresh-failed"),
            (#"{"result":0,"accessToken":"A","expiresIn":99999999999}"#, "err:refresh-failed"), (#"{"result":-1,"msg":"刷新token失败"}"#, "err:relogin-required"),
            (#"{"result":0}"#, "err:refresh-failed"), ("<html>", "err:refresh-failed"), ("", "err:refresh-failed"), (#"{"result":true,"accessToken":"A"}"#, "err:refresh-failed"),
        ])
        return cases
    }()

    @Test func atLeastTwoHundredHostileInputs() {
        #expect(Self.cases.count >= 200)
    }

    @Test(arguments: cases)
    func hostileInput(_ hostile: Case) {
        #expect(Self.outcome(hostile.entry, hostile.input) == hostile.expected)
    }
}
