extension SMSPolicy {
    /// The captcha rules that hold for one send or verify, gathered rule by rule: the first that holds, the first of the
    /// requester's own keys (its address blocks, its device), and when each side frees a place. A decision names the
    /// requester's own rule first, with its own rules' wait alone, so an answer tells a requester about another's use of
    /// a number only when its own would not have stopped it; the number's rule is told at the retry.
    struct CaptchaAsk {
        private var first: (rule: String, freesAt: Date)?
        private var own: (rule: String, freesAt: Date)?

        /// Notes a captcha (or single-try) rule whose window is full.
        /// - Parameters:
        ///   - rule: The rule's id.
        ///   - isTheRequestersOwn: Whether it counts per one of the requester's own keys.
        ///   - freesAt: When its window frees a place.
        mutating func holds(_ rule: String, isTheRequestersOwn: Bool, freesAt: Date) {
            first = (first?.rule ?? rule, max(first?.freesAt ?? freesAt, freesAt))
            if isTheRequestersOwn { own = (own?.rule ?? rule, max(own?.freesAt ?? freesAt, freesAt)) }
        }

        /// The rule to name and when no captcha rule of its side would ask for one any more, or nil when none holds.
        var asked: (rule: String, freesAt: Date)? { own ?? first }
    }
}
