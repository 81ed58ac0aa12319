import Hummingbird
import HummingbirdCore
import HummingbirdHTTP2
import Logging
import NIOCore
import NIOSSL

/// Builds the stand-in as a Hummingbird application bound to 127.0.0.1 (only), for the executable
/// (`runService()`) and for `Standin` (in process). `onServerRunning` gets the bound port, which is
/// how port 0 (any free port) is learnt.
///
/// Throws `StandinError.notLoopback` for any other host: refusing here, before anything binds, is
/// what keeps a stand-in from ever listening on a network (SYN-11).
public func buildStandinApplication(
    configuration: StandinConfiguration,
    backend: StandinBackend,
    port: Int,
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) throws -> some ApplicationProtocol {
    guard configuration.host == StandinConfiguration.loopbackHost else {
        throw StandinError(
            .notLoopback, "edge-standin binds \(StandinConfiguration.loopbackHost) only, not \(configuration.host)",
            context: ["host": configuration.host])
    }
    guard (0...65535).contains(port) else {
        throw StandinError(.invalidPort, "Port \(port) is not 0 to 65535", context: ["port": String(port)])
    }
    var logger = Logger(label: "edge-standin")
    logger.logLevel = configuration.logLevel
    let injector = backend.faults
    let journal = backend.journal
    let channel = HTTP1Channel.Configuration(additionalChannelHandlers: [FaultChannelHandler(injector: injector, journal: journal)])
    let server: HTTPServerBuilder
    if let tls = configuration.tls {
        let certificates: [NIOSSLCertificate]
        let key: NIOSSLPrivateKey
        do {
            certificates = try NIOSSLCertificate.fromPEMFile(tls.certificateChain)
            key = try NIOSSLPrivateKey(file: tls.privateKey, format: .pem)
        } catch {
            throw StandinError(.startFailed, "The TLS certificate or key cannot be read: \(error)",
                               context: ["certificate": tls.certificateChain, "key": tls.privateKey])
        }
        // ALPN offers h2 and http/1.1: HTTP/2 for the FCM stand-in, either for the rest.
        let tlsConfiguration = TLSConfiguration.makeServerConfiguration(certificateChain: certificates.map { .certificate($0) },
                                                                        privateKey: .privateKey(key))
        server = try .http2Upgrade(tlsConfiguration: tlsConfiguration, configuration: HTTP2ChannelConfiguration(streamConfiguration: channel))
    } else {
        server = .http1(configuration: channel)
    }
    return Application(
        responder: StandinResponder(backend: backend),
        server: server,
        configuration: ApplicationConfiguration(
            address: .hostname(StandinConfiguration.loopbackHost, port: port), serverName: "edge-standin"),
        onServerRunning: { channel in
            await onServerRunning(channel.localAddress?.port ?? port)
        },
        logger: logger)
}
