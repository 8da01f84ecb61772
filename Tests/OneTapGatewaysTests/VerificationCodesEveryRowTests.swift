import Foundation
import OneTap
@testable import OneTapGateways
import OneTapTesting
import Testing

/// `Data/verification-codes.csv`, row by row through the providers: each row's code, answered by a scripted transport
/// in its gateway's own answer shape, comes out of that gateway's `verify` with the verdict written here by hand
/// from the facts files (Data/gateways/*.md), not read from the table. A `*` row is tried with a code the table does
/// not list.
@Suite struct VerificationCodesEveryRowTests {
    /// One row: the gateway, the code as the table lists it, the code the answer carries (for a `*` row, one the table
    /// does not list), and the verdict the facts file gives.
    struct Row: CustomTestStringConvertible, Sendable {
        let gateway: String
        let listed: String
        let answered: String
        let verdict: NumberVerdict
        var testDescription: String { "\(gateway) \(listed)" }
    }

    static let rows: [Row] = [
        Row(gateway: "cmcc", listed: "000", answered: "000", verdict: .pass),
        Row(gateway: "cmcc", listed: "001", answered: "001", verdict: .reject),
        Row(gateway: "cmcc", listed: "002", answered: "002", verdict: .unknown),
        Row(gateway: "cmcc", listed: "003", answered: "003", verdict: .unknown),
        Row(gateway: "cmcc", listed: "004", answered: "004", verdict: .unknown),
        Row(gateway: "cmcc", listed: "102", answered: "102", verdict: .unknown),
        Row(gateway: "cmcc", listed: "124", answered: "124", verdict: .unknown),
        Row(gateway: "cmcc", listed: "302", answered: "302", verdict: .unknown),
        Row(gateway: "cmcc", listed: "303", answered: "303", verdict: .unknown),
        Row(gateway: "cmcc", listed: "606", answered: "606", verdict: .unknown),
        Row(gateway: "cmcc", listed: "999", answered: "999", verdict: .unknown),
        Row(gateway: "cmcc", listed: "102315", answered: "102315", verdict: .unknown),
        Row(gateway: "cmcc", listed: "*", answered: "103511", verdict: .unknown),
        Row(gateway: "aliyun-pnvs", listed: "OK/PASS", answered: "OK/PASS", verdict: .pass),
        Row(gateway: "aliyun-pnvs", listed: "OK/REJECT", answered: "OK/REJECT", verdict: .reject),
        Row(gateway: "aliyun-pnvs", listed: "OK/UNKNOWN", answered: "OK/UNKNOWN", verdict: .unknown),
        Row(gateway: "aliyun-pnvs", listed: "*", answered: "isv.TOKEN_INVALID", verdict: .unknown),
        Row(gateway: "jverification", listed: "9000", answered: "9000", verdict: .pass),
        Row(gateway: "jverification", listed: "9001", answered: "9001", verdict: .reject),
        Row(gateway: "jverification", listed: "9002", answered: "9002", verdict: .unknown),
        Row(gateway: "jverification", listed: "*", answered: "9003", verdict: .unknown),
        Row(gateway: "shanyan", listed: "200000/0", answered: "200000/0", verdict: .reject),
        Row(gateway: "shanyan", listed: "200000/1", answered: "200000/1", verdict: .pass),
        Row(gateway: "shanyan", listed: "*", answered: "400001", verdict: .unknown),
        Row(gateway: "yidun", listed: "200/1", answered: "200/1", verdict: .pass),
        Row(gateway: "yidun", listed: "200/2", answered: "200/2", verdict: .reject),
        Row(gateway: "yidun", listed: "200/3", answered: "200/3", verdict: .unknown),
        Row(gateway: "yidun", listed: "*", answered: "401", verdict: .unknown),
    ]

