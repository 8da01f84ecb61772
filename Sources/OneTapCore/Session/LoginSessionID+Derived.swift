extension LoginSessionID {
    /// An id derived from a digest (its first 16 bytes), for a claim whose owner must be the same for the same inputs
    /// on every instance: a number verification's token and number. Never for a login session, whose id is random.
    /// - Parameter digest: The digest.
    package init(derivedFrom digest: SHA256Digest) {
        self.init(bytes: Array(digest.bytes.prefix(16)))
    }
}
