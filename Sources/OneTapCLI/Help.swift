/// The help texts of `onetap` and its commands.
enum Help {
    static let version = "onetap 0.1.0"

    static let commands: [(name: String, summary: String)] = [
        ("carrier", "which carrier a PLMN (MCC+MNC) belongs to"),
        ("number", "which carrier first issued a mainland mobile number"),
        ("route", "which login flows a device should try, in order, and why"),
        ("outcome", "what a carrier result code means and what happens next"),
        ("simulate", "run the real login coordinator against mock providers"),
        ("check", "run decision-table files against the engine"),
        ("session", "replay login transcripts through the server's session machine"),
        ("sms", "replay SMS send requests against the SMS policy"),
        ("gate", "whether an action needs a login (guest, account, never-prompt)"),
        ("merge", "dry-run merging a guest's data into an account"),
        ("token", "when a carrier access token turns stale and expires"),
        ("stats", "the login funnel by carrier, flow and code, from login events"),
        ("replay", "what a new routing policy would have done to recorded logins"),
        ("db", "bring a PostgreSQL schema for OneTap's stores up to date"),
    ]

    static let overview = """
        onetap: decide China carrier one-tap login (一键登录) from the command line.

        USAGE: onetap <command> [options] [operands]

        COMMANDS:
        \(commands.map { "  " + $0.name.padding(9) + $0.summary }.joined(separator: "\n"))

        OPTIONS:
          --json            print one JSON object per result per line (NDJSON)
                            (carrier, number, route, outcome, simulate, token, db)
          --data DIR        use replacement tables from DIR (plmn.csv, number-segments.csv,
                            ipv6-prefixes.csv, result-codes.csv, routing-policy.csv); a table
                            missing from DIR stays built in (every command but token and db)
          --policy FILE     use a replacement routing policy (every command but token and db)
          -h, --help        show help (also: onetap <command> --help)
          --version         print the version

        Options and operands may come in any order; --name value and --name=value are the same;
        -- ends the options; an operand that reads as a negative number (-8994014) is a value.
        A single - operand reads one input per line from standard input.

        EXIT STATUS: 0 ok; 1 a check failed (db: the server refused); 64 usage error;
                     65 bad input data; 66 input file unreadable; 69 a server that cannot be
                     reached (db); 74 output write error.
        """

    static func text(for command: String) -> String? {
        switch command {
        case "carrier": carrier
        case "number": number
        case "route": route
        case "outcome": outcome
        case "check": check
        case "token": token
        case "simulate": simulate
        case "session": session
        case "sms": sms
        case "gate": gate
        case "merge": merge
        case "db": db
        case "stats": stats
        case "replay": replay
        default: nil
        }
    }

    static let carrier = """
        USAGE: onetap carrier <PLMN>... [--json]
               onetap carrier - [--json]        (one PLMN per line on standard input)

        A PLMN is written 46000, 460001, 460-00 or "460 00". MCC 460 is mainland China; any other
        valid MCC is `other` (Hong Kong 454, Macau 455, Taiwan 466, every other country); an
        unassigned 460 MNC, the iOS placeholder 65535, -- and an empty value are `unknown`.

        JSON fields: input, mcc, mnc, carrier, name (English). A malformed value prints
        {"input":…,"error":…} and processing continues; the exit status is then 65.

        EXAMPLE: onetap carrier 46000 460-11 45412 --json
        """

    static let number = """
        USAGE: onetap number <phone>... [--json]
               onetap number - [--json]         (one number per line on standard input)

        Accepts 13800138000, "+86 138 0013 8000", 0086-138-0013-8000, "86 13800138000". The segment
        (号段) names the carrier that first issued the number; since number portability (携号转网,
        2019) the SIM's PLMN is the better evidence whenever it is known.

        JSON fields: input, number, carrier, name, kind (standard, virtual, data, satellite; null
        for an unallocated segment). A malformed value prints {"input":…,"error":…}; exit 65.
        """

