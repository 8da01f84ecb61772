import Foundation
import OneTap
import OneTapGateways
import OneTapPostgresTestSupport

/// RSA private-key operations through `RSAPrivateKey` (issue 22: "RSA decryption and signing per call beside
/// `openssl pkeyutl` on the same key"), on the tests' 2048-bit key (`keys/app-private-pkcs1.pem`):
///
/// - `rsa2048 decrypt (PKCS#1 v1.5)`: the tests' ciphertext of the number;
/// - `rsa2048 sign (SHA256withRSA)`: a China Mobile RSA-mode message (appid + token).
///
/// The reference column is OpenSSL on the same key, in process (``RSASameKeyReference/inProcess(_:plaintext:seconds:)``:
/// python3-cryptography, its version and OpenSSL's named in the column; its signature checked equal to
/// ours). Beside it, as extra fields: `pkeyutlFirstCallNs` (``RSASameKeyReference/pkeyutl(_:runs:)``: `openssl pkeyutl`
/// on the same key, each process's CPU time less a `-verify` run's: a process's first, cold operation), and `opensslSpeedSignsPerSecond`
/// (`openssl speed rsa2048`, openssl's own key of the same size). Without python3-cryptography the
/// reference is `openssl pkeyutl`'s; without either, the rows print why and carry no reference.
enum RSABenchmarks {
    static let decryptName = "rsa2048 decrypt (PKCS#1 v1.5)"
    static let signName = "rsa2048 sign (SHA256withRSA)"

    static func run(_ options: BenchmarkOptions, _ report: inout Report, repetitions: Int) async {
        guard options.wants(decryptName) || options.wants(signName) else { return }
        let pem: String
        let key: RSAPrivateKey
        let ciphertext: [UInt8]
        do {
            guard let keyPath = BenchmarkFake.file("keys/app-private-pkcs1.pem"), let hexPath = BenchmarkFake.file("keys/ciphertext-pkcs1v15.hex") else {
                print("rsa2048: skipped: no test keys at \(BenchmarkFake.fakes.path)/keys (run from the checkout)")
                return
            }
            pem = try String(contentsOfFile: keyPath, encoding: .utf8)
            key = try RSAPrivateKey(pem: pem)
            guard let bytes = Hex.decode(try String(contentsOfFile: hexPath, encoding: .utf8).filter(\.isHexDigit)) else {
                print("rsa2048: skipped: ciphertext-pkcs1v15.hex is not hexadecimal")
                return
            }
            ciphertext = bytes
            guard String(decoding: try key.decryptPKCS1v15(ciphertext), as: UTF8.self) == GatewayBenchmarks.number else {
                print("rsa2048: skipped: the test ciphertext does not decrypt to \(GatewayBenchmarks.number)")
                return
            }
        } catch {
            print("rsa2048: skipped: \(error)")
            return
        }
        let message = Array("\(GatewayBenchmarks.appID)STsid0000001517196594066OHmZvPMBwn2MkFxwvWkV12JixwuZuyDU".utf8)

        // The references, each on the same files: the key's PEM, the ciphertext, the message, its digest, our signature.
        var inProcess: RSASameKeyReference.InProcess? = nil
        var pkeyutl: (decrypt: Double, sign: Double)? = nil
        let files: RSASameKeyReference.Files
        do {
            files = try RSASameKeyReference.Files(
                pem: pem, ciphertext: ciphertext, message: message, digest: try Digest.sha256.hash(message), signature: try key.sign(message, digest: .sha256))
        } catch {
            print("rsa2048: no same-key reference: cannot write its files: \(error)")
            await measureRows(key, ciphertext, message, nil, nil, options, &report, repetitions: repetitions)
            return
        }
        defer { files.remove() }
        switch await RSASameKeyReference.inProcess(files, plaintext: GatewayBenchmarks.number, seconds: options.quick ? 0.3 : 1.5) {
        case .success(let figures): inProcess = figures
        case .failure(let failure): print("rsa2048: no in-process same-key reference: \(failure)")
        }
        switch await RSASameKeyReference.pkeyutl(files, runs: options.quick ? 10 : 40) {
        case .success(let figures): pkeyutl = figures
        case .failure(let failure): print("rsa2048: no openssl pkeyutl figure: \(failure)")
        }
        await measureRows(key, ciphertext, message, inProcess, pkeyutl, options, &report, repetitions: repetitions)
    }

