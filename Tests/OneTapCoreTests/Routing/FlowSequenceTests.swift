import Foundation
import Testing
@testable import OneTapCore

@Suite struct FlowSequenceTests {
    @Test func holdsDistinctFlowsInOrder() {
        let flows: FlowSequence = [.tianyi, .mobile, .unicom, .sms]
        #expect(Array(flows) == [.tianyi, .mobile, .unicom, .sms])
        #expect(flows.count == 4)
        #expect(flows.firstIndex(of: .unicom) == 2)
        #expect(flows.contains(.sms))
        #expect(flows.description == "tianyi → mobile → unicom → sms")
        #expect(throws: ParseError.self) { try FlowSequence([.mobile, .mobile, .sms]) }
    }

    @Test(arguments: [
        ([LoginFlow](), "no flows; a plan ends with sms"),
        ([.mobile], "the last flow must be sms (SMS login is always the last resort)"),
        ([.sms, .sms], "a flow appears twice"),
        ([.sms, .mobile], "the last flow must be sms (SMS login is always the last resort)"),
    ])
    func noInitialiserMakesABadSequence(flows: [LoginFlow], problem: String) {
        #expect(FlowSequence.validate(flows) == problem)
        #expect {
            try FlowSequence(flows)
        } throws: { error in
            let error = error as! ParseError
            return error.subject == .flowSequence && error.kind == (flows.isEmpty ? .empty : .malformed) && error.reason == problem
        }
    }

    @Test(arguments: [[LoginFlow.sms], [.mobile, .sms], [.tianyi, .mobile, .sms], [.unicom, .tianyi, .mobile, .sms]])
    func validSequencesAreKeptInOrder(flows: [LoginFlow]) throws {
        #expect(Array(try FlowSequence(flows)) == flows)
    }
}
