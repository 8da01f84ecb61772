import Testing
@testable import OneTapCore

@Suite struct CarrierEvidenceTests {
    let engine = LoginDecisionEngine()

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let snapshot: DeviceSnapshot
        let carrier: Carrier
        let source: EvidenceSource
        let virtual: Bool
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "PLMN alone", snapshot: DeviceSnapshot(plmn: try! PLMN("46011")), carrier: .telecom, source: .plmn, virtual: false),
        Case(name: "PLMN beats IPv6 and number", snapshot: DeviceSnapshot(
            plmn: try! PLMN("46000"), network: .cellular, clientIP: try! IPAddress("240e:400::1"), phoneHint: try! PhoneNumber("18912345678")),
            carrier: .mobile, source: .plmn, virtual: false),
        Case(name: "foreign PLMN wins over a mainland IPv6", snapshot: DeviceSnapshot(
            plmn: try! PLMN("45412"), network: .cellular, clientIP: try! IPAddress("2409:8900::1")),
            carrier: .other, source: .plmn, virtual: false),
        Case(name: "unassigned MNC falls through to IPv6", snapshot: DeviceSnapshot(
            plmn: try! PLMN("46099"), network: .cellular, clientIP: try! IPAddress("2408:8400::1")),
            carrier: .unicom, source: .ipv6, virtual: false),
        Case(name: "IPv6 over cellular", snapshot: DeviceSnapshot(network: .cellular, clientIP: try! IPAddress("240e:400::5")),
            carrier: .telecom, source: .ipv6, virtual: false),
        Case(name: "IPv6 over Wi-Fi is the ISP's, not evidence", snapshot: DeviceSnapshot(network: .wifi, clientIP: try! IPAddress("240e:400::5")),
            carrier: .unknown, source: .none, virtual: false),
        Case(name: "IPv6 with both networks is not evidence", snapshot: DeviceSnapshot(network: .both, clientIP: try! IPAddress("240e:400::5")),
            carrier: .unknown, source: .none, virtual: false),
        Case(name: "IPv6 with network unreported is not evidence", snapshot: DeviceSnapshot(clientIP: try! IPAddress("240e:400::5")),
            carrier: .unknown, source: .none, virtual: false),
        Case(name: "broadband IPv6 over cellular is not evidence", snapshot: DeviceSnapshot(network: .cellular, clientIP: try! IPAddress("240e:300::5")),
            carrier: .unknown, source: .none, virtual: false),
        Case(name: "IPv4 is not evidence", snapshot: DeviceSnapshot(network: .cellular, clientIP: try! IPAddress("111.0.0.1")),
            carrier: .unknown, source: .none, virtual: false),
        Case(name: "IPv6 beats the number", snapshot: DeviceSnapshot(
            network: .cellular, clientIP: try! IPAddress("2409:8900::1"), phoneHint: try! PhoneNumber("18912345678")),
            carrier: .mobile, source: .ipv6, virtual: false),
        Case(name: "number alone", snapshot: DeviceSnapshot(phoneHint: try! PhoneNumber("18912345678")), carrier: .telecom, source: .phoneNumber, virtual: false),
        Case(name: "unallocated number is no evidence", snapshot: DeviceSnapshot(phoneHint: try! PhoneNumber("15412345678")), carrier: .unknown, source: .none, virtual: false),
        Case(name: "virtual number on its host PLMN", snapshot: DeviceSnapshot(plmn: try! PLMN("46001"), phoneHint: try! PhoneNumber("17041234567")),
            carrier: .unicom, source: .plmn, virtual: true),
        Case(name: "virtual number alone", snapshot: DeviceSnapshot(phoneHint: try! PhoneNumber("16212345678")), carrier: .telecom, source: .phoneNumber, virtual: true),
        Case(name: "virtual number of another carrier than the PLMN", snapshot: DeviceSnapshot(plmn: try! PLMN("46000"), phoneHint: try! PhoneNumber("17001234567")),
            carrier: .mobile, source: .plmn, virtual: false),
        Case(name: "no SIM ignores a reported PLMN", snapshot: DeviceSnapshot(sim: .absent, plmn: try! PLMN("46000")), carrier: .unknown, source: .none, virtual: false),
        Case(name: "nothing reported", snapshot: DeviceSnapshot(), carrier: .unknown, source: .none, virtual: false),
    ]

    @Test(arguments: cases)
    func precedence(testCase: Case) {
        let evidence = engine.evidence(for: testCase.snapshot)
        #expect(evidence.carrier == testCase.carrier)
        #expect(evidence.source == testCase.source)
        #expect(evidence.isVirtualOperator == testCase.virtual)
    }
}
