import EdgeAgent
import FoundationEssentials
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import NIOSSL
import ServiceLifecycle

/// The kiosk's HTTP server (UI-1) as one of the agent's services: pages, the JSON API, the live
/// event stream and the embedded assets, on 127.0.0.1 by default, with TLS when configured.
struct KioskServer: Service {
    let kiosk: Kiosk
    let logger: Logger

    func run() async throws {
        let router = Router()
        router.add(middleware: kiosk.checks)
        registerPages(on: router)
        KioskAPI(kiosk: kiosk).register(on: router)

        let settings = kiosk.settings
        let server: HTTPServerBuilder
        if let certificate = settings.tlsCertificate, let key = settings.tlsKey {
            let chain = try NIOSSLCertificate.fromPEMFile(certificate).map { NIOSSLCertificateSource.certificate($0) }
            // Read as PEM whatever the file is called: NIOSSL's `.file` source guesses the format from
            // the extension and takes `.key` for DER, the name most PEM keys have.
            let privateKey = try NIOSSLPrivateKey(file: key, format: .pem)
            let configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(privateKey))
            server = try .tls(.http1(), tlsConfiguration: configuration)
        } else {
            server = .http1()
        }
        let scheme = settings.tlsCertificate == nil ? "http" : "https"
        let state = kiosk.context.state
        let logger = self.logger
        let partReason = settings.requiresPIN ? "\(scheme) with the operator PIN" : nil
        let app = Application(router: router, server: server,
                              configuration: ApplicationConfiguration(address: .hostname(settings.host, port: settings.port), serverName: nil),
                              onServerRunning: { channel in
                                  let port = channel.localAddress?.port ?? settings.port
                                  let host = settings.host.contains(":") ? "[\(settings.host)]" : settings.host
                                  let address = "\(scheme)://\(host):\(port)"
                                  state.update { $0.uiAddress = address }
                                  state.setPart("ui", .running, reason: partReason.map { "\(address), \($0)" } ?? address)
                                  logger.info("kiosk listening", metadata: ["event": "ui.listening", "address": "\(address)"])
                              }, logger: logger)
        // An open event stream, or a lookup held by a backend that does not answer, must not hold
        // the shutdown: end them all once it begins.
        let kiosk = self.kiosk
        try await withGracefulShutdownHandler {
            try await app.run()
        } onGracefulShutdown: {
            kiosk.finishStreams()
            kiosk.backend.cancelAll()
        }
        state.update { $0.uiAddress = nil }
    }

    private func registerPages(on router: Router<BasicRequestContext>) {
        let kiosk = self.kiosk
        router.get("/") { _, _ in
            KioskResponse.redirect(kiosk.servesDock ? "/dock" : kiosk.servesClinic ? "/clinic" : "/status")
        }
        router.get("/dock") { _, _ -> Response in
            guard kiosk.servesDock else { throw KioskError(.notThisStation, "This station is not a receiving dock.", status: .notFound) }
            return KioskResponse.html(kiosk.pages.dock(kiosk))
        }
        router.get("/dock/regions/lookup") { _, _ -> Response in
            guard kiosk.servesDock else { throw KioskError(.notThisStation, "This station is not a receiving dock.", status: .notFound) }
            return KioskResponse.html(kiosk.pages.dockLookupRegion(kiosk))
        }
        router.get("/clinic") { _, _ -> Response in
            guard kiosk.servesClinic else { throw KioskError(.notThisStation, "This station is not a clinic station.", status: .notFound) }
            return KioskResponse.html(kiosk.pages.clinic(kiosk))
        }
        router.get("/status") { _, _ in KioskResponse.html(kiosk.pages.status(kiosk)) }
        router.get("/login") { _, _ in KioskResponse.html(kiosk.pages.login(kiosk)) }
        router.get("/static/kiosk.js") { _, _ in KioskResponse.bytes(KioskPages.script, contentType: "text/javascript; charset=utf-8") }
        router.get("/static/kiosk.css") { _, _ in KioskResponse.bytes(KioskPages.style, contentType: "text/css; charset=utf-8") }
    }
}
