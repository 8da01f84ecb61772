/// The background that finishes the guest-data merges no call of their own session finished: a login whose
/// session switch landed but whose answer and read-back were both lost (a failover), or whose process died between
/// the switch and the merge, leaves the merge pending in a session the app can no longer use (its guest tokens stop
/// at the switch), so no refresh of that session would ever come to retry it, and the sweep would remove it with the
/// session. ``run(every:)`` lists such sessions from the store (``AppSessionStore/pendingMerges(after:limit:)``) and
/// merges each into the account its login was to, as a refresh would; a merge is once-only (its journal), so one
/// racing a refresh, a login or another instance's background merges once.
extension AppSessions {
    /// How long after its login a pending merge is left to that login (and the session's own calls) before the
    /// background takes it up: a minute, from the session's login epoch (``AppSessionRecord/identitySince``, the whole
    /// second after the login, on the clock of the instance that ran it). Either may run it (a merge is once-only); the
    /// wait only spares them both trying at once.
    static let pendingMergeSettle: TimeInterval = 60

    /// How many sessions one page of ``AppSessionStore/pendingMerges(after:limit:)`` lists.
    static let pendingMergePage = 100

    /// Merges the guest data of the logins whose merge is still pending, round after round, until the calling task is
    /// cancelled: a long-running service in the shape of swift-service-lifecycle's `Service` (as ``TokenVault/run()``
    /// and ``ExpiredRecordSweeper/run()``). Run it on one instance or on several (each merge goes in once); without a
    /// ``GuestMerger`` it only waits for its cancellation.
    ///
    /// Each round pages through every session with a pending merge whose login was over a minute ago (its own merge had
    /// its chance) and merges it into the account that login was to; one that fails (the guest-data store down) stays
    /// pending for the next round, the session's next refresh, or ``mergeFormerGuest(_:)``. A merge it finishes emits
    /// `merge-resumed`; a round whose listing failed, or in which merges failed (another applier at work on one is no
    /// failure), one `resume-failed` naming the first error and how many failed. Cancelling ends it between two merges,
    /// or in the wait.
    /// - Parameter interval: The wait between the end of one round and the start of the next; a minute by default.
    ///   Less than a millisecond counts as one.
    public func run(every interval: Duration = .seconds(60)) async {
        while !Task.isCancelled {
            await resumePendingMerges()
            do { try await clock.sleep(for: max(interval, .milliseconds(1))) } catch { return }
        }
    }

    /// One round of ``run(every:)`` (tools and tests): every session listed with a pending merge past the settle, merged.
    /// - Parameter pageSize: How many sessions one listing reads; ``pendingMergePage`` by default, at least 1.
    /// - Returns: How many merges it finished.
    @discardableResult
    package func resumePendingMerges(pageSize: Int = pendingMergePage) async -> Int {
        guard merger != nil else { return 0 }
        let pageSize = max(1, pageSize)
        var cursor: AppSessionID? = nil
        var finished = 0
        var failures: (count: Int, first: String)? = nil
        var unlisted: String? = nil
        defer {
            // One event a round, whatever failed in it.
            var said: [String] = []
            if let unlisted { said.append("listing them: \(unlisted)") }
            if let failures { said.append("\(failures.count) pending merge\(failures.count == 1 ? "" : "s") failed; the first, \(failures.first)") }
            if !said.isEmpty { emit(.resumeFailed(reason: PhoneNumber.maskingNumbers(in: said.joined(separator: "; "), limit: 200)), at: clock.now()) }
        }
        while !Task.isCancelled {
            let page: [AppSessionID]
            do {
                page = try await store.pendingMerges(after: cursor, limit: pageSize)
            } catch {
                if !Task.isCancelled { unlisted = "\(error)" }
                return finished
            }
            for id in page where !Task.isCancelled {
                do {
                    if try await resumePendingMerge(of: id) { finished += 1 }
                } catch let error as MergeError where error.kind == .busy {
                    continue  // another applier is at work on it: the merge goes in once, by that one
                } catch where Task.isCancelled {
                    return finished  // stopped (a shutdown): no failure, the merge resumes at the next run
                } catch {
                    failures = (count: (failures?.count ?? 0) + 1, first: failures?.first ?? "session \(id): \(error)")
                }
            }
            // A page is the listing's cursor: each one strictly after the last, so a round ends.
            guard page.count == pageSize, let last = page.last else { return finished }
            cursor = last
        }
        return finished
    }

    /// Merges one listed session's pending guest, once its login has settled.
    /// - Parameter id: The session.
    /// - Returns: Whether this call finished its merge (false when none is pending now, or it has not settled).
    /// - Throws: What reading the session or the merge throws; the merge stays pending.
    private func resumePendingMerge(of id: AppSessionID) async throws -> Bool {
        guard let record = try await store.load(id), let pending = record.pendingMerge else { return false }
        let loggedIn = record.identitySince ?? .distantPast
        guard loggedIn <= clock.now().addingTimeInterval(-Self.pendingMergeSettle) else { return false }
        guard try await finishPendingMerge(record) else { return false }
        emit(.mergeResumed(id, pending.account), at: clock.now())
        return true
    }
}
