/// The request fields `onetap gateway sign` signs that hold a secret (a carrier token, a refresh token, a captcha
/// ticket, an SMS code): `onetap gateway` and `onetap-gateway` both take them from standard input only, never from a
/// command line any user of the machine may read.
package enum GatewaySecretFields {
    /// The field names.
    package static let names: Set<String> = ["token", "accessToken", "refreshToken", "ticket", "code"]
}
