--
-- PostgreSQL database dump
--

\restrict onetapgolden

-- Dumped from database version 15.18 (Debian 15.18-0+deb12u1)
-- Dumped by pg_dump version 15.18 (Debian 15.18-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

--
-- Name: onetap_golden; Type: SCHEMA; Schema: -; Owner: -
--

CREATE SCHEMA onetap_golden;


SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: exchange_ledger; Type: TABLE; Schema: onetap_golden; Owner: -
--

CREATE TABLE onetap_golden.exchange_ledger (
    token bytea NOT NULL,
    state text NOT NULL,
    code text,
    claimed_at timestamp with time zone NOT NULL,
    settled_at timestamp with time zone NOT NULL,
    forget_at timestamp with time zone NOT NULL,
    CONSTRAINT exchange_ledger_token_check CHECK ((length(token) = 32))
);


--
-- Name: guest_data; Type: TABLE; Schema: onetap_golden; Owner: -
--

CREATE TABLE onetap_golden.guest_data (
    owner_kind text NOT NULL,
    owner text NOT NULL COLLATE pg_catalog."C",
    kind text NOT NULL COLLATE pg_catalog."C",
    value text NOT NULL,
    CONSTRAINT guest_data_owner_kind_check CHECK ((owner_kind = ANY (ARRAY['guest'::text, 'account'::text])))
);


--
-- Name: guest_devices; Type: TABLE; Schema: onetap_golden; Owner: -
--

CREATE TABLE onetap_golden.guest_devices (
    key text NOT NULL COLLATE pg_catalog."C",
    generation bigint NOT NULL,
    account text COLLATE pg_catalog."C",
    last_login text,
    CONSTRAINT guest_devices_generation_check CHECK ((generation >= 0))
);


--
-- Name: login_sessions; Type: TABLE; Schema: onetap_golden; Owner: -
--

CREATE TABLE onetap_golden.login_sessions (
    id text NOT NULL COLLATE pg_catalog."C",
    version bigint NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    session text NOT NULL,
    CONSTRAINT login_sessions_version_check CHECK ((version > 0))
);


--
-- Name: merge_journals; Type: TABLE; Schema: onetap_golden; Owner: -
--

CREATE TABLE onetap_golden.merge_journals (
    guest text NOT NULL COLLATE pg_catalog."C",
    version bigint NOT NULL,
    done boolean NOT NULL,
    started_at timestamp with time zone NOT NULL,
    finished_at timestamp with time zone,
    journal text NOT NULL,
    CONSTRAINT merge_journals_check CHECK ((done = (finished_at IS NOT NULL))),
    CONSTRAINT merge_journals_version_check CHECK ((version > 0))
);


--
-- Name: refresh_leases; Type: TABLE; Schema: onetap_golden; Owner: -
--

CREATE TABLE onetap_golden.refresh_leases (
    account text NOT NULL COLLATE pg_catalog."C",
    holder text NOT NULL,
    expires_at timestamp with time zone NOT NULL
);


--
-- Name: schema_migrations; Type: TABLE; Schema: onetap_golden; Owner: -
--

CREATE TABLE onetap_golden.schema_migrations (
    version integer NOT NULL,
    name text NOT NULL,
    applied_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: sms_codes; Type: TABLE; Schema: onetap_golden; Owner: -
--

CREATE TABLE onetap_golden.sms_codes (
    number text NOT NULL COLLATE pg_catalog."C",
    record text NOT NULL,
    keep_until timestamp with time zone NOT NULL
);


--
-- Name: sms_counters; Type: TABLE; Schema: onetap_golden; Owner: -
--

CREATE TABLE onetap_golden.sms_counters (
    counter text NOT NULL COLLATE pg_catalog."C",
    events timestamp with time zone[] NOT NULL,
    keep_until timestamp with time zone NOT NULL
);


--
-- Name: token_versions; Type: SEQUENCE; Schema: onetap_golden; Owner: -
--

CREATE SEQUENCE onetap_golden.token_versions
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: tokens; Type: TABLE; Schema: onetap_golden; Owner: -
--

CREATE TABLE onetap_golden.tokens (
    account text NOT NULL COLLATE pg_catalog."C",
    version bigint NOT NULL,
    flow text NOT NULL,
    access_token bytea NOT NULL,
    refresh_token bytea,
    issued_at_ms bigint NOT NULL,
    expires_at_ms bigint NOT NULL,
    due_at_ms bigint NOT NULL,
    CONSTRAINT tokens_version_check CHECK ((version > 0))
);


--
-- Data for Name: exchange_ledger; Type: TABLE DATA; Schema: onetap_golden; Owner: -
--

INSERT INTO onetap_golden.exchange_ledger VALUES ('\x9efa1008b9cdf8923793556846f18876edfb1faa7c973fd8270005dff6eb219b', 'pending', NULL, '2026-12-01 08:30:00.125+00', '2026-12-01 08:30:00.125+00', '2026-12-02 08:30:00.125+00');
INSERT INTO onetap_golden.exchange_ledger VALUES ('\x73e961ecdb47f3d74a1812622cb750bddb571fc4e629c9086f23cc9e3235f079', 'answered', '103000', '2026-12-01 08:30:01.25+00', '2026-12-01 08:30:01.875+00', '2026-12-02 08:30:01.25+00');
INSERT INTO onetap_golden.exchange_ledger VALUES ('\xb1e63907cc7025a188f1de1345f2fce2a3fab71dcf85e663574ba351e8577c21', 'unknown', NULL, '2026-12-01 08:30:02.5+00', '2026-12-01 08:30:10.625+00', '2026-12-02 08:30:02.5+00');
INSERT INTO onetap_golden.exchange_ledger VALUES ('\xd18d4e3ee8b5403d7046aa25a54a38ed52749e09ff575e1f69117c3b6fcedced', 'failed', NULL, '2026-12-01 08:30:03.75+00', '2026-12-01 08:30:04.001+00', '2026-12-02 08:30:03.75+00');


--
-- Data for Name: guest_data; Type: TABLE DATA; Schema: onetap_golden; Owner: -
--

INSERT INTO onetap_golden.guest_data VALUES ('guest', 'Eye6gz0mNNjO9p89jesOWA', 'favourites', '["article-1","article-2"]');
INSERT INTO onetap_golden.guest_data VALUES ('guest', 'Eye6gz0mNNjO9p89jesOWA', 'history', '[{"at":"2026-12-01T08:50:00.125Z","item":"article-1"},{"at":"2026-12-01T08:51:30.5Z","item":"article-9"}]');
INSERT INTO onetap_golden.guest_data VALUES ('guest', 'Eye6gz0mNNjO9p89jesOWA', 'cart', '[{"item":"sku-9","price":12.5,"qty":2}]');
INSERT INTO onetap_golden.guest_data VALUES ('guest', 'Eye6gz0mNNjO9p89jesOWA', 'settings', '{"fontSize":16,"ratio":0.1,"theme":"dark"}');
INSERT INTO onetap_golden.guest_data VALUES ('guest', 'Eye6gz0mNNjO9p89jesOWA', 'drafts', '["第一稿 \"quoted\"\nsecond line"]');
INSERT INTO onetap_golden.guest_data VALUES ('guest', 'Eye6gz0mNNjO9p89jesOWA', 'scores', '[0.1,-2.5,1000000000000000.0,1e-07,123456789012345,1e+300,true,null,"x"]');
INSERT INTO onetap_golden.guest_data VALUES ('account', 'acct-golden-3', 'favourites', '["article-2","article-3"]');
INSERT INTO onetap_golden.guest_data VALUES ('account', 'acct-golden-3', 'settings', '{"theme":"light"}');
INSERT INTO onetap_golden.guest_data VALUES ('account', 'acct-golden-3', 'cart', '[{"item":"sku-9","qty":99}]');
INSERT INTO onetap_golden.guest_data VALUES ('account', 'acct-golden-3', 'drafts', '["第一稿 \"quoted\"\nsecond line"]');
INSERT INTO onetap_golden.guest_data VALUES ('account', 'acct-golden-7', 'favourites', '["article-7"]');
INSERT INTO onetap_golden.guest_data VALUES ('account', 'acct-golden-7', 'history', '[{"at":"2026-12-01T09:00:00Z","item":"article-7"}]');


--
-- Data for Name: guest_devices; Type: TABLE DATA; Schema: onetap_golden; Owner: -
--

INSERT INTO onetap_golden.guest_devices VALUES ('zUKCJVMPiK8n6mhmq1MgAg', 0, 'acct-golden-3', '{"flow":"mobile","maskedNumber":"138****8000","at":817806000.125}');
INSERT INTO onetap_golden.guest_devices VALUES ('_n_XG23phDf464TkynBVcQ', 2, NULL, '{"flow":"sms","at":817806060.9990001}');
INSERT INTO onetap_golden.guest_devices VALUES ('yzgg6tsmEB9w9ymfT3VcKw', 1, NULL, NULL);


--
-- Data for Name: login_sessions; Type: TABLE DATA; Schema: onetap_golden; Owner: -
--

INSERT INTO onetap_golden.login_sessions VALUES ('Golden-flow-stage-0001', 2, '2026-12-01 08:10:01.25+00', '{"format":"onetap-session/1","id":"Golden-flow-stage-0001","version":2,"plan":{"carrier":"mobile","evidence":"plmn","flows":["mobile","sms"],"reason":"policy","condition":"carrier:mobile"},"stage":"flow","flow":"mobile","attempt":2,"trace":[{"flow":"mobile","attempt":1,"code":"200023","action":"retry","meaning":"request timeout","next":"retry mobile"}],"alerts":[],"createdAt":1796112001.25,"expiresAt":1796112601.25,"exchangedTokens":[],"unknownExchanges":[],"platform":"harmonyos"}');
INSERT INTO onetap_golden.login_sessions VALUES ('Golden-exchange-000002', 2, '2026-12-01 08:11:00.125+00', '{"format":"onetap-session/1","id":"Golden-exchange-000002","version":2,"plan":{"carrier":"mobile","evidence":"plmn","flows":["mobile","sms"],"reason":"policy","condition":"carrier:mobile"},"stage":"exchange","flow":"mobile","attempt":1,"token":"4f905de4876e79e9fc8ad1b69bbe01bdedf4b0ab0021175751d133f0fd3c1370","receivedAt":1796112062.375,"trace":[{"flow":"mobile","attempt":1,"code":"103000","action":"success","meaning":"success: token obtained: exchange the token","next":"exchange mobile"}],"alerts":[],"createdAt":1796112060.125,"expiresAt":1796112660.125,"exchangedTokens":["4f905de4876e79e9fc8ad1b69bbe01bdedf4b0ab0021175751d133f0fd3c1370"],"unknownExchanges":[],"platform":"android"}');
INSERT INTO onetap_golden.login_sessions VALUES ('Golden-verified-000003', 3, '2026-12-01 08:12:00.5+00', '{"format":"onetap-session/1","id":"Golden-verified-000003","version":3,"plan":{"carrier":"mobile","evidence":"plmn","flows":["mobile","sms"],"reason":"policy","condition":"carrier:mobile"},"stage":"ended","ending":"success","flow":"mobile","trace":[{"flow":"mobile","attempt":1,"code":"103000","action":"success","meaning":"success: token obtained: exchange the token","next":"exchange mobile"},{"flow":"mobile","attempt":1,"code":"exchange-103000","action":"success","meaning":"number returned","next":"finish success"}],"alerts":[],"createdAt":1796112120.5,"expiresAt":1796112720.5,"exchangedTokens":["bef4374e2e021a590442164b2581ffae312479e7e1829b2028a1ad60bc86c815"],"unknownExchanges":[],"verified":{"phoneNumber":"13800138000","account":"acct-golden-3"},"platform":"ios"}');
INSERT INTO onetap_golden.login_sessions VALUES ('Golden-pending-0000004', 1, '2026-12-01 08:13:00.25+00', '{"format":"onetap-session/1","id":"Golden-pending-0000004","version":1,"plan":{"carrier":"mobile","evidence":"plmn","flows":["mobile","sms"],"reason":"policy","condition":"carrier:mobile"},"stage":"flow","flow":"mobile","attempt":1,"trace":[],"alerts":[],"createdAt":1796112180.25,"expiresAt":1796112780.25,"exchangedTokens":[],"unknownExchanges":[],"pending":{"key":"43Pp0nQVUUoBrU4r_5jZ0w","action":"favourite","payload":{"item":"article-42","note":null,"score":4.5,"tags":["新闻","tech"]},"createdAt":1796112180.25,"expiresAt":1796112780.25}}');
INSERT INTO onetap_golden.login_sessions VALUES ('Golden-unknown-0000005', 3, '2026-12-01 08:14:00.125+00', '{"format":"onetap-session/1","id":"Golden-unknown-0000005","version":3,"plan":{"carrier":"mobile","evidence":"plmn","flows":["mobile","sms"],"reason":"policy","condition":"carrier:mobile"},"stage":"flow","flow":"sms","attempt":1,"trace":[{"flow":"mobile","attempt":1,"code":"103000","action":"success","meaning":"success: token obtained: exchange the token","next":"exchange mobile"},{"flow":"mobile","attempt":1,"code":"exchange-timeout","action":"switch","meaning":"the exchange gave no answer: its result is unknown (it may have been billed); SMS now, the token is kept for reconciliation","next":"attempt sms"}],"alerts":[],"createdAt":1796112240.125,"expiresAt":1796112840.125,"exchangedTokens":["5d8a2758731002dd0ceaa5af44e8335c9080f896ab43c73b98dff03357d3128c"],"unknownExchanges":[{"flow":"mobile","token":"5d8a2758731002dd0ceaa5af44e8335c9080f896ab43c73b98dff03357d3128c","at":1796112249.375}]}');
INSERT INTO onetap_golden.login_sessions VALUES ('Golden-alerts-00000006', 4, '2026-12-01 08:16:00.625+00', '{"format":"onetap-session/1","id":"Golden-alerts-00000006","version":4,"plan":{"carrier":"mobile","evidence":"plmn","flows":["mobile","tianyi","unicom","sms"],"reason":"policy","condition":"carrier:mobile"},"stage":"flow","flow":"unicom","attempt":1,"trace":[{"flow":"mobile","attempt":1,"code":"103101","action":"misconfigured","meaning":"request signature wrong (appKey)","next":"attempt tianyi"},{"flow":"tianyi","attempt":1,"code":"0","action":"success","meaning":"success: exchange the token","next":"exchange tianyi"},{"flow":"tianyi","attempt":1,"code":"exchange-51002","action":"misconfigured","meaning":"parameter empty or access not allowed","next":"attempt unicom"}],"alerts":[{"flow":"mobile","code":"103101","meaning":"request signature wrong (appKey)"},{"flow":"tianyi","code":"exchange-51002","meaning":"parameter empty or access not allowed"}],"createdAt":1796112360.625,"expiresAt":1796112960.625,"exchangedTokens":["2829acdc5e265dbe450b37e958a9b822716758298988188cb1031db0acc438a6"],"unknownExchanges":[],"platform":"ios"}');
INSERT INTO onetap_golden.login_sessions VALUES ('Golden-trace-000000007', 6, '2026-12-01 08:17:00.1+00', '{"format":"onetap-session/1","id":"Golden-trace-000000007","version":6,"plan":{"carrier":"mobile","evidence":"plmn","flows":["mobile","tianyi","unicom","sms"],"reason":"policy","condition":"carrier:mobile"},"stage":"flow","flow":"sms","attempt":1,"trace":[{"flow":"mobile","attempt":1,"code":"200023","action":"retry","meaning":"request timeout","next":"retry mobile"},{"flow":"mobile","attempt":2,"code":"code:timeout","action":"fallback","meaning":"unknown code: fall back to SMS (seed 002) (an unlisted code: the flow''s default)","next":"attempt tianyi"},{"flow":"tianyi","attempt":1,"code":"provider-error","detail":"SDK \"crashed\"\tcode 7","action":"fallback","meaning":"the provider failed (SDK \"crashed\"\tcode 7): fall back","next":"attempt unicom"},{"flow":"unicom","attempt":1,"code":"0","action":"success","meaning":"success: exchange the token","next":"exchange unicom"},{"flow":"unicom","attempt":1,"code":"exchange-code:failed","action":"fallback","meaning":"unknown exchange code: the next flow (an unlisted exchange code: the flow''s default)","next":"attempt sms"}],"alerts":[],"createdAt":1796112420.1,"expiresAt":1796113020.1,"exchangedTokens":["5ca44a046eec62b2edba2e3a38ccd7542c49dcd3d10da1126aa02bb6d1028090"],"unknownExchanges":[]}');
INSERT INTO onetap_golden.login_sessions VALUES ('Golden-failed-00000008', 1, '2026-12-01 08:19:00.999+00', '{"format":"onetap-session/1","id":"Golden-failed-00000008","version":1,"plan":{"carrier":"mobile","evidence":"plmn","flows":["mobile","tianyi","unicom","sms"],"reason":"policy","condition":"carrier:mobile"},"stage":"ended","ending":"failed","trace":[],"alerts":[],"createdAt":1796112540.999,"expiresAt":1796113140.999,"exchangedTokens":[],"unknownExchanges":[]}');
INSERT INTO onetap_golden.login_sessions VALUES ('Golden-cancel-00000009', 2, '2026-12-01 08:20:00.75+00', '{"format":"onetap-session/1","id":"Golden-cancel-00000009","version":2,"plan":{"carrier":"mobile","evidence":"plmn","flows":["mobile","sms"],"reason":"policy","condition":"carrier:mobile"},"stage":"ended","ending":"cancelled","flow":"mobile","trace":[{"flow":"mobile","attempt":1,"code":"cancelled","action":"cancelled","meaning":"the user backed out","next":"finish cancelled"}],"alerts":[],"createdAt":1796112600.75,"expiresAt":1796113200.75,"exchangedTokens":[],"unknownExchanges":[],"platform":"android"}');


--
-- Data for Name: merge_journals; Type: TABLE DATA; Schema: onetap_golden; Owner: -
--

INSERT INTO onetap_golden.merge_journals VALUES ('Rnb1r_39ChokD62rk4QDoA', 6, true, '2026-12-01 08:35:00.5+00', '2026-12-01 08:35:02+00', '{"account":"acct-golden-7","plan":{"steps":[{"write":{"kind":"favourites","value":["article-7"]}},{"write":{"kind":"history","value":[{"item":"article-7","at":"2026-12-01T09:00:00Z"}]}},{"removeGuest":{"kind":"favourites"}},{"removeGuest":{"kind":"history"}}],"kept":[],"discarded":{},"merged":{"favourites":["article-7"],"history":[{"at":"2026-12-01T09:00:00Z","item":"article-7"}]},"moved":{}},"guest":"Rnb1r_39ChokD62rk4QDoA","startedAt":817806900.5,"completed":4,"finishedAt":817806902,"done":true,"version":6}');
INSERT INTO onetap_golden.merge_journals VALUES ('Eye6gz0mNNjO9p89jesOWA', 4, false, '2026-12-01 08:25:00.25+00', NULL, '{"leaseUntil":817806330.75,"account":"acct-golden-3","plan":{"moved":{},"discarded":{},"steps":[{"write":{"kind":"cart","value":[{"item":"sku-9","qty":99}]}},{"write":{"kind":"drafts","value":["第一稿 \"quoted\"\nsecond line"]}},{"write":{"kind":"favourites","value":["article-2","article-3","article-1"]}},{"write":{"kind":"history","value":[{"item":"article-9","at":"2026-12-01T08:51:30.5Z"},{"item":"article-1","at":"2026-12-01T08:50:00.125Z"}]}},{"write":{"kind":"settings","value":{"fontSize":16,"theme":"light","ratio":0.1}}},{"removeGuest":{"kind":"cart"}},{"removeGuest":{"kind":"drafts"}},{"removeGuest":{"kind":"favourites"}},{"removeGuest":{"kind":"history"}},{"removeGuest":{"kind":"settings"}}],"kept":["scores"],"merged":{"drafts":["第一稿 \"quoted\"\nsecond line"],"favourites":["article-2","article-3","article-1"],"settings":{"theme":"light","fontSize":16,"ratio":0.1},"history":[{"at":"2026-12-01T08:51:30.5Z","item":"article-9"},{"at":"2026-12-01T08:50:00.125Z","item":"article-1"}],"cart":[{"item":"sku-9","qty":99}]}},"guest":"Eye6gz0mNNjO9p89jesOWA","holder":"WTnGN3kUVvfHjyF87V9oIw","startedAt":817806300.25,"completed":2,"done":false,"version":4}');


--
-- Data for Name: refresh_leases; Type: TABLE DATA; Schema: onetap_golden; Owner: -
--



--
-- Data for Name: schema_migrations; Type: TABLE DATA; Schema: onetap_golden; Owner: -
--

INSERT INTO onetap_golden.schema_migrations VALUES (1, 'tokens', '2026-12-02 05:37:31.499975+00');
INSERT INTO onetap_golden.schema_migrations VALUES (2, 'refresh leases', '2026-12-02 05:37:31.499975+00');
INSERT INTO onetap_golden.schema_migrations VALUES (3, 'login sessions', '2026-12-02 05:37:31.499975+00');
INSERT INTO onetap_golden.schema_migrations VALUES (4, 'sms', '2026-12-02 05:37:31.499975+00');
INSERT INTO onetap_golden.schema_migrations VALUES (5, 'exchange ledger', '2026-12-02 05:37:31.499975+00');
INSERT INTO onetap_golden.schema_migrations VALUES (6, 'guests', '2026-12-02 05:37:31.499975+00');


--
-- Data for Name: sms_codes; Type: TABLE DATA; Schema: onetap_golden; Owner: -
--

INSERT INTO onetap_golden.sms_codes VALUES ('13800138000', '{"issuedAt":817806000.25,"number":"13800138000","expiresAt":817806300.25,"session":"Golden-unknown-0000005","digest":"326d76ffb7669b2adc9eedd4211a4401d1aaeda111b98be11aca1b8908ec9619","id":"4c4d36476fce4d70","wrongAttempts":2}', '2026-12-03 08:20:45.75+00');
INSERT INTO onetap_golden.sms_codes VALUES ('13900139000', '{"expiresAt":817806360.125,"issuedAt":817806060.125,"digest":"17bf4ff4375d5523e4243e17a2349244cfd3e88dc3bcd45473fcc955468d06ff","id":"1182203f78ee234d","wrongAttempts":0,"number":"13900139000"}', '2026-12-03 08:21:00.125+00');


--
-- Data for Name: sms_counters; Type: TABLE DATA; Schema: onetap_golden; Owner: -
--

INSERT INTO onetap_golden.sms_counters VALUES ('sends:number:13800138000', '{"2026-12-01 08:20:00.25+00"}', '2026-12-03 08:20:00.25+00');
INSERT INTO onetap_golden.sms_counters VALUES ('sends:ip:203.0.113.7', '{"2026-12-01 08:20:00.25+00"}', '2026-12-03 08:20:00.25+00');
INSERT INTO onetap_golden.sms_counters VALUES ('sends:device:golden-device-1', '{"2026-12-01 08:20:00.25+00"}', '2026-12-03 08:20:00.25+00');
INSERT INTO onetap_golden.sms_counters VALUES ('failed-verifies:number:13800138000', '{"2026-12-01 08:20:30.5+00","2026-12-01 08:20:45.75+00"}', '2026-12-03 08:20:45.75+00');
INSERT INTO onetap_golden.sms_counters VALUES ('sends:number:13900139000', '{"2026-12-01 08:21:00.125+00"}', '2026-12-03 08:21:00.125+00');
INSERT INTO onetap_golden.sms_counters VALUES ('sends:ip:2001:db8:1234:5678::/64', '{"2026-12-01 08:21:00.125+00"}', '2026-12-03 08:21:00.125+00');
INSERT INTO onetap_golden.sms_counters VALUES ('sends:device:golden-device-2', '{"2026-12-01 08:21:00.125+00"}', '2026-12-03 08:21:00.125+00');


--
-- Data for Name: tokens; Type: TABLE DATA; Schema: onetap_golden; Owner: -
--

INSERT INTO onetap_golden.tokens VALUES ('acct-golden-tianyi-2', 2, 'tianyi', '\x66616b652d6163636573732d746f6b656e2d4132', NULL, 1796112660999, 1796116260999, 1796115660999);
INSERT INTO onetap_golden.tokens VALUES ('acct-golden-tianyi-1', 3, 'tianyi', '\x66616b652d6163636573732d746f6b656e2d41312d726f7461746564', '\x66616b652d726566726573682d746f6b656e2d52312d726f7461746564', 1796112700456, 1798704700456, 1798618300456);
INSERT INTO onetap_golden.tokens VALUES ('账户-golden-3', 4, 'mobile', '\x66616b652d6163636573732d746f6b656e2d4133', NULL, 1796112720500, 1796199120500, 1796195520500);


--
-- Name: token_versions; Type: SEQUENCE SET; Schema: onetap_golden; Owner: -
--

SELECT pg_catalog.setval('onetap_golden.token_versions', 4, true);


--
-- Name: exchange_ledger exchange_ledger_pkey; Type: CONSTRAINT; Schema: onetap_golden; Owner: -
--

ALTER TABLE ONLY onetap_golden.exchange_ledger
    ADD CONSTRAINT exchange_ledger_pkey PRIMARY KEY (token);


--
-- Name: guest_data guest_data_pkey; Type: CONSTRAINT; Schema: onetap_golden; Owner: -
--

ALTER TABLE ONLY onetap_golden.guest_data
    ADD CONSTRAINT guest_data_pkey PRIMARY KEY (owner_kind, owner, kind);


--
-- Name: guest_devices guest_devices_pkey; Type: CONSTRAINT; Schema: onetap_golden; Owner: -
--

ALTER TABLE ONLY onetap_golden.guest_devices
    ADD CONSTRAINT guest_devices_pkey PRIMARY KEY (key);


--
-- Name: login_sessions login_sessions_pkey; Type: CONSTRAINT; Schema: onetap_golden; Owner: -
--

ALTER TABLE ONLY onetap_golden.login_sessions
    ADD CONSTRAINT login_sessions_pkey PRIMARY KEY (id);


--
-- Name: merge_journals merge_journals_pkey; Type: CONSTRAINT; Schema: onetap_golden; Owner: -
--

ALTER TABLE ONLY onetap_golden.merge_journals
    ADD CONSTRAINT merge_journals_pkey PRIMARY KEY (guest);


--
-- Name: refresh_leases refresh_leases_pkey; Type: CONSTRAINT; Schema: onetap_golden; Owner: -
--

ALTER TABLE ONLY onetap_golden.refresh_leases
    ADD CONSTRAINT refresh_leases_pkey PRIMARY KEY (account);


--
-- Name: schema_migrations schema_migrations_pkey; Type: CONSTRAINT; Schema: onetap_golden; Owner: -
--

ALTER TABLE ONLY onetap_golden.schema_migrations
    ADD CONSTRAINT schema_migrations_pkey PRIMARY KEY (version);


--
-- Name: sms_codes sms_codes_pkey; Type: CONSTRAINT; Schema: onetap_golden; Owner: -
--

ALTER TABLE ONLY onetap_golden.sms_codes
    ADD CONSTRAINT sms_codes_pkey PRIMARY KEY (number);


--
-- Name: sms_counters sms_counters_pkey; Type: CONSTRAINT; Schema: onetap_golden; Owner: -
--

ALTER TABLE ONLY onetap_golden.sms_counters
    ADD CONSTRAINT sms_counters_pkey PRIMARY KEY (counter);


--
-- Name: tokens tokens_pkey; Type: CONSTRAINT; Schema: onetap_golden; Owner: -
--

ALTER TABLE ONLY onetap_golden.tokens
    ADD CONSTRAINT tokens_pkey PRIMARY KEY (account);


--
-- Name: exchange_ledger_forget; Type: INDEX; Schema: onetap_golden; Owner: -
--

CREATE INDEX exchange_ledger_forget ON onetap_golden.exchange_ledger USING btree (forget_at);


--
-- Name: exchange_ledger_unknown; Type: INDEX; Schema: onetap_golden; Owner: -
--

CREATE INDEX exchange_ledger_unknown ON onetap_golden.exchange_ledger USING btree (settled_at) WHERE (state = 'unknown'::text);


--
-- Name: login_sessions_expiry; Type: INDEX; Schema: onetap_golden; Owner: -
--

CREATE INDEX login_sessions_expiry ON onetap_golden.login_sessions USING btree (expires_at);


--
-- Name: merge_journals_finished; Type: INDEX; Schema: onetap_golden; Owner: -
--

CREATE INDEX merge_journals_finished ON onetap_golden.merge_journals USING btree (finished_at) WHERE done;


--
-- Name: refresh_leases_expiry; Type: INDEX; Schema: onetap_golden; Owner: -
--

CREATE INDEX refresh_leases_expiry ON onetap_golden.refresh_leases USING btree (expires_at);


--
-- Name: sms_codes_keep_until; Type: INDEX; Schema: onetap_golden; Owner: -
--

CREATE INDEX sms_codes_keep_until ON onetap_golden.sms_codes USING btree (keep_until);


--
-- Name: sms_counters_keep_until; Type: INDEX; Schema: onetap_golden; Owner: -
--

CREATE INDEX sms_counters_keep_until ON onetap_golden.sms_counters USING btree (keep_until);


--
-- Name: tokens_due; Type: INDEX; Schema: onetap_golden; Owner: -
--

CREATE INDEX tokens_due ON onetap_golden.tokens USING btree (due_at_ms, account);


--
-- PostgreSQL database dump complete
--

\unrestrict onetapgolden

