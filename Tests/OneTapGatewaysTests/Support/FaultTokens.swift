import OneTap

/// The faults the aggregators' fakes act out for a token's prefix (Fakes/fake_faults.py), with the error each must
/// become.
enum FaultTokens {
    static func cases(_ gateway: String) -> [(prefix: String, error: GatewayError)] {
        [
            ("status-500", GatewayError(gateway: gateway, .httpStatus(500))),
            ("status-503", GatewayError(gateway: gateway, .httpStatus(503))),
            ("truncated", GatewayError(gateway: gateway, .malformedBody("the answer was cut short (the connection closed mid-body)"))),
            ("malformed", GatewayError(gateway: gateway, .malformedBody("the body is not JSON (8 bytes)"))),
            ("html", GatewayError(gateway: gateway, .wrongContentType("text/html"))),
        ]
    }

    /// Whether an error's words hold none of the secrets.
    static func holdsNoSecret(_ error: (any Error)?, _ secrets: [String]) -> Bool {
        let text = String(describing: error)
        return secrets.allSatisfy { !text.contains($0) }
    }
}
