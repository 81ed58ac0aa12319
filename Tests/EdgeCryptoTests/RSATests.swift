import EdgeCrypto
import EdgeTestSupport
import XCTest

/// RS256 against the openssl CLI: keys it generated load, our signatures verify with
/// `openssl dgst -sha256 -verify`, its signatures verify with `RSAPublicKey`.
final class RSATests: XCTestCase {
    var tool: OpenSSLTool?

    override func tearDown() {
        tool?.remove()
    }

    private func makeTool() throws -> OpenSSLTool {
        let tool = try OpenSSLTool()
        self.tool = tool
        return tool
    }

    func testSignatureVerifiesWithOpenSSLCLI() throws {
        let tool = try makeTool()
        let pair = try tool.generateKeyPair()
        let key = try RSAPrivateKey(pem: SecureBytes(pair.privatePEM))
        XCTAssertEqual(key.bits, 2048)
        let message = Array("eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJ4In0".utf8)
        let signature = try key.sign(sha256: message)
        XCTAssertEqual(signature.count, 256)
        try tool.write("message", message)
        try tool.write("signature", signature)
        XCTAssertEqual(try tool.run(["dgst", "-sha256", "-verify", tool.path("key.pub.pem"), "-signature", tool.path("signature"), tool.path("message")]), 0)
        // PKCS#1 v1.5 is deterministic: the same message signs to the same bytes.
        XCTAssertEqual(try key.sign(sha256: message), signature)
    }

    func testCLISignatureVerifiesAndTamperingFails() throws {
        let tool = try makeTool()
        let pair = try tool.generateKeyPair()
        let message = Array("header.claims".utf8)
        try tool.write("message", message)
        XCTAssertEqual(try tool.run(["dgst", "-sha256", "-sign", tool.path("key.pem"), "-out", tool.path("signature"), tool.path("message")]), 0)
        let signature = try tool.read("signature")
        let publicKey = try RSAPublicKey(pem: pair.publicPEM)
        XCTAssertTrue(publicKey.verify(signature: signature, sha256: message))
        XCTAssertFalse(publicKey.verify(signature: signature, sha256: Array("header.claimz".utf8)))
        var flipped = signature
        flipped[10] ^= 1
        XCTAssertFalse(publicKey.verify(signature: flipped, sha256: message))
        XCTAssertFalse(publicKey.verify(signature: [], sha256: message))
    }

    func testOtherKeyDoesNotVerify() throws {
        let tool = try makeTool()
        let first = try tool.generateKeyPair(name: "a")
        let second = try tool.generateKeyPair(name: "b")
        let signature = try RSAPrivateKey(pem: first.privatePEM).sign(sha256: [1, 2, 3])
        XCTAssertTrue(try RSAPublicKey(pem: first.publicPEM).verify(signature: signature, sha256: [1, 2, 3]))
        XCTAssertFalse(try RSAPublicKey(pem: second.publicPEM).verify(signature: signature, sha256: [1, 2, 3]))
    }

    func testRejectsGarbageShortAndNonRSAKeys() throws {
        let tool = try makeTool()
        assertThrows(.invalidKey) { () throws(CryptoError) in try RSAPrivateKey(pem: Array("not a pem".utf8)) }
        assertThrows(.invalidKey) { () throws(CryptoError) in try RSAPrivateKey(pem: []) }
        assertThrows(.invalidKey) { () throws(CryptoError) in try RSAPublicKey(pem: Array("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n".utf8)) }
        let short = try tool.generateKeyPair(bits: 1024, name: "short")
        assertThrows(.invalidKey) { () throws(CryptoError) in try RSAPrivateKey(pem: short.privatePEM) }
        assertThrows(.invalidKey) { () throws(CryptoError) in try RSAPublicKey(pem: short.publicPEM) }
        XCTAssertEqual(try tool.run(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", tool.path("ec.pem")]), 0)
        let ec = try tool.read("ec.pem")
        assertThrows(.invalidKey) { () throws(CryptoError) in try RSAPrivateKey(pem: ec) }
    }

    func testDescriptionShowsOnlySize() throws {
        let tool = try makeTool()
        let pair = try tool.generateKeyPair()
        let key = try RSAPrivateKey(pem: pair.privatePEM)
        XCTAssertEqual("\(key)", "RSAPrivateKey(2048 bits)")
        let error: CryptoError
        do {
            _ = try RSAPrivateKey(pem: Array(pair.privatePEM.dropLast(200)))
            return XCTFail("a truncated PEM loaded")
        } catch let caught {
            error = caught
        }
        XCTAssertEqual(error.code, .invalidKey)
        XCTAssertFalse("\(error.message) \(error.context)".contains("MII"))
    }
}
