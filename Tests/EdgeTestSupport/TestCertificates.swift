import Foundation

/// A throw-away test CA and a server certificate it signed for 127.0.0.1 and localhost, made
/// with the `openssl` CLI in a temporary directory (removed on deinit). `pin` is the server
/// key's SPKI pin in CURLOPT_PINNEDPUBLICKEY form, computed the way an operator would.
public final class TestCertificates: Sendable {
    public let directory: URL
    public var caCertificate: String { directory.appendingPathComponent("ca.pem").path }
    public var serverCertificate: String { directory.appendingPathComponent("server.pem").path }
    public var serverKey: String { directory.appendingPathComponent("server.key").path }
    public let pin: String
    /// A well-formed pin of another key (the CA's), which the server never presents.
    public let otherPin: String

    public init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("edge-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try """
        basicConstraints=critical,CA:FALSE
        keyUsage=critical,digitalSignature,keyEncipherment
        extendedKeyUsage=serverAuth
        subjectAltName=IP:127.0.0.1,DNS:localhost
        """.write(to: directory.appendingPathComponent("server.ext"), atomically: true, encoding: .utf8)
        let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try Command.run(["openssl", "req", "-x509"] + ec + [
            "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=edge test CA",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
        ], in: directory)
        try Command.run(["openssl", "req"] + ec + ["-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1"],
                        in: directory)
        try Command.run(["openssl", "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
                         "-CAcreateserial", "-out", "server.pem", "-days", "2", "-extfile", "server.ext"], in: directory)
        pin = "sha256//" + (try Self.spkiHash(of: "server.pem", in: directory))
        otherPin = "sha256//" + (try Self.spkiHash(of: "ca.pem", in: directory))
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    private static func spkiHash(of certificate: String, in directory: URL) throws -> String {
        try Command.shell("openssl x509 -in \(certificate) -pubkey -noout | openssl pkey -pubin -outform der"
                          + " | openssl dgst -sha256 -binary | base64", in: directory)
    }
}
