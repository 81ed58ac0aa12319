// The fuzz targets reach parsers that are internal to their modules (the PNG, JPEG and PNM
// decoders, TZif and POSIX TZ, vault envelopes), so they import them @testable, which only a
// debug build allows. A release build (`swift build -c release` builds every target) compiles
// this file empty and edge-fuzz says so.
#if DEBUG
@testable import EdgeContract
@testable import EdgeCore
@testable import EdgeCrypto
@testable import EdgeFCM
@testable import EdgeHTTP
@testable import EdgeImaging
@testable import EdgePayloads
@testable import EdgePush
@testable import EdgeScanning
@testable import EdgeSync
@testable import EdgeVault
import Foundation

/// One libFuzzer target: a parser that takes untrusted bytes (a file, a camera frame, a QR
/// payload, a server's answer) and must end in a value or a typed error, never a crash, a hang
/// or an allocation beyond its limits. `run` is called once per input; state that is expensive
/// to build (a reader, a vault, a signing key) is built once in `prepare`.
enum FuzzTarget: String, CaseIterable, Sendable {
    case png, jpeg, pnm, scan, qrModules = "qr-modules", qrDirect = "qr-direct", eanLines = "ean-lines", payload, gs1, json, tzif, posixTZ = "posix-tz", envelope, fcm, sync

    /// Limits for the image targets: small enough that one input costs well under a
    /// millisecond, large enough for the seeds (50x50). Bigger claims must be refused before
    /// anything is allocated, which the run's `-malloc_limit_mb` checks.
    static let imageLimits = ImageLimits(maxPixels: 1 << 16, maxFileBytes: 1 << 20)

    var summary: String {
        switch self {
        case .png: return "PNG loader (libpng behind ImageLoader)"
        case .jpeg: return "JPEG loader (libjpeg-turbo behind ImageLoader, EXIF orientation)"
        case .pnm: return "PNM loader (P1-P6)"
        case .scan: return "whole scan pipeline: load, every pass, zbar, classify each read"
        case .qrModules: return "edge's QR decoder: segments of corrected data, and grids (first byte picks the version)"
        case .qrDirect: return "edge's QR reader straight from gray pixels: thresholds, finders, grids (first byte picks the width)"
        case .eanLines: return "edge's EAN-13 line reader from gray pixels, on a few lines and on every second one (first byte picks the width)"
        case .payload: return "payload classifier (first byte picks the symbology)"
        case .gs1: return "GS1 element strings: element data, symbology identifiers, the human-readable form, and the classifier's GS1 path"
        case .json: return "the payload JSON parser"
        case .tzif: return "TZif zone files and the rules built from them"
        case .posixTZ: return "POSIX TZ rules (the TZif footer)"
        case .envelope: return "vault envelopes opened by a real keyfile vault"
        case .fcm: return "FCM send and OAuth token answers through FCMClient"
        case .sync: return "sync answers: SyncAnswer, push and pull bodies, change payloads"
        }
    }

    /// Builds what `run` needs once, before the first input.
    func prepare() throws {
        switch self {
        case .scan: _ = try FuzzState.reader(); _ = FuzzState.classifier
        case .payload: _ = FuzzState.classifier
        case .envelope: _ = try FuzzState.vault()
        case .fcm: _ = try FuzzState.fcmAccount()
        default: break
        }
    }

