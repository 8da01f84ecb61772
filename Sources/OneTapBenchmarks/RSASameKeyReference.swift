#if canImport(Glibc)
import Glibc
#endif
import Foundation
import OneTapPostgresTestSupport
import OneTapSupport

/// OpenSSL's rate on the RSA key the `rsa2048` rows use (issue 22: "beside `openssl pkeyutl` on the same
/// key"), measured two ways from the same files (the key's PEM, the ciphertext, the message), written to a
/// temporary folder:
///
/// - **in process** (the rows' reference): a python3 whose `cryptography` package runs on OpenSSL (Debian's
///   `/usr/bin/python3` first: its `python3-cryptography` links the system `libcrypto` the gateways link;
///   then `python3` on the PATH, whose pip wheel may carry an OpenSSL of its own: the version is named) timing
///   `decrypt(…, PKCS1v15())` and `sign(…, PKCS1v15(), SHA256())` in batches for a fixed time, median and
///   p90 per call. The interpreter adds about a microsecond to a call of about a millisecond. Its signature
///   must equal ours byte for byte (PKCS#1 v1.5 signatures are deterministic), and its decryption the
///   number, or the reference is refused.
/// - **`openssl pkeyutl`** (a second figure, `pkeyutlFirstCallNs`): `pkeyutl -sign` / `-decrypt` with the
///   private key, run `runs` times one process after another, minus as many `pkeyutl -verify` runs with the
///   same private key file (so the process start, the key's parse and the file reads cancel), medians of
///   each process's CPU time (user and system, `getrusage(RUSAGE_CHILDREN)`), which a busy machine disturbs
///   less than wall time. What is left is a private-key operation as the first of its process (its
///   Montgomery contexts for p and q and its blinding set up, which a loop pays once), less a public one:
///   on this key about 1.5–2 ms against the loop's 0.4–1 ms. The rougher figure, and the cold one.
enum RSASameKeyReference {
    /// The in-process figures: per call, median and p90 in nanoseconds.
    struct InProcess {
        let decrypt: (median: Double, p90: Double)
        let sign: (median: Double, p90: Double)
        /// `python3-cryptography 38.0.4 on OpenSSL 3.0.19 27 Jan 2026`.
        let library: String
    }

    /// The files, in a temporary folder the caller removes.
    struct Files {
        let directory: String
        var key: String { directory + "/key.pem" }
        var ciphertext: String { directory + "/ciphertext.bin" }
        var message: String { directory + "/message.bin" }
        var digest: String { directory + "/digest.bin" }
        var signature: String { directory + "/signature.bin" }

        /// Writes the key, the ciphertext, the message, its SHA-256 and our signature of it.
        init(pem: String, ciphertext: [UInt8], message: [UInt8], digest: [UInt8], signature: [UInt8]) throws {
            let directory = try TemporaryDirectory.make("onetap-rsa-")
            self.directory = directory
            do {
                try pem.write(toFile: directory + "/key.pem", atomically: true, encoding: .utf8)
                for (name, bytes) in [("ciphertext", ciphertext), ("message", message), ("digest", digest), ("signature", signature)] {
                    try Data(bytes).write(to: URL(fileURLWithPath: "\(directory)/\(name).bin"))
                }
            } catch {
                TemporaryDirectory.remove(directory)
                throw error
            }
        }

        func remove() { TemporaryDirectory.remove(directory) }
    }

    /// The in-process figures, or why there are none.
    /// - Parameters:
    ///   - files: The key and inputs.
    ///   - plaintext: What the ciphertext decrypts to.
    ///   - seconds: How long each operation is timed.
    static func inProcess(_ files: Files, plaintext: String, seconds: Double) async -> Result<InProcess, PostgresBenchmarks.BenchmarkFailure> {
        let candidates = ["/usr/bin/python3"] + path("python3").filter { $0 != "/usr/bin/python3" }
        var reasons: [String] = []
        for python in candidates where FileManager.default.isExecutableFile(atPath: python) {
            let (status, output) = await PostgresTestServer.run([python, "-c", script, files.directory, String(seconds)])
            guard status == 0, let line = output.split(separator: "\n").last(where: { $0.hasPrefix("{") }),
                  let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            else {
                reasons.append("\(python): exit \(status): \(output.suffix(300).trimmingCharacters(in: .whitespacesAndNewlines))")
                continue
            }
            guard let decrypted = object["decrypted"] as? String, decrypted == plaintext else {
                return .failure(.init("\(python): its decryption of the ciphertext is not the number"))
            }
            guard object["sameSignature"] as? Bool == true else {
                return .failure(.init("\(python): its SHA256withRSA signature differs from ours (not the same key or operation)"))
            }
            guard let decrypt = object["decrypt"] as? [Double], let sign = object["sign"] as? [Double], decrypt.count == 2, sign.count == 2,
                  let version = object["cryptography"] as? String, let openssl = object["openssl"] as? String
            else { return .failure(.init("\(python): its answer is not understood: \(line)")) }
            return .success(InProcess(decrypt: (decrypt[0], decrypt[1]), sign: (sign[0], sign[1]), library: "python3-cryptography \(version) on \(openssl)"))
        }
        return .failure(.init(reasons.isEmpty ? "no python3" : reasons.joined(separator: "; ")))
    }

