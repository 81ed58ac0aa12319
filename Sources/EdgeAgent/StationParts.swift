import EdgeCore
import EdgeCrypto
import EdgeFCM
import EdgeFCMTransport
import EdgeHTTP
import EdgePush
import EdgeStore
import EdgeSync
import EdgeVault
import FoundationEssentials
import Logging

/// The builders of the station's moving parts, used by `buildAgent` and by the CLI commands
/// that run one part on its own (`edge sync run`, `edge push run`), so both get the same part.
public enum StationParts {
    /// The version sent to the backend (SYN-6) and checked against a 426: this build's (`BuildInfo`).
    public static let appVersion = BuildInfo.current.version

    /// The station's zone (PSH-3, SYN-6): push.station_zone when set, else the system's. One
    /// resolver, so quiet hours and the X-Timezone the backend sees agree.
    public static func stationZone(_ push: PushSettings?) -> String {
        if let zone = push?.stationZone { return zone }
        let system = SyncIdentity.ianaTimezone()
        return (try? TimeZoneDatabase.validate(system)) != nil ? system : "UTC"
    }

    public static func identity(deviceID: String, push: PushSettings?) -> SyncIdentity {
        SyncIdentity(deviceID: deviceID, appVersion: appVersion, osVersion: SyncIdentity.osVersion(), timezone: stationZone(push))
    }

    /// The libcurl transport to the sync backend (TLS verified, SPKI pins, HTTP/2 when offered).
    ///
    /// Decision: up to 8 connections, because the station's parts share it (`BackendTransport`)
    /// and over HTTP/1.1 each request in flight holds one: the sender's batch, a pull, the
    /// kiosk's and the cameras' lookups, a photo upload and a conflict's refresh may all be
    /// waiting on a backend that stalls, and a part must not queue behind the others' stalled
    /// requests for a connection (`BlackHoleBackendTests` holds five at once). Over HTTP/2 they
    /// share one.
    public static func syncTransport(_ settings: SyncSettings) throws(TransportError) -> CurlTransport {
        try CurlTransport(options: TransportOptions(connectTimeout: settings.connectTimeout, totalTimeout: settings.totalTimeout,
                                                    pinnedPublicKeys: settings.pins, caFile: settings.caFile,
                                                    maxConnectionsPerHost: 8, userAgent: "edge/" + appVersion))
    }

    /// The outbox sender; delivered entries go to `router`'s handlers in the settling transaction.
    /// `kinds`: the capabilities' declared kinds (`StationSchema.outboxKinds`); no default, so
    /// that no sender sends a kind with its own endpoint to the sync push by omission.
    public static func sender(outbox: Outbox, transport: any HTTPTransport, tokens: any TokenProvider, settings: SyncSettings,
                              identity: SyncIdentity, router: ChangeRouter, kinds: [OutboxKind],
                              rejections: any CredentialRejectionHandler = HoldingRejectionHandler(),
                              logger: Logger = Logger(label: "edge.sync")) -> OutboxSender {
        var configuration = SenderConfiguration(baseURL: settings.baseURL, identity: identity)
        configuration.requestsPerMinute = settings.requestsPerMinute
        configuration.kinds = kinds
        configuration.onDelivered = { db, entry in try router.delivered(db, entry, now: Date().timeIntervalSince1970) }
        return OutboxSender(outbox: outbox, transport: transport, tokens: tokens, rejections: rejections, configuration: configuration, logger: logger)
    }

    /// One pull of every page, stored and routed by kind (AGT-5).
    public static func pull(outbox: Outbox, transport: any HTTPTransport, tokens: any TokenProvider, settings: SyncSettings,
                            identity: SyncIdentity, router: ChangeRouter) async throws(SyncError) -> PullReport {
        let puller = SyncPuller(outbox: outbox, transport: transport, tokens: tokens, baseURL: settings.baseURL, identity: identity)
        let state = SyncState(database: outbox.database)
        return try await puller.pull { db, changes in
            try router.apply(db, changes, state: state, now: Date().timeIntervalSince1970)
        }
    }

    /// Push intake from pulled changes and from delivered entries of the kinds that confirm a
    /// delivery (PSH-1, RCV-7: a confirmed GRN), registered on `router`. `onReport` sees what
    /// each pulled page gave the relay (inside the page's transaction).
    public static func registerPushIntake(_ intake: PushIntake, on router: ChangeRouter, kinds: [OutboxKind],
                                          onReport: (@Sendable (PushIntakeReport) -> Void)? = nil) {
        router.onPulled(kinds: PushIntake.kinds) { db, changes, now in
            let report = try intake.apply(db, changes, now: Int64(now))
            onReport?(report)
        }
        for kind in kinds where kind.confirmsDelivery {
            router.onDelivered(kind: kind.name) { db, entry, now in
                _ = try intake.grnConfirmed(db, payload: entry.payload, now: Int64(now))
            }
        }
    }

    /// The relay's way out (PSH-7, PSH-8): the service account from the vault, the FCM
    /// transport (HTTP/2 over TLS, multiplexed; `FCMTransport` says why not libcurl), the FCM
    /// client, sender and relay loop.
    public static func pushRelay(settings: PushSettings, store: PushStore, vault: StationVault) throws(AgentPartError) -> PushRelayParts {
        let account: SecureBytes?
        do {
            account = try vault.secret(settings.serviceAccountSecret)
        } catch {
            throw AgentPartError(.vaultUnavailable, "vault: \(error.message)")
        }
        guard let account else {
            throw AgentPartError(.secretMissing, "no FCM service account in the vault under \(settings.serviceAccountSecret) (`edge vault put \(settings.serviceAccountSecret)`)")
        }
        let serviceAccount: ServiceAccount
        do {
            serviceAccount = try account.withUnsafeBytes { bytes throws(FCMError) in try ServiceAccount(json: Array(bytes)) }
        } catch {
            throw AgentPartError(.secretMissing, "vault secret \(settings.serviceAccountSecret): \(error.message)")
        }
        let transport: FCMTransport
        do {
            transport = try FCMTransport(options: TransportOptions(connectTimeout: 10, totalTimeout: settings.requestTimeout,
                                                                   caFile: settings.caFile, userAgent: "edge/" + appVersion))
        } catch {
            throw AgentPartError(.transportFailed, error.message)
        }
        let tokens = OAuthTokenSource(account: serviceAccount, transport: transport)
        let client = FCMClient(configuration: FCMClientConfiguration(endpoint: settings.endpoint), transport: transport, tokens: tokens)
        let projectID = settings.projectID ?? serviceAccount.projectID
        let sender = PushSender(store: store, client: client, projectID: projectID, maxInFlight: settings.maxInFlight)
        return PushRelayParts(transport: transport, sender: sender, relay: PushRelay(store: store, sender: sender), projectID: projectID)
    }
}

/// What `StationParts.pushRelay` builds.
public struct PushRelayParts: Sendable {
    public let transport: FCMTransport
    public let sender: PushSender
    public let relay: PushRelay
    public let projectID: String
}