    func run(_ data: [UInt8]) throws {
        switch self {
        case .png: Self.load(Self.withSignature([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], data))
        case .jpeg: Self.load(Self.withSignature([0xFF, 0xD8, 0xFF], data))
        case .pnm:
            // Keep a P1-P6 magic the mutator produced; give the rest "P5" so they reach the parser.
            let magic = data.count >= 2 && data[0] == UInt8(ascii: "P") && (UInt8(ascii: "1")...UInt8(ascii: "6")).contains(data[1])
            Self.load(magic ? data : Self.withSignature(Array("P5".utf8), data))
        case .scan: try Self.scan(data)
        case .qrModules: Self.qrModules(data)
        case .qrDirect: try Self.qrDirect(data)
        case .eanLines: try Self.eanLines(data)
        case .payload:
            guard let first = data.first else { return }
            let symbology = Symbology.allCases[Int(first) % Symbology.allCases.count]
            _ = FuzzState.classifier.classify(bytes: Array(data.dropFirst()), symbology: symbology)
        case .gs1: Self.gs1(data)
        case .json: _ = try? JSONParser.parse(data)
        case .tzif: Self.tzif(data)
        case .posixTZ: Self.posixTZ(String(decoding: data, as: UTF8.self))
        case .envelope: try Self.envelope(data)
        case .fcm: try Self.fcm(data)
        case .sync: Self.sync(data)
        }
    }

    /// The signature replaces the input's first bytes, so every input reaches the decoder the
    /// target is for (the loader picks it by magic) and mutations spend no time on the magic.
    static func withSignature(_ signature: [UInt8], _ data: [UInt8]) -> [UInt8] {
        signature + data.dropFirst(signature.count)
    }

    static func load(_ data: [UInt8]) {
        guard let image = try? ImageLoader.load(data: data, name: "fuzz", limits: imageLimits) else { return }
        precondition(image.width > 0 && image.height > 0 && image.pixels.count >= image.rowStride * (image.height - 1) + image.width,
                     "a decoded image's buffer is smaller than its shape")
    }

    static func scan(_ data: [UInt8]) throws {
        guard let image = try? ImageLoader.load(data: data, name: "fuzz", limits: ImageLimits(maxPixels: 256 * 256, maxFileBytes: 1 << 20)) else { return }
        let results: [ScanResult]
        do {
            results = try FuzzState.reader().read(image)
        } catch {
            return
        }
        for result in results {
            // The two enums match by raw value (Symbology's contract); a format without its
            // symbology is a bug the fuzzer should report.
            guard let symbology = Symbology(rawValue: result.format.rawValue) else { preconditionFailure("no symbology for \(result.format)") }
            _ = FuzzState.classifier.classify(bytes: result.bytes, symbology: symbology, gs1: result.gs1)
        }
    }

    /// The rest of the input as a version's corrected data (every mode, count and ECI the
    /// mutator invents), then as the bits of a module grid (format, version, codewords and
    /// Reed-Solomon on blocks that are almost never valid).
    static func qrModules(_ data: [UInt8]) {
        guard let first = data.first, data.count > 1 else { return }
        let version = Int(first) % 40 + 1
        let rest = Array(data.dropFirst())
        _ = QRSegments.parse(rest, version: version)
        let n = 17 + 4 * version
        let modules = (0..<(n * n)).map { i in rest[(i / 8) % rest.count] >> (7 - i % 8) & 1 == 1 }
        _ = QRModuleDecoder(dimension: n, modules: modules)?.decode()
    }

    /// The rest of the input as gray pixels, row by row, `21 + first byte` wide (a partial last
    /// row dropped), read by edge's own QR reader with a deadline; every read must be text.
    static func qrDirect(_ data: [UInt8]) throws {
        guard let image = grayPixels(data) else { return }
        let budget = WorkBudget(maxPixels: 1 << 16, deadline: ContinuousClock.now + .milliseconds(200))
        let reads = try image.withView { (view) throws(TransformError) in try QRDirectReader.read(view, budget: budget) }
        for read in reads { precondition(read.corners.count == 4, "a read without its four corners") }
    }

    /// The same pixels read by edge's EAN-13 line reader, on its first pass's few lines and on
    /// every second line; every read must be 13 digits with their check digit.
    static func eanLines(_ data: [UInt8]) throws {
        guard let image = grayPixels(data) else { return }
        let budget = WorkBudget(maxPixels: 1 << 16, deadline: ContinuousClock.now + .milliseconds(200))
        for sparse in [true, false] {
            let reads = try image.withView { (view) throws(TransformError) in try EAN13LineReader.read(view, budget: budget, sparse: sparse) }
            for read in reads { precondition(read.data.count == 13 && CheckDigits.isValidEAN13(read.data), "not an EAN-13: \(read.data)") }
        }
    }

