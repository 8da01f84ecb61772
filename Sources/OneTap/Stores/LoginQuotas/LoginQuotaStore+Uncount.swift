import Foundation

extension LoginQuotaStore {
    /// Takes back one event counted at `countedAt` in each counter (``RateTable/uncount(_:in:of:)``):
    /// a request counted that then did not happen (a login's start whose write failed, a verification whose claim the
    /// ledger refused), written whatever becomes of the caller meanwhile. A store that fails leaves them counted: the
    /// quota is the stricter for it until the window moves.
    /// - Parameters:
    ///   - counters: The counters the request was counted in.
    ///   - countedAt: The instant it was counted at.
    package func uncount(_ counters: [LoginQuotaPolicy.Counter], countedAt: Date) async {
        do {
            try await writeDespiteCancellation {
                try await self.update(counters: counters, at: countedAt) { state in LoginQuotaPolicy.uncount(countedAt, in: &state.events, of: counters) }
            }
        } catch {
            // Left counted.
        }
    }
}
