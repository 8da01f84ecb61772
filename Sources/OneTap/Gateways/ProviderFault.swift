/// An error a provider answered that says the fault is the provider's or its configuration's (an outage, a throttle,
/// a refused signature), not the request's: a captcha check that ends in one is no word on the token, so it counts
/// against no one (``SMSCodeService``), as a provider that could not be reached does.
package protocol ProviderFault: Error {
    /// Whether the provider's answer says the fault is its own or its configuration's.
    var isProviderFault: Bool { get }
}