    /// The rest of `data` as gray pixels, row by row, `21 + first byte` wide, a partial last row
    /// dropped, at most 65,536 pixels; nil when not one row is left.
    static func grayPixels(_ data: [UInt8]) -> GrayImage? {
        guard let first = data.first else { return nil }
        let width = 21 + Int(first), pixels = Array(data.dropFirst())
        let height = min(pixels.count / width, (1 << 16) / width)
        guard height >= 1 else { return nil }
        return GrayImage(width: width, height: height, pixels: Array(pixels[0..<(width * height)]))
    }

    /// The input as a GS1-marked symbol's element data, as text in any GS1 form, and through
    /// the classifier both marked and as plain Code 128 text; a parsed string must stay within
    /// its bounds and print back to a form that parses to the same elements.
    static func gs1(_ data: [UInt8]) {
        _ = FuzzState.classifier.classify(bytes: data, symbology: .code128, gs1: true)
        _ = FuzzState.classifier.classify(bytes: data, symbology: .code128)
        _ = try? GS1ElementString.parse(elementData: data, referenceYear: 2026)
        guard let string = try? GS1ElementString.parse(String(decoding: data, as: UTF8.self), referenceYear: 2026) else { return }
        precondition(!string.elements.isEmpty && string.elements.count <= GS1ElementString.maxElements, "element count out of bounds")
        // The human-readable form is ambiguous only for values holding "(NN)"; those are skipped.
        if !string.elements.contains(where: { $0.value.contains("(") }) {
            let again = try? GS1ElementString.parse(humanReadable: string.humanReadable, referenceYear: 2026)
            precondition(again == string, "\(string.humanReadable) does not parse back to the same elements")
        }
    }

    /// Parses a zone file and asks the rules what a station asks: the offset now and across
    /// DST, the instants of a local time (gaps and overlaps), and the transitions of a year.
    static func tzif(_ data: [UInt8]) {
        guard let rules = try? TZifParser.parse(data, name: "Fuzz/Zone") else { return }
        for instant: Int64 in [Int64.min / 4, -2_208_988_800, 0, 1_774_746_000, 1_792_882_800, 4_102_444_800, Int64.max / 4] {
            _ = rules.zonedTime(at: instant)
        }
        for local in probeTimes { _ = rules.instants(for: local); _ = rules.firstInstant(for: local) }
        _ = rules.transitions(in: 1_767_225_600...1_798_761_600)
    }

    static func posixTZ(_ text: String) {
        guard let rule = try? PosixTZRule.parse(text) else { return }
        for year in [1970, 2026, 2038, 2400, 9999] { _ = rule.transitions(inYear: year) }
        for instant: Int64 in [0, 1_774_746_000, 1_792_882_800, 253_402_300_799] { _ = rule.type(at: instant) }
    }

    static let probeTimes = [LocalDateTime(year: 2026, month: 3, day: 29, hour: 2, minute: 30),
                             LocalDateTime(year: 2026, month: 10, day: 25, hour: 2, minute: 30),
                             LocalDateTime(year: 2026, month: 12, day: 31, hour: 23, minute: 59, second: 59),
                             LocalDateTime(year: 1900, month: 1, day: 1)]