    /// `openssl pkeyutl`'s private-key operation on the key, per call in nanoseconds, or why there is none.
    /// - Parameters:
    ///   - files: The key and inputs.
    ///   - runs: Processes per operation.
    static func pkeyutl(_ files: Files, runs: Int) async -> Result<(decrypt: Double, sign: Double), PostgresBenchmarks.BenchmarkFailure> {
        guard let openssl = path("openssl").first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else { return .failure(.init("no openssl on PATH")) }
        let common = [openssl, "pkeyutl", "-inkey", files.key]
        let sha256 = ["-pkeyopt", "digest:sha256"]
        let commands: [(String, [String])] = [
            ("decrypt", common + ["-decrypt", "-in", files.ciphertext, "-out", "/dev/null"]),
            ("sign", common + ["-sign", "-in", files.digest, "-out", "/dev/null"] + sha256),
            ("verify", common + ["-verify", "-in", files.digest, "-sigfile", files.signature] + sha256),
        ]
        var medians: [String: Double] = [:]
        for (name, command) in commands {
            var samples: [Double] = []
            // One untimed run first (the binary and the files into the page cache), then the timed ones.
            for run in 0...runs {
                let before = childrenCPU()
                let (status, output) = await PostgresTestServer.run(command)
                let elapsed = childrenCPU() - before
                guard status == 0 else { return .failure(.init("openssl pkeyutl -\(name): exit \(status): \(output.suffix(300))")) }
                if run > 0 { samples.append(elapsed) }
            }
            medians[name] = samples.sorted().percentile(0.5) ?? 0
        }
        let verify = medians["verify"] ?? 0
        return .success(((medians["decrypt"] ?? 0) - verify, (medians["sign"] ?? 0) - verify))
    }

    /// The CPU time (user and system) of this process's children that were waited for, in nanoseconds.
    private static func childrenCPU() -> Double { cpuNanoseconds(children: true) }

    /// The program's candidates on the PATH.
    private static func path(_ program: String) -> [String] {
        (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map { "\($0)/\(program)" }
    }

    /// The in-process timing: argv[1] the folder, argv[2] the seconds per operation; prints one JSON line.
    private static let script = #"""
        import json, os, sys, time
        import cryptography
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import padding
        from cryptography.hazmat.backends.openssl.backend import backend
        folder, seconds = sys.argv[1], float(sys.argv[2])
        read = lambda name: open(os.path.join(folder, name), "rb").read()
        key = serialization.load_pem_private_key(read("key.pem"), password=None)
        ciphertext, message, ours = read("ciphertext.bin"), read("message.bin"), read("signature.bin")
        decrypt = lambda: key.decrypt(ciphertext, padding.PKCS1v15())
        sign = lambda: key.sign(message, padding.PKCS1v15(), hashes.SHA256())
        def timed(operation, batch=8):
            for _ in range(batch):
                operation()
            samples, end = [], time.perf_counter() + seconds
            while time.perf_counter() < end or len(samples) < 5:
                start = time.perf_counter_ns()
                for _ in range(batch):
                    operation()
                samples.append((time.perf_counter_ns() - start) / batch)
            samples.sort()
            return [samples[len(samples) // 2], samples[min(len(samples) - 1, len(samples) * 9 // 10)]]
        print(json.dumps({
            "decrypted": decrypt().decode(), "sameSignature": sign() == ours, "decrypt": timed(decrypt), "sign": timed(sign),
            "cryptography": cryptography.__version__, "openssl": backend.openssl_version_text(),
        }))
        """#
}
