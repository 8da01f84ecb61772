import Foundation
import OneTap

/// What an aggregator's configuration (JVerification, Shanyan, Yidun) holds beside the exchange's endpoint: the
/// number verification's own endpoint, which its configuration object may override as `verifyUrl`.
package protocol AggregatorEndpoint: GatewayEndpoint {
    /// Where number verification's requests go.
    var verifyURL: URL { get set }
}

extension GatewaySettings {
    /// Sets an aggregator's `timeout`, `url` (``applyEndpoint(to:urlField:)``) and `verifyUrl`, each where written.
    /// - Parameter configuration: The configuration read from the object's own fields.
    /// - Throws: ``GatewayError`` `misconfigured`, as ``timeout()`` and ``url(_:)``.
    package func applyEndpoints(to configuration: inout some AggregatorEndpoint) throws(GatewayError) {
        try applyEndpoint(to: &configuration)
        if let url = try url("verifyUrl") { configuration.verifyURL = url }
    }
}

extension JVerificationConfiguration: AggregatorEndpoint {}
extension ShanyanConfiguration: AggregatorEndpoint {}
extension YidunConfiguration: AggregatorEndpoint {}
