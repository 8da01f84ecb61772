extension Duration {
    /// The duration in seconds as a `Double` (attosecond precision is not needed for time stamps).
    package var seconds: Double {
        let (whole, fraction) = components
        return Double(whole) + Double(fraction) / 1e18
    }
}
