import Dispatch
import Foundation
import OneTap
import OneTapChildProcess

/// A private PostgreSQL server for tests and benchmarks: `initdb` into a fresh directory under `/tmp`,
/// then `pg_ctl start` listening on a Unix socket in that directory only (`listen_addresses=''`), with
/// trust authentication for the `postgres` user. PostgreSQL refuses to run as root, so under root
/// (CI) the directory is given to the `postgres` user and the tools run as it (`runuser -u postgres`).
///
/// A watchdog shell process stops the server and removes the directory once the process that started
/// it is gone, so a test run that is killed leaves nothing running.
package final class PostgresTestServer: Sendable, CustomStringConvertible {
    /// Why no server could be had.
    package struct Unavailable: Error, CustomStringConvertible {
        /// What is missing or what failed.
        package let reason: String
        package var description: String { reason }
    }

    /// The directory holding the data (`data/`), the log (`server.log`) and the socket.
    package let directory: String
    /// Where the server's binaries are (`/usr/lib/postgresql/15/bin`).
    package let binaries: String
    /// How a server is started.
    package struct Options: Sendable {
        /// The server's `max_connections`: 300 by default; a stock server has 100.
        package var maxConnections: Int
        /// Whether the server also listens on TCP (127.0.0.1, a free port) with TLS on (`ssl=on`), its
        /// certificate for `localhost` and 127.0.0.1 signed by a CA made for it (``PostgresTestCertificates``).
        package var tls: Bool

        /// Options.
        /// - Parameters:
        ///   - maxConnections: The server's `max_connections`.
        ///   - tls: Whether it listens on TCP with TLS.
        package init(maxConnections: Int = 300, tls: Bool = false) {
            self.maxConnections = maxConnections
            self.tls = tls
        }
    }

    /// The port in the socket's name (`.s.PGSQL.<port>`) and, with TLS, the TCP port on 127.0.0.1.
    package let port: Int
    /// How the server runs.
    package let options: Options
    /// The CA and server certificate, with TLS.
    package let certificates: PostgresTestCertificates?
    private let runAs: [String]

    private init(directory: String, binaries: String, runAs: [String], options: Options, port: Int, certificates: PostgresTestCertificates?) {
        self.directory = directory
        self.binaries = binaries
        self.runAs = runAs
        self.options = options
        self.port = port
        self.certificates = certificates
    }

    /// `PostgreSQL test server at /tmp/onetap-pg-…`.
    package var description: String { "PostgreSQL test server at \(directory)" }

    /// A libpq URL for a database on this server, as the `postgres` superuser over the socket.
    /// - Parameter database: The database; `postgres`.
    /// - Returns: `postgresql:///postgres?host=<directory>&port=5432&user=postgres`.
    package func url(database: String = "postgres") -> String {
        "postgresql:///\(database)?host=\(directory)&port=\(port)&user=postgres"
    }

    /// The directory of PostgreSQL's server binaries, or nil when none is installed.
    package static func findBinaries() -> String? {
        if let configured = ProcessInfo.processInfo.environment["ONETAP_POSTGRES_BIN"] {
            return FileManager.default.isExecutableFile(atPath: configured + "/initdb") ? configured : nil
        }
        let base = "/usr/lib/postgresql"
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: base)) ?? []
        for version in versions.sorted(by: { (Int($0) ?? 0) > (Int($1) ?? 0) }) {
            let bin = "\(base)/\(version)/bin"
            if FileManager.default.isExecutableFile(atPath: bin + "/initdb") { return bin }
        }
        return nil
    }

    /// A libpq URL over TCP to `localhost` (with TLS servers only), with no `sslmode`.
    /// - Parameter database: The database; `postgres`.
    /// - Returns: `postgresql://postgres@localhost:<port>/postgres`.
    package func tcpURL(database: String = "postgres") -> String {
        "postgresql://postgres@localhost:\(port)/\(database)"
    }

    /// Creates and starts a server of its own.
    /// - Parameter options: How it runs; 300 connections over a Unix socket only by default.
    /// - Returns: The running server.
    /// - Throws: ``Unavailable`` saying what is missing (no binaries, no `postgres` user under root) or
    ///   which step failed, with the tool's output.
    package static func start(_ options: Options = Options()) async throws(Unavailable) -> PostgresTestServer {
        guard let binaries = findBinaries() else {
            throw Unavailable(reason: "no PostgreSQL server binaries (initdb) under /usr/lib/postgresql/*/bin; install postgresql-15 (apt-get install -y postgresql-15) or set ONETAP_POSTGRES_URL")
        }
        var runAs: [String] = []
        var owner: (uid: uid_t, gid: gid_t)? = nil
        if geteuid() == 0 {
            guard let user = getpwnam("postgres") else {
                throw Unavailable(reason: "running as root, and PostgreSQL refuses root, but there is no postgres user to run it as")
            }
            guard let runuser = ["/usr/sbin/runuser", "/sbin/runuser"].first(where: FileManager.default.isExecutableFile(atPath:)) else {
                throw Unavailable(reason: "running as root, and PostgreSQL refuses root, but runuser is missing (util-linux)")
            }
            runAs = [runuser, "-u", "postgres", "--"]
            owner = (user.pointee.pw_uid, user.pointee.pw_gid)
        }
        var template = Array("/tmp/onetap-pg-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else {
            throw Unavailable(reason: "cannot create a directory under /tmp: \(String(cString: strerror(errno)))")
        }
        let directory = String(cString: made)
        if let owner { chown(directory, owner.uid, owner.gid) }
        chmod(directory, 0o700)
        var certificates: PostgresTestCertificates? = nil
        var port = 5432
        if options.tls {
            do {
                certificates = try await PostgresTestCertificates.make(in: directory + "/tls", owner: owner)
                port = try freePort()
            } catch {
                try? FileManager.default.removeItem(atPath: directory)
                throw error
            }
        }
        let server = PostgresTestServer(directory: directory, binaries: binaries, runAs: runAs, options: options, port: port, certificates: certificates)
        server.startWatchdog()
        do {
            try await server.run(
                "initdb", ["-D", server.dataDirectory, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions"])
            try await server.start()
        } catch {
            server.remove()
            throw error
        }
        return server
    }

    private var dataDirectory: String { directory + "/data" }

    /// Starts the server (again, after ``stop()``) and waits until it accepts connections.
    /// - Throws: ``Unavailable`` with `pg_ctl`'s output and the server log's end.
    package func start() async throws(Unavailable) {
        // fsync is off (a test server; a stopped process still leaves its writes with the kernel), and
        // synchronous_commit stays on, so a commit the client saw survives `pg_ctl stop -m immediate`.
        var options = "-c unix_socket_directories='\(directory)' -c port=\(port) -c max_connections=\(self.options.maxConnections) -c fsync=off -c shared_buffers=64MB"
        if let certificates {
            options += " -c listen_addresses=127.0.0.1 -c ssl=on -c ssl_cert_file='\(certificates.serverCertificate)' -c ssl_key_file='\(certificates.serverKey)'"
        } else {
            options += " -c listen_addresses=''"
        }
        try await run("pg_ctl", ["-D", dataDirectory, "-l", directory + "/server.log", "-o", options, "-w", "-t", "60", "start"])
    }

    /// Stops the server.
    /// - Parameter immediately: `-m immediate` (as a crash: clients see their connections drop) rather
    ///   than `-m fast`; true.
    /// - Throws: ``Unavailable`` with `pg_ctl`'s output.
    package func stop(immediately: Bool = true) async throws(Unavailable) {
        try await run("pg_ctl", ["-D", dataDirectory, "-m", immediately ? "immediate" : "fast", "-w", "stop"])
    }

    /// Stops the server if it runs and removes its directory, waiting for both (for `atexit`, too).
    package func remove() {
        _ = Self.runBlocking(runAs + [binaries + "/pg_ctl", "-D", dataDirectory, "-m", "immediate", "-w", "stop"])
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Runs one of the server's tools off Swift's cooperative pool.
    private func run(_ tool: String, _ arguments: [String]) async throws(Unavailable) {
        let command = runAs + [binaries + "/" + tool] + arguments
        let directory = self.directory
        let (status, output) = await Self.run(command)
        guard status == 0 else {
            let log = (try? String(contentsOfFile: directory + "/server.log", encoding: .utf8)).map { "; server log: " + $0.suffix(1500) } ?? ""
            throw Unavailable(reason: "\(tool) failed (exit \(status)): \(output.suffix(1500))\(log)")
        }
    }

    /// Runs a command to its end on a thread of its own and waits without blocking the caller's thread.
    /// - Parameters:
    ///   - command: The program's path and its arguments.
    ///   - environment: Variables to set beside this process's own (a secret goes here, never into `command`, which
    ///     every user of the machine can read).
    /// - Returns: Its exit status and its output, as ``runBlocking(_:environment:)``.
    package static func run(_ command: [String], environment: [String: String] = [:]) async -> (Int32, String) {
        await ChildProcess.onOwnThread { runBlocking(command, environment: environment) }
    }

    /// Runs a command to its end, returning its exit status and its output (standard output and error).
    ///
    /// A ``ChildProcess`` keeps no descriptor of this process but its standard streams: `pg_ctl start` leaves
    /// a daemon behind, which would otherwise hold the test runner's pipes open.
    private static func runBlocking(_ command: [String], environment: [String: String] = [:]) -> (Int32, String) {
        let output = "/tmp/onetap-pg-output-\(UUID().uuidString)"
        defer { unlink(output) }
        let ended: ChildProcess.Termination
        do {
            let whole = environment.isEmpty ? nil : ProcessInfo.processInfo.environment.merging(environment) { $1 }
            ended = try ChildProcess(command[0], Array(command.dropFirst()), environment: whole, input: .null, output: .file(output), errors: .output).wait()
        } catch {
            return (-1, error.description)
        }
        let text: String
        do {
            text = try String(contentsOfFile: output, encoding: .utf8)
        } catch {
            text = "(its output could not be read: \(error))"
        }
        return (ended.shellStatus, text)
    }

    /// A TCP port on 127.0.0.1 that nothing listens on now, drawn **below** the kernel's range of ephemeral
    /// ports (`/proc/sys/net/ipv4/ip_local_port_range`, 32768–60999 by default). A port from that range (the
    /// kernel's own pick) can be taken as the local port of any outgoing connection, of any test, in the
    /// moment between this check and `pg_ctl` binding it; below the range only a listener can take it.
    /// - Returns: The port.
    /// - Throws: ``Unavailable`` when no port of 100 drawn is free.
    package static func freePort() throws(Unavailable) -> Int {
        let lowest = 10_000
        let ephemeralStart = ephemeralPorts()?.lowerBound ?? 32_768
        let candidates = ephemeralStart > lowest + 1_000 ? lowest..<ephemeralStart : 1_024..<max(1_025, ephemeralStart)
        var failure = "no port was free"
        for _ in 0..<100 {
            let port = Int.random(in: candidates)
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard descriptor >= 0 else { throw Unavailable(reason: "cannot open a socket: \(String(cString: strerror(errno)))") }
            defer { close(descriptor) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = UInt16(port).bigEndian
            let bound = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
            }
            if bound { return port }
            failure = "port \(port): \(String(cString: strerror(errno)))"
        }
        throw Unavailable(reason: "cannot find a free TCP port below the ephemeral range in 100 tries (the last: \(failure))")
    }

    /// The kernel's range of ephemeral ports, or nil when it cannot be read.
    private static func ephemeralPorts() -> ClosedRange<Int>? {
        guard let text = try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8) else { return nil }
        let bounds = text.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        guard bounds.count == 2, bounds[0] <= bounds[1] else { return nil }
        return bounds[0]...bounds[1]
    }

    /// Starts a shell that waits for this process to end, then stops the server and removes its
    /// directory.
    private func startWatchdog() {
        let stop = (runAs + [binaries + "/pg_ctl", "-D", dataDirectory, "-m", "immediate", "-w", "stop"]).joined(separator: " ")
        // It ignores the signals a test runner or `timeout` sends its whole process group.
        let script = "trap '' HUP INT TERM; while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done; \(stop) >/dev/null 2>&1; rm -rf '\(directory)'"
        do {
            // Never waited for: it outlives this process by design.
            _ = try ChildProcess("/bin/sh", ["-c", script], input: .null, output: .null, errors: .output)
        } catch {
            // Without a watchdog a crashed test process leaves the server running; its directory under /tmp
            // names it, and `pg_ctl stop` ends it. Tests still pass.
        }
    }
}

/// The server the tests of one process share: `ONETAP_POSTGRES_URL` when set, else a private
/// ``PostgresTestServer`` started on first use and stopped when the process exits.
package actor PostgresSharedServer {
    /// The one per process.
    package static let shared = PostgresSharedServer()

    private enum State {
        case idle
        case starting([CheckedContinuation<Result<String, PostgresTestServer.Unavailable>, Never>])
        case ready(Result<String, PostgresTestServer.Unavailable>)
    }

    private var state = State.idle

    /// Whether a missing server must fail rather than skip: `ONETAP_REQUIRE_POSTGRES=1` (CI).
    package static var isRequired: Bool { ProcessInfo.processInfo.environment["ONETAP_REQUIRE_POSTGRES"] == "1" }

    /// The URL of the shared server, starting it on first use (concurrent callers wait for the same start).
    /// - Returns: A libpq URL.
    /// - Throws: ``PostgresTestServer/Unavailable`` when there is none to be had.
    package func url() async throws(PostgresTestServer.Unavailable) -> String {
        switch state {
        case .ready(let result):
            return try result.get()
        case .starting(let waiting):
            let result = await withCheckedContinuation { continuation in
                state = .starting(waiting + [continuation])
            }
            return try result.get()
        case .idle:
            state = .starting([])
            let result: Result<String, PostgresTestServer.Unavailable>
            if let external = ProcessInfo.processInfo.environment["ONETAP_POSTGRES_URL"], !external.isEmpty {
                result = .success(external)
            } else {
                do {
                    let server = try await PostgresTestServer.start()
                    Self.stopAtExit(server)
                    result = .success(server.url())
                } catch {
                    result = .failure(error)
                }
            }
            if case .starting(let waiting) = state {
                for continuation in waiting { continuation.resume(returning: result) }
            }
            state = .ready(result)
            return try result.get()
        }
    }

    private static let atExit = AtExit()

    private static func stopAtExit(_ server: PostgresTestServer) {
        atExit.servers.withLock { $0.append(server) }
        atexit {
            for server in PostgresSharedServer.atExit.servers.withLock({ $0 }) { server.remove() }
        }
    }

    /// The servers to stop when the process exits.
    private final class AtExit: Sendable {
        let servers = LockedValue<[PostgresTestServer]>([])
    }
}
