/// A gateway adapter OneTap ships, known by its configuration name (`cmcc`, `aliyun-pnvs`), so the tables keyed by
/// gateway (`Data/verification-billing.csv`) find its rows. An integrator's own provider has no name: it takes the
/// tables' `*` rows.
package protocol NamedGateway {
    /// The gateway's configuration name.
    static var name: String { get }
}