    /// The rows above are the table's rows, each once: a row added to the file without a case here fails.
    @Test func theCasesAreEveryRowOfTheTable() {
        #expect(Self.rows.map { "\($0.gateway) \($0.listed)" } == VerificationCodeTable.builtIn.entries.map { "\($0.gateway) \($0.code)" })
    }

    @Test(arguments: rows)
    func eachRowsCodeGivesItsVerdictThroughItsProvider(row: Row) async throws {
        let parts = row.answered.split(separator: "/").map(String.init)
        let code = parts[0], value = parts.count == 2 ? parts[1] : nil
        let number = try PhoneNumber("13800138000")
        let response: NumberVerificationResponse
        switch row.gateway {
        case "cmcc":
            let transport = ScriptedHTTPTransport([ChinaMobileNumberVerificationRequestTests.answer(code: code)])
            response = try await ChinaMobileNumberVerificationRequestTests.gateway(transport).verify(CarrierCredential(flow: .mobile, token: Secret("STsid-1")), number: number)
        case "aliyun-pnvs":
            let body = value.map { #"{"Code":"\#(code)","RequestId":"r","GateVerifyResultDTO":{"VerifyId":"1","VerifyResult":"\#($0)"}}"# } ?? #"{"Code":"\#(code)","RequestId":"r"}"#
            let transport = ScriptedHTTPTransport([AliyunPNVSRequestTests.answer(body)])
            response = try await AliyunPNVSRequestTests.gateway(transport).verify(AliyunPNVSRequestTests.credential("code-1"), number: number)
        case "jverification":
            let transport = ScriptedHTTPTransport([JVerificationRequestTests.json(#"{"id":1,"code":\#(code),"content":"x","exID":"\#(JVerificationRequestTests.exID)"}"#)])
            response = try await JVerificationRequestTests.gateway(transport).verify(CarrierCredential(flow: .mobile, token: Secret("t")), number: number)
        case "shanyan":
            let body = value.map { #"{"code":"\#(code)","data":{"isVerify":"\#($0)","tradeNo":"t"}}"# } ?? #"{"code":"\#(code)","message":"x"}"#
            let transport = ScriptedHTTPTransport([ShanyanRequestTests.json(body)])
            response = try await ShanyanRequestTests.gateway(transport).verify(CarrierCredential(flow: .mobile, token: Secret("t")), number: number)
        case "yidun":
            let body = value.map { #"{"code":\#(code),"data":{"result":\#($0)}}"# } ?? #"{"code":\#(code),"msg":"x"}"#
            let transport = ScriptedHTTPTransport([YidunRequestTests.json(body)])
            response = try await YidunRequestTests.gateway(transport).verify(CarrierCredential(flow: .mobile, token: YidunRequestTests.tokens.joined), number: number)
        default:
            Issue.record("no provider for \(row.gateway)")
            return
        }
        #expect(response == NumberVerificationResponse(code: try ResultCode(code), verdict: row.verdict))
    }

    /// What `onetap gateway verify` prints comes from the row the verdict came from, found by code and verdict alone.
    @Test func theRowOfAnAnswerIsFoundByItsCodeAndVerdict() {
        let table = VerificationCodeTable.builtIn
        #expect(table.entry(gateway: "aliyun-pnvs", code: "OK", verdict: "reject")?.meaningZH == "不一致")
        #expect(table.entry(gateway: "shanyan", code: "200000", verdict: "pass")?.code == "200000/1")
        #expect(table.entry(gateway: "yidun", code: "200", verdict: "unknown")?.code == "200/3")
        #expect(table.entry(gateway: "cmcc", code: "606", verdict: "unknown")?.meaningZH == "验证Token失败")
        #expect(table.entry(gateway: "cmcc", code: "103511", verdict: "unknown")?.code == "*")
        #expect(table.entry(gateway: "jverification", code: "9000", verdict: "pass")?.meaningEN == "verify consistent: the number is the SIM's own")
        #expect(table.entry(gateway: "no-such-gateway", code: "000", verdict: "pass") == nil)
    }
}
