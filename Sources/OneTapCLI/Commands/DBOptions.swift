import OneTap

/// `onetap db migrate --url URL [--schema NAME] [--json]`: brings a PostgreSQL schema up to date, with
/// the library's own migrator (`PostgresMigrator`, run by `onetap-db`: see ``DBCommand``);
/// `onetap db reconcile … [--older-than 10m]` lists the exchanges to reconcile. Its descriptions and
/// mirror show the URL with its password redacted.
package struct DBOptions: Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// What to do with the database.
    package enum Action: String, Hashable, Sendable, CaseIterable {
        /// Apply the schema's missing migrations.
        case migrate
        /// List the exchange ledger's unknown exchanges and its pending ones older than ``olderThan``.
        case reconcile
    }

    /// What to do.
    package var action: Action
    /// `--url`, as given (it may hold a password; never printed): `-` reads the URL from standard input,
    /// and nil takes it from `ONETAP_POSTGRES_URL`. Either keeps a password off every command line.
    package var url: String?
    /// `--schema`, as given; `onetap` when absent.
    package var schema: String?
    /// Whether to print JSON.
    package var json: Bool
    /// `--older-than`, in seconds (`reconcile` only): list the pending exchanges claimed at least this long
    /// ago; nil for the default, 60 s (past any exchange guard's time-out, 5 s by default).
    package var olderThan: Int64?

    /// The URL with whatever looks like a password in it redacted.
    package var redactedURL: String {
        guard let url else { return "$ONETAP_POSTGRES_URL" }
        return ConnectionPasswords.redacting(in: url, foundIn: [url])
    }

    /// `DBOptions(migrate, url postgresql://api:<redacted>@db/onetap, schema onetap, json false)`, and
    /// `older-than 600 s` when given.
    package var description: String {
        "DBOptions(\(action.rawValue), url \(redactedURL), schema \(schema ?? "onetap"), json \(json)\(olderThan.map { ", older-than \($0) s" } ?? ""))"
    }

    /// The same as ``description``.
    package var debugDescription: String { description }

    /// A mirror without the password, so `dump` (and a failed expectation) shows the redacted URL only.
    package var customMirror: Mirror {
        Mirror(self, children: ["action": action, "url": redactedURL, "schema": schema as Any, "json": json, "olderThan": olderThan as Any], displayStyle: .struct)
    }

    /// Creates options.
    /// - Parameters:
    ///   - action: What to do.
    ///   - url: The server; `-` for standard input, nil for `ONETAP_POSTGRES_URL`.
    ///   - schema: The schema; `onetap` when nil.
    ///   - json: Whether to print JSON.
    ///   - olderThan: `reconcile`'s bound on pending exchanges, in seconds; nil for the default.
    package init(action: Action, url: String?, schema: String? = nil, json: Bool = false, olderThan: Int64? = nil) {
        self.action = action
        self.url = url
        self.schema = schema
        self.json = json
        self.olderThan = olderThan
    }
}