    private static func measureRows(
        _ key: RSAPrivateKey, _ ciphertext: [UInt8], _ message: [UInt8], _ inProcess: RSASameKeyReference.InProcess?,
        _ pkeyutl: (decrypt: Double, sign: Double)?, _ options: BenchmarkOptions, _ report: inout Report, repetitions: Int
    ) async {
        let speed = await OpenSSLSpeed.rsa2048()
        if let reason = speed.failure { print("rsa2048: no openssl speed figure: \(reason)") }
        let batch = options.quick ? 8 : 32
        var failures = 0
        let operations: [(String, () throws -> Void, (median: Double, p90: Double)?, Double?)] = [
            (decryptName, { blackHole(try key.decryptPKCS1v15(ciphertext)) }, inProcess?.decrypt, pkeyutl?.decrypt),
            (signName, { blackHole(try key.sign(message, digest: .sha256)) }, inProcess?.sign, pkeyutl?.sign),
        ]
        for (name, operation, sameKey, process) in operations where options.wants(name) {
            let ours = measure(batch: batch, repetitions: repetitions) {
                for _ in 0..<batch {
                    do { try operation() } catch { failures += 1 }
                }
            }
            // The reference: in process when there is one, else pkeyutl's.
            let reference: (String, Double)? = sameKey.map { ("\(inProcess?.library ?? "OpenSSL"), same key, in-process loop", $0.median) }
                ?? process.map { ("openssl pkeyutl, same key, first call: CPU per process less -verify's", $0) }
            var row = Measurement(
                name: name, ops: batch, medianNanoseconds: ours.median, p90Nanoseconds: ours.p90, allocationsPerOp: ours.allocations,
                reference: reference?.0, referenceMedian: reference?.1, referenceAllocations: nil)
            row.extra = [("opsPerSecond", format(1e9 / ours.median))]
            if let sameKey { row.extra += [("sameKeyOpsPerSecond", format(1e9 / sameKey.median)), ("sameKeyP90Ns", format(sameKey.p90))] }
            if let process { row.extra += [("pkeyutlFirstCallNs", format(process))] }
            if let rate = speed.signsPerSecond { row.extra.append(("opensslSpeedSignsPerSecond", format(rate))) }
            row.extra.append(("failed", String(failures)))
            report.add(row)
        }
    }
}

/// `openssl speed` for RSA-2048, once: its private-key operations a second (wall time, `-elapsed`), with
/// openssl's own key of that size.
enum OpenSSLSpeed {
    /// Runs it off the cooperative pool (about two seconds: one for signs, one for verifies) and reads its
    /// `+F2:` line (`-mr`).
    static func rsa2048() async -> (signsPerSecond: Double?, failure: String?) {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map { "\($0)/openssl" }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let path else { return (nil, "no openssl on PATH") }
        let (status, text) = await PostgresTestServer.run([path, "speed", "-elapsed", "-seconds", "1", "-mr", "rsa2048"])
        // +F2:<index>:<bits>:<signs a second>:<verifies a second>
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("+F2:") }) else {
            return (nil, "openssl speed printed no +F2 line (exit \(status))")
        }
        let fields = line.split(separator: ":")
        guard fields.count >= 4, let rate = Double(fields[3]), rate > 0 else { return (nil, "openssl speed's +F2 line is not understood: \(line)") }
        return (rate, nil)
    }
}