    /// The input is written as the envelope of a secret and read back through the vault, as
    /// `vault get` does. The key id (bytes 6..<22) is set to the vault's own key when the input
    /// is long enough, so mutated envelopes reach AES-GCM instead of stopping at "unknown key".
    static func envelope(_ data: [UInt8]) throws {
        let (vault, keyID) = try FuzzState.vault()
        var bytes = data
        if bytes.count >= 22 { bytes.replaceSubrange(6..<22, with: keyID) }
        // Owner-only, as the vault writes it: a looser mode is refused before the envelope is read.
        let path = vault.directory + "/secrets/fuzz.secret.vault"
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes), attributes: [.posixPermissions: 0o600]) else {
            throw CocoaError(.fileWriteUnknown)
        }
        if let value = try? vault.get(SecretName("fuzz.secret")) {
            // Only the committed seed made by this vault's own key opens; anything else is forged.
            precondition(value.count <= Vault.maxSecretBytes, "an envelope opened to an oversized secret")
        }
    }

    /// Input: a mode byte, the status (2 bytes, folded into 100...599), `Retry-After` up to
    /// the first NUL, then the body. Mode 7 of 8 is the OAuth token endpoint's answer (each
    /// costs a JWT signature, so it gets an eighth of the inputs); the rest an FCM send's.
    static func fcm(_ data: [UInt8]) throws {
        let (mode, response) = fuzzResponse(data)
        let account = try FuzzState.fcmAccount()
        if mode % 8 != 7 {
            // One token source for every send: the token is fetched once (again after a 401).
            let (tokens, transport) = FuzzState.fcmTokens(account)
            transport.answer.withLock { $0 = response }
            // A fresh client per input: a 429 pauses the project in the client it reached.
            let client = FCMClient(configuration: FCMClientConfiguration(endpoint: "http://127.0.0.1:9"), transport: transport,
                                   tokens: tokens, clock: { 1_790_000_000 }, random: { 0.5 })
            let message = FCMMessage(token: "fuzz-device", body: Array(#"{"message":{"token":"fuzz-device"}}"#.utf8), expiresAt: 1_790_003_600)
            blocking { _ = await client.send(message, projectID: "fuzz-project") }
        } else {
            let tokens = OAuthTokenSource(account: account, transport: FuzzTransport(token: response, answer: response))
            blocking { _ = try? await tokens.accessToken() }
        }
    }

    /// Same input shape as `fcm`: the answer to a push (SyncAnswer), then the body read as
    /// every sync document the agent decodes, and each pulled change's payload as its kind.
    static func sync(_ data: [UInt8]) {
        let (_, response) = fuzzResponse(data)
        _ = SyncAnswer.classify(response, now: 1_790_000_000)
        _ = try? ContractCoding.decode(SyncPushResponse.self, from: response.body)
        _ = try? ContractCoding.decode(APIErrorEnvelope.self, from: response.body)
        guard let page = try? ContractCoding.decode(SyncPullResponse.self, from: response.body) else { return }
        for change in page.changes {
            guard let payload = try? ContractCoding.encode(change.payload) else { continue }
            _ = try? ContractCoding.decode(PushNotificationChange.self, from: payload)
            _ = try? ContractCoding.decode(PushReceiptChange.self, from: payload)
            _ = try? ContractCoding.decode(PushUserEvent.self, from: payload)
            _ = try? ContractCoding.decode(PurchaseOrder.self, from: payload)
            _ = try? ContractCoding.decode(EnrollmentStatusResponse.self, from: payload)
        }
    }

    static func fuzzResponse(_ data: [UInt8]) -> (mode: UInt8, response: HTTPResponse) {
        guard data.count >= 3 else { return (0, HTTPResponse(status: 200, headers: [], body: data, version: .http2)) }
        let status = 100 + Int(UInt16(data[1]) << 8 | UInt16(data[2])) % 500
        let rest = data.dropFirst(3)
        var headers: [HTTPHeader] = []
        var body = Array(rest)
        if let nul = rest.firstIndex(of: 0) {
            headers = [HTTPHeader("Retry-After", String(decoding: rest[..<nul], as: UTF8.self))]
            body = Array(rest[(nul + 1)...])
        }
        return (data[0], HTTPResponse(status: status, headers: headers, body: body, version: .http2))
    }

    /// libFuzzer calls synchronously; the async client runs to completion on the global
    /// executor while this thread waits.
    static func blocking(_ work: @escaping @Sendable () async -> Void) {
        let done = DispatchSemaphore(value: 0)
        Task { await work(); done.signal() }
        done.wait()
    }
}

/// A transport that answers the token endpoint with `token` and everything else with `answer`.
final class FuzzTransport: HTTPTransport {
    let token: HTTPResponse
    let answer: Locked<HTTPResponse>

    init(token: HTTPResponse, answer: HTTPResponse) {
        self.token = token
        self.answer = Locked(answer)
    }

    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        request.url.hasSuffix("/token") ? token : answer.withLock { $0 }
    }
}