    static let route = """
        USAGE: onetap route [--plmn P | --mcc M --mnc N | --no-sim] [--sim absent|not-ready|present]
                            [--mobile-data on|off] [--cellular-access allowed|restricted|unknown]
                            [--network wifi|cellular|both|none] [--ip ADDRESS] [--phone NUMBER] [--json]
               onetap route - [--json]          (one JSON DeviceSnapshot per line on standard input)

        Prints the resolved carrier, the flows to try in order (always ending with sms) and the
        reason. Unreported options never block one-tap. Carrier evidence: the PLMN, then an IPv6
        --ip when --network is cellular, then the --phone segment.

        JSON fields: carrier, evidence, flows, reason, condition.
        Snapshot JSON: {"sim":"present","plmn":"46000","mobileData":true,"cellularAccess":"allowed",
                        "network":"both","ip":"2409:8900::1","phone":"13800138000"}
        """

    static let outcome = """
        USAGE: onetap outcome <flow> <code> [--json]

        flow: mobile, tianyi, unicom or sms. code: the SDK's result code, e.g. 103000 or -8994014
        (negative codes are typed as they are). Unknown codes get the flow's default action.

        JSON fields: flow, code, action, meaning, meaningZH, source, default.
        Actions: success, cancelled, fallback, retry, switch, failed, misconfigured.
        """

    static let check = """
        USAGE: onetap check FILE... [--data DIR] [--policy FILE]

        Runs decision-table files against the engine and prints each failing case with expected
        and actual, then "N passed, M failed". Exit 1 if any case failed, 65 for a malformed
        table (file and line named), 66 for an unreadable file.

        One case per line; # starts a comment. Left of => the inputs, right of it the
        expectations (only those given are checked):
          route --plmn 46000 --network wifi => carrier=mobile flows=mobile,sms reason=policy
          route --no-sim => flows=sms reason=no-sim
          outcome tianyi -8994014 => action=fallback
          simulate --plmn 46000 --mobile 200023,103000 => outcome=success steps=mobile:200023:retry,mobile:103000:success
        route expects carrier, flows, reason, evidence, condition; outcome expects action, default;
        simulate expects outcome, flow, steps (flow:code:action,…) and alerts (flow:code,… or none).
        """

    static let simulate = """
        USAGE: onetap simulate [snapshot options as in route] [--mobile CODE[,CODE…]] [--tianyi CODE…]
                               [--unicom CODE…] [--sms ok|fail] [--hang FLOW] [--json]

        Runs the real login coordinator against mock providers. Each --mobile / --tianyi / --unicom
        scripts that provider's successive result codes (repeat the option or separate codes with
        commas); a flow with no script succeeds. --hang FLOW makes every call of that flow hang until
        its time limit (8 s for one-tap flows, 60 s for SMS here), which is a timeout: time is
        virtual, so a hang costs no real time. --sms fail makes the SMS code fail to verify.

        Prints each step (flow, code, action, meaning) and the outcome. JSON fields: outcome
        (success, cancelled, failed), flow, carrier, plan, steps ([{flow, code, action}]; a timeout
        is code "timeout"), alerts ([{flow, code, meaning}] for misconfigured codes).

        EXAMPLE: onetap simulate --plmn 46000 --mobile 200023,103000 --json
        """

    static let session = """
        USAGE: onetap session FILE... [--json | --events] [--data DIR] [--policy FILE]
               onetap session - [--json | --events]   (one transcript on standard input)

        Replays login transcripts (NDJSON) through the session machine the auth server runs,
        exchanges included. The first line is the device snapshot (as route - reads it); every
        other line is a report: {"flow":F,"code":C} (with token, uniqueId, refreshToken,
        expiresIn), {"flow":F,"timeout":true}, {"flow":F,"fault":"…"}, {"flow":F,"switch":true},
        {"flow":F,"cancel":true}, {"flow":"sms","verified":true}, {"exchange":CODE},
        {"exchange":"timeout"|"fault"|"token-expired"|"replayed"}. Any line may carry "at"
        (ISO 8601) and a report "version" (checked against the session's).

        Prints, per line, the session's version, stage and what the app does next, or why the
        report was rejected. JSON fields: line, version, stage, next, rejected, kind, error.

        --events prints the logins' events instead, one per line in the event schema (v 2, what
        onetap stats reads), with fixed session ids so the same transcripts give the same
        events; what is not an event (an error, a rejection) goes to standard error.

        EXIT STATUS: 0 every transcript ended its login; 1 one did not end or had a report
        rejected; 65 a line was malformed (reported, and the replay goes on).

        EXAMPLE: onetap session Tests/OneTapCLITests/DecisionTables/mobile-success.transcript
        """

