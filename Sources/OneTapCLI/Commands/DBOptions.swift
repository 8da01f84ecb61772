import OneTap

/// `onetap db migrate --url URL [--schema NAME] [--json]`: brings a PostgreSQL schema up to date, with
/// the library's own migrator (`PostgresStores.migrate()`, run by `onetap-db`: see ``DBCommand``). Its
/// descriptions and mirror show the URL with its password redacted.
package struct DBOptions: Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// What to do with the database.
    package enum Action: String, Hashable, Sendable, CaseIterable {
        /// Apply the schema's missing migrations.
        case migrate
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

    /// The URL with whatever looks like a password in it redacted.
    package var redactedURL: String {
        guard let url else { return "$ONETAP_POSTGRES_URL" }
        return ConnectionPasswords.redacting(in: url, foundIn: [url])
    }

    /// `DBOptions(migrate, url postgresql://api:<redacted>@db/onetap, schema onetap, json false)`.
    package var description: String {
        "DBOptions(\(action.rawValue), url \(redactedURL), schema \(schema ?? "onetap"), json \(json))"
    }

    /// The same as ``description``.
    package var debugDescription: String { description }

    /// A mirror without the password, so `dump` (and a failed expectation) shows the redacted URL only.
    package var customMirror: Mirror {
        Mirror(self, children: ["action": action, "url": redactedURL, "schema": schema as Any, "json": json], displayStyle: .struct)
    }

    /// Creates options.
    /// - Parameters:
    ///   - action: What to do.
    ///   - url: The server; `-` for standard input, nil for `ONETAP_POSTGRES_URL`.
    ///   - schema: The schema; `onetap` when nil.
    ///   - json: Whether to print JSON.
    package init(action: Action, url: String?, schema: String? = nil, json: Bool = false) {
        self.action = action
        self.url = url
        self.schema = schema
        self.json = json
    }
}
