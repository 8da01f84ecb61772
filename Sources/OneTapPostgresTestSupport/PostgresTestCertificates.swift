import Foundation

/// A certificate authority and a server certificate for a TLS test server, made with the `openssl`
/// command-line tool: the CA (`ca.crt`, P-256, CA:TRUE), the server's key and certificate (`server.key`,
/// `server.crt`, for `DNS:localhost` and `IP:127.0.0.1`, signed by the CA), and a second CA that signed
/// nothing here (`other-ca.crt`), for "a CA the server's certificate does not chain to". Valid for two days.
package struct PostgresTestCertificates: Sendable {
    /// The directory holding the files.
    package let directory: String

    /// The CA that signed the server's certificate (for `sslrootcert`).
    package var authority: String { directory + "/ca.crt" }
    /// A CA that signed nothing the server holds.
    package var otherAuthority: String { directory + "/other-ca.crt" }
    /// The server's certificate.
    package var serverCertificate: String { directory + "/server.crt" }
    /// The server's private key (mode 0600, owned by the server's user).
    package var serverKey: String { directory + "/server.key" }

    /// Makes the files.
    /// - Parameters:
    ///   - directory: Where (created; it must not exist).
    ///   - owner: The user and group the server runs as, when not this process's (the key must be theirs).
    /// - Returns: The certificates.
    /// - Throws: ``PostgresTestServer/Unavailable`` with `openssl`'s output when a step fails.
    package static func make(in directory: String, owner: (uid: uid_t, gid: gid_t)?) async throws(PostgresTestServer.Unavailable) -> PostgresTestCertificates {
        guard let openssl = ["/usr/bin/openssl", "/usr/local/bin/openssl", "/bin/openssl"].first(where: FileManager.default.isExecutableFile(atPath:)) else {
            throw PostgresTestServer.Unavailable(reason: "no openssl command (apt-get install -y openssl) to make the TLS test server's certificates")
        }
        guard mkdir(directory, 0o700) == 0 else {
            throw PostgresTestServer.Unavailable(reason: "cannot create \(directory): \(String(cString: strerror(errno)))")
        }
        let quoted = "'\(directory)'"
        let curve = "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes"
        let authority = "-addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign"
        let script = """
            set -e; cd \(quoted); umask 077
            printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\\nbasicConstraints=CA:FALSE\\nextendedKeyUsage=serverAuth\\n' > server.ext
            \(openssl) req -x509 \(curve) -keyout ca.key -out ca.crt -days 2 -subj '/CN=OneTap test CA' \(authority)
            \(openssl) req -x509 \(curve) -keyout other-ca.key -out other-ca.crt -days 2 -subj '/CN=OneTap other test CA' \(authority)
            \(openssl) req \(curve) -keyout server.key -out server.csr -subj '/CN=localhost'
            \(openssl) x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out server.crt -days 2 -extfile server.ext
            """
        let (status, output) = await PostgresTestServer.run(["/bin/sh", "-c", script])
        guard status == 0 else {
            throw PostgresTestServer.Unavailable(reason: "openssl could not make the test certificates (exit \(status)): \(output.suffix(1500))")
        }
        let certificates = PostgresTestCertificates(directory: directory)
        if let owner {
            chown(directory, owner.uid, owner.gid)
            for file in ["ca.crt", "other-ca.crt", "server.crt", "server.key"] { chown(directory + "/" + file, owner.uid, owner.gid) }
        }
        for file in ["ca.crt", "other-ca.crt", "server.crt"] { chmod(directory + "/" + file, 0o644) }
        chmod(directory, 0o755)
        return certificates
    }
}