/// State shared by all inputs of one fuzzing process, built on first use.
enum FuzzState {
    /// The sample station's sponsors and classes, so linking codes and custom classes are live.
    static let classifier: PayloadClassifier = {
        let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../samples/edge.json")
        do {
            return PayloadClassifier(config: try PayloadConfig(json: try Data(contentsOf: samples)))
        } catch {
            fatalError("edge-fuzz: samples/edge.json cannot be read as a payload configuration: \(error)")
        }
    }()

    static let tokenAnswer = HTTPResponse(status: 200, headers: [], body: Array(#"{"access_token":"fuzz-access-token","expires_in":3600}"#.utf8), version: .http2)

    // libFuzzer calls the target from one thread, so plain cached values suffice.
    nonisolated(unsafe) private static var cachedReader: BarcodeReader?
    nonisolated(unsafe) private static var cachedVault: (Vault, [UInt8])?
    nonisolated(unsafe) private static var cachedAccount: ServiceAccount?
    nonisolated(unsafe) private static var cachedTokens: (OAuthTokenSource, FuzzTransport)?

    static func fcmTokens(_ account: ServiceAccount) -> (OAuthTokenSource, FuzzTransport) {
        if let cachedTokens { return cachedTokens }
        let transport = FuzzTransport(token: tokenAnswer, answer: tokenAnswer)
        let tokens = (OAuthTokenSource(account: account, transport: transport), transport)
        cachedTokens = tokens
        return tokens
    }

    static func reader() throws -> BarcodeReader {
        if let cachedReader { return cachedReader }
        // Every pass with a tight time limit: the budget must stop long passes.
        let reader = try BarcodeReader(options: ReaderOptions(formats: Set(BarcodeFormat.allCases), timeBudget: .milliseconds(200), maxPixels: 1 << 20,
                                                              timeLimit: .milliseconds(400)))
        cachedReader = reader
        return reader
    }

    /// A keyfile vault in a fresh directory with one secret, and the id of its key.
    static func vault() throws -> (Vault, [UInt8]) {
        if let cachedVault { return cachedVault }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("edge-fuzz-vault-\(getpid())").path
        let vault = try Vault(directory: directory, backend: .keyfile)
        try vault.put(SecureBytes(Array("fuzz-secret-value".utf8)), name: SecretName("fuzz.secret"))
        let envelope = try Envelope(decoding: DurableFile.read(directory + "/secrets/fuzz.secret.vault", maxBytes: Vault.maxEnvelopeBytes))
        cachedVault = (vault, envelope.keyID)
        return (vault, envelope.keyID)
    }

    /// A service account with a fresh RSA key; the token endpoint is the fuzz transport.
    static func fcmAccount() throws -> ServiceAccount {
        if let cachedAccount { return cachedAccount }
        let key = try RSAPrivateKey.generate(bits: 2048)
        let pem = try key.pkcs8PEM().withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
        let document = EdgeContract.JSONValue.object(["type": .string("service_account"), "project_id": .string("fuzz-project"),
                                         "private_key_id": .string("fuzz"), "private_key": .string(pem),
                                         "client_email": .string("fuzz@fuzz-project.iam.gserviceaccount.com"),
                                         "token_uri": .string("http://127.0.0.1:9/token")])
        let account = try ServiceAccount(json: try ContractCoding.encode(document))
        cachedAccount = account
        return account
    }
}
#endif
