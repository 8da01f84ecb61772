import OneTapPostgres

/// A helper's configuration as the tests' own (`TestDatabase.configuration` in OneTapPostgresTests): a transaction may
/// sit idle two minutes between two statements, not the product's 10 s, since a process on two loaded cores (under
/// ThreadSanitizer above all) was seen paused past 10 s, and the server then ended its transaction mid-test.
/// - Parameter configuration: The configuration as the helper's arguments give it.
/// - Returns: The same, with the longer idle limit.
func testing(_ configuration: PostgresConfiguration) -> PostgresConfiguration {
    var configuration = configuration
    configuration.idleInTransactionTimeout = max(configuration.statementTimeout, .seconds(120))
    return configuration
}
