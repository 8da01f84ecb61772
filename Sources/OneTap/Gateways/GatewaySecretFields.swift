/// The request fields `onetap gateway sign` signs that hold a secret (a carrier token, a refresh token, a captcha
/// ticket, an SMS code): `onetap gateway` and `onetap-gateway` both take them from standard input only, never from a
/// command line any user of the machine may read.
package enum GatewaySecretFields {
    /// The field names.
    package static let names: Set<String> = ["token", "accessToken", "refreshToken", "ticket", "code"]

    /// Whether a `--field NAME=VALUE` may be given so: its value is `-` (read from standard input), or the field holds
    /// no secret.
    /// - Parameters:
    ///   - name: The field's name.
    ///   - value: Its value as given, after the first `=`.
    /// - Returns: False for a secret field whose value stands on the command line.
    package static func mayBeGiven(_ name: some StringProtocol, as value: some StringProtocol) -> Bool {
        value == "-" || !names.contains(String(name))
    }
}
