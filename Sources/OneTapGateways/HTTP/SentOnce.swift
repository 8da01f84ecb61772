import OneTap

/// A paid call's errors as the exchange guard and number verification read them: a ``GatewayError`` raised before any
/// byte left (`misconfigured`, `notSent`) becomes ``ExchangeNotSentError``, so the token is recorded `failed` (not
/// spent, not billed), never `unknown`; every other error stays as it is. Every exchange and verification gateway
/// calls through it.
enum SentOnce {
    /// Runs a call.
    /// - Parameter call: The call.
    /// - Returns: Its result.
    /// - Throws: ``ExchangeNotSentError``, or what the call threw.
    static func run<T: Sendable>(_ call: () async throws -> T) async throws -> T {
        do {
            return try await call()
        } catch let error as GatewayError where !error.mayHaveReachedVendor {
            if case .refusedCredential = error.kind { throw ExchangeNotSentError(error.description, refusedCredential: true) }
            throw ExchangeNotSentError(error.description)
        }
    }
}
