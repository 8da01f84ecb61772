import OneTap

extension LoginSessionID {
    /// One login session for the package's tests whose SMS requests all come from the same session (an
    /// SMS code and its limits are per number and session, and ``SMSContext`` requires one).
    package static let testSession = LoginSessionID.random()
}
