import Foundation
import OneTap
@testable import OneTapGateways
import OneTapTesting
import Testing

/// Number verification finds a shipped gateway's billing rows and names it in its events by the gateway's
/// configuration name (the keys of the gateways' file, written here from the issue, not read from the code).
@Suite struct NamedGatewayTests {
    @Test func everyVerificationGatewayIsNamedAsInTheConfigurationFile() throws {
        let transport = ScriptedHTTPTransport([])
        let aliyun = try AliyunPNVSGateway(configuration: AliyunPNVSConfiguration(accessKeyID: "LTAItest0001", accessKeySecret: Secret("s")), transport: transport)
        #expect(NumberVerificationService(provider: aliyun, quota: nil, events: RecordingEventSink()).gateway == "aliyun-pnvs")
        let names = [
            AliyunPNVSGateway.name, JVerificationGateway.name, ShanyanGateway.name, YidunGateway.name, ChinaMobileNumberVerification.name,
        ]
        #expect(names == ["aliyun-pnvs", "jverification", "shanyan", "yidun", "cmcc"])
        #expect(Set(names).isSubset(of: GatewayConfigurationFile.gatewayNames))
        let types: [Any.Type] = [AliyunPNVSGateway.self, JVerificationGateway.self, ShanyanGateway.self, YidunGateway.self]
        #expect(types.allSatisfy { $0 is any NamedGateway.Type })
        // The carriers' own exchanges too: the exchange guard checks the rules read their rows.
        #expect((ChinaMobileTokenExchange.self as Any.Type) is any NamedGateway.Type && ChinaMobileTokenExchange.name == "cmcc")
        #expect((TianyiTokenExchange.self as Any.Type) is any NamedGateway.Type && TianyiTokenExchange.name == "tianyi")
    }
}