    static let sms = """
        USAGE: onetap sms - [--json] [--policy FILE] [--data DIR]

        Replays SMS send requests against the SMS policy (Data/sms-policy.csv, or --policy FILE),
        to try a policy change on a day's traffic before shipping it. One request per line:
          {"at":"2026-12-01T10:00:00Z","number":"13800138000","ip":"203.0.113.7","device":"d1"}
        with optional "session" (a login session id) and "captcha":true (a valid captcha came
        with it). Lines are decided in order, each at its own "at"; windows are sliding and exact
        to the second. --data DIR may hold sms-policy.csv and number-segments.csv.

        Prints one decision per line: sent, captcha (the rule that wants one), limited (the rule
        and the seconds until a send is admitted again) or refused (not a mainland mobile number,
        or an IoT-only segment), then a summary line. No code is made visible.
        JSON fields: line, decision, rule, retryAfter, resendAfter, reason, message, error; the
        last record is {"summary":true,"requests":N,"sent":…,"captcha":…,"limited":…,
        "refused":…,"malformed":…}.

        EXIT STATUS: 0 every line was read (a limited send is an answer, not an error);
        65 a line was malformed (an error record, and the replay goes on).

        EXAMPLE: printf '%s\\n' '{"at":"2026-12-01T10:00:00Z","number":"13800138000","ip":"203.0.113.7"}' | onetap sms -
        """

    static let gate = """
        USAGE: onetap gate <action>... [--json] [--lang zh|en] [--data DIR]

        What each action needs from a guest, by the login-gate table (Data/login-gate.csv, or
        login-gate.csv in --data DIR): guest (allowed without a login), account (log in first,
        with the login page's prompt; the action waits as a pending action) or never-prompt
        (allowed, and a login prompt must never stand in front of it). An action the table does
        not list needs an account and is flagged as the default.

        JSON fields: action, needs, prompt (null unless needs is account), default.

        EXIT STATUS: 0; 65 an operand is no action id (lowercase letters, digits and hyphens).

        EXAMPLE: onetap gate favourite share claim-invite-reward --json
        """

    static let merge = """
        USAGE: onetap merge --guest FILE --account FILE [--rules FILE] [--json]

        A dry run of merging a guest's data into an account at login: prints the plan and the
        account's data after it; nothing is changed. The files are JSON objects keyed by kind:
          {"favourites":["a","b"],"history":[{"item":"n1","at":"2026-11-30T10:00:00Z"}],
           "cart":[{"item":"x","qty":2}],"downloads":["v1"],"settings":{"theme":"dark"},"drafts":["…"]}
        The rules (Data/merge-rules.csv, or --rules FILE): favourites union; history newest first,
        one per item, at most 1,000; cart quantities added, at most 99 per item; downloads move
        unless the account has them (then the guest's copy is deleted); settings: the account's
        value wins; drafts: both kept. A kind with no rule stays with the guest and is reported.

        JSON: {"account":{…merged…},"plan":[{"step":"write"|"remove-guest","kind":…},…],"kept":[…]}.

        EXIT STATUS: 0; 65 a file is not a JSON object or a kind's data has the wrong shape;
                     66 a file is unreadable.

        EXAMPLE: onetap merge --guest guest.json --account account.json --json
        """

    static let db = """
        USAGE: onetap db migrate --url URL [--schema NAME] [--json]

        Applies the migrations a PostgreSQL schema for OneTap's stores is missing (what
        PostgresStores.open does when a server starts), so an operator can migrate before a deploy.
        It runs onetap-db, built beside onetap (the one tool that links libpq).
        Safe to run at any time and from several places at once: the migrations run in one
        transaction under an advisory lock, a schema that is current is left alone, and a failed
        step changes nothing. The schema and its tables are created when missing (the role needs
        CREATE on the database then).

        URL is a libpq URI or connection string: postgresql://user@db.internal:5432/onetap,
        postgresql:///onetap?host=/var/run/postgresql, "host=/tmp dbname=onetap". Its password is
        never printed; it can also come from PGPASSWORD or ~/.pgpass, which keeps it off the command
        line. --schema names the schema (default onetap: lowercase letters, digits and _).

        Prints "migrated schema onetap to version 6 (applied: 3, 4, 5, 6)" or "schema onetap is at
        version 6 (nothing to apply)". JSON fields: schema, version, applied.

        EXIT STATUS: 0 migrated or already current; 1 the server refused (a schema a newer OneTap
        migrated, a missing privilege, a failed step: nothing was changed); 64 usage error (an
        invalid URL or schema name); 69 the server cannot be reached.

        EXAMPLE: onetap db migrate --url postgresql://onetap@db.internal/onetap --schema onetap
        """

