import Foundation
import Testing
@testable import OneTap

@Suite struct FlowSequenceTests {
    @Test func holdsDistinctFlowsInOrder() {
        let flows: FlowSequence = [.tianyi, .mobile, .unicom, .sms]
        #expect(Array(flows) == [.tianyi, .mobile, .unicom, .sms])
        #expect(flows.count == 4)
        #expect(flows.firstIndex(of: .unicom) == 2)
        #expect(flows.contains(.sms))
        #expect(flows.description == "tianyi → mobile → unicom → sms")
        #expect(FlowSequence([.mobile, .mobile]) == nil)
    }

    @Test(arguments: [
        ([LoginFlow](), "no flows; a plan ends with sms"),
        ([.mobile], "the last flow must be sms (SMS login is always the last resort)"),
        ([.sms, .sms], "a flow appears twice"),
        ([.sms, .mobile], "the last flow must be sms (SMS login is always the last resort)"),
    ])
    func validation(flows: [LoginFlow], problem: String) {
        #expect(FlowSequence.validate(flows) == problem)
    }

    @Test func codable() throws {
        let flows: FlowSequence = [.mobile, .sms]
        let data = try JSONEncoder().encode(flows)
        #expect(String(decoding: data, as: UTF8.self) == #"["mobile","sms"]"#)
        #expect(try JSONDecoder().decode(FlowSequence.self, from: data) == flows)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(FlowSequence.self, from: Data(#"["mobile"]"#.utf8)) }
    }
}
