import Foundation
import OneTap
import OneTapGateways
import OneTapPostgresTestSupport
import OneTapSupport

/// OneTap's pure-Swift SHA-256 and HMAC-SHA-256 (`OneTapSupport`, on every SMS verify and access-token check)
/// beside OpenSSL's libcrypto in the same process on the same bytes (EVP_Digest and HMAC through
/// `OneTapGateways`), for a 64-byte message (what the server hashes) and for 16 MiB (the rate).
///
/// OpenSSL picks its fastest code for the CPU: on a CPU with the SHA extensions (`sha_ni` in /proc/cpuinfo)
/// that is the hardware's own SHA-256 instructions, which pure Swift cannot emit. So the rate row has a
/// second reference: `openssl speed -evp sha256` with the SHA extensions masked (`OPENSSL_ia32cap`), which is
/// OpenSSL's best code without them (AVX2/SSSE3 assembly), the fair bar for software SHA-256.
enum DigestBenchmarks {
    static func run(_ options: BenchmarkOptions, _ report: inout Report, repetitions: Int) async {
        let batch = 1024
        if options.wants("sha256") {
            let token = Array(repeating: UInt8(ascii: "t"), count: 64)
            let ours = measure(batch: batch, repetitions: repetitions) {
                for _ in 0..<batch { blackHole(SHA256.hash(token)) }
            }
            var failures = 0
            let openssl = measure(batch: batch, repetitions: repetitions) {
                for _ in 0..<batch {
                    do { blackHole(try Digest.sha256.hash(token)) } catch { failures += 1 }
                }
            }
            var row = Suites.row("sha256 (64 bytes)", batch, ours, "OpenSSL EVP_Digest, same bytes", openssl, target: "≤ OpenSSL's time",
                                 met: ours.median <= openssl.median)
            row.extra = [("opensslFailures", String(failures))]
            report.add(row)
            report.add(await rate("sha256 (16 MiB)", options, repetitions: repetitions, hmacKey: nil))
        }
        if options.wants("hmac") {
            let message = Array(repeating: UInt8(ascii: "m"), count: 64)
            let keyBytes = Array(repeating: UInt8(0x0b), count: 32)
            // Like with like: OpenSSL's one-shot `HMAC()` derives the key's pads at every call, so ours does too (a review:
            // ours with its key prepared did two compressions fewer); the prepared key, what OneTap's verifiers hold, is
            // the extra figure.
            let ours = measure(batch: batch, repetitions: repetitions) {
                for _ in 0..<batch { blackHole(HMACSHA256.authenticationCode(for: message, key: keyBytes)) }
            }
            var failures = 0
            let openssl = measure(batch: batch, repetitions: repetitions) {
                for _ in 0..<batch {
                    do { blackHole(try Digest.sha256.hmac(key: keyBytes, message: message)) } catch { failures += 1 }
                }
            }
            var row = Suites.row("hmac-sha256 (64 bytes, a key each call)", batch, ours, "OpenSSL HMAC(), same key and bytes", openssl,
                                 target: "≤ OpenSSL's time", met: ours.median <= openssl.median)
            let prepared = HMACSHA256.Key(keyBytes)
            let kept = measure(batch: batch, repetitions: repetitions) {
                for _ in 0..<batch { blackHole(prepared.authenticationCode(for: message)) }
            }
            row.extra = [("keyPreparedNs", format(kept.median)), ("opensslFailures", String(failures))]
            report.add(row)
            report.add(await rate("hmac-sha256 (16 MiB)", options, repetitions: repetitions, hmacKey: Array("onetap-benchmark-key".utf8)))
        }
    }

    /// Megabytes a second over the same 16 MiB (4 MiB with `--quick`): ours beside OpenSSL in process, and
    /// OpenSSL without the SHA extensions in `openssl speed`.
    private static func rate(_ name: String, _ options: BenchmarkOptions, repetitions: Int, hmacKey: [UInt8]?) async -> Measurement {
        let size = options.quick ? 4 << 20 : 16 << 20
        let data = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let runs = max(3, repetitions / 5)
        var failures = 0
        let ours: BatchTiming
        let openssl: BatchTiming
        if let hmacKey {
            let key = HMACSHA256.Key(hmacKey)
            ours = measure(batch: 1, repetitions: runs) { blackHole(key.authenticationCode(for: data)) }
            openssl = measure(batch: 1, repetitions: runs) {
                do { blackHole(try Digest.sha256.hmac(key: hmacKey, message: data)) } catch { failures += 1 }
            }
        } else {
            ours = measure(batch: 1, repetitions: runs) { blackHole(SHA256.hash(data)) }
            openssl = measure(batch: 1, repetitions: runs) {
                do { blackHole(try Digest.sha256.hash(data)) } catch { failures += 1 }
            }
        }
        let oursRate = Double(size) / ours.median * 1e3   // MB/s: bytes per ns × 1000
        let opensslRate = Double(size) / openssl.median * 1e3
        var row = Suites.row(name, 1, ours, "OpenSSL in process, same bytes", openssl, target: "≥ 0.5× OpenSSL's rate", met: oursRate >= 0.5 * opensslRate)
        row.extra = [
            ("oursMBps", format(oursRate)), ("opensslMBps", format(opensslRate)), ("rateRatio", format(oursRate / opensslRate)),
            ("opensslFailures", String(failures)),
        ]
        if hmacKey == nil {
            switch await softwareRate(seconds: options.quick ? 1 : 3) {
            case .success(let software):
                row.extra += [("opensslWithoutSHAExtensionsMBps", format(software)), ("softwareRateRatio", format(oursRate / software))]
            case .failure(let reason):
                print("\(name): no `openssl speed` without the SHA extensions: \(reason.message)")
            }
        }
        return row
    }

    struct Unavailable: Error { let message: String }

    /// `openssl speed -evp sha256` on 16 KiB blocks with the SHA extensions masked (`OPENSSL_ia32cap=:~0x20000000`,
    /// bit 29 of CPUID leaf 7's EBX), in MB/s, run off the cooperative pool.
    static func softwareRate(seconds: Int) async -> Result<Double, Unavailable> {
        guard let openssl = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
            .map({ "\($0)/openssl" }).first(where: { FileManager.default.isExecutableFile(atPath: $0) })
        else { return .failure(Unavailable(message: "no openssl on PATH")) }
        let (status, text) = await PostgresTestServer.run(
            ["/usr/bin/env", "OPENSSL_ia32cap=:~0x20000000", openssl, "speed", "-elapsed", "-seconds", String(seconds), "-bytes", "16384", "-mr", "-evp", "sha256"])
        // -mr prints `+F:<index>:<name>:<bytes a second for each block size>`.
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("+F:") }),
              let last = line.split(separator: ":").last, let bytesPerSecond = Double(last), bytesPerSecond > 0
        else { return .failure(Unavailable(message: "openssl speed printed no +F line (exit \(status))")) }
        return .success(bytesPerSecond / 1e6)
    }
}