    static let stats = """
        USAGE: onetap stats FILE|- [--json] [--svg CHART.svg] [--sms-price P] [--top N]
                                   [--by carrier,flow,platform]

        Counts logins from login events (NDJSON, the event schema v2 that OneTap's event sinks
        and `onetap session --events` write; token and sms events are skipped). Per carrier and
        first flow: logins; how they ended (one-tap success, SMS success, cancelled, failed,
        unfinished: silent for 15 minutes or still open when the stream ended); the one-tap
        success share with its 95% Wilson interval; the time to success p50 and p95; the most
        frequent result codes besides success, with their action and meaning; misconfiguration
        alerts and, with --sms-price, what the SMS they caused cost. --by splits the rows by
        carrier, flow (the plan's first flow) and platform. --svg writes a chart: one stacked
        bar per carrier, counts and shares labelled, and the top failure codes.

        Memory is bounded by the logins open at once and the distinct rows and codes, whatever
        the stream's length. JSON: one object per row (carrier, firstFlow, logins, oneTap, sms,
        cancelled, failed, unfinished, oneTapShare, oneTapShareLow, oneTapShareHigh,
        successShare, successP50Ms, successP95Ms, results, topCodes, topFailures, alerts,
        alertLogins, alertSMS, alertCost, alertCodes), then {"summary":true,…}.

        EXIT STATUS: 0 every line was read; 65 a line was malformed (an error record, and the
        count goes on; the first 100 are printed); 66 the file cannot be read; 74 the chart
        cannot be written.

        EXAMPLE: onetap stats Samples/login-events.ndjson --sms-price 0.05 --svg funnel.svg
        """

    static let replay = """
        USAGE: onetap replay --policy NEW.csv FILE|- [--json] [--svg CHART.svg]
                             [--sms-price P] [--onetap-price P]

        A what-if replay: what the routing policy NEW.csv (the routing-policy.csv format) would
        have tried first for the recorded logins, and, per carrier, the expected one-tap share,
        SMS share, SMS messages and cost (--sms-price: per message, one per login that reached
        SMS), one-tap successes and cost (--onetap-price: per success) and mean time to login,
        current beside new. It is an estimate: logins the new policy plans the same way keep
        their recorded outcome; the others are modelled from the recorded outcomes and times of
        each flow for the same carrier and situation. A flow the new plan reaches that no
        recorded login of that carrier and situation reached is shown as unknown, not guessed.
        95% intervals: recorded shares Wilson score; estimated shares Wilson at the effective
        sample size (delta method); times and costs ±1.96 standard errors.

        JSON: one object per carrier and one for all carriers ("total":true): carrier, logins,
        changed, estimate, current and new ({firstFlows, oneTapShare, smsShare, smsReach,
        smsMessages, smsCost, oneTapSuccesses, oneTapCost, meanTimeToLoginMs}, each
        {value, low, high, method}; new is null when unknown), unknown; then {"summary":true,…}.

        EXIT STATUS: 0 every line was read; 65 a line or the policy was malformed; 66 a file
        cannot be read; 74 the chart cannot be written.

        EXAMPLE: onetap replay --policy Samples/routing-policy-unicom.csv Samples/login-events.ndjson
        """

    static let token = """
        USAGE: onetap token --issued ISO8601 [--expires-in SECONDS | --lifetime DURATION]
                            [--now ISO8601] [--json]

        The state of a token received at --issued, by the default policy: fresh (use it), stale
        (use it and refresh now: from min(24h, lifetime/2) of age, or min(7d, lifetime/4) before
        expiry) or expired (60 s before expiry, for clock skew). --expires-in is the provider's
        lifetime in seconds; --lifetime takes 30d, 12h, 90m or 45s; the default is 30 days.
        --now defaults to the current time.

        JSON fields: state, issuedAt, expiresAt, refreshFrom, remainingSeconds.

        EXAMPLE: onetap token --issued 2026-11-01T00:00:00Z --now 2026-11-15T00:00:00Z --json
        """
}

extension String {
    /// The string padded with spaces to `width` characters.
    func padding(_ width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}
